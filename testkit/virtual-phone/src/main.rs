//! `virtual-phone`: run a virtual Android phone on loopback until killed.
//!
//! ```text
//! virtual-phone [--port PORT] [--serial SERIAL] [--log FILE.jsonl]
//!                [--state SCENARIO.json | --living] [--latency SDK]
//!                [--adb-connect [ADB_SERVER_PORT]]
//! ```
//! Prints `listening on 127.0.0.1:PORT` (and `serial 127.0.0.1:PORT`) on stdout.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;
use virtual_phone::living::latency::LatencyProfile;
use virtual_phone::living::scenario::living_state;
use virtual_phone::{
    PhoneConfig, VirtualPhone, adb_server::run_with_timeout, default_state, load_state,
};

/// A virtual Android phone speaking the adbd protocol on 127.0.0.1.
#[derive(Parser, Debug)]
#[command(name = "virtual-phone", version)]
struct Args {
    /// TCP port on 127.0.0.1 (0 = ephemeral). 5555-5585 are refused (adb's emulator scan range).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Serial reported as ro.serialno (default 127.0.0.1:PORT).
    #[arg(long)]
    serial: Option<String>,
    /// Append every received command as a JSON line to this file.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Load a scenario (JSON PhoneState; missing fields take the default scenario's values).
    #[arg(long)]
    state: Option<PathBuf>,
    /// Serve the living Shop scenario (screens that change with time; `living::scenario`).
    #[arg(long, conflicts_with = "state")]
    living: bool,
    /// Give every command the cost it has on a mid-range phone running this SDK level
    /// (the living UI's latency profile, `living::latency`).
    #[arg(long, value_name = "SDK")]
    latency: Option<u32>,
    /// Register with a running adb server: `adb -P PORT connect 127.0.0.1:OURPORT` (default 5037).
    #[arg(long, num_args = 0..=1, default_missing_value = "5037", value_name = "ADB_SERVER_PORT")]
    adb_connect: Option<u16>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if (5555..=5585).contains(&args.port) {
        bail!(
            "port {} is in 5555-5585, which the adb server scans for emulators; choose another",
            args.port
        );
    }
    let mut state = match &args.state {
        Some(p) => {
            Some(load_state(p).with_context(|| format!("loading scenario {}", p.display()))?)
        }
        None if args.living => Some(living_state()),
        None => None,
    };
    if let Some(sdk) = args.latency {
        state.get_or_insert_with(default_state).living.latency =
            Some(LatencyProfile::mid_range(sdk));
    }
    let config = PhoneConfig {
        addr: SocketAddr::from(([127, 0, 0, 1], args.port)),
        serial: args.serial.clone(),
        log_path: args.log.clone(),
        state,
    };
    let phone = VirtualPhone::start(config).context("starting the virtual phone")?;
    println!("listening on {}", phone.addr());
    println!("serial {}", phone.serial());
    if let Some(server_port) = args.adb_connect {
        let mut cmd = Command::new(std::env::var_os("ADB").unwrap_or_else(|| "adb".into()));
        cmd.arg("-P")
            .arg(server_port.to_string())
            .arg("connect")
            .arg(phone.serial());
        let out = run_with_timeout(cmd, Duration::from_secs(20)).context("running adb connect")?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        if !text.contains("connected to") {
            bail!("adb connect failed: {}", text.trim());
        }
        println!("{}", text.trim());
    }
    loop {
        std::thread::park_timeout(Duration::from_secs(3600));
    }
}
