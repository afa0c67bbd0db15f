//! The device log and its crash buffer.

use mobile_device::{Crash, DeviceError, LogEntry, LogField, LogQuery, NextStep, Result};

use super::AndroidDevice;
use crate::parse;
use crate::quote::command;

fn crash_command() -> Result<String> {
    command(&["logcat", "-b", "crash", "-d", "-v", "threadtime"])
}

impl AndroidDevice {
    /// 1 round trip: `logcat -d -v threadtime -t N` (without `-t` when filters are
    /// given, so the limit applies after filtering); with a `process` filter, one more:
    /// `ps -A -o PID=,NAME=` to name the pids.
    pub(super) async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>> {
        let limit = if query.limit == 0 {
            100
        } else {
            query.limit.min(10_000)
        };
        let mut logcat: Vec<String> = vec![
            "logcat".into(),
            "-d".into(),
            "-v".into(),
            "threadtime".into(),
        ];
        if query.filters.is_empty() {
            logcat.push("-t".into());
            logcat.push(limit.to_string());
        }
        let wants_process = query.filters.iter().any(|f| f.key == LogField::Process);
        let ps = if wants_process {
            self.sh(
                "listing processes",
                command(&["ps", "-A", "-o", "PID=,NAME="])?,
            )
            .await?
        } else {
            String::new()
        };
        let log = self.sh("reading the device log", command(&logcat)?).await?;
        let log = log.as_str();
        let names = parse::logcat::parse_ps_names(&ps);
        let mut entries = parse::logcat::parse_threadtime(log);
        if wants_process {
            for e in &mut entries {
                e.process = e.pid.and_then(|p| names.get(&p).cloned());
            }
        }
        entries.retain(|e| query.filters.iter().all(|f| f.matches(e)));
        let skip = entries.len().saturating_sub(limit);
        Ok(entries.split_off(skip))
    }

    /// 1 round trip: `logcat -b crash -d -v threadtime`.
    pub(super) async fn crashes(&self) -> Result<Vec<Crash>> {
        let out = self.sh("listing crashes", crash_command()?).await?;
        Ok(parse::logcat::parse_crashes(&out)
            .into_iter()
            .map(|c| c.crash)
            .collect())
    }

    /// 1 round trip: the crash buffer again, then the crash with this id.
    pub(super) async fn crash(&self, id: &str) -> Result<String> {
        let out = self.sh("reading a crash", crash_command()?).await?;
        parse::logcat::parse_crashes(&out)
            .into_iter()
            .find(|c| c.crash.id == id)
            .map(|c| c.text)
            .ok_or_else(|| {
                DeviceError::not_found(
                    format!("Crash \"{id}\""),
                    "The crash buffer may have rotated",
                )
                .then(NextStep::ListCrashes)
            })
    }
}
