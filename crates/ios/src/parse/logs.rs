//! `log show --style ndjson` (run inside the simulator with `simctl spawn`): one JSON
//! object per line with `timestamp`, `messageType`, `processImagePath`, `processID`,
//! `subsystem`, `category` and `eventMessage`. Lines that are not log events (a header,
//! the closing `{"count":…,"finished":1}`) are skipped.

use mobile_device::LogEntry;
use serde_json::Value;

/// Parses one ndjson line; `None` for anything that is not a log event.
pub fn parse_log_line(line: &str) -> Option<LogEntry> {
    let line = line.trim();
    if !line.starts_with('{') {
        return None;
    }
    let v: Value = serde_json::from_str(line).ok()?;
    let message = v.get("eventMessage")?.as_str()?.to_string();
    let s = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let process = s("processImagePath").map(|p| p.rsplit('/').next().unwrap_or(&p).to_string());
    let level = s("messageType").map(|t| t.to_ascii_lowercase());
    Some(LogEntry {
        timestamp: s("timestamp"),
        pid: v
            .get("processID")
            .and_then(Value::as_u64)
            .and_then(|p| u32::try_from(p).ok()),
        tag: s("category").or_else(|| process.clone()),
        process,
        level,
        subsystem: s("subsystem"),
        category: s("category"),
        message,
    })
}

/// Parses a whole `log show --style ndjson` output, oldest first.
pub fn parse_log_ndjson(text: &str) -> Vec<LogEntry> {
    text.lines().filter_map(parse_log_line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndjson_fixture() {
        let p = format!(
            "{}/../../fixtures/ios/log-show-ndjson.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(p).unwrap();
        let logs = parse_log_ndjson(&text);
        assert_eq!(logs.len(), 3, "the closing count line is not an entry");
        assert_eq!(logs[0].process.as_deref(), Some("SpringBoard"));
        assert_eq!(logs[0].pid, Some(812));
        assert_eq!(logs[0].level.as_deref(), Some("default"));
        assert_eq!(logs[0].subsystem.as_deref(), Some("com.apple.SpringBoard"));
        assert_eq!(logs[1].level.as_deref(), Some("error"));
        assert_eq!(logs[1].tag.as_deref(), Some("AXRuntime"));
        assert_eq!(logs[2].message, "示例 loaded 3 items");
        assert_eq!(logs[2].subsystem, None);
        assert_eq!(logs[2].tag.as_deref(), Some("Qwen"));
        assert_eq!(parse_log_line("Filtering the log data using \"x\""), None);
    }

    #[test]
    fn real_ndjson_line() {
        let p = format!(
            "{}/../../fixtures/ios/log-show-ndjson-macos-line.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(p).unwrap();
        let logs = parse_log_ndjson(&text);
        assert_eq!(logs.len(), 1);
        let e = &logs[0];
        assert_eq!(
            e.message,
            "Volume update from PID = 8484 Control ID = 262 Scalar volume 0.488189 -> 0.427210 Element = 0"
        );
        assert_eq!(e.process.as_deref(), Some("coreaudiod"));
        assert_eq!(e.pid, Some(342));
        assert_eq!(e.level.as_deref(), Some("default"));
        assert_eq!(e.subsystem.as_deref(), Some("com.apple.bluetooth"));
        assert_eq!(e.category.as_deref(), Some("BTAudio"));
        assert_eq!(e.tag.as_deref(), Some("BTAudio"));
        assert_eq!(
            e.timestamp.as_deref(),
            Some("2026-10-07 10:19:55.713745+0800")
        );
        // The header lines `log show` prints before the events (real wording).
        let with_header = format!(
            "Filtering the log data using \"subsystem == \"os_log_inlinable\"\"\nSkipping info and debug messages, pass --info and/or --debug to include.\n{text}"
        );
        assert_eq!(parse_log_ndjson(&with_header).len(), 1);
    }
}
