//! `logcat -v threadtime` lines (`MM-DD HH:MM:SS.mmm  PID  TID L TAG: message`, or with
//! a `YYYY-` year when `-v year` is added) and the crash buffer (`logcat -b crash -d`)
//! grouped into crashes.

use mobile_device::{Crash, LogEntry};

fn level_name(l: &str) -> Option<&'static str> {
    Some(match l {
        "V" => "verbose",
        "D" => "debug",
        "I" => "info",
        "W" => "warning",
        "E" => "error",
        "F" => "fatal",
        "A" => "assert",
        "S" => "silent",
        _ => return None,
    })
}

/// Parses one threadtime line; `None` for separators and continuation text.
pub fn parse_line(line: &str) -> Option<LogEntry> {
    let mut rest = line.trim_start();
    let mut fields = Vec::with_capacity(5);
    for _ in 0..5 {
        let end = rest.find(char::is_whitespace)?;
        fields.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    let [date, time, pid, _tid, level] = fields.as_slice() else {
        return None;
    };
    if !date.contains('-') || !time.contains(':') {
        return None;
    }
    let pid: u32 = pid.parse().ok()?;
    let level = level_name(level)?;
    let (tag, message) = match rest.find(": ") {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (rest.strip_suffix(':').unwrap_or(rest), ""),
    };
    Some(LogEntry {
        timestamp: Some(format!("{date} {time}")),
        pid: Some(pid),
        process: None,
        tag: Some(tag.trim().to_string()),
        level: Some(level.to_string()),
        subsystem: None,
        category: None,
        message: message.to_string(),
    })
}

/// Parses `logcat -v threadtime` output. Lines that are not log lines (buffer
/// separators) are skipped; a line without a header continues the previous message.
pub fn parse_threadtime(text: &str) -> Vec<LogEntry> {
    let mut out: Vec<LogEntry> = Vec::new();
    for line in super::lines(text) {
        if line.starts_with("--------- ") || line.trim().is_empty() {
            continue;
        }
        match parse_line(line) {
            Some(e) => out.push(e),
            None => {
                if let Some(last) = out.last_mut() {
                    last.message.push('\n');
                    last.message.push_str(line);
                }
            }
        }
    }
    out
}

/// One crash found in the crash buffer, with its full text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashReport {
    /// The crash as listed.
    pub crash: Crash,
    /// The crash's whole text.
    pub text: String,
}

fn crash_id(pid: u32, timestamp: &str) -> String {
    format!("{pid}-{}", timestamp.replace(' ', "T"))
}

/// Groups the crash buffer into crashes: a Java crash starts at `AndroidRuntime:
/// FATAL EXCEPTION`, a native one at `libc: Fatal signal` or a `DEBUG` tombstone
/// header. Ids are `PID-TIMESTAMP` of the first line, stable while the buffer holds it.
pub fn parse_crashes(text: &str) -> Vec<CrashReport> {
    struct Open {
        pid: u32,
        tag: String,
        report: CrashReport,
    }
    let mut done: Vec<CrashReport> = Vec::new();
    let mut open: Option<Open> = None;
    for line in super::lines(text) {
        let Some(e) = parse_line(line) else {
            continue;
        };
        let (pid, tag, ts) = (
            e.pid.unwrap_or(0),
            e.tag.clone().unwrap_or_default(),
            e.timestamp.clone().unwrap_or_default(),
        );
        let continues = open.as_ref().is_some_and(|o| o.pid == pid && o.tag == tag);
        let msg = e.message.trim();
        let starts = (tag == "AndroidRuntime" && msg.starts_with("FATAL EXCEPTION"))
            || (tag == "libc" && msg.starts_with("Fatal signal"))
            || (tag == "DEBUG" && (msg.starts_with("*** ***") || !continues));
        if starts {
            if let Some(o) = open.take() {
                done.push(o.report);
            }
            let process = if tag == "libc" {
                // "... in tid 5001 (name), pid 5001 (name)"
                msg.rsplit_once('(')
                    .and_then(|(_, r)| r.split(')').next())
                    .unwrap_or("")
                    .to_string()
            } else {
                String::new()
            };
            open = Some(Open {
                pid,
                tag: tag.clone(),
                report: CrashReport {
                    crash: Crash {
                        id: crash_id(pid, &ts),
                        process_name: process,
                        timestamp: ts,
                    },
                    text: String::new(),
                },
            });
        } else if !continues {
            if let Some(o) = open.take() {
                done.push(o.report);
            }
            continue;
        }
        let Some(o) = open.as_mut() else { continue };
        if let Some(p) = msg.strip_prefix("Process: ") {
            o.report.crash.process_name = p.split(',').next().unwrap_or(p).trim().to_string();
        } else if let Some((_, r)) = msg.split_once(">>> ")
            && let Some((name, _)) = r.split_once(" <<<")
        {
            o.report.crash.process_name = name.trim().to_string();
        }
        o.report.text.push_str(line);
        o.report.text.push('\n');
    }
    if let Some(o) = open {
        done.push(o.report);
    }
    let mut done = merge_tombstones(done);
    for r in &mut done {
        if r.crash.process_name.is_empty() {
            r.crash.process_name = "unknown".to_string();
        }
    }
    done
}

/// One native crash leaves two blocks: libc's `Fatal signal … pid N (name)` from the
/// crashing process (bionic's debuggerd handler), then crash_dump's tombstone under
/// `DEBUG` from its own pid, whose `pid: N, tid: …, name: …  >>> process <<<` line names the
/// crashed pid (debuggerd's tombstone header). A tombstone whose crashed pid has a
/// `Fatal signal` block is that crash's second half, joined to it.
fn merge_tombstones(reports: Vec<CrashReport>) -> Vec<CrashReport> {
    let crashed_pid = |r: &CrashReport| -> Option<u32> {
        r.text.lines().find_map(|l| {
            let (_, rest) = l.split_once(" pid: ")?;
            rest.split(',').next()?.trim().parse().ok()
        })
    };
    let signal_pid = |r: &CrashReport| -> Option<u32> {
        r.text
            .lines()
            .next()
            .filter(|l| l.contains("Fatal signal"))
            .and(r.crash.id.split('-').next()?.parse().ok())
    };
    let mut out: Vec<CrashReport> = Vec::with_capacity(reports.len());
    for r in reports {
        let target = crashed_pid(&r).and_then(|pid| {
            out.iter()
                .rposition(|o| signal_pid(o) == Some(pid) && !o.text.contains(" pid: "))
        });
        match target {
            Some(i) => {
                let o = &mut out[i];
                if o.crash.process_name.is_empty() || r.text.contains(">>> ") {
                    o.crash.process_name = r.crash.process_name.clone();
                }
                o.text.push_str(&r.text);
            }
            None => out.push(r),
        }
    }
    out
}

/// `ps -A -o PID=,NAME=`: pid to process name, for the `process` log filter.
pub fn parse_ps_names(text: &str) -> std::collections::HashMap<u32, String> {
    super::lines(text)
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.parse().ok()?, it.next()?.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ps_names() {
        let m = super::parse_ps_names("    1 init\n 4242 com.example.app\r\nps: bad\n");
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(&4242).map(String::as_str), Some("com.example.app"));
    }

    use super::*;

    #[test]
    fn threadtime_lines() {
        let es = parse_threadtime(include_str!(
            "../../../../fixtures/android/parser-logcat-threadtime.txt"
        ));
        assert_eq!(es.len(), 6);
        assert_eq!(es[0].tag.as_deref(), Some("ActivityManager"));
        assert_eq!(es[0].pid, Some(1523));
        assert_eq!(es[0].level.as_deref(), Some("info"));
        assert_eq!(es[0].timestamp.as_deref(), Some("11-30 05:12:00.101"));
        assert_eq!(es[2].tag.as_deref(), Some("ExampleApp"));
        assert_eq!(es[2].message, "slow frame: 48 ms");
        assert_eq!(es[4].tag.as_deref(), Some("vold"));
        assert_eq!(es[4].message, "");
        let year = parse_line("2026-11-30 05:12:00.101  1  2 E Tag: m: n").unwrap();
        assert_eq!(year.message, "m: n");
        assert!(parse_line("garbage").is_none());
    }

    #[test]
    fn crash_buffer_groups() {
        let cs = parse_crashes(include_str!(
            "../../../../fixtures/android/parser-logcat-crash.txt"
        ));
        let heads: Vec<_> = cs
            .iter()
            .map(|c| (c.crash.id.as_str(), c.crash.process_name.as_str()))
            .collect();
        assert_eq!(
            heads,
            vec![
                ("4242-11-30T05:12:03.244", "com.example.app"),
                // The libc signal line and crash_dump's tombstone are one crash.
                ("5001-11-30T05:14:10.373", "com.example.native"),
                ("4300-11-30T05:20:00.001", "com.example.app:sync"),
            ]
        );
        assert_eq!(cs[0].text.lines().count(), 6);
        assert!(
            cs[0]
                .text
                .contains("Caused by: java.lang.NullPointerException")
        );
        assert_eq!(cs[1].text.lines().count(), 8);
        assert!(cs[1].text.contains("Fatal signal 11") && cs[1].text.contains("backtrace:"));
        assert!(parse_crashes("").is_empty());
    }

    #[test]
    fn real_threadtime_api28_emulator() {
        let text =
            include_str!("../../../../fixtures/android/parser-logcat-real-threadtime-api28.txt");
        let es = parse_threadtime(text);
        assert_eq!(es.len(), 72, "every line of the capture is a log line");
        assert_eq!(es[0].tag.as_deref(), Some("wrap.sh"));
        assert_eq!(es[0].pid, Some(16348));
        assert_eq!(es[0].timestamp.as_deref(), Some("05-21 10:50:52.185"));
        assert!(
            es[1]
                .message
                .starts_with("==16363==ERROR: AddressSanitizer: heap-use-after-free")
        );
        // A padded four-digit pid from another process, interleaved.
        let audio = &es[3];
        assert_eq!(audio.tag.as_deref(), Some("audio_hw_generic"));
        assert_eq!(
            (audio.pid, audio.level.as_deref()),
            (Some(1642), Some("warning"))
        );
        assert_eq!(
            audio.message,
            "Not supplying enough data to HAL, expected position 948690996 , only wrote 948690720"
        );
        assert_eq!(
            es[4].message,
            "    #0 0xbb5d1a3f  (/data/app/com.baiiu.nativeleak-7nEnc7bKae8AkZ7m5wBJPQ==/lib/x86/libtest-lib.so+0xa3f)"
        );
        // `I wrap.sh :` with nothing after the colon is an empty message.
        assert_eq!(es.iter().filter(|e| e.message.is_empty()).count(), 3);
        let libc: Vec<_> = es
            .iter()
            .filter(|e| e.tag.as_deref() == Some("libc"))
            .collect();
        assert_eq!(libc.len(), 1);
        assert_eq!(
            (libc[0].pid, libc[0].level.as_deref()),
            (Some(16363), Some("fatal"))
        );
        assert_eq!(es[71].message, "==16363==ABORTING");

        // The fatal signal is the only crash start; the kernel truncates the thread name.
        let cs = parse_crashes(text);
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].crash.id, "16363-05-21T10:50:52.203");
        assert_eq!(cs[0].crash.process_name, "aiiu.nativeleak");
    }

    #[test]
    fn real_java_and_native_crash_api28_emulator() {
        let cs = parse_crashes(include_str!(
            "../../../../fixtures/android/parser-logcat-real-crash-api28.txt"
        ));
        let heads: Vec<_> = cs
            .iter()
            .map(|c| (c.crash.id.as_str(), c.crash.process_name.as_str()))
            .collect();
        assert_eq!(
            heads,
            vec![
                ("27435-05-20T17:16:54.259", "com.baiiu.nativeleak"),
                ("27945-05-20T17:46:57.373", "com.baiiu.nativeleak"),
            ]
        );
        assert_eq!(cs[0].text.lines().count(), 18);
        assert!(cs[0].text.contains(
            "java.lang.OutOfMemoryError: pthread_create (1040KB stack) failed: Try again"
        ));
        assert!(
            cs[0]
                .text
                .contains("\tat java.lang.Thread.nativeCreate(Native Method)")
        );
        assert_eq!(cs[1].text.lines().count(), 13);
        assert!(
            cs[1]
                .text
                .contains("signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0")
        );
        assert!(
            cs[1]
                .text
                .lines()
                .last()
                .unwrap()
                .contains("libnative-lib.so")
        );
    }
}
