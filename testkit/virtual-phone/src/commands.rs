//! The device's command-line programs (`pm`, `am`, `input`, `dumpsys`, `screencap`, …), acting
//! on [`crate::state::PhoneState`]. Output formats follow the captures in
//! `fixtures/android/` (see `SOURCES.md` there).

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::apk;
use crate::layout;
use crate::phone::Shared;
use crate::scenario;
use crate::state::*;
use crate::uixml;

/// Where a command's output goes, and where its input comes from.
pub(crate) trait Io {
    fn out(&mut self, data: &[u8]) -> io::Result<()>;
    fn flush(&mut self) -> io::Result<()>;
    /// Waits up to `timeout` for input; `Ok(None)` on timeout; `Err` when input ended.
    fn read_input(&mut self, timeout: Duration) -> io::Result<Option<Vec<u8>>>;
    fn closed(&self) -> bool;
    /// Whether a host is attached that can end a following command (`logcat` without `-d`)
    /// by closing the stream. In-process runs cannot, so they never follow.
    fn can_follow(&self) -> bool {
        true
    }
}

/// An in-memory [`Io`] (used by [`crate::PhoneHandle::shell`]).
#[derive(Default)]
pub(crate) struct MemIo {
    pub output: Vec<u8>,
    pub input: Vec<u8>,
}

impl Io for MemIo {
    fn out(&mut self, data: &[u8]) -> io::Result<()> {
        self.output.extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn read_input(&mut self, _timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        if self.input.is_empty() {
            Err(io::ErrorKind::UnexpectedEof.into())
        } else {
            Ok(Some(std::mem::take(&mut self.input)))
        }
    }
    fn closed(&self) -> bool {
        false
    }
    fn can_follow(&self) -> bool {
        false
    }
}

/// Context of one simple command.
pub(crate) struct Ctx<'a> {
    pub phone: &'a Arc<Shared>,
    pub io: &'a mut dyn Io,
    pub env: &'a mut BTreeMap<String, String>,
    pub drop_stdout: bool,
    pub drop_stderr: bool,
}

impl Ctx<'_> {
    fn print(&mut self, s: &str) -> io::Result<()> {
        if self.drop_stdout {
            return Ok(());
        }
        self.io.out(s.as_bytes())
    }
    fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        if self.drop_stdout {
            return Ok(());
        }
        self.io.out(b)
    }
    /// Without shell_v2 stderr shares the stream with stdout.
    fn eprint(&mut self, s: &str) -> io::Result<()> {
        if self.drop_stderr {
            return Ok(());
        }
        self.io.out(s.as_bytes())
    }
    fn with_state<R>(&self, f: impl FnOnce(&mut PhoneState) -> R) -> R {
        self.phone.with_state(f)
    }
}

type Res = io::Result<i32>;

/// Runs the simple commands of an already checked line; returns the last exit status.
pub(crate) fn run_commands(
    phone: &Arc<Shared>,
    parsed: &crate::shell::ParsedLine,
    io: &mut dyn Io,
    env: &mut BTreeMap<String, String>,
) -> i32 {
    let mut status = 0;
    for cmd in &parsed.commands {
        let mut ctx = Ctx {
            phone,
            io: &mut *io,
            env: &mut *env,
            drop_stdout: cmd.redirects.iter().any(|r| {
                matches!(r.fd, None | Some(1)) && r.op.starts_with('>') && r.target == "/dev/null"
            }),
            drop_stderr: cmd
                .redirects
                .iter()
                .any(|r| r.fd == Some(2) && r.op.starts_with('>') && r.target == "/dev/null"),
        };
        let argv = expand_globs(phone, cmd);
        status = match run(&mut ctx, &argv) {
            Ok(s) => s,
            Err(_) => return 1,
        };
    }
    status
}

/// Pathname expansion: each word with an unquoted pattern is replaced by the sorted matching
/// paths, or kept literally when nothing matches (mksh behaviour). Only the last path
/// component may be a pattern.
fn expand_globs(phone: &Arc<Shared>, cmd: &crate::shell::SimpleCommand) -> Vec<String> {
    let mut out = Vec::with_capacity(cmd.argv.len());
    for (i, word) in cmd.argv.iter().enumerate() {
        if !cmd.globs.get(i).copied().unwrap_or(false) {
            out.push(word.clone());
            continue;
        }
        let (dir_text, pattern) = match word.rsplit_once('/') {
            Some((d, p)) => (Some(d), p),
            None => (None, word.as_str()),
        };
        let dir = normalize(
            dir_text
                .map(|d| if d.is_empty() { "/" } else { d })
                .unwrap_or("/"),
        );
        let mut matches: Vec<String> = phone.with_state(|s| {
            children(s, &dir)
                .into_iter()
                .filter(|(name, _)| {
                    (!name.starts_with('.') || pattern.starts_with('.'))
                        && crate::shell::glob_match(pattern, name)
                })
                .map(|(name, _)| match dir_text {
                    Some(d) => format!("{d}/{name}"),
                    None => name,
                })
                .collect()
        });
        if matches.is_empty() {
            out.push(word.clone());
        } else {
            matches.sort();
            out.extend(matches);
        }
    }
    out
}

/// Runs one simple command; returns its exit status.
pub(crate) fn run(ctx: &mut Ctx, argv: &[String]) -> Res {
    let Some(program) = argv.first() else {
        return Ok(0);
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let args = &argv[1..];
    match name {
        "sh" => match crate::shell::nested_script(argv) {
            Some(script) => {
                // Already checked for injection when the outer line was parsed.
                let inner = crate::shell::parse_with_env(script, ctx.env);
                if let Some(e) = &inner.error {
                    ctx.eprint(&format!("/system/bin/sh: {e}\n"))?;
                    return Ok(2);
                }
                let mut env = ctx.env.clone();
                Ok(run_commands(ctx.phone, &inner, ctx.io, &mut env))
            }
            None => {
                ctx.eprint("/system/bin/sh: interactive shells are not supported here\n")?;
                Ok(2)
            }
        },
        "true" => Ok(0),
        "false" => Ok(1),
        ":" => Ok(0),
        "echo" => echo(ctx, args),
        "id" => {
            ctx.print("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0\n")?;
            Ok(0)
        }
        "whoami" => ctx.print("shell\n").map(|_| 0),
        "export" => {
            for a in args {
                if let Some((k, v)) = a.split_once('=') {
                    ctx.env.insert(k.to_string(), v.to_string());
                }
            }
            Ok(0)
        }
        "exec" => run(ctx, args),
        "sleep" => {
            let secs: f64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(0.0);
            let until = Instant::now() + Duration::from_secs_f64(secs.clamp(0.0, 30.0));
            while Instant::now() < until && !ctx.io.closed() {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(0)
        }
        "getprop" => getprop(ctx, args),
        "setprop" => {
            if args.len() >= 2 {
                ctx.with_state(|s| s.props.insert(args[0].clone(), args[1].clone()));
            }
            Ok(0)
        }
        "settings" => settings(ctx, args),
        "content" => content(ctx, args),
        "wm" => wm(ctx, args),
        "pm" => pm(ctx, args),
        "cmd" => cmd(ctx, args),
        "am" => am(ctx, args),
        "monkey" => monkey(ctx, args),
        "input" => input(ctx, args),
        "dumpsys" => dumpsys(ctx, args),
        "uiautomator" => uiautomator(ctx, args),
        "screencap" => screencap(ctx, args),
        "screenrecord" => screenrecord(ctx, args),
        "logcat" => logcat(ctx, args),
        "ls" => ls(ctx, args),
        "cat" => cat(ctx, args),
        "rm" => rm(ctx, args),
        "mkdir" => mkdir(ctx, args),
        "touch" => touch(ctx, args),
        "pidof" | "pgrep" => pidof(ctx, name, args),
        "ps" => ps(ctx),
        "pkill" | "kill" => kill(ctx, name, args),
        "appops" => Ok(0),
        "date" => ctx
            .print(&format!("{}\n", format_date(now_ms(), true)))
            .map(|_| 0),
        _ => {
            ctx.eprint(&format!(
                "/system/bin/sh: {program}: inaccessible or not found\n"
            ))?;
            Ok(127)
        }
    }
}

fn echo(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut newline = true;
    let mut rest = args;
    while let Some(first) = rest.first() {
        if first == "-n" {
            newline = false;
        } else if first != "-e" && first != "-E" {
            break;
        }
        rest = &rest[1..];
    }
    let mut s = rest.join(" ");
    if newline {
        s.push('\n');
    }
    ctx.print(&s)?;
    Ok(0)
}

fn getprop(ctx: &mut Ctx, args: &[String]) -> Res {
    let out = ctx.with_state(|s| match args.first() {
        Some(k) => format!(
            "{}\n",
            s.props
                .get(k)
                .cloned()
                .or_else(|| args.get(1).cloned())
                .unwrap_or_default()
        ),
        None => s
            .props
            .iter()
            .map(|(k, v)| format!("[{k}]: [{v}]\n"))
            .collect(),
    });
    ctx.print(&out)?;
    Ok(0)
}

fn settings(ctx: &mut Ctx, args: &[String]) -> Res {
    let args: Vec<&String> = {
        let mut v = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "--user" {
                it.next();
            } else {
                v.push(a);
            }
        }
        v
    };
    let ns_ok = |ns: &str| matches!(ns, "system" | "secure" | "global");
    match args.as_slice() {
        [op, ns, key] if *op == "get" && ns_ok(ns) => {
            let v = ctx.with_state(|s| s.setting(ns, key).map(str::to_string));
            ctx.print(&format!("{}\n", v.unwrap_or_else(|| "null".into())))?;
            Ok(0)
        }
        [op, ns, key, value, ..] if *op == "put" && ns_ok(ns) => {
            ctx.with_state(|s| put_setting(s, ns, key, value));
            Ok(0)
        }
        [op, ns, key] if *op == "delete" && ns_ok(ns) => {
            let n = ctx.with_state(|s| {
                s.settings
                    .get_mut(ns.as_str())
                    .and_then(|m| m.remove(key.as_str()))
                    .is_some() as u32
            });
            ctx.print(&format!("Deleted {n} rows\n"))?;
            Ok(0)
        }
        [op, ns] if *op == "list" && ns_ok(ns) => {
            let out: String = ctx.with_state(|s| {
                s.settings
                    .get(ns.as_str())
                    .map(|m| m.iter().map(|(k, v)| format!("{k}={v}\n")).collect())
                    .unwrap_or_default()
            });
            ctx.print(&out)?;
            Ok(0)
        }
        _ => {
            ctx.eprint("usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n        settings [--user <USER_ID> | current] delete namespace key\n        settings [--user <USER_ID> | current] list namespace\n")?;
            Ok(255)
        }
    }
}

fn put_setting(s: &mut PhoneState, ns: &str, key: &str, value: &str) {
    s.set_setting(ns, key, value);
    if ns == "system" && key == "user_rotation" {
        s.log(
            'I',
            "WindowManager",
            &format!("Rotation changed to {value}"),
        );
    }
}

fn content(ctx: &mut Ctx, args: &[String]) -> Res {
    let op = args.first().map(String::as_str).unwrap_or("");
    let mut uri = None;
    let mut binds = BTreeMap::new();
    let mut where_ = None;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--uri" => uri = it.next().cloned(),
            "--bind" => {
                if let Some(b) = it.next() {
                    let mut parts = b.splitn(3, ':');
                    if let (Some(n), Some(_t), Some(v)) = (parts.next(), parts.next(), parts.next())
                    {
                        binds.insert(n.to_string(), v.to_string());
                    }
                }
            }
            "--where" => where_ = it.next().cloned(),
            "--user" => {
                it.next();
            }
            _ => {}
        }
    }
    let ns = uri
        .as_deref()
        .and_then(|u| u.strip_prefix("content://settings/"))
        .map(str::to_string);
    match (op, ns) {
        ("insert" | "update", Some(ns)) => {
            let name = binds
                .get("name")
                .cloned()
                .or_else(|| where_.as_deref().and_then(where_name));
            if let (Some(name), Some(value)) = (name, binds.get("value")) {
                ctx.with_state(|s| put_setting(s, &ns, &name, value));
            }
            Ok(0)
        }
        ("query", Some(ns)) => {
            let filter = where_.as_deref().and_then(where_name);
            let rows: Vec<(String, String)> = ctx.with_state(|s| {
                s.settings
                    .get(&ns)
                    .map(|m| {
                        m.iter()
                            .filter(|(k, _)| filter.as_deref().is_none_or(|f| f == k.as_str()))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect()
                    })
                    .unwrap_or_default()
            });
            if rows.is_empty() {
                ctx.print("No result found.\n")?;
            }
            for (i, (k, v)) in rows.iter().enumerate() {
                ctx.print(&format!("Row: {i} _id={}, name={k}, value={v}\n", i + 1))?;
            }
            Ok(0)
        }
        ("delete", Some(ns)) => {
            if let Some(name) = where_.as_deref().and_then(where_name) {
                ctx.with_state(|s| s.settings.get_mut(&ns).map(|m| m.remove(&name)));
            }
            Ok(0)
        }
        _ => {
            ctx.eprint("[ERROR] Unsupported operation or URI\n")?;
            Ok(1)
        }
    }
}

fn where_name(w: &str) -> Option<String> {
    let v = w
        .trim()
        .strip_prefix("name")?
        .trim()
        .strip_prefix('=')?
        .trim();
    Some(v.trim_matches(|c| c == '\'' || c == '"').to_string())
}

fn wm(ctx: &mut Ctx, args: &[String]) -> Res {
    let sub = args.first().map(String::as_str).unwrap_or("");
    match sub {
        "size" => {
            match args.get(1).map(String::as_str) {
                None => {
                    let out = ctx.with_state(|s| {
                        let mut o =
                            format!("Physical size: {}x{}\n", s.display.width, s.display.height);
                        if let Some((w, h)) = s.display.override_size {
                            o.push_str(&format!("Override size: {w}x{h}\n"));
                        }
                        o
                    });
                    ctx.print(&out)?;
                }
                Some("reset") => ctx.with_state(|s| s.display.override_size = None),
                Some(v) => {
                    let parsed = v
                        .split_once('x')
                        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)));
                    match parsed {
                        Some(sz) => ctx.with_state(|s| s.display.override_size = Some(sz)),
                        None => {
                            ctx.eprint(&format!("Error: bad size {v}\n"))?;
                            return Ok(255);
                        }
                    }
                }
            }
            Ok(0)
        }
        "density" => {
            match args.get(1).map(String::as_str) {
                None => {
                    let out = ctx.with_state(|s| {
                        let mut o = format!("Physical density: {}\n", s.display.density);
                        if let Some(d) = s.display.override_density {
                            o.push_str(&format!("Override density: {d}\n"));
                        }
                        o
                    });
                    ctx.print(&out)?;
                }
                Some("reset") => ctx.with_state(|s| s.display.override_density = None),
                Some(v) => match v.parse() {
                    Ok(d) => ctx.with_state(|s| s.display.override_density = Some(d)),
                    Err(_) => {
                        ctx.eprint(&format!("Error: bad number {v}\n"))?;
                        return Ok(255);
                    }
                },
            }
            Ok(0)
        }
        "user-rotation" => {
            let rest: Vec<&str> = args[1..].iter().map(String::as_str).collect();
            match rest.as_slice() {
                [] => {
                    let out = ctx.with_state(|s| {
                        let locked = s.setting("system", "accelerometer_rotation") == Some("0");
                        format!(
                            "{} {}\n",
                            if locked { "lock" } else { "free" },
                            s.rotation()
                        )
                    });
                    ctx.print(&out)?;
                }
                ["free"] => {
                    ctx.with_state(|s| s.set_setting("system", "accelerometer_rotation", "1"))
                }
                ["lock"] => {
                    ctx.with_state(|s| s.set_setting("system", "accelerometer_rotation", "0"))
                }
                ["lock", r] => ctx.with_state(|s| {
                    s.set_setting("system", "accelerometer_rotation", "0");
                    put_setting(s, "system", "user_rotation", r);
                }),
                _ => {}
            }
            Ok(0)
        }
        _ => {
            ctx.eprint("Window manager (window) commands:\n  help\n  size [reset|WxH|WdpxHdp]\n  density [reset|DENSITY]\n  user-rotation [free|lock] [-d DISPLAY_ID] [rotation]\n")?;
            Ok(if sub.is_empty() { 0 } else { 255 })
        }
    }
}

// ---------------------------------------------------------------- packages

fn pm(ctx: &mut Ctx, args: &[String]) -> Res {
    package_command(ctx, args, false)
}

fn cmd(ctx: &mut Ctx, args: &[String]) -> Res {
    let service = args.first().map(String::as_str).unwrap_or("");
    let rest = if args.is_empty() { args } else { &args[1..] };
    match service {
        "package" => package_command(ctx, rest, true),
        "activity" => am(ctx, rest),
        "window" => wm(ctx, rest),
        "settings" => settings(ctx, rest),
        "input" => input(ctx, rest),
        "locale" => {
            // cmd locale set-app-locales PKG --locales L
            if rest.first().map(String::as_str) == Some("set-app-locales")
                && let Some(pkg) = rest.get(1)
            {
                let locales = rest
                    .iter()
                    .position(|a| a == "--locales")
                    .and_then(|i| rest.get(i + 1))
                    .cloned()
                    .unwrap_or_default();
                ctx.with_state(|s| s.app_locales.insert(pkg.clone(), locales));
            }
            Ok(0)
        }
        "display" if rest.first().map(String::as_str) == Some("get-displays") => {
            let (w, h, d) =
                ctx.with_state(|s| (s.display.width, s.display.height, s.display.density));
            ctx.print(&format!(
                "Displays:\n  Display id 0: DisplayInfo{{\"Built-in Screen\", displayId 0\", displayGroupId 0, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real {w} x {h}, largest app {w} x {h}, smallest app {w} x {h}, appMode 60.0, mode 1, defaultMode 1, modes [{{id=1, width={w}, height={h}, fps=60.0}}], rotation 0, state ON, type INTERNAL, uniqueId \"local:4619827259835644672\", app {w} x {h}, density {d} ({d}.0 x {d}.0) dpi}}\n"
            ))?;
            Ok(0)
        }
        "" => {
            ctx.eprint("cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.\n")?;
            Ok(20)
        }
        other => {
            ctx.eprint(&format!("cmd: Can't find service: {other}\n"))?;
            Ok(20)
        }
    }
}

fn strip_user(args: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--user" {
            it.next();
        } else {
            v.push(a.clone());
        }
    }
    v
}

fn package_command(ctx: &mut Ctx, args: &[String], via_cmd: bool) -> Res {
    let args = strip_user(args);
    let sub = args.first().map(String::as_str).unwrap_or("");
    let rest = if args.is_empty() {
        &args[..]
    } else {
        &args[1..]
    };
    match sub {
        "list" => match rest.first().map(String::as_str) {
            Some("packages") => list_packages(ctx, &rest[1..]),
            Some("features") => {
                ctx.print("feature:android.hardware.touchscreen\nfeature:android.hardware.touchscreen.multitouch\nfeature:android.hardware.wifi\nfeature:android.software.webview\nfeature:android.hardware.screen.portrait\nfeature:android.hardware.screen.landscape\n")?;
                Ok(0)
            }
            _ => {
                ctx.eprint("Error: unknown list type\n")?;
                Ok(255)
            }
        },
        "path" => {
            let pkg = rest
                .iter()
                .find(|a| !a.starts_with('-'))
                .cloned()
                .unwrap_or_default();
            let path = ctx.with_state(|s| s.packages.get(&pkg).map(|p| p.apk_path.clone()));
            match path {
                Some(p) => ctx.print(&format!("package:{p}\n")).map(|_| 0),
                None => Ok(1),
            }
        }
        "install" => install(ctx, rest),
        "uninstall" => {
            let pkg = rest
                .iter()
                .find(|a| !a.starts_with('-'))
                .cloned()
                .unwrap_or_default();
            let ok = ctx.with_state(|s| match s.packages.get(&pkg) {
                Some(p) if !p.system => {
                    s.packages.remove(&pkg);
                    s.force_stop(&pkg);
                    scenario::refresh_launcher(s);
                    s.log('I', "PackageManager", &format!("Package {pkg} removed"));
                    true
                }
                _ => false,
            });
            if ok {
                ctx.print("Success\n")?;
                Ok(0)
            } else {
                ctx.print("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")?;
                Ok(1)
            }
        }
        "clear" => {
            let pkg = rest
                .iter()
                .find(|a| !a.starts_with('-'))
                .cloned()
                .unwrap_or_default();
            let ok = ctx.with_state(|s| s.packages.contains_key(&pkg));
            ctx.print(if ok { "Success\n" } else { "Failed\n" })?;
            Ok(if ok { 0 } else { 1 })
        }
        "grant" | "revoke" | "enable" | "disable-user" | "set-home-activity" | "compile"
        | "trim-caches" => Ok(0),
        "dump" => dumpsys_package(ctx, rest.first().map(String::as_str).unwrap_or("")),
        "query-activities" if via_cmd => query_activities(ctx, rest),
        "resolve-activity" if via_cmd => resolve_activity(ctx, rest),
        _ => {
            ctx.eprint(&format!("Unknown command: {sub}\n"))?;
            Ok(255)
        }
    }
}

fn list_packages(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut show_path = false;
    let mut third = false;
    let mut system = false;
    let mut uid = false;
    let mut version = false;
    let mut installer = false;
    let mut filter = None;
    for a in args {
        match a.as_str() {
            "-f" => show_path = true,
            "-3" => third = true,
            "-s" => system = true,
            "-U" => uid = true,
            "--show-versioncode" => version = true,
            "-i" => installer = true,
            s if s.starts_with('-') => {}
            s => filter = Some(s.to_string()),
        }
    }
    let out: String = ctx.with_state(|s| {
        s.packages
            .values()
            .filter(|p| (!third || !p.system) && (!system || p.system))
            .filter(|p| filter.as_deref().is_none_or(|f| p.name.contains(f)))
            .map(|p| {
                let mut line = String::from("package:");
                if show_path {
                    line.push_str(&format!("{}=", p.apk_path));
                }
                line.push_str(&p.name);
                if version {
                    line.push_str(&format!(" versionCode:{}", p.version_code));
                }
                if installer {
                    line.push_str(if p.system {
                        "  installer=null"
                    } else {
                        "  installer=com.android.shell"
                    });
                }
                if uid {
                    line.push_str(&format!(" uid:{}", p.uid));
                }
                line.push('\n');
                line
            })
            .collect()
    });
    ctx.print(&out)?;
    Ok(0)
}

fn install(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut size: Option<usize> = None;
    let mut path = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-S" => size = it.next().and_then(|s| s.parse().ok()),
            "-i" | "--install-location" | "--originating-uri" | "--referrer" | "--abi" | "-p"
            | "--pkg" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            s => path = Some(s.to_string()),
        }
    }
    let (data, name) = if let Some(n) = size {
        // Streamed install: the APK bytes follow on stdin.
        let mut data = Vec::with_capacity(n);
        let deadline = Instant::now() + Duration::from_secs(60);
        while data.len() < n {
            if Instant::now() > deadline {
                ctx.print("Failure [INSTALL_FAILED_INVALID_APK: timed out reading APK]\n")?;
                return Ok(1);
            }
            match ctx.io.read_input(Duration::from_millis(200)) {
                Ok(Some(chunk)) => data.extend_from_slice(&chunk),
                Ok(None) => {}
                Err(_) => break,
            }
        }
        if data.len() < n {
            ctx.print(&format!(
                "Failure [INSTALL_FAILED_INVALID_APK: expected {n} bytes, got {}]\n",
                data.len()
            ))?;
            return Ok(1);
        }
        data.truncate(n);
        (data, None)
    } else if let Some(p) = path {
        let p = normalize(&p);
        match ctx.with_state(|s| s.files.get(&p).map(|f| f.data.clone())) {
            Some(d) => (d, Some(p)),
            None => {
                ctx.print(&format!(
                    "Failure [INSTALL_FAILED_INVALID_URI: Don't allow to install {p}]\n"
                ))?;
                return Ok(1);
            }
        }
    } else {
        ctx.eprint("Error: must either specify a package size or an APK file\n")?;
        return Ok(255);
    };
    let (pkg, label) = apk::identify(&data, name.as_deref());
    let ok = ctx.with_state(|s| {
        if s.packages.get(&pkg).is_some_and(|p| p.system) {
            return false;
        }
        s.next_uid += 1;
        let uid = s.packages.get(&pkg).map(|p| p.uid).unwrap_or(s.next_uid);
        let p = scenario::installed_package(&pkg, &label, uid);
        s.packages.insert(pkg.clone(), p);
        scenario::refresh_launcher(s);
        s.log('I', "PackageManager", &format!("Package {pkg} installed"));
        true
    });
    if ok {
        ctx.print("Success\n")?;
        Ok(0)
    } else {
        ctx.print(&format!("Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package {pkg} signatures do not match newer version; ignoring!]\n"))?;
        Ok(1)
    }
}

fn intent_filter(args: &[String]) -> (Option<String>, Vec<String>, Option<String>, bool, bool) {
    let (mut action, mut cats, mut pkg, mut brief, mut components) =
        (None, Vec::new(), None, false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" => action = it.next().cloned(),
            "-c" => {
                if let Some(c) = it.next() {
                    cats.push(c.clone());
                }
            }
            "--brief" => brief = true,
            "--components" => components = true,
            "-p" => pkg = it.next().cloned(),
            s if s.starts_with('-') => {}
            s => pkg = Some(s.to_string()),
        }
    }
    (action, cats, pkg, brief, components)
}

/// Launcher activities matching the filter (MAIN/LAUNCHER only are modelled).
type Match = (String, String, String, u32, bool, String);

fn launcher_matches(
    s: &PhoneState,
    action: Option<&str>,
    cats: &[String],
    pkg: Option<&str>,
) -> Vec<Match> {
    let home = cats.iter().any(|c| c == "android.intent.category.HOME");
    let action_ok = action.is_none_or(|a| a == "android.intent.action.MAIN");
    let cats_ok = cats.iter().all(|c| {
        c == "android.intent.category.LAUNCHER"
            || c == "android.intent.category.HOME"
            || c == "android.intent.category.DEFAULT"
    });
    if !action_ok || !cats_ok {
        return Vec::new();
    }
    s.packages
        .values()
        .filter(|p| pkg.is_none_or(|f| f == p.name))
        .filter(|p| {
            if home {
                p.name == LAUNCHER_PACKAGE
            } else {
                p.name != LAUNCHER_PACKAGE || pkg.is_some()
            }
        })
        .filter_map(|p| {
            p.launcher_activity.as_ref().map(|a| {
                (
                    p.name.clone(),
                    a.clone(),
                    p.label.clone(),
                    p.uid,
                    p.system,
                    p.apk_path.clone(),
                )
            })
        })
        .collect()
}

fn query_activities(ctx: &mut Ctx, args: &[String]) -> Res {
    let (action, cats, pkg, brief, components) = intent_filter(args);
    let found = ctx.with_state(|s| launcher_matches(s, action.as_deref(), &cats, pkg.as_deref()));
    let mut out = String::new();
    if components {
        for (p, a, ..) in &found {
            out.push_str(&format!("{}\n", short_component(p, a)));
        }
    } else if brief {
        out.push_str(&format!("{} activities found:\n", found.len()));
        for (i, (p, a, ..)) in found.iter().enumerate() {
            out.push_str(&format!("  Activity #{i}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    {}\n", short_component(p, a)));
        }
    } else if found.is_empty() {
        out.push_str("No activities found\n");
    } else {
        out.push_str(&format!("{} activities found:\n", found.len()));
        for (i, (p, a, label, uid, system, source)) in found.iter().enumerate() {
            out.push_str(&activity_block(i, p, a, label, *uid, *system, source));
        }
    }
    ctx.print(&out)?;
    Ok(0)
}

fn activity_block(
    i: usize,
    p: &str,
    a: &str,
    label: &str,
    uid: u32,
    system: bool,
    source: &str,
) -> String {
    // Layout of AOSP ResolveInfo.dump / ActivityInfo.dump / ApplicationInfo.dump, as in
    // fixtures/android/query-activities.txt. Literal labels (user apps) show as
    // nonLocalizedLabel; system apps use resource labels.
    let data_dir = format!("/data/user/0/{p}");
    let nl = if system {
        "null".to_string()
    } else {
        label.to_string()
    };
    format!(
        "  Activity #{i}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ActivityInfo:\n      name={a}\n      packageName={p}\n      labelRes=0x0 nonLocalizedLabel=null icon=0x0\n      enabled=true exported=true directBootAware=false\n      taskAffinity={p} targetActivity=null persistableMode=PERSIST_ROOT_ONLY\n      launchMode=LAUNCH_MULTIPLE flags=0x3 privateFlags=0x0 theme=0x7f150{i:03x}\n      screenOrientation=-1 configChanges=0x4a0 softInputMode=0x0\n      lockTaskLaunchMode=LOCK_TASK_LAUNCH_MODE_DEFAULT\n      resizeMode=RESIZE_MODE_RESIZEABLE\n      knownActivityEmbeddingCerts={{}}\n      ApplicationInfo:\n        name={p}.App\n        packageName={p}\n        labelRes=0x{lr:x} nonLocalizedLabel={nl} icon=0x7f0f0000 banner=0x0\n        className={p}.App\n        processName={p}\n        taskAffinity={p}\n        uid={uid} flags=0x{flags:x} privateFlags=0x{pflags:x} theme=0x7f150000\n        requiresSmallestWidthDp=0 compatibleWidthLimitDp=0 largestWidthLimitDp=0\n        sourceDir={source}\n        dataDir={data_dir}\n        deviceProtectedDataDir=/data/user_de/0/{p}\n        credentialProtectedDataDir={data_dir}\n        enabled=true minSdkVersion=24 targetSdkVersion=34 versionCode=1 targetSandboxVersion=1\n        supportsRtl=true\n        fullBackupContent=true\n        HiddenApiEnforcementPolicy=2\n        usesNonSdkApi=false\n        allowsPlaybackCapture=true\n",
        lr = if system { 0x7f14_0000u32 + i as u32 } else { 0 },
        flags = if system { 0x38c8be45u32 } else { 0x3888be44 },
        pflags = if system { 0xac1b1148u32 } else { 0xac001000 },
    )
}

fn resolve_activity(ctx: &mut Ctx, args: &[String]) -> Res {
    let (action, cats, pkg, brief, components) = intent_filter(args);
    let found = ctx.with_state(|s| {
        let mut v = launcher_matches(
            s,
            action.as_deref().or(Some("android.intent.action.MAIN")),
            &cats,
            pkg.as_deref(),
        );
        if v.is_empty() && pkg.is_some() && cats.is_empty() {
            v = launcher_matches(
                s,
                None,
                &["android.intent.category.LAUNCHER".to_string()],
                pkg.as_deref(),
            );
        }
        v
    });
    let Some((p, a, label, uid, system, source)) = found.into_iter().next() else {
        ctx.print("No activity found\n")?;
        return Ok(0);
    };
    if components {
        ctx.print(&format!("{}\n", short_component(&p, &a)))?;
    } else if brief {
        ctx.print(&format!(
            "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n{}\n",
            short_component(&p, &a)
        ))?;
    } else {
        let block = activity_block(0, &p, &a, &label, uid, system, &source);
        let body: String = block
            .lines()
            .skip(1)
            .map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l)))
            .collect();
        ctx.print(&body)?;
    }
    Ok(0)
}

// ---------------------------------------------------------------- activities

fn am(ctx: &mut Ctx, args: &[String]) -> Res {
    let args = strip_user(args);
    let sub = args.first().map(String::as_str).unwrap_or("");
    let rest = if args.is_empty() {
        &args[..]
    } else {
        &args[1..]
    };
    match sub {
        "start" | "start-activity" => am_start(ctx, rest),
        "force-stop" | "kill" | "stop-app" => {
            if let Some(pkg) = rest.iter().find(|a| !a.starts_with('-')) {
                ctx.with_state(|s| s.force_stop(pkg));
            }
            Ok(0)
        }
        "broadcast" => broadcast(ctx, rest),
        _ => {
            ctx.eprint(&format!("Unknown command: {sub}\n"))?;
            Ok(255)
        }
    }
}

/// `am broadcast`. The ADBKeyboard IME's intents (`ADB_INPUT_TEXT`, `ADB_INPUT_B64`,
/// `ADB_CLEAR_TEXT` with `--es msg …`) type into the focused field when that IME is installed
/// and selected (`settings put secure default_input_method com.android.adbkeyboard/.AdbIME`).
fn broadcast(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut action = String::new();
    let mut extras = BTreeMap::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" => action = it.next().cloned().unwrap_or_default(),
            "--es" | "--ei" | "--ez" | "--el" | "--ef" | "--eu" => {
                if let (Some(k), Some(v)) = (it.next(), it.next()) {
                    extras.insert(k.clone(), v.clone());
                }
            }
            "-n" | "-p" | "-f" | "-c" | "-d" => {
                it.next();
            }
            _ => {}
        }
    }
    let has = if extras.is_empty() {
        ""
    } else {
        " (has extras)"
    };
    ctx.print(&format!(
        "Broadcasting: Intent {{ act={action} flg=0x400000{has} }}\n"
    ))?;
    let ime_active = ctx.with_state(|s| {
        s.packages.contains_key("com.android.adbkeyboard")
            && s.setting("secure", "default_input_method")
                .is_some_and(|m| m.starts_with("com.android.adbkeyboard/"))
    });
    if ime_active {
        let msg = extras.get("msg").cloned().unwrap_or_default();
        let text = match action.as_str() {
            "ADB_INPUT_TEXT" => Some(msg),
            "ADB_INPUT_B64" => decode_base64(&msg).and_then(|b| String::from_utf8(b).ok()),
            _ => None,
        };
        ctx.with_state(|s| {
            if let Some(t) = &text {
                s.input_events.push(InputEvent::Text { text: t.clone() });
                s.type_text(t);
            } else if action == "ADB_CLEAR_TEXT"
                && let Some(id) = s.foreground().and_then(|f| f.focused.clone())
                && let Some(e) = s
                    .current_screen_mut()
                    .and_then(|sc| find_element_mut(sc, &id))
            {
                e.text.clear();
            }
        });
    }
    ctx.print("Broadcast completed: result=0\n")?;
    Ok(0)
}

/// Standard base64 (with or without padding); `None` if malformed.
pub fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn am_start(ctx: &mut Ctx, args: &[String]) -> Res {
    let status = am_start_inner(ctx, args)?;
    if status == 0 && args.iter().any(|a| a == "-W") {
        // `am start -W` waits for the launch and reports it.
        let comp = ctx.with_state(|s| {
            s.foreground()
                .map(|f| short_component(&f.package, &f.activity))
        });
        if let Some(comp) = comp {
            ctx.print(&format!(
                "Status: ok\nLaunchState: COLD\nActivity: {comp}\nTotalTime: 312\nWaitTime: 315\nComplete\n"
            ))?;
        }
    }
    Ok(status)
}

fn am_start_inner(ctx: &mut Ctx, args: &[String]) -> Res {
    let (mut comp, mut action, mut data, mut cats) =
        (None::<String>, None::<String>, None::<String>, Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-n" => comp = it.next().cloned(),
            "-a" => action = it.next().cloned(),
            "-d" => data = it.next().cloned(),
            "-c" => {
                if let Some(c) = it.next() {
                    cats.push(c.clone());
                }
            }
            "-t"
            | "-f"
            | "--es"
            | "--ez"
            | "--ei"
            | "--el"
            | "--ef"
            | "--eu"
            | "--ecn"
            | "--activity-brought-to-front"
            | "--display"
            | "--windowingMode"
            | "-P"
            | "--start-profiler"
            | "-R" => {
                if matches!(
                    a.as_str(),
                    "--es" | "--ez" | "--ei" | "--el" | "--ef" | "--eu" | "--ecn"
                ) {
                    it.next();
                }
                it.next();
            }
            s if s.starts_with('-') => {}
            s => {
                if s.contains('/') {
                    comp = Some(s.to_string());
                }
            }
        }
    }
    let mut desc = Vec::new();
    if let Some(a) = &action {
        desc.push(format!("act={a}"));
    }
    if !cats.is_empty() {
        desc.push(format!("cat=[{}]", cats.join(",")));
    }
    if let Some(d) = &data {
        let redacted = match d.find("://") {
            Some(i) => match d[i + 3..].find('/') {
                Some(j) => format!("{}/...", &d[..i + 3 + j]),
                None => d.clone(),
            },
            None => d.clone(),
        };
        desc.push(format!("dat={redacted}"));
    }
    if let Some(c) = &comp {
        desc.push(format!("cmp={c}"));
    }
    ctx.print(&format!("Starting: Intent {{ {} }}\n", desc.join(" ")))?;

    if let Some(c) = comp {
        let Some((pkg, act)) = c.split_once('/') else {
            ctx.print(&format!("Error: Bad component name: {c}\n"))?;
            return Ok(1);
        };
        let r = ctx.with_state(|s| s.start_activity(pkg, Some(act)));
        if let Err(e) = r {
            ctx.print(&format!("{e}\n"))?;
            return Ok(1);
        }
        return Ok(0);
    }
    if cats.iter().any(|c| c == "android.intent.category.HOME") {
        ctx.with_state(|s| s.go_home());
        return Ok(0);
    }
    if action.as_deref() == Some("android.intent.action.VIEW")
        && let Some(url) = data
    {
        let browser = url.starts_with("http://") || url.starts_with("https://");
        let handled = ctx.with_state(|s| {
            if !browser || !s.packages.contains_key("com.android.chrome") {
                return false;
            }
            open_in_browser(s, &url);
            true
        });
        if !handled {
            ctx.print(&format!("Error: Activity not started, unable to resolve Intent {{ act=android.intent.action.VIEW dat={url} flg=0x10000000 }}\n"))?;
            return Ok(1);
        }
        return Ok(0);
    }
    ctx.print(&format!(
        "Error: Activity not started, unable to resolve Intent {{ {} flg=0x10000000 }}\n",
        desc.join(" ")
    ))?;
    Ok(1)
}

fn monkey(ctx: &mut Ctx, args: &[String]) -> Res {
    let pkg = args
        .iter()
        .position(|a| a == "-p")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let mut out = String::new();
    for a in args {
        out.push_str(&format!("  bash arg: {a}\n"));
    }
    out.push_str(&format!("args: [{}]\n", args.join(", ")));
    for a in args {
        out.push_str(&format!(" arg: \"{a}\"\n"));
    }
    let started = match &pkg {
        Some(p) => ctx.with_state(|s| {
            s.packages
                .get(p)
                .is_some_and(|x| x.launcher_activity.is_some())
                && s.start_activity(p, None).is_ok()
        }),
        None => false,
    };
    if !started {
        out.push_str("** No activities found to run, monkey aborted.\n");
        ctx.print(&out)?;
        return Ok(252);
    }
    out.push_str("data=\"android.intent.category.LAUNCHER\"\nEvents injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n");
    ctx.print(&out)?;
    Ok(0)
}

// ---------------------------------------------------------------- input

/// Key codes (`KeyEvent.KEYCODE_*`) the phone knows by name.
const KEYCODES: &[(&str, u32)] = &[
    ("UNKNOWN", 0),
    ("SOFT_LEFT", 1),
    ("SOFT_RIGHT", 2),
    ("HOME", 3),
    ("BACK", 4),
    ("CALL", 5),
    ("ENDCALL", 6),
    ("0", 7),
    ("1", 8),
    ("2", 9),
    ("3", 10),
    ("4", 11),
    ("5", 12),
    ("6", 13),
    ("7", 14),
    ("8", 15),
    ("9", 16),
    ("STAR", 17),
    ("POUND", 18),
    ("DPAD_UP", 19),
    ("DPAD_DOWN", 20),
    ("DPAD_LEFT", 21),
    ("DPAD_RIGHT", 22),
    ("DPAD_CENTER", 23),
    ("VOLUME_UP", 24),
    ("VOLUME_DOWN", 25),
    ("POWER", 26),
    ("CAMERA", 27),
    ("CLEAR", 28),
    ("A", 29),
    ("B", 30),
    ("C", 31),
    ("D", 32),
    ("E", 33),
    ("F", 34),
    ("G", 35),
    ("H", 36),
    ("I", 37),
    ("J", 38),
    ("K", 39),
    ("L", 40),
    ("M", 41),
    ("N", 42),
    ("O", 43),
    ("P", 44),
    ("Q", 45),
    ("R", 46),
    ("S", 47),
    ("T", 48),
    ("U", 49),
    ("V", 50),
    ("W", 51),
    ("X", 52),
    ("Y", 53),
    ("Z", 54),
    ("COMMA", 55),
    ("PERIOD", 56),
    ("TAB", 61),
    ("SPACE", 62),
    ("ENTER", 66),
    ("DEL", 67),
    ("MENU", 82),
    ("SEARCH", 84),
    ("MEDIA_PLAY_PAUSE", 85),
    ("PAGE_UP", 92),
    ("PAGE_DOWN", 93),
    ("ESCAPE", 111),
    ("FORWARD_DEL", 112),
    ("MOVE_HOME", 122),
    ("MOVE_END", 123),
    ("VOLUME_MUTE", 164),
    ("APP_SWITCH", 187),
    ("WAKEUP", 224),
    ("SLEEP", 223),
    ("PASTE", 279),
    ("COPY", 278),
    ("CUT", 277),
];

/// Parses `KEYCODE_HOME`, `HOME` or `3`.
pub fn parse_keycode(s: &str) -> Option<(u32, String)> {
    if let Ok(n) = s.parse::<u32>() {
        let name = KEYCODES
            .iter()
            .find(|(_, c)| *c == n)
            .map(|(n, _)| n.to_string())
            .unwrap_or_else(|| n.to_string());
        return Some((n, name));
    }
    let name = s.strip_prefix("KEYCODE_").unwrap_or(s);
    KEYCODES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(n, c)| (*c, n.to_string()))
}

/// Decodes `input text`'s argument the way Android's input command does: `%s` is a space
/// (the shell already removed backslashes).
pub fn decode_input_text(s: &str) -> String {
    s.replace("%s", " ")
}

fn num(s: Option<&String>) -> Option<f64> {
    s?.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn input(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut args: Vec<String> = args.to_vec();
    // Optional source / display: `input [touchscreen|keyboard|…] [-d DISPLAY] cmd …`
    if let Some(first) = args.first()
        && matches!(
            first.as_str(),
            "touchscreen"
                | "keyboard"
                | "touchpad"
                | "mouse"
                | "dpad"
                | "gamepad"
                | "stylus"
                | "trackball"
                | "joystick"
                | "touchnavigation"
                | "rotaryencoder"
        )
    {
        args.remove(0);
    }
    if args.first().map(String::as_str) == Some("-d") {
        args.drain(..2.min(args.len()));
    }
    let sub = args.first().cloned().unwrap_or_default();
    let a = &args[1.min(args.len())..];
    let usage = |ctx: &mut Ctx| -> Res {
        ctx.eprint("Error: Invalid arguments for command: input\nUsage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")?;
        Ok(255)
    };
    match sub.as_str() {
        "tap" => {
            let (Some(x), Some(y)) = (num(a.first()), num(a.get(1))) else {
                return usage(ctx);
            };
            ctx.with_state(|s| {
                s.input_events.push(InputEvent::Tap { x, y });
                tap(s, x, y);
            });
            Ok(0)
        }
        "swipe" | "draganddrop" => {
            let vals: Vec<f64> = a.iter().take(5).filter_map(|v| v.parse().ok()).collect();
            if vals.len() < 4 {
                return usage(ctx);
            }
            let dur = vals.get(4).map(|d| *d as u64).unwrap_or(300);
            let (x1, y1, x2, y2) = (vals[0], vals[1], vals[2], vals[3]);
            ctx.with_state(|s| {
                if sub == "draganddrop" {
                    s.input_events.push(InputEvent::DragAndDrop {
                        x1,
                        y1,
                        x2,
                        y2,
                        duration_ms: dur,
                    });
                } else if (x1 - x2).abs() < 1.0 && (y1 - y2).abs() < 1.0 && dur >= 400 {
                    s.input_events.push(InputEvent::LongPress {
                        x: x1,
                        y: y1,
                        duration_ms: dur,
                    });
                    tap(s, x1, y1);
                } else {
                    scroll(s, x1, y1, x2, y2);
                    s.input_events.push(InputEvent::Swipe {
                        x1,
                        y1,
                        x2,
                        y2,
                        duration_ms: dur,
                    });
                }
            });
            // A gesture takes its duration on a real device (bounded here).
            std::thread::sleep(Duration::from_millis(dur.min(50)));
            Ok(0)
        }
        "text" => {
            let Some(raw) = a.first() else {
                return usage(ctx);
            };
            let text = decode_input_text(raw);
            if !text
                .chars()
                .all(|c| c.is_ascii() && (c >= ' ' || c == '\n' || c == '\t'))
            {
                ctx.eprint("Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:439)\n")?;
                return Ok(255);
            }
            ctx.with_state(|s| {
                s.input_events.push(InputEvent::Text { text: text.clone() });
                s.type_text(&text);
            });
            Ok(0)
        }
        "keyevent" | "press" => {
            let keys: Vec<&String> = a.iter().filter(|k| !k.starts_with("--")).collect();
            if sub == "press" {
                ctx.with_state(|s| key(s, 23, "DPAD_CENTER"));
                return Ok(0);
            }
            if keys.is_empty() {
                return usage(ctx);
            }
            for k in keys {
                match parse_keycode(k) {
                    Some((code, name)) => ctx.with_state(|s| key(s, code, &name)),
                    None => {
                        ctx.eprint(&format!("Error: Unknown keycode: {k}\n"))?;
                        return Ok(255);
                    }
                }
            }
            Ok(0)
        }
        "roll" | "motionevent" | "keycombination" | "scroll" => Ok(0),
        _ => usage(ctx),
    }
}

/// Shows `url` in Chrome (address bar and page) and brings Chrome to the front.
pub(crate) fn open_in_browser(s: &mut PhoneState, url: &str) {
    s.browser_url = url.to_string();
    if let Some(screen) = s
        .packages
        .get_mut("com.android.chrome")
        .and_then(|p| p.screens.get_mut("main"))
    {
        for e in &mut screen.elements {
            if e.resource_id == "com.android.chrome:id/url_bar" {
                e.text = url.to_string();
            } else if e.resource_id == "com.android.chrome:id/page_content" {
                e.text = format!("Page at {url}");
            }
        }
    }
    let _ = s.start_activity("com.android.chrome", None);
}

/// A mostly vertical swipe that starts on a scrollable list scrolls it (finger up = content up).
pub(crate) fn scroll(s: &mut PhoneState, x1: f64, y1: f64, x2: f64, y2: f64) {
    let (dx, dy) = (x2 - x1, y2 - y1);
    if dy.abs() <= dx.abs() {
        return;
    }
    let root = layout::layout(s);
    let Some(max) = layout::scroll_target(&root, x1, y1) else {
        return;
    };
    if let Some(f) = s.stack.last_mut() {
        f.scroll = (f.scroll - dy as i32).clamp(0, max);
    }
}

/// A tap at `(x, y)` on the current screen.
pub(crate) fn tap(s: &mut PhoneState, x: f64, y: f64) {
    let root = layout::layout(s);
    let Some(node) = layout::hit_test(&root, x, y) else {
        return;
    };
    let Some(key) = node.element.clone() else {
        return;
    };
    let Some(element) = s
        .current_screen()
        .and_then(|sc| find_element(sc, &key))
        .cloned()
    else {
        return;
    };
    if !element.enabled {
        return;
    }
    if element.kind == ElementKind::EditText {
        s.focus(Some(key));
        return;
    }
    if let Some(action) = &element.action {
        s.run_action(action, &key);
    }
}

/// A key press.
pub(crate) fn key(s: &mut PhoneState, code: u32, name: &str) {
    s.input_events.push(InputEvent::Key {
        code,
        name: name.to_string(),
    });
    match code {
        3 => s.go_home(),
        4 | 111 => s.go_back(),
        26 => s.screen_on = !s.screen_on,
        223 => s.screen_on = false,
        224 => s.screen_on = true,
        66 => {
            // ENTER submits the form the focused field belongs to, if any.
            let Some(id) = s.foreground().and_then(|f| f.focused.clone()) else {
                return;
            };
            if id == "com.android.chrome:id/url_bar" {
                // The browser's address bar: ENTER loads what was typed.
                if let Some(url) = s.focused_text().filter(|u| !u.is_empty()) {
                    open_in_browser(s, &url);
                }
                return;
            }
            let submit = s.current_screen().and_then(|sc| {
                sc.elements
                    .iter()
                    .enumerate()
                    .find_map(|(i, e)| match &e.action {
                        Some(a @ Action::Submit { field, .. }) if *field == id => {
                            Some((a.clone(), element_key(sc, i)))
                        }
                        _ => None,
                    })
            });
            if let Some((a, k)) = submit {
                s.run_action(&a, &k);
            }
        }
        67 => {
            let Some(id) = s.foreground().and_then(|f| f.focused.clone()) else {
                return;
            };
            if let Some(e) = s
                .current_screen_mut()
                .and_then(|sc| find_element_mut(sc, &id))
            {
                e.text.pop();
            }
        }
        279 => {
            let clip = s.clipboard.clone();
            s.type_text(&clip);
        }
        62 => {
            s.type_text(" ");
        }
        7..=16 => {
            s.type_text(&((b'0' + (code - 7) as u8) as char).to_string());
        }
        29..=54 => {
            s.type_text(&((b'a' + (code - 29) as u8) as char).to_string());
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- dumpsys

fn focus_lines(s: &PhoneState) -> (String, String, String) {
    match s.foreground() {
        Some(f) => {
            let comp = short_component(&f.package, &f.activity);
            let full = format!("{}/{}", f.package, f.activity);
            (
                format!("Window{{8d5a5a9 u0 {full}}}"),
                format!("ActivityRecord{{cd9f1d7 u0 {comp} t{}}}", f.task),
                comp,
            )
        }
        None => ("null".into(), "null".into(), String::new()),
    }
}

fn dumpsys(ctx: &mut Ctx, args: &[String]) -> Res {
    let service = args.first().map(String::as_str).unwrap_or("");
    match service {
        "window" => {
            let which = args.get(1).map(String::as_str).unwrap_or("");
            let out = ctx.with_state(|s| dumpsys_window(s, which));
            ctx.print(&out)?;
            Ok(0)
        }
        "activity" => {
            let out = ctx.with_state(|s| dumpsys_activity(s));
            ctx.print(&out)?;
            Ok(0)
        }
        "package" => dumpsys_package(ctx, args.get(1).map(String::as_str).unwrap_or("")),
        "SurfaceFlinger" if args.get(1).map(String::as_str) == Some("--display-id") => {
            ctx.print("Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName=\"Built-in Screen\"\n")?;
            Ok(0)
        }
        "display" => {
            let (w, h, d) =
                ctx.with_state(|s| (s.display.width, s.display.height, s.display.density));
            ctx.print(&format!("DISPLAY MANAGER (dumpsys display)\n  mOnlyCore=false\n  mDefaultViewport=DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:4619827259835644672', physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}\n  mDisplayDeviceInfo: DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:4619827259835644672\", {w} x {h}, modeId 1, density {d}, state ON}}\n"))?;
            Ok(0)
        }
        "input_method" => {
            let shown = ctx.with_state(|s| s.foreground().is_some_and(|f| f.focused.is_some()));
            ctx.print(&format!(
                "  mInputShown={shown}\n  mIsInputViewShown={shown}\n"
            ))?;
            Ok(0)
        }
        "" => {
            ctx.print("Currently running services:\n  activity\n  display\n  input_method\n  package\n  SurfaceFlinger\n  window\n")?;
            Ok(0)
        }
        other => {
            ctx.print(&format!("Can't find service: {other}\n"))?;
            Ok(0)
        }
    }
}

fn dumpsys_window(s: &PhoneState, which: &str) -> String {
    let (win, app, _) = focus_lines(s);
    let (w, h) = s.oriented_size();
    let rot = s.rotation();
    let d = s.display.override_density.unwrap_or(s.display.density);
    let ime = s.foreground().is_some_and(|f| f.focused.is_some());
    let mut out = String::new();
    if which.is_empty() || which == "displays" || which == "d" {
        out.push_str("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n");
        out.push_str(&format!(
            "  Display: mDisplayId=0 rootTasks=3\n    init={}x{} {d}dpi base={}x{} {d}dpi cur={w}x{h} app={w}x{} rng=1080x1017-2400x2337\n    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))\n\n  mLayoutSeq=312\n  mCurrentFocus={win}\n  mFocusedApp={app}\n  mLastStatusBarVisibility=0x0\n  mDisplayRotation:\n    mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED\n    mRotation={rot} mDeferredRotationPauseCount=0\n    mUserRotationMode={} mUserRotation=ROTATION_{}\n\n",
            s.display.width, s.display.height, s.display.width, s.display.height, h - 126,
            if s.setting("system", "accelerometer_rotation") == Some("0") { "USER_ROTATION_LOCKED" } else { "USER_ROTATION_FREE" },
            rot * 90,
        ));
    }
    if which.is_empty() || which == "windows" || which == "w" {
        out.push_str("WINDOW MANAGER WINDOWS (dumpsys window windows)\n");
        if let Some(f) = s.foreground() {
            out.push_str(&format!("  Window #2 Window{{8d5a5a9 u0 {}/{}}}:\n    mDisplayId=0 rootTaskId={} mSession=Session{{6fdbba 4321:u0a10150}} mClient=android.os.BinderProxy@dbd59e0\n    mOwnerUid=10150 showForAllUsers=false package={} appop=NONE\n    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false\n", f.package, f.activity, f.task, f.package));
        }
        out.push_str("  Window #1 Window{e41b499 u0 NavigationBar0}:\n    mDisplayId=0 rootTaskId=1 mSession=Session{a1b2c3 1899:u0a10102}\n    mOwnerUid=10102 showForAllUsers=true package=com.android.systemui appop=NONE\n  Window #0 Window{5c2a1f0 u0 StatusBar}:\n    mDisplayId=0 rootTaskId=1 mSession=Session{a1b2c3 1899:u0a10102}\n    mOwnerUid=10102 showForAllUsers=true package=com.android.systemui appop=NONE\n\n");
        out.push_str(&format!("  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h890dp {d}dpi nrml long port finger qwerty/v/v -nav/h winConfig={{ mBounds=Rect(0, 0 - {w}, {h}) mAppBounds=Rect(0, 0 - {w}, {h}) mWindowingMode=fullscreen mDisplayWindowingMode=fullscreen mActivityType=undefined mAlwaysOnTop=undefined mRotation=ROTATION_{}}}}}\n", rot * 90));
        out.push_str(&format!(
            "  mCurrentFocus={win}\n  mFocusedApp={app}\n  mInputMethodWindow={}\n",
            if ime {
                "Window{3f4e5d6 u0 InputMethod}"
            } else {
                "null"
            }
        ));
    }
    if out.is_empty() {
        out = format!("  mCurrentFocus={win}\n  mFocusedApp={app}\n");
    }
    out
}

fn dumpsys_activity(s: &PhoneState) -> String {
    let mut out = String::from(
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\nDisplay #0 (activities from top to bottom):\n",
    );
    for (i, f) in s.stack.iter().enumerate().rev() {
        let comp = short_component(&f.package, &f.activity);
        out.push_str(&format!(
            "  * Task{{{:x} #{} type={} A=10150:{} U=0 visible=true mode=fullscreen translucent=false sz=1}}\n    * Hist  #{i}: ActivityRecord{{cd9f1d7 u0 {comp} t{}}}\n      packageName={} processName={}\n      state={}\n",
            0xa00 + f.task, f.task, if f.package == LAUNCHER_PACKAGE { "home" } else { "standard" }, f.package, f.task, f.package, f.package,
            if i + 1 == s.stack.len() { "RESUMED" } else { "STOPPED" },
        ));
    }
    if let Some(f) = s.foreground() {
        let comp = short_component(&f.package, &f.activity);
        let rec = format!("ActivityRecord{{cd9f1d7 u0 {comp} t{}}}", f.task);
        out.push_str(&format!("\n  ResumedActivity: {rec}\n  mResumedActivity: {rec}\n  topResumedActivity={rec}\n  mFocusedApp={rec}\n"));
    }
    out
}

fn dumpsys_package(ctx: &mut Ctx, pkg: &str) -> Res {
    let out = ctx.with_state(|s| {
        let Some(p) = s.packages.get(pkg) else {
            return String::from("Dexopt state:\n  Unable to find package: ") + pkg + "\n";
        };
        let mut o = "Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n".to_string();
        if let Some(a) = &p.launcher_activity {
            o.push_str(&format!("        8f4c2b1 {} filter 3d1e0a7\n          Action: \"android.intent.action.MAIN\"\n          Category: \"android.intent.category.LAUNCHER\"\n", short_component(&p.name, a)));
        }
        o.push_str(&format!(
            "\nPackages:\n  Package [{}] (a1b2c3d):\n    userId={}\n    pkg=Package{{a1b2c3d {}}}\n    codePath={}\n    versionCode={} minSdk=24 targetSdk=34\n    versionName={}\n    flags=[ {}HAS_CODE ALLOW_CLEAR_USER_DATA ]\n    dataDir=/data/user/0/{}\n",
            p.name, p.uid, p.name, p.apk_path.rsplit_once('/').map(|x| x.0).unwrap_or(""), p.version_code, p.version_name,
            if p.system { "SYSTEM " } else { "" }, p.name
        ));
        o
    });
    ctx.print(&out)?;
    Ok(0)
}

// ---------------------------------------------------------------- screen

fn uiautomator(ctx: &mut Ctx, args: &[String]) -> Res {
    if args.first().map(String::as_str) != Some("dump") {
        ctx.eprint("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n")?;
        return Ok(1);
    }
    let file = args[1..]
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "/sdcard/window_dump.xml".into());
    let xml = ctx.with_state(|s| {
        let root = layout::layout(s);
        uixml::dump(&root, s.rotation())
    });
    if file == "/dev/tty" || file == "/dev/stdout" {
        ctx.print(&xml)?;
    } else {
        let path = normalize(&file);
        ctx.with_state(|s| write_file(s, &path, xml.into_bytes()));
    }
    ctx.print(&format!("UI hierchary dumped to: {file}\n"))?;
    Ok(0)
}

fn screencap(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut png = false;
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => png = true,
            "-d" => {
                it.next();
            }
            "-h" => {
                ctx.eprint("usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n   -d: specify the physical display ID to capture (default: 4619827259835644672)\n")?;
                return Ok(0);
            }
            s if s.starts_with('-') => {}
            s => file = Some(s.to_string()),
        }
    }
    if file.as_deref().is_some_and(|f| f.ends_with(".png")) {
        png = true;
    }
    let frame = ctx.phone.screenshot();
    let bytes = if png {
        frame.png().to_vec()
    } else {
        let mut b = Vec::with_capacity(16 + frame.rgba.len());
        for v in [frame.width, frame.height, 1, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&frame.rgba);
        b
    };
    match file {
        Some(f) => {
            let p = normalize(&f);
            ctx.with_state(|s| write_file(s, &p, bytes));
        }
        None => ctx.bytes(&bytes)?,
    }
    Ok(0)
}

fn screenrecord(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut limit = 180.0f64;
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time-limit" => limit = it.next().and_then(|v| v.parse().ok()).unwrap_or(180.0),
            "--size" | "--bit-rate" | "--display-id" | "--output-format" | "--codec-name"
            | "--bugreport-x" => {
                it.next();
            }
            s if s.starts_with("--") => {}
            s => file = Some(s.to_string()),
        }
    }
    let Some(file) = file else {
        ctx.eprint("Must specify output file (see --help).\n")?;
        return Ok(2);
    };
    let limit = Duration::from_secs_f64(limit.clamp(0.0, 180.0));
    let (pid, cancel) = ctx.phone.start_recording();
    let started = Instant::now();
    let mut frames = 0u32;
    while started.elapsed() < limit && !cancel.load(Ordering::SeqCst) && !ctx.io.closed() {
        std::thread::sleep(Duration::from_millis(50));
        frames += 1;
    }
    ctx.phone.end_recording(pid);
    // A small MP4-shaped file: an ftyp box, then a free box recording the duration.
    let mut data = Vec::new();
    data.extend_from_slice(&24u32.to_be_bytes());
    data.extend_from_slice(b"ftypmp42\0\0\0\0mp42isom");
    let note = format!(
        "virtual-device screenrecord frames={frames} ms={}",
        started.elapsed().as_millis()
    );
    data.extend_from_slice(&((8 + note.len()) as u32).to_be_bytes());
    data.extend_from_slice(b"free");
    data.extend_from_slice(note.as_bytes());
    let p = normalize(&file);
    ctx.with_state(|s| write_file(s, &p, data));
    Ok(0)
}

/// The pid the phone reports for a running app.
pub fn app_pid(uid: u32) -> u32 {
    4000 + uid % 10000
}

fn ps(ctx: &mut Ctx) -> Res {
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

fn pidof(ctx: &mut Ctx, name: &str, args: &[String]) -> Res {
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

fn kill(ctx: &mut Ctx, name: &str, args: &[String]) -> Res {
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

// ---------------------------------------------------------------- logcat

/// Formats a Unix-ms timestamp as `MM-DD HH:MM:SS.mmm` (or with the year).
pub fn format_date(ms: u64, year: bool) -> String {
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
pub fn format_log_line(l: &LogLine, year: bool) -> String {
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

fn logcat(ctx: &mut Ctx, args: &[String]) -> Res {
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

// ---------------------------------------------------------------- files

/// Canonical path: `/storage/emulated/0` and friends map to `/sdcard`; `.`/`..` resolved.
pub fn normalize(path: &str) -> String {
    let mut p = path.to_string();
    for alias in [
        "/storage/emulated/0",
        "/storage/self/primary",
        "/mnt/sdcard",
        "/mnt/user/0/primary",
    ] {
        if p == alias || p.starts_with(&format!("{alias}/")) {
            p = format!("/sdcard{}", &p[alias.len()..]);
        }
    }
    if !p.starts_with('/') {
        p = format!("/{p}");
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

fn parent(path: &str) -> String {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/".into(),
        Some((p, _)) => p.to_string(),
    }
}

/// Writes a file (creating parent directories).
pub(crate) fn write_file(s: &mut PhoneState, path: &str, data: Vec<u8>) {
    write_file_mode(s, path, data, 0o100_644, (now_ms() / 1000) as u32);
}

pub(crate) fn write_file_mode(
    s: &mut PhoneState,
    path: &str,
    data: Vec<u8>,
    mode: u32,
    mtime: u32,
) {
    let mut d = parent(path);
    loop {
        s.dirs.insert(d.clone());
        if d == "/" {
            break;
        }
        d = parent(&d);
    }
    s.files
        .insert(path.to_string(), FileEntry { data, mode, mtime });
}

/// Direct children (name, is_dir) of a directory.
pub(crate) fn children(s: &PhoneState, dir: &str) -> Vec<(String, bool)> {
    let prefix = if dir == "/" {
        "/".to_string()
    } else {
        format!("{dir}/")
    };
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    for d in &s.dirs {
        if let Some(rest) = d.strip_prefix(&prefix)
            && !rest.is_empty()
            && !rest.contains('/')
        {
            out.insert(rest.to_string(), true);
        }
    }
    for f in s.files.keys() {
        if let Some(rest) = f.strip_prefix(&prefix)
            && !rest.contains('/')
        {
            out.insert(rest.to_string(), false);
        }
    }
    out.into_iter().collect()
}

fn ls(ctx: &mut Ctx, args: &[String]) -> Res {
    let long = args.iter().any(|a| a.starts_with('-') && a.contains('l'));
    let mut paths: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    if paths.is_empty() {
        paths.push("/".into());
    }
    let mut status = 0;
    let mut out = String::new();
    let multi = paths.len() > 1;
    for raw in &paths {
        let p = normalize(raw);
        let entry = ctx.with_state(|s| {
            if let Some(f) = s.files.get(&p) {
                Some(Err((f.data.len(), f.mtime)))
            } else if s.dirs.contains(&p) {
                Some(Ok(children(s, &p)
                    .into_iter()
                    .map(|(n, d)| {
                        let (size, mtime) = s
                            .files
                            .get(&format!("{}/{n}", p.trim_end_matches('/')))
                            .map(|f| (f.data.len(), f.mtime))
                            .unwrap_or((4096, 0));
                        (n, d, size, mtime)
                    })
                    .collect::<Vec<_>>()))
            } else {
                None
            }
        });
        match entry {
            None => {
                ctx.eprint(&format!("ls: {raw}: No such file or directory\n"))?;
                status = 1;
            }
            Some(Err((size, mtime))) => {
                if long {
                    out.push_str(&format!(
                        "-rw-rw---- 1 u0_a150 media_rw {size:>8} {} {raw}\n",
                        &format_date(u64::from(mtime) * 1000, true)[..16]
                    ));
                } else {
                    out.push_str(&format!("{raw}\n"));
                }
            }
            Some(Ok(list)) => {
                if multi {
                    out.push_str(&format!("{raw}:\n"));
                }
                if long {
                    out.push_str(&format!("total {}\n", list.len()));
                }
                for (n, d, size, mtime) in list {
                    if long {
                        let kind = if d { "drwxrws--- 2" } else { "-rw-rw---- 1" };
                        out.push_str(&format!(
                            "{kind} u0_a150 media_rw {size:>8} {} {n}\n",
                            &format_date(u64::from(mtime) * 1000, true)[..16]
                        ));
                    } else {
                        out.push_str(&format!("{n}\n"));
                    }
                }
            }
        }
    }
    ctx.print(&out)?;
    Ok(status)
}

fn cat(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut status = 0;
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        let (data, is_dir) =
            ctx.with_state(|s| (s.files.get(&p).map(|f| f.data.clone()), s.dirs.contains(&p)));
        match data {
            Some(d) => ctx.bytes(&d)?,
            None if is_dir => {
                ctx.eprint(&format!("cat: {raw}: Is a directory\n"))?;
                status = 1;
            }
            None => {
                ctx.eprint(&format!("cat: {raw}: No such file or directory\n"))?;
                status = 1;
            }
        }
    }
    Ok(status)
}

fn rm(ctx: &mut Ctx, args: &[String]) -> Res {
    let force = args.iter().any(|a| a.starts_with('-') && a.contains('f'));
    let recursive = args
        .iter()
        .any(|a| a.starts_with('-') && (a.contains('r') || a.contains('R')));
    let mut status = 0;
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        let r = ctx.with_state(|s| {
            if s.files.remove(&p).is_some() {
                Ok(())
            } else if s.dirs.contains(&p) {
                if !recursive {
                    return Err(format!("rm: {raw}: Is a directory\n"));
                }
                let prefix = format!("{p}/");
                s.files.retain(|k, _| !k.starts_with(&prefix));
                s.dirs.retain(|k| !k.starts_with(&prefix) && *k != p);
                Ok(())
            } else if force {
                Ok(())
            } else {
                Err(format!("rm: {raw}: No such file or directory\n"))
            }
        });
        if let Err(e) = r {
            ctx.eprint(&e)?;
            status = 1;
        }
    }
    Ok(status)
}

fn mkdir(ctx: &mut Ctx, args: &[String]) -> Res {
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        ctx.with_state(|s| {
            let mut d = p.clone();
            loop {
                s.dirs.insert(d.clone());
                if d == "/" {
                    break;
                }
                d = parent(&d);
            }
        });
    }
    Ok(0)
}

fn touch(ctx: &mut Ctx, args: &[String]) -> Res {
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        ctx.with_state(|s| {
            if !s.files.contains_key(&p) {
                write_file(s, &p, Vec::new());
            }
        });
    }
    Ok(0)
}

/// A flag a running `screenrecord` watches.
pub(crate) type CancelFlag = Arc<AtomicBool>;
