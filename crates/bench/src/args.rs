//! The command line of `mobile-mcp-bench` (what `scripts/bench.sh` passes).

use std::path::PathBuf;

use clap::Parser;

#[derive(Parser, Debug)]
#[command(about = "Benchmark mobile-mcp against a peer server on the virtual phone")]
pub(crate) struct Args {
    /// Our server binary (a release build).
    #[arg(long)]
    pub(crate) ours: PathBuf,
    /// Another mobile-mcp binary (an earlier commit's release build) measured in the same
    /// rounds as ours, for before/after ratios of a change.
    #[arg(long)]
    pub(crate) baseline: Option<PathBuf>,
    /// The baseline takes the arguments only ours takes (`observe: "none"` on actions): set
    /// it when the baseline is a build that already has them, so its action rows measure
    /// the bare action too, not an action with a settle wait.
    #[arg(long)]
    pub(crate) baseline_takes_ours_args: bool,
    /// Folder where the peer package is installed (`node_modules/@mobilenext/mobile-mcp`).
    /// Omit to measure ours only.
    #[arg(long)]
    pub(crate) peer_dir: Option<PathBuf>,
    /// Measured calls per tool and server (after warm-up).
    #[arg(long, default_value_t = 20)]
    pub(crate) iters: usize,
    /// Calls of ours and of ours with the filter per round (interleaved, so each gets
    /// `iters × ours_repeat` samples): their medians are sub-millisecond and the
    /// filter-overhead ratio compares the two, so they get more samples than the peers.
    #[arg(long, default_value_t = 3)]
    pub(crate) ours_repeat: usize,
    /// Warm-up calls per tool and server.
    #[arg(long, default_value_t = 2)]
    pub(crate) warmup: usize,
    /// Cold starts per server.
    #[arg(long, default_value_t = 10)]
    pub(crate) cold: usize,
    /// Round trips for the adb floor.
    #[arg(long, default_value_t = 50)]
    pub(crate) floor_iters: usize,
    /// Scratch folder (private HOMEs, ANDROID_HOME, logs); created if missing.
    #[arg(long)]
    pub(crate) work: PathBuf,
    /// Where latest.json / latest.md go.
    #[arg(long, default_value = "target/bench")]
    pub(crate) out: PathBuf,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 30)]
    pub(crate) call_timeout: u64,
    /// Stop measuring (and report what was measured) after this many seconds.
    #[arg(long, default_value_t = 420)]
    pub(crate) budget: u64,
    /// Stop calling one server for one tool once its measured calls add up to this many
    /// seconds (with at least 5 samples), so a slow peer cannot eat the whole budget; the
    /// sample count is reported.
    #[arg(long, default_value_t = 30)]
    pub(crate) cell_budget: u64,
    /// Free text recorded with the results (the command line, the machine).
    #[arg(long, default_value = "")]
    pub(crate) note: String,
}
