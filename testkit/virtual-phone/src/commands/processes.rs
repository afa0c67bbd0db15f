//! `ps`, `pidof`/`pgrep` and `kill`/`pkill`: the apps' and screenrecords' processes.

use super::*;

/// The pid the phone reports for a running app.
pub(crate) fn app_pid(uid: u32) -> u32 {
    4000 + uid % 10000
}

/// One process as `ps` sees it.
struct Proc {
    user: String,
    pid: u32,
    ppid: u32,
    vsz: u64,
    rss: u64,
    name: String,
}

/// `ps [-A] [-o FIELD[:WIDTH][=TITLE],…]`, as toybox prints it (Android 8 ships toybox
/// 0.7.3, later releases 0.8.x; `toys/posix/ps.c` is the same in what is modelled here):
/// without `-o` the Android default `USER,PID,PPID,VSIZE,RSS,WCHAN:10,ADDR:10,S,NAME`;
/// with it, the named fields (`PID` right-aligned in 5, `NAME` — argv\[0\], an app's
/// package — left-aligned in 27 and never cut without a terminal, which turns on `-w`),
/// and a header line of the titles, which `FIELD=` leaves empty but still prints (as a
/// line of spaces). An unknown field is `ps: bad -o FIELD`, exit 1.
pub(super) fn ps(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut fields: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-o" {
            if let Some(list) = it.next() {
                fields.extend(list.split(',').map(str::to_string));
            }
        } else if let Some(list) = a.strip_prefix("-o") {
            fields.extend(list.split(',').map(str::to_string));
        }
    }
    let procs = processes(ctx);
    if fields.is_empty() {
        let mut out = String::from(
            "USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME\n",
        );
        for p in &procs {
            out.push_str(&format!(
                "{:<12} {:5} {:5} {:10} {:6} 0                   0 S {}\n",
                p.user, p.pid, p.ppid, p.vsz, p.rss, p.name
            ));
        }
        ctx.print(&out)?;
        return Ok(0);
    }
    // (kind, width: negative is left-aligned, title)
    let mut cols: Vec<(String, i32, String)> = Vec::new();
    for f in &fields {
        let (spec, title) = match f.split_once('=') {
            Some((s, t)) => (s, Some(t.to_string())),
            None => (f.as_str(), None),
        };
        let (kind, width) = match spec.split_once(':') {
            Some((k, w)) => (k, w.parse::<i32>().ok()),
            None => (spec, None),
        };
        let kind = kind.to_ascii_uppercase();
        let default = match kind.as_str() {
            "PID" | "PPID" => 5,
            "USER" => -12,
            "VSZ" | "VSIZE" => 7,
            "RSS" => 6,
            "S" => -1,
            "NAME" | "ARGS" | "CMDLINE" => -27,
            "CMD" => -15,
            _ => {
                ctx.eprint(&format!("ps: bad -o {spec}\n"))?;
                return Ok(1);
            }
        };
        let width = match width {
            Some(w) if default < 0 => -w,
            Some(w) => w,
            None => default,
        };
        let title = title.unwrap_or_else(|| kind.clone());
        cols.push((kind, width, title));
    }
    let mut out = String::new();
    let row = |cells: Vec<String>, out: &mut String| {
        let n = cells.len();
        for (i, (c, (_, w, _))) in cells.iter().zip(&cols).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let w = w.unsigned_abs() as usize;
            if cols[i].1 < 0 {
                // The last left-aligned field gets no trailing spaces.
                if i + 1 == n {
                    out.push_str(c);
                } else {
                    out.push_str(&format!("{c:<w$}"));
                }
            } else {
                out.push_str(&format!("{c:>w$}"));
            }
        }
        out.push('\n');
    };
    row(cols.iter().map(|(_, _, t)| t.clone()).collect(), &mut out);
    for p in &procs {
        let cells = cols
            .iter()
            .map(|(k, _, _)| match k.as_str() {
                "PID" => p.pid.to_string(),
                "PPID" => p.ppid.to_string(),
                "USER" => p.user.clone(),
                "VSZ" | "VSIZE" => p.vsz.to_string(),
                "RSS" => p.rss.to_string(),
                "S" => "S".to_string(),
                // comm (stat[2]) is cut to 15 bytes by the kernel.
                "CMD" => p.name.chars().take(15).collect(),
                _ => p.name.clone(),
            })
            .collect();
        row(cells, &mut out);
    }
    ctx.print(&out)?;
    Ok(0)
}

/// init, system_server, the shell, the apps on the stack and running screenrecords.
fn processes(ctx: &mut Ctx) -> Vec<Proc> {
    let proc = |user: &str, pid, ppid, vsz, rss, name: &str| Proc {
        user: user.into(),
        pid,
        ppid,
        vsz,
        rss,
        name: name.into(),
    };
    let mut v = vec![
        proc("root", 1, 0, 10872304, 3848, "init"),
        proc("system", 612, 1, 17463828, 321640, "system_server"),
        proc("shell", 4242, 1, 10780528, 3340, "sh"),
    ];
    let apps: Vec<(u32, String)> = ctx.with_state(|s| {
        let mut v: Vec<(u32, String)> = s
            .stack
            .iter()
            .filter_map(|f| s.packages.get(&f.package).map(|p| (p.uid, p.name.clone())))
            .collect();
        v.dedup();
        v
    });
    for (uid, name) in apps {
        v.push(Proc {
            user: format!("u0_a{}", uid % 10000),
            pid: app_pid(uid),
            ppid: 612,
            vsz: 14837292,
            rss: 123456,
            name,
        });
    }
    for pid in ctx.phone.recording_pids() {
        v.push(proc("shell", pid, 4242, 10868228, 5120, "screenrecord"));
    }
    v
}

pub(super) fn pidof(ctx: &mut Ctx, name: &str, args: &[String]) -> Res {
    let target = args
        .iter()
        .rfind(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    let pids = if target.contains("screenrecord") {
        ctx.phone.recording_pids()
    } else {
        // Apps on the activity stack are running; their pid is derived from their uid.
        ctx.with_state(|s| {
            s.stack
                .iter()
                .find(|f| f.package == target)
                .and_then(|f| s.packages.get(&f.package))
                .map(|p| vec![app_pid(p.uid)])
                .unwrap_or_default()
        })
    };
    if pids.is_empty() {
        return Ok(1);
    }
    let sep = if name == "pidof" { " " } else { "\n" };
    ctx.print(&format!(
        "{}\n",
        pids.iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(sep)
    ))?;
    Ok(0)
}

pub(super) fn kill(ctx: &mut Ctx, name: &str, args: &[String]) -> Res {
    let targets: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with('-') && a.as_str() != "INT" && a.as_str() != "SIGINT")
        .collect();
    let mut any = false;
    for t in targets {
        if name == "pkill" {
            if t.contains("screenrecord") {
                for pid in ctx.phone.recording_pids() {
                    any |= ctx.phone.cancel_recording(pid);
                }
            }
        } else if let Ok(pid) = t.parse::<u32>() {
            if ctx.phone.cancel_recording(pid) {
                any = true;
            } else {
                ctx.eprint(&format!("/system/bin/sh: kill: {pid}: No such process\n"))?;
                return Ok(1);
            }
        }
    }
    Ok(if any || name == "kill" { 0 } else { 1 })
}
