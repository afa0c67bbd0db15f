//! The device log and its crash buffer.

use mobile_device::{Crash, DeviceError, LogEntry, LogField, LogQuery, NextStep, Result};

use super::AndroidDevice;
use crate::adb::Cap;
use crate::adb::cap::split_note;
use crate::parse;
use crate::quote::{ShellLine, command};

/// The entry that says the log was cut (the cap's note).
fn note_entry(note: &str) -> LogEntry {
    LogEntry {
        timestamp: None,
        pid: None,
        process: None,
        tag: Some("mobile-mcp".into()),
        level: Some("W".into()),
        subsystem: None,
        category: None,
        message: note.to_string(),
    }
}

fn crash_command() -> Result<ShellLine> {
    command(&["logcat", "-b", "crash", "-d", "-v", "threadtime"])
}

impl AndroidDevice {
    /// 1 round trip: `logcat -d -v threadtime -t N` (without `-t` when filters are
    /// given, so the limit applies after filtering); with a `process` filter, one more:
    /// `ps -A -o PID=,NAME=` to name the pids.
    pub(super) async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>> {
        let limit = query.limit.get();
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
        let log = self
            .sh_cap("reading the device log", command(&logcat)?, Cap::LOG)
            .await?;
        let (mut log, cut) = split_note(&log);
        if cut.is_some() {
            // The cut ends inside a line: drop that part of an entry.
            log = &log[..log.rfind('\n').map_or(0, |i| i + 1)];
        }
        let names = parse::logcat::parse_ps_names(&ps);
        let mut entries = parse::logcat::parse_threadtime(log);
        if wants_process {
            for e in &mut entries {
                e.process = e.pid.and_then(|p| names.get(&p).cloned());
            }
        }
        entries.retain(|e| query.filters.iter().all(|f| f.matches(e)));
        let skip = entries.len().saturating_sub(limit);
        let mut entries = entries.split_off(skip);
        if let Some(note) = cut {
            // Last, where a reader of the newest entries looks, and past every filter.
            entries.push(note_entry(note));
        }
        Ok(entries)
    }

    /// 1 round trip: `logcat -b crash -d -v threadtime`.
    pub(super) async fn crashes(&self) -> Result<Vec<Crash>> {
        let out = self
            .sh_cap("listing crashes", crash_command()?, Cap::LOG)
            .await?;
        Ok(parse::logcat::parse_crashes(&out)
            .into_iter()
            .map(|c| c.crash)
            .collect())
    }

    /// 1 round trip: the crash buffer again, then the crash with this id.
    pub(super) async fn crash(&self, id: &str) -> Result<String> {
        let out = self
            .sh_cap("reading a crash", crash_command()?, Cap::LOG)
            .await?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adb::Link;
    use crate::adb::shell::tests::endless_server;

    #[tokio::test]
    async fn an_endless_log_gives_the_entries_that_fit_and_a_note() {
        // An adb server that streams logcat output without end.
        let (addr, server) = endless_server(
            b"01-02 03:04:05.678  1234  1234 I Tag: a line of the log\n",
            1 << 30,
        );
        let device = AndroidDevice::new(
            "s".into(),
            Link {
                addr,
                serial: "s".into(),
            },
        );
        let query = LogQuery {
            limit: mobile_device::LogLimit::parse(5.0).unwrap(),
            filters: Vec::new(),
        };
        let entries = device.logs(&query).await.unwrap();
        assert_eq!(entries.len(), 6, "{entries:?}");
        assert!(
            entries[..5]
                .iter()
                .all(|e| e.message == "a line of the log")
        );
        let note = &entries[5];
        assert_eq!(note.tag.as_deref(), Some("mobile-mcp"));
        assert!(
            note.message.contains("the device log was cut at 16 MiB"),
            "{note:?}"
        );
        let sent = tokio::task::spawn_blocking(move || server.join().unwrap())
            .await
            .unwrap();
        assert!(
            sent < 64 << 20,
            "the log command was stopped after {sent} bytes"
        );
    }
}
