//! Device logs: the unified log of the last minute (`simctl spawn UDID log show
//! --style ndjson`), filtered and cut to the query's limit.

use mobile_device::{LogEntry, LogQuery, Result};

use super::SimulatorDevice;
use crate::parse::parse_log_ndjson;
use crate::tools::argv;

/// Log window read by `logs`.
const LOG_WINDOW: &str = "1m";

impl SimulatorDevice {
    pub(super) async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>> {
        let out = self
            .simctl_ok(
                argv![
                    "spawn", &self.udid, "log", "show", "--style", "ndjson", "--last", LOG_WINDOW
                ],
                "log show",
                None,
            )
            .await?;
        let limit = query.limit.get();
        let mut entries: Vec<LogEntry> = parse_log_ndjson(&out.stdout_text())
            .into_iter()
            .filter(|e| query.filters.iter().all(|f| f.matches(e)))
            .collect();
        if entries.len() > limit {
            entries.drain(..entries.len() - limit);
        }
        Ok(entries)
    }
}
