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
    /// Options only fb-idb 1.5 has (`--command`, `--count`, `--pause`), as given.
    new_options: Vec<String>,
    count: Option<String>,
}

fn parse(args: &[String]) -> Result<Parsed, Reply> {
    let mut p = Parsed {
        pos: Vec::new(),
        udid: None,
        nested: false,
        duration: None,
        new_options: Vec::new(),
        count: None,
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
            "--command" | "--shift" | "--control" | "--option" => p.new_options.push(a.clone()),
            "--count" => {
                p.new_options.push(a.clone());
                p.count = it.next().cloned();
            }
            "--pause" => {
                p.new_options.push(a.clone());
                it.next();
            }
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

/// The `ui` subcommands of fb-idb 1.1.8 (`idb/cli/main.py` at tag v1.1.8, the `ui`
/// `CommandGroup`), in the order argparse lists them.
const UI_1_1: &[&str] = &[
    "describe-all",
    "describe-point",
    "tap",
    "button",
    "text",
    "key",
    "key-sequence",
    "swipe",
];
/// The `ui` subcommands of fb-idb 1.5.0 (`idb/cli/main.py` at tag v1.5.0.b1).
const UI_1_5: &[&str] = &[
    "describe-all",
    "describe-point",
    "describe",
    "scroll",
    "set-value",
    "tap",
    "multi-tap",
    "pinch",
    "button",
    "remote",
    "text",
    "key",
    "key-sequence",
    "swipe",
    "rotate",
    "shake",
];

/// argparse's answer to an unknown `idb ui` subcommand: the `CommandGroup` adds its
/// subparsers with `dest="ui"` and no metavar (`idb/common/command.py`), so the usage
/// lists the choices in braces and the error names the argument `ui`; exit 2.
fn unknown_ui(cmd: &str, choices: &[&str]) -> Reply {
    let quoted = choices
        .iter()
        .map(|c| format!("'{c}'"))
        .collect::<Vec<_>>()
        .join(", ");
    Reply::err(
        2,
        format!(
            "usage: idb ui [-h] {{{}}} ...\nidb ui: error: argument ui: invalid choice: '{cmd}' (choose from {quoted})\n",
            choices.join(",")
        ),
    )
}

/// What `idb` prints for an exception that is not an `IdbException`: `gen_main`
/// catches it with `logger.exception("Exception thrown in main")` under
/// `logging.basicConfig(format="%(asctime)s [%(levelname)s] - %(name)s - %(message)s")`
/// (idb/cli/main.py), so stderr is the log line, the traceback, and last the
/// exception itself; exit 1. The frames are those `idb ui text` passes through
/// (main.py → common/command.py → cli/__init__.py → cli/commands/hid.py →
/// grpc/client.py → common/hid.py `text_to_events`).
fn traceback(message: &str) -> Reply {
    let site = "/opt/homebrew/lib/python3.11/site-packages/idb";
    Reply::err(
        1,
        format!(
            "2026-09-05 10:00:00,123 [ERROR] - root - Exception thrown in main\n\
Traceback (most recent call last):\n\
  File \"{site}/cli/main.py\", line 263, in gen_main\n    await root_command.run(args)\n\
  File \"{site}/common/command.py\", line 89, in run\n    return await self.resolve_command_from_args(args).run(args)\n\
  File \"{site}/common/command.py\", line 89, in run\n    return await self.resolve_command_from_args(args).run(args)\n\
  File \"{site}/cli/__init__.py\", line 154, in run\n    await self.run_with_client(args=args, client=client)\n\
  File \"{site}/cli/commands/hid.py\", line 108, in run_with_client\n    await client.text(text=args.text)\n\
  File \"{site}/grpc/client.py\", line 700, in text\n    await self.send_events(text_to_events(text))\n\
  File \"{site}/common/hid.py\", line 198, in text_to_events\n    raise Exception(f\"No keycode found for {{character}}\")\n\
Exception: {message}\n"
        ),
    )
}

/// The characters `idb ui text` can type: the keys of `KEY_MAP` in idb/common/hid.py
/// (same at v1.1.8 and v1.5.0): US-layout letters, digits, punctuation, space and
/// `\n`. No tab, no `\r`, nothing outside ASCII.
pub fn idb_can_type(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == ' '
        || c == '\n'
        || "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".contains(c)
}

/// Runs `idb <args>` against the state.
pub(crate) fn run(state: &mut IosState, args: &[String]) -> Reply {
    let p = match parse(args) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let v15 = state.idb_1_5();
    if !v15 && let Some(o) = p.new_options.first() {
        // argparse reports options the 1.1 parser does not know at the top level.
        return usage("", &format!("unrecognized arguments: {o}"));
    }
    let pos: Vec<&str> = p.pos.iter().map(String::as_str).collect();
    if let ["ui", cmd, ..] = pos.as_slice() {
        let choices = if v15 { UI_1_5 } else { UI_1_1 };
        if !choices.contains(cmd) {
            return unknown_ui(cmd, choices);
        }
    }
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
            let mut tree = describe_all(sim, p.nested);
            if v15 {
                tree = super::screen::with_1_5_keys(tree, sim.front_pid());
            }
            Reply::out(format!("{}\n", compact(&tree)))
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
            // HID taps arrive in portrait space whatever the rotation. Each `idb`
            // run is a new Python process and gRPC connection, so two runs are two
            // single taps, never one double tap.
            let before = sim.screen_key();
            sim.tap(x, y);
            crate::transition::after_tap(sim, before);
            Reply::ok()
        }
        ["ui", "multi-tap", ..] => {
            // fb-idb 1.5 `MultiTapCommand`: `count` taps `pause` (0.1 s) apart in one
            // HID event stream (idb/common/hid.py `multi_tap_to_events`).
            let x = match int("ui multi-tap", "x", p.pos.get(2)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            let y = match int("ui multi-tap", "y", p.pos.get(3)) {
                Ok(v) => v,
                Err(r) => return r,
            };
            let count = p
                .count
                .as_deref()
                .unwrap_or("2")
                .parse::<u32>()
                .unwrap_or(2);
            let before = sim.screen_key();
            sim.tap(x, y);
            crate::transition::after_tap(sim, before);
            sim.gestures.pop();
            sim.gestures.push(match count {
                2 => format!("double-tap {x},{y}"),
                n => format!("{n}-tap {x},{y}"),
            });
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
            // `text_to_events` builds every event before any is sent, so one
            // character outside its key map means nothing is typed at all.
            if let Some(c) = text.chars().find(|c| !idb_can_type(*c)) {
                return traceback(&format!("No keycode found for {c}"));
            }
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
            // Keycode 25 is the HID usage of `v` (KEY_MAP); with `--command` (1.5's
            // modifiers, `key_press_with_modifiers_to_events`) it is Cmd+V, which
            // pastes into the focused field with a hardware keyboard.
            if *code == "25" && p.new_options.iter().any(|o| o == "--command") {
                let text = sim.clipboard.clone();
                if sim.type_text(&text) {
                    sim.gestures.push("paste".into());
                }
            } else if let Ok(usage) = code.parse::<u32>() {
                // 42 is the keyboard's Delete (backspace) in the USB HID usage tables:
                // the focused field loses its last character. Return (40) and the rest
                // are only recorded.
                if usage == 42 {
                    sim.backspace();
                }
                sim.keys.push(usage);
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
