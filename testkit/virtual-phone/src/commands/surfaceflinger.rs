//! `dumpsys SurfaceFlinger [ARGS]` beyond `--display-id`: `--frametimeline -all|-jank` on
//! Android 12 and later, the full dump otherwise.
//!
//! Modelled on AOSP frameworks/native (Android 15, the mirror AOSP-15-Dev/
//! android_frameworks_native at c2ba3e9a47c2):
//! - `SurfaceFlinger::doDump` (services/surfaceflinger/SurfaceFlinger.cpp lines 6417–6453):
//!   the first argument picks a dumper (`--frametimeline` → `dumpFrameTimeline` →
//!   `FrameTimeline::parseArgs`); an argument it does not know falls through to the full
//!   dump. FrameTimeline is new in Android 12 (perfetto docs/data-sources/frametimeline.md:
//!   "FrameTimeline requires Android 12(S) or higher"), so before SDK 31 `--frametimeline`
//!   is such an argument.
//! - `FrameTimeline::parseArgs` / `dumpAll` / `DisplayFrame::dump` / `SurfaceFrame::dump` /
//!   `dumpTable` (services/surfaceflinger/FrameTimeline/FrameTimeline.cpp lines 1491–1521,
//!   1455–1489, 479–528, 39–89): "Number of display frames : N", then each display frame
//!   the list keeps (the last 64, see `crate::living::compose`), its times in ms relative to
//!   the oldest frame's start (`getBaseTime`, lines 1424–1434). `-jank` lists only janky
//!   frames; the model composes none that are janky, so it prints nothing.
//! - The full dump starts with "Build configuration:" (`SurfaceFlinger::dumpAll`, line
//!   6904) and includes the time spent in each refresh rate, brought up to date at each
//!   dump (`RefreshRateStats::getTotalTimes` → `flushTime`, Scheduler/RefreshRateStats.h
//!   lines 79–85), so it differs from one call to the next.

use super::*;
use crate::living::FRAME_MS;
use crate::living::compose::{Frame, frames_now};

/// The first SDK level with FrameTimeline (Android 12).
const FRAMETIMELINE_SDK: u32 = 31;

/// `dumpsys SurfaceFlinger ARGS` (`args` after the service name).
pub(super) fn dumpsys_surfaceflinger(ctx: &mut Ctx, args: &[String]) -> Res {
    let out = ctx.with_state(|s| {
        if args.first().map(String::as_str) == Some("--frametimeline")
            && s.profile.sdk >= FRAMETIMELINE_SDK
        {
            let mut out = String::new();
            // parseArgs: `-jank` first, then `-all`, each when present.
            if args.iter().any(|a| a == "-all") {
                dump_all(&frames_now(s), &mut out);
            }
            out
        } else {
            full_dump(s)
        }
    });
    ctx.print(&out)?;
    Ok(0)
}

fn ms(ns_like_ms: f64) -> String {
    format!("{ns_like_ms:10.2}")
}

/// `dumpTable`: the expected and actual start, end and present times.
fn table(out: &mut String, indent: &str, t: [f64; 3]) {
    out.push_str(&format!(
        "{indent}\t\t    Start time\t\t|    End time\t\t|    Present time\n"
    ));
    for row in ["Expected\t|", "Actual  \t|"] {
        out.push_str(&format!(
            "{indent}{row}\t{}\t|\t{}\t|\t{}\n",
            ms(t[0]),
            ms(t[1]),
            ms(t[2])
        ));
    }
    out.push_str(&format!("{indent}{}\n", "-".repeat(88)));
}

/// `FrameTimeline::dumpAll`: every kept display frame, times relative to the oldest one's
/// start. A frame presented at vsync `g` was started by the app two vsyncs before and by
/// SurfaceFlinger one vsync before, on time.
fn dump_all(frames: &[Frame], out: &mut String) {
    let f = FRAME_MS as f64;
    out.push_str(&format!("Number of display frames : {}\n", frames.len()));
    let base = frames.first().map_or(0.0, |fr| fr.vsync as f64 - 2.0 * f);
    for (i, fr) in frames.iter().enumerate() {
        let g = fr.vsync as f64 - base;
        out.push_str(&format!("Display Frame {i}\n"));
        out.push_str("Prediction State : Valid\nJank Type : None\n");
        out.push_str("Present Metadata : On Time Present\nFinish Metadata: On Time Finish\n");
        out.push_str("Start Metadata: On Time Start\n");
        out.push_str(&format!("Vsync Period: {f:10.6}\n"));
        out.push_str(&format!("Present delta: {:10.6}\n", 0.0));
        out.push_str(&format!("Present delta % refreshrate: {:10.6}\n", 0.0));
        table(out, "", [g - f, g - f / 2.0, g]);
        out.push('\n');
        if let Some((layer, pid)) = &fr.layer {
            let ind = "    ";
            out.push_str(&format!("{ind}Layer - {layer}#0\n"));
            out.push_str(&format!("{ind}Token: {}\n", fr.vsync / FRAME_MS));
            out.push_str(&format!("{ind}Is Buffer?: 1\n{ind}Owner Pid : {pid}\n"));
            out.push_str(&format!("{ind}Scheduled rendering rate: 60 fps\n"));
            out.push_str(&format!(
                "{ind}Layer ID : 42\n{ind}Present State : Presented\n"
            ));
            out.push_str(&format!(
                "{ind}Prediction State : Valid\n{ind}Jank Type : None\n"
            ));
            out.push_str(&format!(
                "{ind}Present Metadata : On Time Present\n{ind}Finish Metadata: On Time Finish\n"
            ));
            out.push_str(&format!("{ind}Last latch time: {:10.6}\n", g - f));
            out.push_str(&format!("{ind}Present delta: {:10.6}\n", 0.0));
            table(out, ind, [g - 2.0 * f, g - 1.5 * f, g]);
        }
        out.push('\n');
    }
}

/// The start of the full dump, with the refresh-rate times that change with every call.
fn full_dump(_s: &PhoneState) -> String {
    // The time in the 60 Hz mode: the wall clock within the day (the phone keeps no boot time).
    let up = crate::state::now_ms() % 86_400_000;
    let (h, m, sec, milli) = (up / 3_600_000, up / 60_000 % 60, up / 1000 % 60, up % 1000);
    format!(
        "Build configuration: [sf PRESENT_TIME_OFFSET=0 FORCE_HWC_FOR_RBG_TO_YUV=0 MAX_VIRT_DISPLAY_DIM=0 RUNNING_WITHOUT_SYNC_FRAMEWORK=0 NUM_FRAMEBUFFER_SURFACE_BUFFERS=3]\n\nDisplay identification data:\nDisplay 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName=\"Built-in Screen\"\n\nScreenOff: 0d00:00:00.000\n60.00 Hz: 0d{h:02}:{m:02}:{sec:02}.{milli:03}\n\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dump_has_the_frametimeline_layout() {
        let frames = vec![
            Frame {
                vsync: 1600,
                layer: Some(("a.b/a.b.Main".into(), 4150)),
            },
            Frame {
                vsync: 1616,
                layer: None,
            },
        ];
        let mut out = String::new();
        dump_all(&frames, &mut out);
        assert!(
            out.starts_with(
                "Number of display frames : 2\nDisplay Frame 0\nPrediction State : Valid\n"
            ),
            "{out}"
        );
        assert!(out.contains("Display Frame 1\n"));
        assert!(out.contains("    Layer - a.b/a.b.Main#0\n    Token: 100\n"));
        assert!(out.contains("Vsync Period:  16.000000\n"), "{out}");
        // The oldest frame's app start is the base: its present is two vsyncs later.
        assert!(
            out.contains("Actual  \t|\t     16.00\t|\t     24.00\t|\t     32.00\n"),
            "{out}"
        );
    }
}
