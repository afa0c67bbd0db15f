//! From recorded steps to a Maestro flow's text.
//!
//! Each action is aimed by the most robust selector that picks exactly the element it
//! hit under Maestro's rules ([`crate::matcher`], checked on the screen as it was
//! recorded): the id alone, else the text alone, else the text (or id) below the row's
//! anchor text, else the text (or id) with an `index`, else a `point` with a comment
//! saying why. After an action whose observation showed new text, an `assertVisible` of
//! the first new text that is one of a kind there. Waits become `extendedWaitUntil`;
//! text typed into a password field (an iOS `SecureTextField`, or an Android field that
//! shows its text as `•`, AOSP's `PasswordTransformationMethod.DOT`) becomes `${VAR}`,
//! named in the result and in a comment of the config. Whatever has no equivalent in the
//! runnable subset is named in [`Export::not_exported`], never silently dropped.

use std::fmt::Write as _;

use mobile_device::{Element, Point};

use crate::matcher::find_all;
use crate::model::Selector;
use crate::record::{RecordedAction, RecordedStep};

/// An exported flow.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Export {
    /// The flow's text.
    pub yaml: String,
    /// One line per recorded step that is not in the flow, and why.
    pub not_exported: Vec<String>,
    /// The variables the flow needs from outside (password fields), in order.
    pub variables: Vec<String>,
}

/// Writes the flow `steps` amount to. `app_id` goes into the config (else the first
/// launched app); `name` is the flow's name.
pub fn export_flow(steps: &[RecordedStep], app_id: Option<&str>, name: Option<&str>) -> Export {
    let mut body = String::new();
    let mut not_exported = Vec::new();
    let mut variables: Vec<String> = Vec::new();
    let first_launch = steps.iter().find_map(|s| match &s.action {
        RecordedAction::Launch { app, .. } => Some(app.clone()),
        _ => None,
    });
    let app = app_id.map(str::to_string).or(first_launch);
    for (n, s) in steps.iter().enumerate() {
        let n = n + 1;
        match &s.action {
            RecordedAction::Launch {
                app: a,
                clear_state,
                permissions,
                arguments,
            } => {
                let plain = !*clear_state && permissions.is_none() && arguments.is_empty();
                if plain && Some(a) == app.as_ref() {
                    body.push_str("- launchApp\n");
                } else if plain {
                    let _ = writeln!(body, "- launchApp: {}", q(a));
                } else {
                    body.push_str("- launchApp:\n");
                    if Some(a) != app.as_ref() {
                        let _ = writeln!(body, "    appId: {}", q(a));
                    }
                    if *clear_state {
                        body.push_str("    clearState: true\n");
                    }
                    if let Some(serde_json::Value::Object(m)) = permissions {
                        body.push_str("    permissions:\n");
                        for (name, v) in m {
                            let v = v.as_str().unwrap_or("allow");
                            let _ = writeln!(body, "      {name}: {v}");
                        }
                    }
                    if !arguments.is_empty() {
                        body.push_str("    arguments:\n");
                        for (k, v) in arguments {
                            let _ = writeln!(body, "      {k}: {v}");
                        }
                    }
                }
            }
            RecordedAction::Terminate { app } => not_exported.push(format!(
                "step {n}: stopping {app} (stopApp is not in the subset mobile-mcp replays; launchApp stops the app before launching it)"
            )),
            RecordedAction::Tap { at } => tap(&mut body, "tapOn", s, *at),
            RecordedAction::DoubleTap { at } => tap(&mut body, "doubleTapOn", s, *at),
            RecordedAction::LongPress { at, millis } => {
                tap(&mut body, "longPressOn", s, *at);
                if *millis != 3000 {
                    not_exported.push(format!(
                        "step {n}: the long press lasted {millis} ms; Maestro's longPressOn holds 3000 ms"
                    ));
                }
            }
            RecordedAction::Swipe { from, to, millis } => {
                let _ = writeln!(
                    body,
                    "- swipe:\n    start: {}\n    end: {}\n    duration: {millis}",
                    q(&point(*from, s.screen_size)),
                    q(&point(*to, s.screen_size))
                );
            }
            RecordedAction::Type { text, submit } => {
                if is_password(s) {
                    let var = if variables.is_empty() {
                        "PASSWORD".to_string()
                    } else {
                        format!("PASSWORD_{}", variables.len() + 1)
                    };
                    let _ = writeln!(body, "- inputText: ${{{var}}}");
                    variables.push(var);
                } else {
                    let _ = writeln!(body, "- inputText: {}", q(text));
                }
                if *submit {
                    body.push_str("- pressKey: Enter\n");
                }
            }
            RecordedAction::Button { name } => match key_of(name) {
                Some("back") => body.push_str("- back\n"),
                Some(k) => {
                    let _ = writeln!(body, "- pressKey: {k}");
                }
                None => not_exported.push(format!(
                    "step {n}: the {name} button (Maestro's pressKey has no such key)"
                )),
            },
            RecordedAction::OpenUrl { url } => {
                let _ = writeln!(body, "- openLink: {}", q(url));
            }
            RecordedAction::Wait {
                text,
                id,
                gone,
                timeout_ms,
            } => {
                let sel = match (text, id) {
                    (Some(t), _) => format!("text: {}", q(&literal(t))),
                    (None, Some(i)) => format!("id: {}", q(&literal(i))),
                    (None, None) => {
                        let _ = writeln!(body, "- waitForAnimationToEnd:\n    timeout: {timeout_ms}");
                        continue;
                    }
                };
                let key = if *gone { "notVisible" } else { "visible" };
                let _ = writeln!(
                    body,
                    "- extendedWaitUntil:\n    {key}:\n      {sel}\n    timeout: {timeout_ms}"
                );
            }
            RecordedAction::SetLocation {
                latitude,
                longitude,
            } => {
                let _ = writeln!(
                    body,
                    "- setLocation:\n    latitude: {latitude}\n    longitude: {longitude}"
                );
            }
            RecordedAction::Other { what } => not_exported.push(format!(
                "step {n}: {what} (no Maestro command replays it)"
            )),
        }
        if let Some(sel) = revealed(s) {
            let _ = writeln!(body, "- assertVisible:\n    {sel}");
        }
    }
    let mut yaml = String::new();
    let _ = writeln!(yaml, "appId: {}", q(app.as_deref().unwrap_or("")));
    if let Some(name) = name {
        let _ = writeln!(yaml, "name: {}", q(name));
    }
    if !variables.is_empty() {
        let _ = writeln!(
            yaml,
            "# Typed into password fields, not recorded: pass {} from outside (mobile_run_flow env, or run-flow --env NAME=VALUE).",
            variables.join(", ")
        );
    }
    if app.is_none() {
        not_exported
            .push("the app: no app was launched and none was given, so appId is empty".into());
    }
    yaml.push_str("---\n");
    yaml.push_str(&body);
    Export {
        yaml,
        not_exported,
        variables,
    }
}

/// A tap on the element the step hit, aimed by the most robust selector, or a point.
fn tap(out: &mut String, command: &str, s: &RecordedStep, at: Point) {
    let hit = s
        .element
        .as_ref()
        .and_then(|e| s.screen.iter().position(|x| x == e));
    let Some(i) = hit else {
        let why = if s.element.is_some() {
            "the element it hit was not on the recorded screen"
        } else {
            "the action named a point, not an element"
        };
        let _ = writeln!(
            out,
            "- {command}:\n    point: {} # {why}",
            q(&point(at, s.screen_size))
        );
        return;
    };
    match selector_for(&s.screen, i, s.anchor.as_deref()) {
        Ok(lines) => {
            let _ = writeln!(out, "- {command}:");
            for l in lines {
                let _ = writeln!(out, "    {l}");
            }
        }
        Err(why) => {
            let _ = writeln!(
                out,
                "- {command}:\n    point: {} # {why}",
                q(&point(at, s.screen_size))
            );
        }
    }
}

/// The selector lines that pick exactly `screen[i]`, most robust first.
fn selector_for(screen: &[Element], i: usize, anchor: Option<&str>) -> Result<Vec<String>, String> {
    let e = &screen[i];
    let id = e.identifier.as_deref().filter(|v| !v.is_empty()).map(|v| {
        v.rsplit_once(":id/")
            .map_or(v, |(_, tail)| tail)
            .to_string()
    });
    let text = e
        .text
        .as_deref()
        .filter(|t| !t.is_empty() && !t.chars().all(|c| c == '•'))
        .or(e.label.as_deref().filter(|t| !t.is_empty()))
        .map(str::to_string);
    let only = |s: &Selector| find_all(s, screen) == [i];
    let picks = |s: &Selector| find_all(s, screen).first() == Some(&i);
    let mut bases: Vec<(Selector, String)> = Vec::new();
    if let Some(id) = &id {
        let s = Selector {
            id: Some(literal(id)),
            ..Default::default()
        };
        bases.push((s, format!("id: {}", q(&literal(id)))));
    }
    if let Some(t) = &text {
        bases.push((
            Selector::text(literal(t)),
            format!("text: {}", q(&literal(t))),
        ));
    }
    for (s, line) in &bases {
        if only(s) {
            return Ok(vec![line.clone()]);
        }
    }
    if let Some(a) = anchor {
        let anchor_sel = Selector::text(literal(a));
        if find_all(&anchor_sel, screen).len() == 1 {
            for (s, line) in bases.iter().rev() {
                let mut r = s.clone();
                r.below = Some(Box::new(anchor_sel.clone()));
                if picks(&r) {
                    return Ok(vec![
                        line.clone(),
                        format!("below:\n      text: {}", q(&literal(a))),
                    ]);
                }
            }
        }
    }
    for (s, line) in bases.iter().rev() {
        for index in 0..find_all(s, screen).len() {
            let mut r = s.clone();
            r.index = Some(index);
            if picks(&r) {
                return Ok(vec![line.clone(), format!("index: {index}")]);
            }
        }
    }
    Err(if bases.is_empty() {
        "the element has no id and no text to select it by".into()
    } else {
        "no selector picks this element alone on the recorded screen".into()
    })
}

/// The row anchor of `screen[i]`: the nearest text above it, before it in the list, that
/// is one of a kind on screen (what keys a look-alike's row; the server's refs use the
/// same "after" text).
pub fn row_anchor(screen: &[Element], i: usize) -> Option<String> {
    let y = screen.get(i)?.rect.y;
    screen[..i].iter().rev().find_map(|e| {
        let t = e.text.as_deref().filter(|t| !t.trim().is_empty())?;
        (e.rect.y < y && find_all(&Selector::text(literal(t)), screen).len() == 1)
            .then(|| t.to_string())
    })
}

/// The first new text (or accessibility label, which Maestro's `text` also matches: iOS
/// puts its names there) the observation after the step showed that is one of a kind
/// there, as a selector line.
fn revealed(s: &RecordedStep) -> Option<String> {
    let after = s.after.as_ref()?;
    if s.screen.is_empty() && !matches!(s.action, RecordedAction::Launch { .. }) {
        // Nothing to compare with: the step read no list before acting.
        return None;
    }
    let name = |e: &Element| {
        e.text
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .or(e.label.as_deref().filter(|t| !t.trim().is_empty()))
            .map(str::to_string)
    };
    let before: Vec<String> = s.screen.iter().filter_map(name).collect();
    after.iter().find_map(|e| {
        let t = name(e).filter(|t| !t.chars().all(|c| c == '•') && !before.contains(t))?;
        let sel = Selector::text(literal(&t));
        (find_all(&sel, after).len() == 1).then(|| format!("text: {}", q(&literal(&t))))
    })
}

/// Whether a typing step went into a password field.
fn is_password(s: &RecordedStep) -> bool {
    let secure = |e: &Element| e.element_type.ends_with("SecureTextField");
    let focused_dots = |e: &Element| {
        e.states.focused
            && e.text
                .as_deref()
                .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c == '•'))
    };
    s.element.as_ref().is_some_and(secure)
        || s.screen.iter().any(|e| e.states.focused && secure(e))
        || s.after.as_ref().is_some_and(|a| {
            a.iter()
                .any(|e| focused_dots(e) || (e.states.focused && secure(e)))
        })
}

/// Maestro's key name for a button of ours (`KeyCode.kt`'s descriptions).
fn key_of(button: &str) -> Option<&'static str> {
    Some(match button {
        "BACK" => "back",
        "ENTER" => "Enter",
        "HOME" => "Home",
        "DEL" => "Backspace",
        "VOLUME_UP" => "Volume Up",
        "VOLUME_DOWN" => "Volume Down",
        "POWER" => "Power",
        "LOCK" => "Lock",
        "DPAD_UP" => "Remote Dpad Up",
        "DPAD_DOWN" => "Remote Dpad Down",
        "DPAD_LEFT" => "Remote Dpad Left",
        "DPAD_RIGHT" => "Remote Dpad Right",
        "DPAD_CENTER" => "Remote Dpad Center",
        _ => return None,
    })
}

/// A point as Maestro writes it: percents of the screen when its size is known.
fn point(p: Point, size: Option<(u32, u32)>) -> String {
    match size {
        Some((w, h)) if w > 0 && h > 0 => {
            let px = (f64::from(p.x) * 100.0 / f64::from(w))
                .round()
                .clamp(0.0, 100.0);
            let py = (f64::from(p.y) * 100.0 / f64::from(h))
                .round()
                .clamp(0.0, 100.0);
            format!("{px}%, {py}%")
        }
        _ => format!("{}, {}", p.x, p.y),
    }
}

/// A text as a regex that matches it literally.
fn literal(t: &str) -> String {
    regex::escape(t)
}

/// A YAML double-quoted scalar.
fn q(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\x{:02x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}
