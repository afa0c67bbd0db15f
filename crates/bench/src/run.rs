//! The measurement run, phase by phase: the floor, ours alone (device round trips per tool),
//! every server in alternation, then cold starts; it ends by writing the report.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::json;
use virtual_phone::PhoneHandle;
use virtual_phone::adb_server::PrivateAdbServer;

use crate::adb::{CountingProxy, adb_floor, floor_round_trips};
use crate::args::Args;
use crate::client::{Kind, Running, Spawn, call, short, start, stop};
use crate::footprint::{RssSampler, alive, cold_starts, kill_tree, rss_kib};
use crate::peer::{peer_daemon_pid, peer_spawns};
use crate::report::{Report, date_utc, machine};
use crate::stats::{Stats, median_u, stats};
use crate::tools::{Tool, no_device_call, subst, tools};

/// What one server did for one tool.
#[derive(Default, Clone, serde::Serialize)]
pub(crate) struct Cell {
    #[serde(skip)]
    samples: Vec<Duration>,
    stats: Option<Stats>,
    response_bytes: Option<usize>,
    image_bytes: Option<usize>,
    image_mime: Option<String>,
    image_dims: Option<(u32, u32)>,
    #[serde(skip)]
    round_trip_samples: Vec<usize>,
    pub(crate) device_round_trips: Option<usize>,
    /// Ours only: connections our server opened to the adb server per call (median),
    /// counted through [`CountingProxy`]: each phone command, and each query the adb server
    /// answers itself (`host:devices-l`, which the phone never sees).
    pub(crate) adb_connections: Option<usize>,
    failures: usize,
    error: Option<String>,
    skipped: bool,
    /// Stopped early by `--cell-budget` (fewer samples than `--iters`).
    capped: bool,
}

/// The floors sampled during the alternation, and whether the time budget ran out.
struct Alternation {
    adb_samples: Vec<Duration>,
    nd_round_samples: Vec<Duration>,
    budget_exhausted: bool,
}

/// State shared by the phases: what is measured, and what has been measured so far.
struct Bench<'a> {
    args: &'a Args,
    phone: &'a PhoneHandle,
    dev: String,
    timeout: Duration,
    tools: Vec<Tool>,
    cells: HashMap<(Kind, usize), Cell>,
    /// Every server process started, checked at the end for leftovers.
    all_pids: Vec<u32>,
    sampler: Arc<RssSampler>,
}

/// Runs every phase and writes `latest.json` / `latest.md` into `args.out`.
pub(crate) async fn run(
    args: &Args,
    work: &Path,
    phone: &PhoneHandle,
    adb: &PrivateAdbServer,
) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(args.budget);
    let dev = phone.serial();

    let floor = {
        let (addr, serial, n) = (adb.socket_addr(), dev.clone(), args.floor_iters);
        tokio::task::spawn_blocking(move || adb_floor(addr, &serial, n, 3)).await??
    };
    eprintln!(
        "bench: adb floor (shell true) median {:.3} ms",
        floor.median_ms
    );

    let (ours, ours_filter) = our_spawns(args, work, adb);
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
    let mut bench = Bench {
        args,
        phone,
        dev,
        timeout: Duration::from_secs(args.call_timeout),
        tools: tools(),
        cells: HashMap::new(),
        all_pids: Vec::new(),
        sampler: sampler.clone(),
    };

    // Phase 1: ours alone (before any peer runs, so nothing else talks to the phone).
    let (ours_run, client_floor) = bench.ours_alone(&ours).await?;
    let floor_connections = bench.count_adb_connections(adb, &ours, work).await?;
    eprintln!(
        "bench: the floor's shell round trip opens {floor_connections} adb server connections"
    );

    // Phase 2: every server, in alternation.
    let mut running: Vec<Running> = vec![ours_run];
    let (f, _) = start(&ours_filter).await?;
    sampler.watch("ours_filter", f.pid);
    bench.all_pids.push(f.pid);
    running.push(f);
    if let Some(program) = &args.baseline {
        let spawn = Spawn {
            kind: Kind::Baseline,
            program: program.clone(),
            stderr_log: work.join("baseline.stderr.log"),
            // A baseline build may predate --share-devices (and leases).
            args: ours.args[..2].to_vec(),
            ..ours.clone()
        };
        let (b, _) = start(&spawn).await?;
        sampler.watch("baseline", b.pid);
        bench.all_pids.push(b.pid);
        running.push(b);
    }
    let mut peer_error = peer_error;
    for p in &peers {
        match start(p).await {
            Ok((r, _)) => {
                sampler.watch(p.kind.key(), r.pid);
                bench.all_pids.push(r.pid);
                running.push(r);
            }
            Err(e) => peer_error
                .get_or_insert_with(String::new)
                .push_str(&format!("{}: {e:#}; ", p.kind.key())),
        }
    }
    let kinds: Vec<Kind> = running.iter().map(|r| r.spawn.kind).collect();
    let alternation = bench.alternate(&running, adb, deadline).await;
    let mut budget_exhausted = alternation.budget_exhausted;
    let idle_adb_floor = floor.clone();
    let idle_client_floor = client_floor.clone();
    let floor = stats(&alternation.adb_samples).unwrap_or(floor);
    let client_floor = stats(&alternation.nd_round_samples).or(client_floor);
    for c in bench.cells.values_mut() {
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
    let mut spawns = vec![ours.clone()];
    spawns.extend(peers.iter().filter(|p| kinds.contains(&p.kind)).cloned());
    let (cold, cold_exhausted) =
        cold_starts(&spawns, args.cold, deadline, &mut bench.all_pids).await;
    budget_exhausted |= cold_exhausted;
    if let Some(pid) = peer_daemon_pid(work)
        && alive(pid)
    {
        kill_tree(pid);
    }
    for &pid in &bench.all_pids {
        if alive(pid) {
            left_behind.push(format!(
                "server pid {pid} still alive after shutdown (killed)"
            ));
            kill_tree(pid);
        }
    }

    let tool_rows = bench.tool_rows(&kinds, &floor, client_floor.as_ref())?;
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
    report.write(&args.out)
}

/// Ours, and ours with the payload filter on, both talking to the private adb server.
fn our_spawns(args: &Args, work: &Path, adb: &PrivateAdbServer) -> (Spawn, Spawn) {
    let server = format!("127.0.0.1:{}", adb.port());
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
        // Ours, ours with the filter (and, while counting, a third) drive one phone in
        // alternation: they share it on purpose.
        args: vec!["--adb-server".into(), server, "--share-devices".into()],
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
    (ours, ours_filter)
}

impl Bench<'_> {
    /// Phase 1: starts ours (kept running for phase 2), warms it up, counts the phone
    /// commands of each tool, and times the no-device call: the client floor.
    async fn ours_alone(&mut self, ours: &Spawn) -> Result<(Running, Option<Stats>)> {
        let (args, phone, timeout) = (self.args, self.phone, self.timeout);
        let (ours_run, _) = start(ours).await?;
        self.sampler.watch("ours", ours_run.pid);
        self.all_pids.push(ours_run.pid);
        for (ti, tool) in self.tools.iter().enumerate() {
            let a = subst(&tool.args, &self.dev);
            let cell = self.cells.entry((Kind::Ours, ti)).or_default();
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
        let (nd_name, nd_args) = no_device_call(&self.dev);
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
            eprintln!(
                "bench: warning: the no-device call touched the device {nd_round_trips} times"
            );
        }
        Ok((ours_run, client_floor))
    }

    /// Adb round trips: a second instance of ours whose adb server is a counting proxy, and
    /// the floor's own `shell true` through the same proxy (adb_client asks the server for
    /// the device's features before each shell: two connections). Returns the floor's
    /// connections per round trip; each tool's go into its cell.
    async fn count_adb_connections(
        &mut self,
        adb: &PrivateAdbServer,
        ours: &Spawn,
        work: &Path,
    ) -> Result<f64> {
        let (args, timeout) = (self.args, self.timeout);
        let proxy = CountingProxy::start(adb.socket_addr()).await?;
        let before = proxy.connections();
        let (paddr, serial) = (proxy.addr, self.dev.clone());
        tokio::task::spawn_blocking(move || adb_floor(paddr, &serial, 5, 0)).await??;
        let floor_connections = (proxy.connections() - before) as f64 / 5.0;
        let port = proxy.addr.port().to_string();
        let counted = Spawn {
            args: vec![
                "--adb-server".into(),
                proxy.addr.to_string(),
                "--share-devices".into(),
            ],
            env: vec![
                ("ANDROID_ADB_SERVER_PORT".into(), port),
                ("ADB_LOCAL_TRANSPORT_MAX_PORT".into(), "5555".into()),
            ],
            stderr_log: work.join("ours_counted.stderr.log"),
            ..ours.clone()
        };
        let (r, _) = start(&counted).await?;
        self.all_pids.push(r.pid);
        for (ti, tool) in self.tools.iter().enumerate() {
            let a = subst(&tool.args, &self.dev);
            let mut trips = Vec::new();
            for i in 0..args.warmup.max(1) + 3 {
                let before = proxy.connections();
                call(&r, tool.name, &a, timeout).await;
                if i >= args.warmup.max(1) {
                    trips.push(proxy.connections() - before);
                }
            }
            if let Some(c) = self.cells.get_mut(&(Kind::Ours, ti)) {
                c.adb_connections = median_u(&trips);
            }
        }
        stop(r).await;
        Ok(floor_connections)
    }

    /// Phase 2: for each tool, round after round, every running server once (ours and
    /// ours+filter `ours_repeat` times), rotating who goes first; the floors are sampled
    /// inside the same rounds as the servers, so they see the same noise.
    async fn alternate(
        &mut self,
        running: &[Running],
        adb: &PrivateAdbServer,
        deadline: Instant,
    ) -> Alternation {
        let (args, phone, timeout) = (self.args, self.phone, self.timeout);
        let (nd_name, nd_args) = no_device_call(&self.dev);
        let mut budget_exhausted = false;
        let mut adb_samples: Vec<Duration> = Vec::new();
        let mut nd_round_samples: Vec<Duration> = Vec::new();
        'tools: for (ti, tool) in self.tools.iter().enumerate() {
            eprintln!("bench: {}", tool.label);
            let a = subst(&tool.args, &self.dev);
            for round in 0..args.warmup + args.iters {
                if Instant::now() > deadline {
                    budget_exhausted = true;
                    break 'tools;
                }
                if round >= args.warmup {
                    let (addr, serial) = (adb.socket_addr(), self.dev.clone());
                    if let Ok(Ok(st)) =
                        tokio::task::spawn_blocking(move || adb_floor(addr, &serial, 1, 0)).await
                    {
                        adb_samples.push(Duration::from_secs_f64(st.median_ms / 1e3));
                    }
                    nd_round_samples
                        .push(call(&running[0], nd_name, &nd_args, timeout).await.elapsed);
                }
                // Rotate who goes first; ours, ours+filter and the baseline come back
                // `ours_repeat` times.
                let n = running.len();
                let ours_like: Vec<bool> = running
                    .iter()
                    .map(|r| matches!(r.spawn.kind, Kind::Ours | Kind::OursFilter | Kind::Baseline))
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
                    if tool.ours_only && !ours_like[i] {
                        continue;
                    }
                    let cell = self.cells.entry((kind, ti)).or_default();
                    if cell.skipped {
                        continue;
                    }
                    let before = phone.commands().len();
                    let extra_for = |kind| match kind {
                        Kind::Ours | Kind::OursFilter => true,
                        Kind::Baseline => self.args.baseline_takes_ours_args,
                        _ => false,
                    };
                    let o = match (&tool.ours_extra, kind) {
                        (Some(extra), kind) if extra_for(kind) => {
                            let mut with = a.clone();
                            if let (Some(m), Some(x)) = (with.as_object_mut(), extra.as_object()) {
                                m.extend(x.clone());
                            }
                            call(r, tool.name, &with, timeout).await
                        }
                        _ => call(r, tool.name, &a, timeout).await,
                    };
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
                        if cell.samples.len() >= 5 && spent > Duration::from_secs(args.cell_budget)
                        {
                            cell.skipped = true;
                            cell.capped = true;
                        }
                    }
                }
            }
        }
        Alternation {
            adb_samples,
            nd_round_samples,
            budget_exhausted,
        }
    }

    /// One JSON row per tool: each server's cell, and (with a client floor) the tool's
    /// floor in round trips and in ms.
    fn tool_rows(
        &self,
        kinds: &[Kind],
        floor: &Stats,
        client_floor: Option<&Stats>,
    ) -> Result<Vec<serde_json::Value>> {
        let mut tool_rows = Vec::new();
        for (ti, tool) in self.tools.iter().enumerate() {
            let mut row = serde_json::Map::new();
            row.insert("tool".into(), json!(tool.label));
            row.insert("mcp_tool".into(), json!(tool.name));
            for k in kinds {
                if let Some(c) = self.cells.get(&(*k, ti)) {
                    row.insert(k.key().into(), serde_json::to_value(c)?);
                }
            }
            // In floor round trips: one per phone command, and half of one per adb server
            // connection that reaches no phone (a query the server answers itself).
            let trips = self.cells.get(&(Kind::Ours, ti)).and_then(|c| {
                let phone = c.device_round_trips?;
                Some(floor_round_trips(phone, c.adb_connections))
            });
            if let (Some(cf), Some(t)) = (client_floor, trips) {
                row.insert("floor_round_trips".into(), json!(t));
                row.insert("floor_ms".into(), json!(cf.median_ms + floor.median_ms * t));
            }
            tool_rows.push(serde_json::Value::Object(row));
        }
        Ok(tool_rows)
    }
}
