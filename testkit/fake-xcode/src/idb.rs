//! `fake-idb …`: the fb-idb client commands mobile-mcp uses. Output follows idb:
//! the companion's compact JSON for accessibility dumps, Python `json.dumps` NDJSON
//! (one object per line) for listings, argparse-style usage errors with exit 2.

use super::Reply;
use super::json::{J, compact, python};
use super::screen::describe_all;
use super::state::IosState;

const BUTTONS: &[&str] = &["APPLE_PAY", "HOME", "LOCK", "SIDE_BUTTON", "SIRI"];
const ORIENTATIONS: &[&str] = &[
    "PORTRAIT",
    "PORTRAIT_UPSIDE_DOWN",
    "LANDSCAPE_LEFT",
    "LANDSCAPE_RIGHT",
];

fn usage(cmd: &str, msg: &str) -> Reply {
    Reply::err(
        2,
        format!("usage: idb {cmd} [-h] [--udid UDID] ...\nidb {cmd}: error: {msg}\n"),
    )
}

fn no_companion(udid: &str) -> Reply {
    Reply::err(
        1,
        format!(
            "Failed to connect to companion at address DomainSocketAddress(path='/tmp/idb/{udid}_companion.sock'): [Errno 2] No such file or directory\n"
        ),
    )
}

/// Splits argv into positionals and the options idb takes everywhere; a `--` ends
/// the options.
struct Parsed {
    pos: Vec<String>,
    udid: Option<String>,
    nested: bool,
    duration: Option<String>,
}

fn parse(args: &[String]) -> Result<Parsed, Reply> {
    let mut p = Parsed {
        pos: Vec::new(),
        udid: None,
        nested: false,
        duration: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => {
                p.pos.extend(it.by_ref().cloned());
                break;
            }
            "--udid" => p.udid = it.next().cloned(),
            "--json" => {}
            "--nested" => p.nested = true,
            "--log" | "--delta" => {
                it.next();
            }
            "--duration" => p.duration = it.next().cloned(),
            s if s.starts_with("--") => {
                return Err(usage("", &format!("unrecognized arguments: {s}")));
            }
            s if s.starts_with('-') && s.len() > 1 && s.parse::<f64>().is_err() => {
                return Err(usage("", &format!("unrecognized arguments: {s}")));
            }
            _ => p.pos.push(a.clone()),
        }
    }
    Ok(p)
}

fn int(cmd: &str, name: &str, v: Option<&String>) -> Result<f64, Reply> {
    let Some(v) = v else {
        return Err(usage(
            cmd,
            &format!("the following arguments are required: {name}"),
        ));
    };
    v.parse::<i64>()
        .map(|n| n as f64)
        .map_err(|_| usage(cmd, &format!("argument {name}: invalid int value: '{v}'")))
}

/// Runs `idb <args>` against the state.
pub(crate) fn run(state: &mut IosState, args: &[String]) -> Reply {
    let p = match parse(args) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let pos: Vec<&str> = p.pos.iter().map(String::as_str).collect();
    if pos.first() == Some(&"list-targets") {
        let mut sims: Vec<_> = state.simulators.iter().collect();
        sims.sort_by(|a, b| a.name.cmp(&b.name));
        let mut out = String::new();
        for s in sims {
            let version = s
                .runtime
                .rsplit('.')
                .next()
                .unwrap_or("")
                .replacen('-', " ", 1)
                .replace('-', ".");
            let sock = format!("/tmp/idb/{}_companion.sock", s.udid);
            out.push_str(&python(&J::obj(vec![
                ("name", J::s(&s.name)),
                ("udid", J::s(&s.udid)),
                ("state", J::s(&s.state)),
                ("type", J::s("simulator")),
                ("os_version", J::s(version)),
                ("architecture", J::s("arm64")),
                ("path", J::s(&sock)),
                ("is_local", J::Bool(true)),
                ("companion", J::s(&sock)),
            ])));
            out.push('\n');
        }
        return Reply::out(out);
    }
    let index = match &p.udid {
        Some(u) => state
            .simulators
            .iter()
            .position(|s| s.udid.eq_ignore_ascii_case(u)),
        None => state.simulators.iter().position(|s| s.state == "Booted"),
    };
    let Some(i) = index else {
        return Reply::err(
            1,
            format!(
                "Target with udid {} is unknown to idb\n",
                p.udid.as_deref().unwrap_or("(none)")
            ),
        );
    };
    let udid = state.simulators[i].udid.clone();
    if state.simulators[i].state != "Booted" {
        return no_companion(&udid);
    }
    let sim = &mut state.simulators[i];
    match pos.as_slice() {
        ["ui", "describe-all", ..] if sim.pending_empty_trees > 0 => {
            sim.pending_empty_trees -= 1;
            Reply::out(format!("{}\n", compact(&super::screen::empty_tree())))
        }
        ["ui", "describe-all", ..] => {
            Reply::out(format!("{}\n", compact(&describe_all(sim, p.nested))))
        }
        ["ui", "describe-point", ..] => {
            let x = match int("ui describe-point", "x", p.pos.get(2)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            let y = match int("ui describe-point", "y", p.pos.get(3)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            Reply::out(format!(
                "{}\n",
                compact(&super::screen::describe_point(sim, x, y))
            ))
        }
        ["ui", "tap", ..] => {
            let x = match int("ui tap", "x", p.pos.get(2)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            let y = match int("ui tap", "y", p.pos.get(3)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            if let Some(d) = p.duration.as_ref().filter(|d| d.parse::<f64>().is_err()) {
                return usage(
                    "ui tap",
                    &format!("argument --duration: invalid float value: '{d}'"),
                );
            }
            // HID taps arrive in portrait space whatever the rotation.
            sim.tap(x, y);
            Reply::ok()
        }
        ["ui", "swipe", ..] => {
            for (n, name) in ["x_start", "y_start", "x_end", "y_end"].iter().enumerate() {
                if let Err(r) = int("ui swipe", name, p.pos.get(2 + n)) {
                    return r;
                }
            }
            Reply::ok()
        }
        ["ui", "text", ..] => {
            let Some(text) = p.pos.get(2) else {
                return usage("ui text", "the following arguments are required: text");
            };
            sim.type_text(text);
            Reply::ok()
        }
        ["ui", "key", code, ..] => {
            if code.parse::<u32>().is_err() {
                return usage(
                    "ui key",
                    &format!("argument key: invalid int value: '{code}'"),
                );
            }
            Reply::ok()
        }
        ["ui", "button", b, ..] => {
            if !BUTTONS.contains(b) {
                let choices = BUTTONS
                    .iter()
                    .map(|b| format!("'{b}'"))
                    .collect::<Vec<_>>()
                    .join(", ");
                return usage(
                    "ui button",
                    &format!("argument button_type: invalid choice: '{b}' (choose from {choices})"),
                );
            }
            sim.buttons.push(b.to_string());
            if *b == "HOME" {
                sim.foreground = None;
            }
            Reply::ok()
        }
        ["ui", "rotate", o, ..] => {
            if !ORIENTATIONS.contains(o) {
                return usage(
                    "ui rotate",
                    &format!("argument orientation: invalid choice: '{o}'"),
                );
            }
            sim.orientation = o.to_string();
            Reply::ok()
        }
        ["describe", ..] => {
            let (w, h) = sim.points();
            Reply::out(format!(
                "{}\n",
                python(&J::obj(vec![
                    ("udid", J::s(&sim.udid)),
                    ("name", J::s(&sim.name)),
                    ("state", J::s(&sim.state)),
                    ("target_type", J::s("simulator")),
                    (
                        "screen_dimensions",
                        J::obj(vec![
                            ("width", J::Int((w * sim.scale) as i64)),
                            ("height", J::Int((h * sim.scale) as i64)),
                            ("density", J::Num(sim.scale as f64)),
                            ("width_points", J::Int(w as i64)),
                            ("height_points", J::Int(h as i64)),
                        ]),
                    ),
                ]))
            ))
        }
        ["list-apps", ..] => {
            let mut out = String::new();
            for a in &sim.apps {
                let pid = sim.running.get(&a.bundle_id);
                out.push_str(&python(&J::obj(vec![
                    ("bundle_id", J::s(&a.bundle_id)),
                    ("name", J::s(a.shown_name())),
                    ("install_type", J::s(a.kind.to_ascii_lowercase())),
                    ("architectures", J::Arr(vec![J::s("arm64")])),
                    (
                        "process_state",
                        J::s(if pid.is_some() {
                            "Running"
                        } else {
                            "Not running"
                        }),
                    ),
                    ("debuggable", J::Bool(false)),
                    ("pid", pid.map(|p| J::s(p.to_string())).unwrap_or(J::Null)),
                ])));
                out.push('\n');
            }
            Reply::out(out)
        }
        [] => usage("", "the following arguments are required: command"),
        [cmd, ..] => usage("", &format!("argument command: invalid choice: '{cmd}'")),
    }
}
