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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use base64::Engine;
use clap::Parser;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use serde_json::{Value, json};
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

#[derive(Parser, Debug)]
#[command(about = "Benchmark mobile-mcp against a peer server on the virtual phone")]
struct Args {
    /// Our server binary (a release build).
    #[arg(long)]
    ours: PathBuf,
    /// Folder where the peer package is installed (`node_modules/@mobilenext/mobile-mcp`).
    /// Omit to measure ours only.
    #[arg(long)]
    peer_dir: Option<PathBuf>,
    /// Measured calls per tool and server (after warm-up).
    #[arg(long, default_value_t = 20)]
    iters: usize,
    /// Calls of ours and of ours with the filter per round (interleaved, so each gets
    /// `iters × ours_repeat` samples): their medians are sub-millisecond and the
    /// filter-overhead ratio compares the two, so they get more samples than the peers.
    #[arg(long, default_value_t = 3)]
    ours_repeat: usize,
    /// Warm-up calls per tool and server.
    #[arg(long, default_value_t = 2)]
    warmup: usize,
    /// Cold starts per server.
    #[arg(long, default_value_t = 10)]
    cold: usize,
    /// Round trips for the adb floor.
    #[arg(long, default_value_t = 50)]
    floor_iters: usize,
    /// Scratch folder (private HOMEs, ANDROID_HOME, logs); created if missing.
    #[arg(long)]
    work: PathBuf,
    /// Where latest.json / latest.md go.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 30)]
    call_timeout: u64,
    /// Stop measuring (and report what was measured) after this many seconds.
    #[arg(long, default_value_t = 420)]
    budget: u64,
    /// Stop calling one server for one tool once its measured calls add up to this many
    /// seconds (with at least 5 samples), so a slow peer cannot eat the whole budget; the
    /// sample count is reported.
    #[arg(long, default_value_t = 30)]
    cell_budget: u64,
    /// Free text recorded with the results (the command line, the machine).
    #[arg(long, default_value = "")]
    note: String,
}

/// One benchmarked tool: a row label, the MCP tool name, its arguments (`$DEV` = device id).
struct Tool {
    label: &'static str,
    name: &'static str,
    args: Value,
}

fn tools() -> Vec<Tool> {
    let t = |label, name, args| Tool { label, name, args };
    vec![
        t("list devices", "mobile_list_available_devices", json!({})),
        t("list apps", "mobile_list_apps", json!({"device": "$DEV"})),
        t(
            "screen size",
            "mobile_get_screen_size",
            json!({"device": "$DEV"}),
        ),
        t(
            "screenshot",
            "mobile_take_screenshot",
            json!({"device": "$DEV"}),
        ),
        t(
            "list elements",
            "mobile_list_elements_on_screen",
            json!({"device": "$DEV"}),
        ),
        t(
            "tap",
            "mobile_click_on_screen_at_coordinates",
            json!({"device": "$DEV", "x": 5, "y": 5}),
        ),
        t(
            "type text",
            "mobile_type_keys",
            json!({"device": "$DEV", "text": "hello", "submit": false}),
        ),
        t(
            "launch",
            "mobile_launch_app",
            json!({"device": "$DEV", "packageName": "com.example.notes"}),
        ),
        t(
            "terminate",
            "mobile_terminate_app",
            json!({"device": "$DEV", "packageName": "com.example.notes"}),
        ),
        t(
            "press button",
            "mobile_press_button",
            json!({"device": "$DEV", "button": "BACK"}),
        ),
        t(
            "get orientation",
            "mobile_get_orientation",
            json!({"device": "$DEV"}),
        ),
        t(
            "open URL",
            "mobile_open_url",
            json!({"device": "$DEV", "url": "https://example.com/bench"}),
        ),
    ]
}

/// A call that our server rejects in argument validation, before any device I/O: the
/// client + server round trip of "a tool touching no device".
fn no_device_call(dev: &str) -> (&'static str, Value) {
    (
        "mobile_terminate_app",
        json!({"device": dev, "packageName": "not a package;"}),
    )
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum Kind {
    Ours,
    OursFilter,
    PeerDefault,
    PeerLegacy,
}

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Kind::Ours => "ours",
            Kind::OursFilter => "ours_filter",
            Kind::PeerDefault => "peer_default",
            Kind::PeerLegacy => "peer_legacy",
        }
    }
}

/// How to spawn one server.
#[derive(Clone)]
struct Spawn {
    kind: Kind,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    stderr_log: PathBuf,
}

struct Running {
    spawn: Spawn,
    client: RunningService<rmcp::RoleClient, ()>,
    pid: u32,
}

async fn start(s: &Spawn) -> Result<(Running, Duration)> {
    let mut cmd = tokio::process::Command::new(&s.program);
    cmd.args(&s.args);
    for k in [
        "MCP_MODEL_PAYLOAD_FILTER",
        "MOBILEMCP_LEGACY_ROBOT",
        "RUST_LOG",
        "ADB_SERVER_SOCKET",
    ] {
        cmd.env_remove(k);
    }
    for (k, v) in &s.env {
        cmd.env(k, v);
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&s.stderr_log)?;
    let t0 = Instant::now();
    let (transport, _) = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(Stdio::from(log))
        .spawn()
        .with_context(|| format!("spawn {}", s.program.display()))?;
    let pid = transport.id().unwrap_or(0);
    let client = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .context("initialize did not answer within 60 s")?
        .context("initialize")?;
    let cold = t0.elapsed();
    Ok((
        Running {
            spawn: s.clone(),
            client,
            pid,
        },
        cold,
    ))
}

async fn stop(r: Running) {
    let pid = r.pid;
    let _ = tokio::time::timeout(Duration::from_secs(10), r.client.cancel()).await;
    // The transport's own shutdown waits and then kills; make sure nothing is left.
    for _ in 0..100 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    kill_tree(pid);
}

fn alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    // A zombie still has /proc/PID; read its state.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

fn kill_tree(pid: u32) {
    for p in tree(pid).into_iter().rev() {
        // SAFETY: kill(2) with a pid we spawned (or its descendant); no memory involved.
        unsafe {
            libc::kill(p as i32, libc::SIGKILL);
        }
    }
}

/// `pid` and all its descendants (via /proc/PID/task/*/children).
fn tree(pid: u32) -> Vec<u32> {
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() && out.len() < 512 {
        let p = out[i];
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) {
            for t in tasks.flatten() {
                if let Ok(c) = std::fs::read_to_string(t.path().join("children")) {
                    out.extend(c.split_whitespace().filter_map(|x| x.parse::<u32>().ok()));
                }
            }
        }
        i += 1;
    }
    out
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Samples the RSS of every registered process tree every 20 ms; keeps the peak per label.
#[derive(Default)]
struct RssSampler {
    roots: Mutex<Vec<(String, u32)>>,
    peak_kib: Mutex<BTreeMap<String, u64>>,
    stop: AtomicBool,
}

impl RssSampler {
    fn watch(&self, label: &str, pid: u32) {
        self.roots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((label.to_string(), pid));
    }
    fn run(self: Arc<Self>) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            while !self.stop.load(Ordering::Relaxed) {
                let roots = self.roots.lock().unwrap_or_else(|e| e.into_inner()).clone();
                for (label, pid) in roots {
                    if !alive(pid) {
                        continue;
                    }
                    let total: u64 = tree(pid).into_iter().map(rss_kib).sum();
                    let mut peak = self.peak_kib.lock().unwrap_or_else(|e| e.into_inner());
                    let e = peak.entry(label).or_insert(0);
                    *e = (*e).max(total);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    }
}

#[derive(Default, Clone, serde::Serialize)]
struct Stats {
    n: usize,
    median_ms: f64,
    min_ms: f64,
    max_ms: f64,
}

fn stats(samples: &[Duration]) -> Option<Stats> {
    if samples.is_empty() {
        return None;
    }
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(|a, b| a.total_cmp(b));
    let n = ms.len();
    let median = if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    };
    Some(Stats {
        n,
        median_ms: median,
        min_ms: ms[0],
        max_ms: ms[n - 1],
    })
}

fn median_u(v: &[usize]) -> Option<usize> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// What one server did for one tool.
#[derive(Default, Clone, serde::Serialize)]
struct Cell {
    #[serde(skip)]
    samples: Vec<Duration>,
    stats: Option<Stats>,
    response_bytes: Option<usize>,
    image_bytes: Option<usize>,
    image_mime: Option<String>,
    image_dims: Option<(u32, u32)>,
    #[serde(skip)]
    round_trip_samples: Vec<usize>,
    device_round_trips: Option<usize>,
    /// Ours only: connections our server opened to the adb server per call (median),
    /// counted through [`CountingProxy`]: each phone command, and each query the adb server
    /// answers itself (`host:devices-l`, which the phone never sees).
    adb_connections: Option<usize>,
    failures: usize,
    error: Option<String>,
    skipped: bool,
    /// Stopped early by `--cell-budget` (fewer samples than `--iters`).
    capped: bool,
}

/// Outcome of one call.
struct Outcome {
    elapsed: Duration,
    ok: bool,
    text: String,
    bytes: usize,
    image: Option<ImageInfo>,
}

/// Decoded size, MIME type and dimensions of a result's image.
type ImageInfo = (usize, String, Option<(u32, u32)>);

async fn call(r: &Running, name: &str, args: &Value, timeout: Duration) -> Outcome {
    let req = CallToolRequestParams::new(name.to_string())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    let t0 = Instant::now();
    let res = tokio::time::timeout(timeout, r.client.call_tool(req)).await;
    let elapsed = t0.elapsed();
    match res {
        Err(_) => Outcome {
            elapsed,
            ok: false,
            text: format!("timed out after {timeout:?}"),
            bytes: 0,
            image: None,
        },
        Ok(Err(e)) => Outcome {
            elapsed,
            ok: false,
            text: format!("protocol error: {e}"),
            bytes: 0,
            image: None,
        },
        Ok(Ok(result)) => outcome(elapsed, &result),
    }
}

fn outcome(elapsed: Duration, result: &CallToolResult) -> Outcome {
    let bytes = serde_json::to_vec(result).map(|v| v.len()).unwrap_or(0);
    let text = result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let image = result.content.iter().find_map(|c| match c {
        ContentBlock::Image(i) => {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(&i.data)
                .unwrap_or_default();
            let dims = image::ImageReader::new(std::io::Cursor::new(&raw))
                .with_guessed_format()
                .ok()
                .and_then(|r| r.into_dimensions().ok());
            Some((raw.len(), i.mime_type.clone(), dims))
        }
        _ => None,
    });
    // A screenshot tool that answers without an image did not do its job.
    let ok = result.is_error != Some(true);
    Outcome {
        elapsed,
        ok,
        text,
        bytes,
        image,
    }
}

fn subst(args: &Value, dev: &str) -> Value {
    match args {
        Value::String(s) if s == "$DEV" => Value::String(dev.to_string()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), subst(v, dev))).collect())
        }
        other => other.clone(),
    }
}

fn short(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() > 160 {
        s.chars().take(160).collect::<String>() + "…"
    } else {
        s
    }
}

/// A loopback TCP proxy in front of the adb server that counts the connections made through
/// it: one per adb request (a host query, or `host:transport` + a service such as `shell:`).
struct CountingProxy {
    addr: std::net::SocketAddrV4,
    count: Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl CountingProxy {
    async fn start(target: std::net::SocketAddrV4) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let std::net::SocketAddr::V4(addr) = listener.local_addr()? else {
            anyhow::bail!("loopback listener is not IPv4");
        };
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = count.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                seen.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Ok(CountingProxy { addr, count, task })
    }

    fn connections(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A tool's floor in adb round trips: each phone command is one (the floor's `shell:true`
/// is one phone command), and each adb server connection that reaches no phone is half of
/// one (a query the server answers from its own table, such as `host:devices-l`, or
/// `adb_client`'s features query before each of its shells). Each connection carries at
/// most one phone service, so the connections beyond the phone's commands are those
/// queries. Without a connection count, the phone's commands alone.
fn floor_round_trips(phone_commands: usize, connections: Option<usize>) -> f64 {
    let host_queries = connections.map_or(0, |n| n.saturating_sub(phone_commands));
    phone_commands as f64 + host_queries as f64 / 2.0
}

/// Median wall time of a bare `adb_client` `shell:true` round trip through the adb server.
fn adb_floor(addr: std::net::SocketAddrV4, serial: &str, n: usize, warmup: usize) -> Result<Stats> {
    use adb_client::ADBDeviceExt;
    let mut samples = Vec::with_capacity(n);
    for i in 0..n + warmup {
        let mut out = Vec::new();
        let t0 = Instant::now();
        let mut d = adb_client::server_device::ADBServerDevice::new(serial.to_string(), Some(addr));
        d.shell_command(&"true", Some(&mut out), None)
            .map_err(|e| anyhow::anyhow!("adb_client shell true: {e}"))?;
        if i >= warmup {
            samples.push(t0.elapsed());
        }
    }
    stats(&samples).context("no samples")
}

fn peer_spawns(peer_dir: &Path, work: &Path, adb_port: u16) -> Result<Vec<Spawn>> {
    let index = peer_dir.join("node_modules/@mobilenext/mobile-mcp/lib/index.js");
    anyhow::ensure!(index.is_file(), "{} not found", index.display());
    let home = work.join("peer-home");
    let android_home = work.join("android-home");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(android_home.join("platform-tools"))?;
    let link = android_home.join("platform-tools/adb");
    if !link.exists() {
        std::os::unix::fs::symlink("/usr/bin/adb", &link)?;
    }
    let base = vec![
        ("MOBILEMCP_DISABLE_TELEMETRY".to_string(), "1".to_string()),
        ("HOME".into(), home.display().to_string()),
        ("ANDROID_HOME".into(), android_home.display().to_string()),
        ("ANDROID_ADB_SERVER_PORT".into(), adb_port.to_string()),
        (
            "ADB_SERVER_SOCKET".into(),
            format!("tcp:127.0.0.1:{adb_port}"),
        ),
        ("ADB_LOCAL_TRANSPORT_MAX_PORT".into(), "5555".into()),
    ];
    let mut legacy = base.clone();
    legacy.push(("MOBILEMCP_LEGACY_ROBOT".into(), "1".into()));
    let mk = |kind, env| Spawn {
        kind,
        program: PathBuf::from("node"),
        args: vec![index.display().to_string()],
        env,
        stderr_log: work.join(format!("{}.stderr.log", Kind::key(kind))),
    };
    Ok(vec![
        mk(Kind::PeerDefault, base),
        mk(Kind::PeerLegacy, legacy),
    ])
}

/// The pid in the peer's `~/.mobilecli/daemon.pid` (a detached helper that outlives the server).
/// mobilecli 1.0.9 writes JSON there (`{"pid":N,"version":…}`); a bare number is accepted too.
fn peer_daemon_pid(work: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(work.join("peer-home/.mobilecli/daemon.pid")).ok()?;
    let text = text.trim();
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("pid").and_then(Value::as_u64))
        .and_then(|p| u32::try_from(p).ok())
        .or_else(|| text.parse().ok())
        .filter(|p| *p > 1)
}

#[derive(serde::Serialize)]
struct Report {
    date_utc: String,
    note: String,
    machine: Value,
    servers: Vec<&'static str>,
    peer_error: Option<String>,
    /// Sampled once per measured round, between the servers' calls.
    adb_floor: Stats,
    /// adb server connections of one floor round trip (adb_client's features query + shell).
    floor_connections: f64,
    client_floor: Option<Stats>,
    /// Sampled before any server ran (for reference: no other load from the servers).
    idle_adb_floor: Stats,
    idle_client_floor: Option<Stats>,
    tools: Vec<Value>,
    cold_start: BTreeMap<&'static str, Option<Stats>>,
    peak_rss_mib: BTreeMap<String, f64>,
    left_behind: Vec<String>,
    budget_exhausted: bool,
}

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
    let result = rt.block_on(run(&args, &work, &phone, &adb));
    rt.shutdown_timeout(Duration::from_secs(5));
    if let Some(pid) = peer_daemon_pid(&work) {
        kill_tree(pid);
    }
    adb.kill();
    phone.stop();
    result
}

async fn run(args: &Args, work: &Path, phone: &PhoneHandle, adb: &PrivateAdbServer) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(args.budget);
    let timeout = Duration::from_secs(args.call_timeout);
    let dev = phone.serial();
    let server = format!("127.0.0.1:{}", adb.port());

    let floor = {
        let (addr, serial, n) = (adb.socket_addr(), dev.clone(), args.floor_iters);
        tokio::task::spawn_blocking(move || adb_floor(addr, &serial, n, 3)).await??
    };
    eprintln!(
        "bench: adb floor (shell true) median {:.3} ms",
        floor.median_ms
    );

    let ours_env = vec![
        (
            "ANDROID_ADB_SERVER_PORT".to_string(),
            adb.port().to_string(),
        ),
        ("ADB_LOCAL_TRANSPORT_MAX_PORT".into(), "5555".into()),
    ];
    let ours = Spawn {
        kind: Kind::Ours,
        program: args.ours.clone(),
        args: vec!["--adb-server".into(), server.clone()],
        env: ours_env.clone(),
        stderr_log: work.join("ours.stderr.log"),
    };
    let mut filter_env = ours_env;
    filter_env.push(("MCP_MODEL_PAYLOAD_FILTER".into(), "1".into()));
    let ours_filter = Spawn {
        kind: Kind::OursFilter,
        env: filter_env,
        stderr_log: work.join("ours_filter.stderr.log"),
        ..ours.clone()
    };
    let (peers, peer_error) = match &args.peer_dir {
        None => (
            Vec::new(),
            Some("not requested (--quick or no peer install)".to_string()),
        ),
        Some(dir) => match peer_spawns(dir, work, adb.port()) {
            Ok(p) => (p, None),
            Err(e) => (Vec::new(), Some(format!("{e:#}"))),
        },
    };

    let sampler = Arc::new(RssSampler::default());
    let sampler_thread = sampler.clone().run();
    let tools = tools();
    let mut cells: HashMap<(Kind, usize), Cell> = HashMap::new();
    let mut all_pids = Vec::new();

    // Phase 1: ours alone (before any peer runs, so nothing else talks to the phone):
    // warm-up, the device round trips per tool, and the no-device client round trip.
    let (ours_run, _) = start(&ours).await?;
    sampler.watch("ours", ours_run.pid);
    all_pids.push(ours_run.pid);
    for (ti, tool) in tools.iter().enumerate() {
        let a = subst(&tool.args, &dev);
        let cell = cells.entry((Kind::Ours, ti)).or_default();
        for _ in 0..args.warmup.max(1) + 2 {
            let before = phone.commands().len();
            let o = call(&ours_run, tool.name, &a, timeout).await;
            cell.round_trip_samples
                .push(phone.commands().len() - before);
            if !o.ok {
                cell.error = Some(short(&o.text));
            }
        }
        cell.device_round_trips = median_u(&cell.round_trip_samples);
    }
    let (nd_name, nd_args) = no_device_call(&dev);
    let mut nd_samples = Vec::new();
    let mut nd_round_trips = 0;
    for _ in 0..args.iters.max(1) + 3 {
        let before = phone.commands().len();
        let o = call(&ours_run, nd_name, &nd_args, timeout).await;
        nd_round_trips += phone.commands().len() - before;
        nd_samples.push(o.elapsed);
    }
    let client_floor = stats(&nd_samples[3.min(nd_samples.len() - 1)..]);
    if nd_round_trips != 0 {
        eprintln!("bench: warning: the no-device call touched the device {nd_round_trips} times");
    }
    // Adb round trips: a second instance of ours whose adb server is a counting proxy, and
    // the floor's own `shell true` through the same proxy (adb_client asks the server for
    // the device's features before each shell: two connections).
    let floor_connections = {
        let proxy = CountingProxy::start(adb.socket_addr()).await?;
        let before = proxy.connections();
        let (paddr, serial) = (proxy.addr, dev.clone());
        tokio::task::spawn_blocking(move || adb_floor(paddr, &serial, 5, 0)).await??;
        let floor_connections = (proxy.connections() - before) as f64 / 5.0;
        let port = proxy.addr.port().to_string();
        let counted = Spawn {
            args: vec!["--adb-server".into(), proxy.addr.to_string()],
            env: vec![
                ("ANDROID_ADB_SERVER_PORT".into(), port),
                ("ADB_LOCAL_TRANSPORT_MAX_PORT".into(), "5555".into()),
            ],
            stderr_log: work.join("ours_counted.stderr.log"),
            ..ours.clone()
        };
        let (r, _) = start(&counted).await?;
        all_pids.push(r.pid);
        for (ti, tool) in tools.iter().enumerate() {
            let a = subst(&tool.args, &dev);
            let mut trips = Vec::new();
            for i in 0..args.warmup.max(1) + 3 {
                let before = proxy.connections();
                call(&r, tool.name, &a, timeout).await;
                if i >= args.warmup.max(1) {
                    trips.push(proxy.connections() - before);
                }
            }
            if let Some(c) = cells.get_mut(&(Kind::Ours, ti)) {
                c.adb_connections = median_u(&trips);
            }
        }
        stop(r).await;
        floor_connections
    };
    eprintln!(
        "bench: the floor's shell round trip opens {floor_connections} adb server connections"
    );

    // Phase 2: every server, in alternation.
    let mut running: Vec<Running> = vec![ours_run];
    let (f, _) = start(&ours_filter).await?;
    sampler.watch("ours_filter", f.pid);
    all_pids.push(f.pid);
    running.push(f);
    let mut peer_error = peer_error;
    for p in &peers {
        match start(p).await {
            Ok((r, _)) => {
                sampler.watch(p.kind.key(), r.pid);
                all_pids.push(r.pid);
                running.push(r);
            }
            Err(e) => peer_error
                .get_or_insert_with(String::new)
                .push_str(&format!("{}: {e:#}; ", p.kind.key())),
        }
    }
    let kinds: Vec<Kind> = running.iter().map(|r| r.spawn.kind).collect();
    let mut budget_exhausted = false;
    // The floors are sampled inside the same rounds as the servers, so they see the same noise.
    let mut adb_samples: Vec<Duration> = Vec::new();
    let mut nd_round_samples: Vec<Duration> = Vec::new();
    'tools: for (ti, tool) in tools.iter().enumerate() {
        eprintln!("bench: {}", tool.label);
        let a = subst(&tool.args, &dev);
        for round in 0..args.warmup + args.iters {
            if Instant::now() > deadline {
                budget_exhausted = true;
                break 'tools;
            }
            if round >= args.warmup {
                let (addr, serial) = (adb.socket_addr(), dev.clone());
                if let Ok(Ok(st)) =
                    tokio::task::spawn_blocking(move || adb_floor(addr, &serial, 1, 0)).await
                {
                    adb_samples.push(Duration::from_secs_f64(st.median_ms / 1e3));
                }
                nd_round_samples.push(call(&running[0], nd_name, &nd_args, timeout).await.elapsed);
            }
            // Rotate who goes first; ours and ours+filter come back `ours_repeat` times.
            let n = running.len();
            let ours_like: Vec<bool> = running
                .iter()
                .map(|r| matches!(r.spawn.kind, Kind::Ours | Kind::OursFilter))
                .collect();
            let order: Vec<usize> = (0..args.ours_repeat.max(1))
                .flat_map(|rep| {
                    let ours_like = &ours_like;
                    (0..n)
                        .map(move |j| (round + j) % n)
                        .filter(move |&i| rep == 0 || ours_like[i])
                })
                .collect();
            for i in order {
                let r = &running[i];
                let kind = r.spawn.kind;
                let cell = cells.entry((kind, ti)).or_default();
                if cell.skipped {
                    continue;
                }
                let before = phone.commands().len();
                let o = call(r, tool.name, &a, timeout).await;
                let trips = phone.commands().len() - before;
                if !o.ok {
                    cell.failures += 1;
                    cell.error = Some(short(&o.text));
                    // A tool that fails (or hangs) twice on this phone is reported, not retried 20 times.
                    if cell.failures >= 2 || o.elapsed >= timeout {
                        cell.skipped = true;
                    }
                    continue;
                }
                // Ours was counted alone in phase 1; the others are counted here.
                if kind != Kind::Ours {
                    cell.round_trip_samples.push(trips);
                }
                cell.response_bytes = Some(o.bytes);
                if let Some((len, mime, dims)) = o.image {
                    cell.image_bytes = Some(len);
                    cell.image_mime = Some(mime);
                    cell.image_dims = dims;
                }
                if round >= args.warmup {
                    cell.samples.push(o.elapsed);
                    let spent: Duration = cell.samples.iter().sum();
                    if cell.samples.len() >= 5 && spent > Duration::from_secs(args.cell_budget) {
                        cell.skipped = true;
                        cell.capped = true;
                    }
                }
            }
        }
    }
    let idle_adb_floor = floor.clone();
    let idle_client_floor = client_floor.clone();
    let floor = stats(&adb_samples).unwrap_or(floor);
    let client_floor = stats(&nd_round_samples).or(client_floor);
    for c in cells.values_mut() {
        c.stats = stats(&c.samples);
        if c.device_round_trips.is_none() {
            c.device_round_trips = median_u(&c.round_trip_samples);
        }
    }
    for r in running {
        stop(r).await;
    }
    sampler.stop.store(true, Ordering::Relaxed);
    let _ = sampler_thread.join();
    // The peer's detached helper: its RSS at the end, then stop it.
    let mut peak: BTreeMap<String, f64> = sampler
        .peak_kib
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(k, v)| (k.clone(), *v as f64 / 1024.0))
        .collect();
    let mut left_behind = Vec::new();
    if let Some(pid) = peer_daemon_pid(work)
        && alive(pid)
    {
        peak.insert("peer_daemon_at_end".into(), rss_kib(pid) as f64 / 1024.0);
        left_behind.push(format!(
            "peer mobilecli daemon pid {pid} (detached; stopped by the bench)"
        ));
        kill_tree(pid);
    }

    // Phase 3: cold start, alternated.
    let mut cold: BTreeMap<Kind, Vec<Duration>> = BTreeMap::new();
    let mut spawns = vec![ours.clone()];
    spawns.extend(peers.iter().filter(|p| kinds.contains(&p.kind)).cloned());
    'cold: for i in 0..args.cold {
        for s in &spawns {
            if Instant::now() > deadline + Duration::from_secs(60) {
                budget_exhausted = true;
                break 'cold;
            }
            match start(s).await {
                Ok((r, d)) => {
                    all_pids.push(r.pid);
                    if i > 0 || args.cold == 1 {
                        cold.entry(s.kind).or_default().push(d);
                    }
                    stop(r).await;
                }
                Err(e) => eprintln!("bench: cold start {}: {e:#}", s.kind.key()),
            }
        }
    }
    if let Some(pid) = peer_daemon_pid(work)
        && alive(pid)
    {
        kill_tree(pid);
    }
    for pid in all_pids {
        if alive(pid) {
            left_behind.push(format!(
                "server pid {pid} still alive after shutdown (killed)"
            ));
            kill_tree(pid);
        }
    }

    // Report.
    let mut tool_rows = Vec::new();
    for (ti, tool) in tools.iter().enumerate() {
        let mut row = serde_json::Map::new();
        row.insert("tool".into(), json!(tool.label));
        row.insert("mcp_tool".into(), json!(tool.name));
        for k in &kinds {
            if let Some(c) = cells.get(&(*k, ti)) {
                row.insert(k.key().into(), serde_json::to_value(c)?);
            }
        }
        // In floor round trips: one per phone command, and half of one per adb server
        // connection that reaches no phone (a query the server answers itself).
        let trips = cells.get(&(Kind::Ours, ti)).and_then(|c| {
            let phone = c.device_round_trips?;
            Some(floor_round_trips(phone, c.adb_connections))
        });
        if let (Some(cf), Some(t)) = (&client_floor, trips) {
            row.insert("floor_round_trips".into(), json!(t));
            row.insert("floor_ms".into(), json!(cf.median_ms + floor.median_ms * t));
        }
        tool_rows.push(Value::Object(row));
    }
    let report = Report {
        date_utc: date_utc(),
        note: args.note.clone(),
        machine: machine(),
        servers: kinds.iter().map(|k| k.key()).collect(),
        peer_error,
        adb_floor: floor,
        floor_connections,
        client_floor,
        idle_adb_floor,
        idle_client_floor,
        tools: tool_rows,
        cold_start: [Kind::Ours, Kind::PeerDefault, Kind::PeerLegacy]
            .into_iter()
            .filter(|k| kinds.contains(k))
            .map(|k| (k.key(), cold.get(&k).and_then(|v| stats(v))))
            .collect(),
        peak_rss_mib: peak,
        left_behind,
        budget_exhausted,
    };
    let json_text = serde_json::to_string_pretty(&report)?;
    std::fs::write(args.out.join("latest.json"), &json_text)?;
    let md = markdown(&report);
    std::fs::write(args.out.join("latest.md"), &md)?;
    println!("{md}");
    Ok(())
}

fn date_utc() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_default();
    let nproc = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    json!({"nproc": nproc, "cpu": cpu})
}

fn get<'a>(row: &'a Value, kind: &str) -> Option<&'a Value> {
    row.get(kind)
}

fn med(row: &Value, kind: &str) -> Option<f64> {
    get(row, kind)?.get("stats")?.get("median_ms")?.as_f64()
}

fn fmt_ms(v: Option<f64>) -> String {
    match v {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.2}"),
        None => "–".into(),
    }
}

fn fmt_ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.3}", a / b),
        _ => "–".into(),
    }
}

fn cell_ms(row: &Value, kind: &str) -> String {
    let Some(c) = get(row, kind) else {
        return "–".into();
    };
    match c.get("stats").filter(|s| !s.is_null()) {
        Some(s) => format!(
            "{} ({}–{}){}",
            fmt_ms(s["median_ms"].as_f64()),
            fmt_ms(s["min_ms"].as_f64()),
            fmt_ms(s["max_ms"].as_f64()),
            if c["capped"] == true {
                format!(" n={}", s["n"])
            } else {
                String::new()
            }
        ),
        None => "**failed**".into(),
    }
}

fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let has_peer = r.servers.contains(&"peer_default") || r.servers.contains(&"peer_legacy");
    s.push_str(&format!(
        "Run {} on {} × {}. {}\n\n",
        r.date_utc,
        r.machine["nproc"],
        r.machine["cpu"].as_str().unwrap_or(""),
        r.note
    ));
    if let Some(e) = &r.peer_error {
        s.push_str(&format!("Peer: {e}\n\n"));
    }
    s.push_str(&format!(
        "Floor (sampled in every measured round, between the servers' calls): bare `adb_client` `shell:true` round trip through the same adb server: median {} ms (min {}, max {}). \
         Client round trip of a tool call that touches no device (ours, argument rejected): {} ms. \
         Floor of a tool = client round trip + adb round trip × the tool's round trips, where round trips = \
         the phone commands per call (the phone's log; the floor's `shell:true` is one) + ½ × each adb server connection \
         that reaches no phone (counted through a loopback proxy: a query the adb server answers itself, such as \
         `host:devices-l`; the floor's own round trip opens {} connections, a features query and the shell).\n\n",
        fmt_ms(Some(r.adb_floor.median_ms)),
        fmt_ms(Some(r.adb_floor.min_ms)),
        fmt_ms(Some(r.adb_floor.max_ms)),
        fmt_ms(r.client_floor.as_ref().map(|c| c.median_ms)),
        r.floor_connections,
    ));
    s.push_str("Latency in ms, median (min–max) over the measured calls; ratios are of medians (ours ÷ other; lower is better for ours).\n\n");
    if has_peer {
        s.push_str("| tool | ours | peer legacy | peer default | ours/legacy | ours/default | device RTs ours/legacy/default | adb conns ours | floor | ours/floor | ours+filter | filter/ours | response bytes ours/legacy/default |\n");
        s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    } else {
        s.push_str("| tool | ours | device RTs | adb conns | floor | ours/floor | ours+filter | filter/ours | response bytes |\n");
        s.push_str("|---|---|---|---|---|---|---|---|---|\n");
    }
    let rts = |row: &Value, k: &str| {
        get(row, k)
            .and_then(|c| c.get("device_round_trips"))
            .and_then(|v| v.as_u64())
            .map(|v| v.to_string())
            .unwrap_or_else(|| "–".into())
    };
    let adb_rts = |row: &Value| {
        get(row, "ours")
            .and_then(|c| c.get("adb_connections"))
            .and_then(|v| v.as_u64())
            .map(|v| v.to_string())
            .unwrap_or_else(|| "–".into())
    };
    let bytes = |row: &Value, k: &str| {
        get(row, k)
            .and_then(|c| c.get("response_bytes"))
            .and_then(|v| v.as_u64())
            .map(|v| v.to_string())
            .unwrap_or_else(|| "–".into())
    };
    for row in &r.tools {
        let ours = med(row, "ours");
        let floor = row.get("floor_ms").and_then(|v| v.as_f64());
        let filt = med(row, "ours_filter");
        let label = row["tool"].as_str().unwrap_or("");
        if has_peer {
            s.push_str(&format!(
                "| {label} | {} | {} | {} | {} | {} | {}/{}/{} | {} | {} | {} | {} | {} | {}/{}/{} |\n",
                cell_ms(row, "ours"),
                cell_ms(row, "peer_legacy"),
                cell_ms(row, "peer_default"),
                fmt_ratio(ours, med(row, "peer_legacy")),
                fmt_ratio(ours, med(row, "peer_default")),
                rts(row, "ours"),
                rts(row, "peer_legacy"),
                rts(row, "peer_default"),
                adb_rts(row),
                fmt_ms(floor),
                fmt_ratio(ours, floor),
                fmt_ms(filt),
                fmt_ratio(filt, ours),
                bytes(row, "ours"),
                bytes(row, "peer_legacy"),
                bytes(row, "peer_default"),
            ));
        } else {
            s.push_str(&format!(
                "| {label} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                cell_ms(row, "ours"),
                rts(row, "ours"),
                adb_rts(row),
                fmt_ms(floor),
                fmt_ratio(ours, floor),
                fmt_ms(filt),
                fmt_ratio(filt, ours),
                bytes(row, "ours"),
            ));
        }
    }
    // Screenshots.
    s.push_str("\nScreenshot image (decoded bytes, type, dimensions):\n\n");
    if let Some(row) = r.tools.iter().find(|t| t["tool"] == "screenshot") {
        for k in ["ours", "peer_legacy", "peer_default"] {
            if let Some(c) = get(row, k) {
                let dims = c["image_dims"]
                    .as_array()
                    .map(|d| format!("{}×{}", d[0], d[1]))
                    .unwrap_or_else(|| "–".into());
                s.push_str(&format!(
                    "- {k}: {} bytes, {}, {dims}\n",
                    c["image_bytes"]
                        .as_u64()
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "–".into()),
                    c["image_mime"].as_str().unwrap_or("–"),
                ));
            }
        }
    }
    s.push_str("\nCold start, spawn → `initialize` response, ms median (min–max):\n\n");
    for (k, v) in &r.cold_start {
        match v {
            Some(v) => s.push_str(&format!(
                "- {k}: {} ({}–{}), n={}\n",
                fmt_ms(Some(v.median_ms)),
                fmt_ms(Some(v.min_ms)),
                fmt_ms(Some(v.max_ms)),
                v.n
            )),
            None => s.push_str(&format!("- {k}: failed\n")),
        }
    }
    if let (Some(Some(o)), Some(Some(p))) =
        (r.cold_start.get("ours"), r.cold_start.get("peer_legacy"))
    {
        s.push_str(&format!(
            "- peer legacy ÷ ours: {:.1}×\n",
            p.median_ms / o.median_ms
        ));
    }
    if let (Some(Some(o)), Some(Some(p))) =
        (r.cold_start.get("ours"), r.cold_start.get("peer_default"))
    {
        s.push_str(&format!(
            "- peer default ÷ ours: {:.1}×\n",
            p.median_ms / o.median_ms
        ));
    }
    s.push_str("\nPeak RSS of each server's process tree during the tool runs (MiB, sampled every 20 ms):\n\n");
    for (k, v) in &r.peak_rss_mib {
        s.push_str(&format!("- {k}: {v:.1}\n"));
    }
    let mut failures = Vec::new();
    for row in &r.tools {
        for k in ["ours", "ours_filter", "peer_legacy", "peer_default"] {
            if let Some(c) = get(row, k)
                && let Some(e) = c.get("error").and_then(|e| e.as_str())
            {
                failures.push(format!(
                    "- {} / {k} ({} failures): {e}",
                    row["tool"].as_str().unwrap_or(""),
                    c["failures"]
                ));
            }
        }
    }
    if !failures.is_empty() {
        s.push_str("\nFailures on the virtual phone (reported, not hidden):\n\n");
        s.push_str(&failures.join("\n"));
        s.push('\n');
    }
    if !r.left_behind.is_empty() {
        s.push_str("\nLeft behind after shutdown:\n\n");
        for l in &r.left_behind {
            s.push_str(&format!("- {l}\n"));
        }
    }
    if r.budget_exhausted {
        s.push_str("\n**Time budget exhausted: later rows are partial.**\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::floor_round_trips;

    #[test]
    fn round_trips_are_phone_commands_and_half_a_trip_per_host_query() {
        assert_eq!(floor_round_trips(1, Some(1)), 1.0); // one shell, one connection
        assert_eq!(floor_round_trips(1, Some(2)), 1.5); // adb_client's features query first
        assert_eq!(floor_round_trips(0, Some(1)), 0.5); // host:devices-l
        assert_eq!(floor_round_trips(2, Some(2)), 2.0);
        assert_eq!(floor_round_trips(2, None), 2.0);
    }
}
