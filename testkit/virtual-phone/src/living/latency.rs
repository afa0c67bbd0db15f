//! An optional latency profile: each device command costs what it costs on a mid-range
//! phone, so benchmarks on the virtual phone see the real balance between a tool's round
//! trips. Off unless `Life::latency` is set.
//!
//! Figures (milliseconds, on the phone, per command; the sources are public measurements):
//! - `uiautomator dump`: 1500. CulebraTester2-public issue #17 (1–4 s right after an
//!   activity start), mobilecli PR #286 (≈2.2 s per stock dump on a real app, 0.8–1.0 s with
//!   an on-device agent), uiautomator2 issue #867 (6–15 s on heavy screens).
//! - `screencap` (raw): 250; `screencap -p` (PNG encode on the phone): 900. awesome-adb
//!   issue #54 (an `adb` screenshot ≈2 s end to end including transfer, a tap under 1 s).
//! - `input` on Android 8–11: 350 (the `input` script starts a Java VM through `app_process`:
//!   scrcpy issue #231; madb issue #56 measured 300–400 ms per `input tap`); on 12+: 230
//!   (the script became `cmd input`, a binder call into the running system server —
//!   frameworks/base cmds/input/input; mobilecli PR #412 measured 226 ms per `adb shell input
//!   tap` on current hardware).
//! - `am start`/`am force-stop`: 200 (`am` is `cmd activity` since Android 7, no VM start;
//!   `-W` adds the launch itself, which the living screen models).
//! - `dumpsys SurfaceFlinger --frametimeline -all`: 60. An assumption (no public
//!   measurement found): a shell command's 40 plus SurfaceFlinger formatting its 64 kept
//!   display frames (tens of KB of text) under its lock.
//! - anything else (`getprop`, `wm`, `dumpsys window`, `md5sum`, …): 40 (a shell round trip
//!   on the phone).
//!
//! A pipeline costs the sum of its commands, plus the hash's own time: `md5sum`/`sha1sum`
//! over a 10 MB frame at ~400 MB/s on a mid-range ARM core is 25 ms; over the frame
//! timeline's tens of KB, at the same rate, 1 ms or less (counted as 1).

use serde::{Deserialize, Serialize};

/// Which Android version's `input` the profile models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyProfile {
    /// The SDK level (`ro.build.version.sdk`): below 31, `input` starts a VM.
    pub sdk: u32,
}

impl LatencyProfile {
    /// A mid-range phone on `sdk`.
    pub fn mid_range(sdk: u32) -> LatencyProfile {
        LatencyProfile { sdk }
    }

    /// What one simple command costs, in ms.
    pub fn cost(&self, argv: &[String]) -> u64 {
        let prog = argv
            .first()
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .unwrap_or("");
        match prog {
            "uiautomator" => 1500,
            "screencap" if argv.iter().any(|a| a == "-p" || a.ends_with(".png")) => 900,
            "screencap" => 250,
            "input" if self.sdk < 31 => 350,
            "input" => 230,
            "am" | "monkey" => 200,
            "md5sum" | "sha1sum" => 25,
            "dumpsys" if argv.iter().any(|a| a == "--frametimeline") => 60,
            "" => 0,
            _ => 40,
        }
    }

    /// What a whole line costs: the sum over its simple commands (a hash costs what its
    /// input does: a frame from `screencap`, else a few KB).
    pub fn line_cost(&self, argvs: &[Vec<String>]) -> u64 {
        let mut before: Option<&str> = None;
        argvs
            .iter()
            .map(|a| {
                let prog = a.first().map(String::as_str);
                let hash = matches!(prog, Some("md5sum" | "sha1sum"));
                let small = before.is_some_and(|b| b != "screencap");
                before = prog;
                if hash && small { 1 } else { self.cost(a) }
            })
            .sum()
    }
}
