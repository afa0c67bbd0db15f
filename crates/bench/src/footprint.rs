//! Cold start and memory of the servers, and the `/proc` process-tree helpers they need
//! (liveness, descendants, RSS, killing what is left).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::client::{Kind, Spawn, start, stop};

/// Whether `pid` is running (a zombie is not).
pub(crate) fn alive(pid: u32) -> bool {
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

/// SIGKILLs `pid` and its descendants, the last found first.
pub(crate) fn kill_tree(pid: u32) {
    for p in tree(pid).into_iter().rev() {
        // SAFETY: kill(2) with a pid we spawned (or its descendant); no memory involved.
        unsafe {
            libc::kill(p as i32, libc::SIGKILL);
        }
    }
}

/// `pid` and all its descendants (via /proc/PID/task/*/children).
pub(crate) fn tree(pid: u32) -> Vec<u32> {
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

/// Resident set size of one process, KiB (0 when it is gone).
pub(crate) fn rss_kib(pid: u32) -> u64 {
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
pub(crate) struct RssSampler {
    pub(crate) roots: Mutex<Vec<(String, u32)>>,
    pub(crate) peak_kib: Mutex<BTreeMap<String, u64>>,
    pub(crate) stop: AtomicBool,
}

impl RssSampler {
    pub(crate) fn watch(&self, label: &str, pid: u32) {
        self.roots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((label.to_string(), pid));
    }
    pub(crate) fn run(self: Arc<Self>) -> std::thread::JoinHandle<()> {
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

/// Phase 3: `n` cold starts (spawn → `initialize` response) of each server, alternated;
/// the first round is a warm-up unless there is only one. Stops once the run is a minute
/// past its `deadline` (then the `bool` is true). Every started pid goes into `all_pids`.
pub(crate) async fn cold_starts(
    spawns: &[Spawn],
    n: usize,
    deadline: Instant,
    all_pids: &mut Vec<u32>,
) -> (BTreeMap<Kind, Vec<Duration>>, bool) {
    let mut cold: BTreeMap<Kind, Vec<Duration>> = BTreeMap::new();
    let mut budget_exhausted = false;
    'cold: for i in 0..n {
        for s in spawns {
            if Instant::now() > deadline + Duration::from_secs(60) {
                budget_exhausted = true;
                break 'cold;
            }
            match start(s).await {
                Ok((r, d)) => {
                    all_pids.push(r.pid);
                    if i > 0 || n == 1 {
                        cold.entry(s.kind).or_default().push(d);
                    }
                    stop(r).await;
                }
                Err(e) => eprintln!("bench: cold start {}: {e:#}", s.kind.key()),
            }
        }
    }
    (cold, budget_exhausted)
}
