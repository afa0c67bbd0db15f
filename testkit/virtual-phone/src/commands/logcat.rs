//! `logcat` (dump, clear, buffers, formats, tail, follow) and its line formats.

use super::*;

/// Formats a Unix-ms timestamp as `MM-DD HH:MM:SS.mmm` (or with the year).
pub(crate) fn format_date(ms: u64, year: bool) -> String {
    let secs = ms / 1000;
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    // Civil-from-days (H. Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let t = format!(
        "{m:02}-{d:02} {:02}:{:02}:{:02}.{:03}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    );
    if year { format!("{y}-{t}") } else { t }
}

/// One line in `threadtime` format.
pub(crate) fn format_log_line(l: &LogLine, year: bool) -> String {
    format!(
        "{} {:5} {:5} {} {:<8}: {}\n",
        format_date(l.time_ms, year),
        l.pid,
        l.tid,
        l.level,
        l.tag,
        l.message
    )
}

pub(super) fn logcat(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut dump = false;
    let mut clear = false;
    let mut buffers: Vec<String> = Vec::new();
    let mut year = false;
    let mut brief = false;
    let mut tail: Option<usize> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-d" => dump = true,
            "-c" => clear = true,
            "-b" => {
                if let Some(b) = it.next() {
                    buffers.extend(b.split(',').map(str::to_string));
                }
            }
            "-v" => {
                if let Some(v) = it.next() {
                    for f in v.split(',') {
                        match f {
                            "year" => year = true,
                            "brief" => brief = true,
                            _ => {}
                        }
                    }
                }
            }
            "-t" | "-T" => {
                tail = it.next().and_then(|v| v.parse().ok());
                if a == "-t" {
                    dump = true;
                }
            }
            s if s.starts_with("-t") => {
                tail = s[2..].parse().ok();
                dump = true;
            }
            _ => {}
        }
    }
    if buffers.is_empty() {
        buffers = vec!["main".into(), "system".into(), "crash".into()];
    }
    if buffers.iter().any(|b| b == "all") {
        buffers = vec!["main".into(), "system".into(), "crash".into()];
    }
    let want_main = buffers
        .iter()
        .any(|b| b == "main" || b == "system" || b == "default");
    let want_crash = buffers.iter().any(|b| b == "crash" || b == "default");
    if clear {
        ctx.with_state(|s| {
            if want_main {
                s.logcat.clear();
            }
            if want_crash {
                s.crash_log.clear();
            }
        });
        return Ok(0);
    }
    let fmt = |l: &LogLine| {
        if brief {
            format!("{}/{:<8}({:5}): {}\n", l.level, l.tag, l.pid, l.message)
        } else {
            format_log_line(l, year)
        }
    };
    let (main, crash) = ctx.with_state(|s| {
        (
            if want_main {
                s.logcat.clone()
            } else {
                Vec::new()
            },
            if want_crash {
                s.crash_log.clone()
            } else {
                Vec::new()
            },
        )
    });
    let mut out = String::new();
    let mut seen_main = main.len();
    let skip = |n: usize| tail.map(|t| n.saturating_sub(t)).unwrap_or(0);
    if !main.is_empty() {
        out.push_str("--------- beginning of main\n");
        for l in &main[skip(main.len())..] {
            out.push_str(&fmt(l));
        }
    }
    if !crash.is_empty() {
        out.push_str("--------- beginning of crash\n");
        for l in &crash[skip(crash.len())..] {
            out.push_str(&fmt(l));
        }
    }
    ctx.print(&out)?;
    if dump || !ctx.io.can_follow() {
        return Ok(0);
    }
    // Follow mode: stream new main-buffer lines until the host closes the stream.
    ctx.io.flush()?;
    let deadline = Instant::now() + Duration::from_secs(600);
    while !ctx.io.closed() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        let new: Vec<LogLine> = ctx.with_state(|s| {
            if s.logcat.len() < seen_main {
                seen_main = 0;
            }
            let v = s.logcat[seen_main..].to_vec();
            seen_main = s.logcat.len();
            v
        });
        if !new.is_empty() {
            let text: String = new.iter().map(&fmt).collect();
            ctx.print(&text)?;
            ctx.io.flush()?;
        }
    }
    Ok(0)
}
