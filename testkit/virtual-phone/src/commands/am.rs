//! `am` (start, force-stop, kill, broadcast — ADBKeyboard's intents included) and `monkey`;
//! an `am start` line's intent is read in `intent.rs`.

use super::intent::AmIntent;
use super::*;

pub(super) fn am(ctx: &mut Ctx, args: &[String]) -> Res {
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
pub(crate) fn decode_base64(s: &str) -> Option<Vec<u8>> {
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
    let intent = match AmIntent::parse(args) {
        Ok(i) => i,
        Err(exception) => {
            ctx.eprint(&format!(
                "\nException occurred while executing 'start':\n{exception}\n\tat android.content.Intent.parseCommandArgs(Intent.java)\n"
            ))?;
            return Ok(255);
        }
    };
    ctx.print(&format!("Starting: {}\n", intent.describe()))?;
    let started = intent.started();

    if let Some(c) = &intent.component {
        let Some((pkg, act)) = c.split_once('/') else {
            ctx.print(&format!("Error: Bad component name: {c}\n"))?;
            return Ok(1);
        };
        // The app's task exists and this is its root intent again: the task comes to the
        // front and the new intent (its extras) is not delivered
        // (ActivityStarter: START_TASK_TO_FRONT; Intent.filterEquals ignores extras;
        // ActivityManagerShellCommand prints the warning).
        let running_root = ctx.with_state(|s| {
            let act = s.resolve_activity(pkg, act);
            s.stack
                .iter()
                .find(|f| f.package == pkg)
                .filter(|f| {
                    f.activity == act
                        || s.packages
                            .get(pkg)
                            .and_then(|p| p.launcher_activity.as_deref())
                            == Some(act.as_str())
                })
                .map(|f| f.intent.clone())
        });
        let r = ctx.with_state(|s| s.start_activity(pkg, Some(act)));
        if let Err(e) = r {
            ctx.print(&format!("{e}\n"))?;
            return Ok(1);
        }
        match running_root {
            Some(kept) => {
                ctx.with_state(|s| {
                    if let Some(f) = s.stack.last_mut() {
                        f.intent = kept;
                    }
                });
                ctx.print("Warning: Activity not started, its current task has been brought to the front\n")?;
            }
            None => ctx.with_state(|s| {
                if let Some(f) = s.stack.last_mut() {
                    f.intent = Some(started.clone());
                }
            }),
        }
        return Ok(0);
    }
    if intent
        .categories
        .iter()
        .any(|c| c == "android.intent.category.HOME")
    {
        ctx.with_state(|s| s.go_home());
        return Ok(0);
    }
    if intent.action.as_deref() == Some("android.intent.action.VIEW")
        && let Some(url) = intent.data.clone()
    {
        let pkg = intent.package.clone();
        let handled = ctx.with_state(|s| view(s, &url, pkg.as_deref(), &started));
        if !handled {
            let limit = pkg.map(|p| format!(" pkg={p}")).unwrap_or_default();
            ctx.print(&format!("Error: Activity not started, unable to resolve Intent {{ act=android.intent.action.VIEW dat={url}{limit} flg=0x10000000 }}\n"))?;
            return Ok(1);
        }
        return Ok(0);
    }
    let desc = intent.describe();
    ctx.print(&format!(
        "Error: Activity not started, unable to resolve {} flg=0x10000000 }}\n",
        desc.trim_end_matches(" }")
    ))?;
    Ok(1)
}

/// A `VIEW` intent of `url`, limited to `pkg` when given: http and https open in Chrome;
/// another scheme opens the screen of the app whose intent filter takes it (the first
/// such app when not limited). `false` when nothing resolves.
fn view(s: &mut PhoneState, url: &str, pkg: Option<&str>, started: &StartedIntent) -> bool {
    let scheme = url
        .split_once(':')
        .map(|(sc, _)| sc.to_ascii_lowercase())
        .unwrap_or_default();
    let browser = scheme == "http" || scheme == "https";
    if browser && pkg.is_none_or(|p| p == "com.android.chrome") {
        if !s.packages.contains_key("com.android.chrome") {
            return false;
        }
        open_in_browser(s, url);
        if let Some(f) = s.stack.last_mut() {
            f.intent = Some(started.clone());
        }
        return true;
    }
    let target = s
        .packages
        .values()
        .filter(|p| pkg.is_none_or(|want| want == p.name))
        .find_map(|p| {
            p.link_schemes.get(&scheme).and_then(|screen| {
                p.screens
                    .get(screen)
                    .map(|sc| (p.name.clone(), sc.activity.clone()))
            })
        });
    let Some((name, activity)) = target else {
        return false;
    };
    if s.start_activity(&name, Some(&activity)).is_err() {
        return false;
    }
    if let Some(f) = s.stack.last_mut() {
        f.intent = Some(started.clone());
    }
    true
}

pub(super) fn monkey(ctx: &mut Ctx, args: &[String]) -> Res {
    if let Some(i) = args.iter().position(|a| a == "-f") {
        return monkey_script(ctx, args.get(i + 1).map(String::as_str).unwrap_or(""));
    }
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
    // Monkey's random source refuses to run on a device without physical keys while its
    // system-key share is above zero (capture in fixtures/SOURCES.md: exit 251).
    let syskeys_off = args
        .iter()
        .position(|a| a == "--pct-syskeys")
        .and_then(|i| args.get(i + 1))
        .is_some_and(|v| v.parse::<f64>().ok() == Some(0.0));
    if !syskeys_off && ctx.with_state(|s| s.profile.no_hardware_keys) {
        out.push_str("** SYS_KEYS has no physical keys but with factor 2.0%.\n");
        ctx.print(&out)?;
        return Ok(251);
    }
    let started = match &pkg {
        Some(p) => ctx.with_state(|s| {
            let first = crate::profile::launcher_activities(s, p).into_iter().next();
            first.is_some_and(|a| s.start_activity(p, Some(&a)).is_ok())
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

/// `monkey -f SCRIPT N`: one VM runs a script (AOSP MonkeySourceScript: header lines up to
/// `start data >>`, then events; `Tap(x,y[,ms])` is a down and an up, `UserWait(ms)` a
/// pause). Only `Tap` and `UserWait` are modelled.
fn monkey_script(ctx: &mut Ctx, path: &str) -> Res {
    let path = normalize(path);
    let Some(script) = ctx.with_state(|s| s.files.get(&path).map(|f| f.data.clone())) else {
        ctx.print(&format!("** Error: Unable to open script file {path}\n"))?;
        return Ok(1);
    };
    let text = String::from_utf8_lossy(&script).into_owned();
    let body = text
        .split_once("start data >>")
        .map(|(_, b)| b)
        .unwrap_or("");
    let mut injected = 0;
    ctx.with_state(|s| {
        s.profile.clock.now_ms += crate::profile::MONKEY_START_MS;
        for line in body.lines().map(str::trim) {
            let Some((name, rest)) = line.split_once('(') else {
                continue;
            };
            let nums: Vec<f64> = rest
                .trim_end_matches(')')
                .split(',')
                .filter_map(|v| v.trim().parse().ok())
                .collect();
            match (name, nums.as_slice()) {
                ("Tap", [x, y, ..]) => {
                    s.input_events.push(InputEvent::Tap { x: *x, y: *y });
                    crate::profile::record_tap(s, *x, *y);
                    super::input::tap(s, *x, *y);
                    injected += 1;
                }
                ("UserWait", [ms, ..]) => s.profile.clock.now_ms += *ms as u64,
                _ => {}
            }
        }
    });
    ctx.print(&format!("Events injected: {injected}\n## Network stats: elapsed time=5ms (0ms mobile, 0ms wifi, 5ms not connected)\n"))?;
    Ok(0)
}
