//! The report: the JSON written to `latest.json`, and the markdown table (plus screenshot,
//! cold start, RSS and failure notes) written to `latest.md` and stdout.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use crate::stats::Stats;

/// Everything one run measured; serialized as is into `latest.json`.
#[derive(serde::Serialize)]
pub(crate) struct Report {
    pub(crate) date_utc: String,
    pub(crate) note: String,
    pub(crate) machine: Value,
    pub(crate) servers: Vec<&'static str>,
    pub(crate) peer_error: Option<String>,
    /// Sampled once per measured round, between the servers' calls.
    pub(crate) adb_floor: Stats,
    /// adb server connections of one floor round trip (adb_client's features query + shell).
    pub(crate) floor_connections: f64,
    pub(crate) client_floor: Option<Stats>,
    /// Sampled before any server ran (for reference: no other load from the servers).
    pub(crate) idle_adb_floor: Stats,
    pub(crate) idle_client_floor: Option<Stats>,
    pub(crate) tools: Vec<Value>,
    pub(crate) cold_start: BTreeMap<&'static str, Option<Stats>>,
    pub(crate) peak_rss_mib: BTreeMap<String, f64>,
    pub(crate) left_behind: Vec<String>,
    pub(crate) budget_exhausted: bool,
}

impl Report {
    /// Writes `latest.json` and `latest.md` into `out` and prints the markdown.
    pub(crate) fn write(&self, out: &Path) -> Result<()> {
        let json_text = serde_json::to_string_pretty(self)?;
        std::fs::write(out.join("latest.json"), &json_text)?;
        let md = markdown(self);
        std::fs::write(out.join("latest.md"), &md)?;
        println!("{md}");
        Ok(())
    }
}

/// The current time, as `date -u` prints it (empty if `date` fails).
pub(crate) fn date_utc() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Core count and CPU model of this machine.
pub(crate) fn machine() -> Value {
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

/// One server's cell in a tool row.
pub(crate) fn get<'a>(row: &'a Value, kind: &str) -> Option<&'a Value> {
    row.get(kind)
}

/// One server's median for a tool, ms.
pub(crate) fn med(row: &Value, kind: &str) -> Option<f64> {
    get(row, kind)?.get("stats")?.get("median_ms")?.as_f64()
}

/// Milliseconds with as many decimals as make sense for their size; `–` for none.
pub(crate) fn fmt_ms(v: Option<f64>) -> String {
    match v {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.2}"),
        None => "–".into(),
    }
}

/// `a / b` to three decimals; `–` when either is missing.
pub(crate) fn fmt_ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.3}", a / b),
        _ => "–".into(),
    }
}

/// "median (min–max)" of one server for a tool, with `n=` when it was capped.
pub(crate) fn cell_ms(row: &Value, kind: &str) -> String {
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

/// The markdown report.
pub(crate) fn markdown(r: &Report) -> String {
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
    if r.servers.contains(&"baseline") {
        s.push_str("\nAgainst the baseline (`--baseline`, another build of ours called in the same rounds): medians in ms, and ours ÷ baseline (below 1: ours is faster). Each is also ÷ the floor measured in the same rounds.\n\n");
        s.push_str("| tool | ours | baseline | ours/baseline | ours/floor | baseline/floor |\n|---|---|---|---|---|---|\n");
        for row in &r.tools {
            let (ours, base) = (med(row, "ours"), med(row, "baseline"));
            let floor = row.get("floor_ms").and_then(|v| v.as_f64());
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                row["tool"].as_str().unwrap_or(""),
                cell_ms(row, "ours"),
                cell_ms(row, "baseline"),
                fmt_ratio(ours, base),
                fmt_ratio(ours, floor),
                fmt_ratio(base, floor),
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
