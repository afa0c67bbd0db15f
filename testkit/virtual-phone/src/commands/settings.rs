//! `getprop`, `settings`, `content` (settings URIs) and `wm`: the phone's properties, settings and
//! display overrides.

use super::*;

pub(super) fn getprop(ctx: &mut Ctx, args: &[String]) -> Res {
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

pub(super) fn settings(ctx: &mut Ctx, args: &[String]) -> Res {
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

pub(super) fn content(ctx: &mut Ctx, args: &[String]) -> Res {
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

pub(super) fn wm(ctx: &mut Ctx, args: &[String]) -> Res {
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
