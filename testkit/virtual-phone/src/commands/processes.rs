//! `ps`, `pidof`/`pgrep` and `kill`/`pkill`: the apps' and screenrecords' processes.

use super::*;

/// The pid the phone reports for a running app.
pub fn app_pid(uid: u32) -> u32 {
    4000 + uid % 10000
}

pub(super) fn ps(ctx: &mut Ctx) -> Res {
    let mut out =
        String::from("USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME\n");
    out.push_str("root             1     0   10872304   3848 0                   0 S init\n");
    out.push_str("shell         4242     1   10780528   3340 0                   0 S sh\n");
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
        out.push_str(&format!(
            "u0_a{:<8} {:5}   612   14837292 123456 0                   0 S {name}\n",
            uid % 10000,
            app_pid(uid)
        ));
    }
    for pid in ctx.phone.recording_pids() {
        out.push_str(&format!(
            "shell        {pid:5}  4242   10868228   5120 0                   0 S screenrecord\n"
        ));
    }
    ctx.print(&out)?;
    Ok(0)
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
