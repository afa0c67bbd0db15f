//! `input` (tap, swipe, text, keyevent, press, draganddrop), the key codes, and what taps, swipes
//! and keys do to the screen.

use super::*;

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
pub(crate) fn parse_keycode(s: &str) -> Option<(u32, String)> {
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
pub(crate) fn decode_input_text(s: &str) -> String {
    s.replace("%s", " ")
}

fn num(s: Option<&String>) -> Option<f64> {
    s?.parse::<f64>().ok().filter(|v| v.is_finite())
}

pub(super) fn input(ctx: &mut Ctx, args: &[String]) -> Res {
    // One process per call: a Java VM start on Android 8–11 (crate::profile).
    ctx.with_state(crate::profile::input_process);
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
                crate::profile::record_tap(s, x, y);
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
                    drag::drag(s, x1, y1, x2, y2);
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
    if let Some(screen) = s.app_screen_mut("com.android.chrome", "main") {
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
    if dy.abs() <= dx.abs() || s.dialog().is_some() {
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
    if s.tap_dialog(&root, x, y) {
        return;
    }
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
            // The focused app reads the clip to paste it (an access the toast reports).
            if let Some(pkg) = s.foreground_package().map(str::to_string)
                && s.stack.last().is_some_and(|f| f.focused.is_some())
            {
                let label = s
                    .packages
                    .get(&pkg)
                    .map(|p| p.label.clone())
                    .unwrap_or_default();
                let ime = s
                    .setting("secure", "default_input_method")
                    .map(str::to_string);
                crate::state::clipboard::note_read(
                    &mut s.clip,
                    s.profile.sdk,
                    &pkg,
                    &label,
                    ime.as_deref(),
                );
            }
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
