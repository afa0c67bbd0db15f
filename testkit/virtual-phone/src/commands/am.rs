//! `am` (start, force-stop, kill, broadcast — ADBKeyboard's intents included) and `monkey`.

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
