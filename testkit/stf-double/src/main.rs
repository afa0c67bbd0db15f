//! `stf-double`: the STF API double with virtual phones behind it, for
//! `scripts/stf-contract.sh` and for trying `--farm` by hand. Prints
//! `listening on http://HOST:PORT` (or `https://…` with `--tls-ca-out`) on stdout, then
//! serves until killed.

use std::time::Duration;

use clap::Parser;
use stf_double::{Config, FarmDevice, StfDouble};
use virtual_phone::{PhoneConfig, VirtualPhone};

/// An STF API double on loopback with virtual phones behind its remote adb.
#[derive(Parser)]
struct Args {
    /// The access token it accepts.
    #[arg(long)]
    token: String,
    /// Port on 127.0.0.1 (0: any free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// How many virtual phones the farm has (serials STF-PHONE-1, …).
    #[arg(long, default_value_t = 2)]
    phones: usize,
    /// Idle timeout of a lease taken without one, in milliseconds.
    #[arg(long, default_value_t = 900_000)]
    group_timeout_ms: u64,
    /// Serve https, and write the CA certificate its certificate chains to (PEM) here.
    #[arg(long, value_name = "PATH")]
    tls_ca_out: Option<std::path::PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut phones = Vec::new();
    let mut devices = Vec::new();
    for i in 1..=args.phones {
        let serial = format!("STF-PHONE-{i}");
        let phone = VirtualPhone::start(PhoneConfig {
            serial: Some(serial.clone()),
            ..PhoneConfig::default()
        })?;
        devices.push(FarmDevice::pixel(&serial, phone.addr()));
        phones.push(phone);
    }
    let mut config = Config::new(&args.token, devices);
    config.port = args.port;
    config.group_timeout = Duration::from_millis(args.group_timeout_ms);
    config.tls = args.tls_ca_out.is_some();
    let stf = StfDouble::start(config)?;
    if let (Some(path), Some(pem)) = (&args.tls_ca_out, stf.ca_pem()) {
        std::fs::write(path, pem)?;
    }
    #[allow(clippy::print_stdout)] // the one line a script reads
    {
        println!("listening on {}", stf.url());
    }
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
