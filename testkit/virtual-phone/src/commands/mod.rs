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

mod am;
mod app_data;
mod app_process;
pub(crate) mod device_state;
mod drag;
mod dumpsys;
mod files;
mod hash;
mod ime;
mod input;
mod intent;
mod location;
mod logcat;
mod packages;
mod processes;
mod screen;
mod settings;
mod surfaceflinger;

use am::*;
use dumpsys::*;
use files::*;
use input::*;
use logcat::*;
use packages::*;
use processes::*;
use screen::*;
use settings::*;

pub(crate) use files::normalize;
pub(crate) use files::{children, write_file_mode};
pub(crate) use hash::is_frame_hash;
pub(crate) use logcat::format_date;
pub(crate) use processes::app_pid;

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
    if parsed.operators.iter().any(|o| o == "|") {
        return hash::pipeline(phone, parsed, io, env);
    }
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
        "ps" => ps(ctx, args),
        "pkill" | "kill" => kill(ctx, name, args),
        "appops" => location::appops(ctx, args),
        "ime" => ime::ime(ctx, args),
        "env" => app_process::env(ctx, args),
        "app_process" | "app_process64" | "app_process32" => app_process::app_process(ctx, args),
        "md5sum" | "sha1sum" => hash::hashsum(ctx, name, args),
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

/// A flag a running `screenrecord` watches.
pub(crate) type CancelFlag = Arc<AtomicBool>;
