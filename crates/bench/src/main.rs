//! `mobile-mcp-bench`: one run that measures `mobile-mcp` against a peer MCP server on the same
//! virtual phone, through the same real adb server, with the same rmcp client.
//!
//! What it does: starts the virtual phone and a private adb server (real Debian `adb`), connects
//! them, measures the floor (a bare `adb_client` `shell:true` round trip), counts how many device
//! round trips each of our tools makes (the phone's command log), then drives every server over
//! stdio **in alternation** (call i of every server before call i+1 of any, rotating who goes
//! first) so machine noise hits all of them alike. Also cold start (spawn → `initialize`
//! response) and peak RSS of each server's process tree (sampled from `/proc`).
//!
//! It is not a test: a peer tool that fails on the virtual phone is reported, not fatal.
//! Output: a markdown table on stdout plus `OUT/latest.json` and `OUT/latest.md`.
//! `scripts/bench.sh` builds, installs the peer and calls this; see `docs/performance.md`.
//!
//! Modules: [`args`] (command line), [`tools`] (what is called), [`client`] (spawning and
//! calling a server), [`adb`] (the floor and the counting proxy), [`peer`] (the peer server),
//! [`footprint`] (process trees, RSS, cold start), [`stats`], [`run`] (the phases) and
//! [`report`] (JSON and markdown).

mod adb;
mod args;
mod client;
mod footprint;
mod peer;
mod report;
mod run;
mod stats;
mod tools;

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Parser;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, VirtualPhone};

use crate::args::Args;
use crate::footprint::kill_tree;
use crate::peer::peer_daemon_pid;

fn main() -> Result<()> {
    let args = Args::parse();
    std::fs::create_dir_all(&args.work)?;
    std::fs::create_dir_all(&args.out)?;
    let work = std::fs::canonicalize(&args.work)?;

    let phone = VirtualPhone::start(PhoneConfig::default()).context("start the virtual phone")?;
    let mut adb = PrivateAdbServer::start().context("start a private adb server")?;
    std::fs::write(work.join("adb.port"), adb.port().to_string())?;
    adb.connect(&phone).context("adb connect")?;
    // adb_client runs `adb start-server` without -P on loopback: point it at ours.
    // SAFETY: single-threaded here (no runtime, no threads started yet).
    unsafe {
        std::env::set_var("ANDROID_ADB_SERVER_PORT", adb.port().to_string());
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = rt.block_on(run::run(&args, &work, &phone, &adb));
    rt.shutdown_timeout(Duration::from_secs(5));
    if let Some(pid) = peer_daemon_pid(&work) {
        kill_tree(pid);
    }
    adb.kill();
    phone.stop();
    result
}
