//! The reader's value helpers: selectors, points, directions, numbers, `${NAME}`
//! substitution, and a command's options map with each key the command reads checked off
//! (any other is an error naming its line).

use std::time::Duration;

use super::{FlowError, R, Reader};
use crate::model::*;
use crate::yaml::{Node, Value};

impl Reader<'_> {
    pub(super) fn condition(&mut self, n: &Node) -> R<Condition> {
        let o = Opts::of(self, Some(n))?.ok_or_else(|| FlowError {
            file: self.file.clone(),
            line: n.line,
            message: "a condition is a map (visible / notVisible)".into(),
        })?;
        let c = Condition {
            visible: o
                .get("visible")
                .map(|v| self.selector(v, false))
                .transpose()?,
            not_visible: o
                .get("notVisible")
                .map(|v| self.selector(v, false))
                .transpose()?,
        };
        if c.visible.is_none() && c.not_visible.is_none() {
            return self.err(n.line, "a condition needs `visible` or `notVisible`");
        }
        o.check_only(self, &["visible", "notVisible"])?;
        Ok(c)
    }

    /// A selector: a bare string is a text regex; a map holds Maestro's selector keys.
    /// `label`, `optional` and `point` are the command's, read by the caller.
    pub(super) fn selector(&self, n: &Node, command_keys: bool) -> R<Selector> {
        let entries = match &n.value {
            Value::Text(_) => return Ok(Selector::text(self.text(n)?)),
            Value::Map(m) => m,
            _ => {
                return self.err(
                    n.line,
                    format!("an element selector is a text or a map, not {}", n.kind()),
                );
            }
        };
        let mut s = Selector::default();
        for (key, line, v) in entries {
            let rel = |r: &Self| r.selector(v, false).map(|x| Some(Box::new(x)));
            let flag = |r: &Self| r.boolean(v).map(Some);
            match key.as_str() {
                "text" => s.text = Some(self.text(v)?),
                "id" => s.id = Some(self.text(v)?),
                "index" => s.index = Some(self.number(v)? as usize),
                "below" => s.below = rel(self)?,
                "above" => s.above = rel(self)?,
                "leftOf" => s.left_of = rel(self)?,
                "rightOf" => s.right_of = rel(self)?,
                "childOf" => s.child_of = rel(self)?,
                "containsChild" => s.contains_child = rel(self)?,
                "enabled" => s.enabled = flag(self)?,
                "checked" => s.checked = flag(self)?,
                "focused" => s.focused = flag(self)?,
                "selected" => s.selected = flag(self)?,
                // Maestro's selector class holds the command's caption and flag too.
                "label" | "optional" => {}
                other => {
                    let why = if SELECTOR_ELSEWHERE.contains(&other) {
                        "is a Maestro selector key this runner does not support"
                    } else {
                        "is not a selector key"
                    };
                    return self.err(*line, format!("`{other}` {why} (known: text, id, index, below, above, leftOf, rightOf, childOf, containsChild, enabled, checked, focused, selected, label, optional{})", if command_keys { ", point" } else { "" }));
                }
            }
        }
        Ok(s)
    }

    pub(super) fn point(&self, n: &Node) -> R<PointSpec> {
        let t = self.text(n)?;
        let bad = || {
            self.err(
                n.line,
                format!("a point is \"x%, y%\" or \"x, y\", got {t:?}"),
            )
        };
        let parts: Vec<&str> = t.split(',').map(str::trim).collect();
        if parts.len() != 2 {
            return bad();
        }
        if t.contains('%') {
            let p: Vec<Option<u8>> = parts
                .iter()
                .map(|p| {
                    p.strip_suffix('%')
                        .and_then(|v| v.trim().parse::<u8>().ok())
                        .filter(|v| *v <= 100)
                })
                .collect();
            match (p[0], p[1]) {
                (Some(x), Some(y)) => Ok(PointSpec::Percent(x, y)),
                _ => bad(),
            }
        } else {
            match (parts[0].parse::<i32>(), parts[1].parse::<i32>()) {
                (Ok(x), Ok(y)) if x >= 0 && y >= 0 => Ok(PointSpec::Absolute(x, y)),
                _ => bad(),
            }
        }
    }

    pub(super) fn direction(&self, n: &Node) -> R<Direction> {
        let t = self.text(n)?;
        match t.to_ascii_uppercase().as_str() {
            "UP" => Ok(Direction::Up),
            "DOWN" => Ok(Direction::Down),
            "LEFT" => Ok(Direction::Left),
            "RIGHT" => Ok(Direction::Right),
            _ => self.err(
                n.line,
                format!("a direction is UP, DOWN, LEFT or RIGHT, got {t:?}"),
            ),
        }
    }

    pub(super) fn boolean(&self, n: &Node) -> R<bool> {
        match self.text(n)?.as_str() {
            "true" | "True" | "TRUE" => Ok(true),
            "false" | "False" | "FALSE" => Ok(false),
            t => self.err(n.line, format!("expected true or false, got {t:?}")),
        }
    }

    pub(super) fn number(&self, n: &Node) -> R<u32> {
        let t = self.text(n)?;
        // Maestro reads `times` and `index` as doubles cut to an integer ("2.0" is 2).
        let v: f64 = t
            .trim()
            .parse()
            .or_else(|_| self.err(n.line, format!("expected a number, got {t:?}")))?;
        if !(0.0..=1e9).contains(&v) {
            return self.err(
                n.line,
                format!("expected a number from 0 to 1000000000, got {t:?}"),
            );
        }
        Ok(v as u32)
    }

    /// A scalar as written, without `${…}` replaced (config values).
    pub(super) fn raw(&self, n: &Node) -> R<String> {
        match &n.value {
            Value::Text(t) => Ok(t.clone()),
            Value::Null => Ok(String::new()),
            _ => self.err(n.line, format!("expected a value, not {}", n.kind())),
        }
    }

    /// A scalar with `${NAME}` replaced.
    pub(super) fn text(&self, n: &Node) -> R<String> {
        let t = self.raw(n)?;
        self.substitute(&t, n.line)
    }

    pub(super) fn substitute(&self, t: &str, line: usize) -> R<String> {
        let mut out = String::with_capacity(t.len());
        let mut rest = t;
        while let Some(i) = rest.find("${") {
            out.push_str(&rest[..i]);
            let after = &rest[i + 2..];
            let Some(end) = after.find('}') else {
                return self.err(line, format!("`${{` without `}}` in {t:?}"));
            };
            let name = after[..end].trim();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return self.err(line, format!("only `${{NAME}}` variables are supported (Maestro's JavaScript expressions are not), got `${{{name}}}`"));
            }
            let value = self
                .outside
                .iter()
                .rev()
                .chain(self.env.iter().rev())
                .find(|(k, _)| k == name);
            match value {
                Some((_, v)) => out.push_str(v),
                None => return self.err(line, format!("the variable {name} has no value: set it in the flow's env or pass it from outside")),
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// A map of names to values (`env`, `permissions`, `arguments`).
    pub(super) fn pairs(&self, n: &Node, substitute: bool) -> R<Vec<(String, String)>> {
        match &n.value {
            Value::Map(m) => m
                .iter()
                .map(|(k, _, v)| {
                    Ok((
                        k.clone(),
                        if substitute {
                            self.text(v)?
                        } else {
                            self.raw(v)?
                        },
                    ))
                })
                .collect(),
            Value::Null => Ok(Vec::new()),
            _ => self.err(
                n.line,
                format!("expected a map of names to values, not {}", n.kind()),
            ),
        }
    }
}

/// Maestro commands this runner refuses by name (so the error can say so).
pub(super) const KNOWN_ELSEWHERE: &[&str] = &[
    "assertTrue",
    "assertWithAI",
    "assertNoDefectsWithAI",
    "extractTextWithAI",
    "clearKeychain",
    "pasteText",
    "inputRandomText",
    "inputRandomNumber",
    "inputRandomEmail",
    "inputRandomPersonName",
    "openBrowser",
    "stopApp",
    "killApp",
    "clearState",
    "copyTextFrom",
    "runScript",
    "evalScript",
    "travel",
    "startRecording",
    "stopRecording",
    "addMedia",
    "setAirplaneMode",
    "toggleAirplaneMode",
    "retry",
    "action",
];

/// Maestro selector keys this runner refuses by name.
const SELECTOR_ELSEWHERE: &[&str] = &[
    "width",
    "height",
    "tolerance",
    "traits",
    "containsDescendants",
    "retryTapIfNoChange",
    "waitUntilVisible",
    "repeat",
    "delay",
    "waitToSettleTimeoutMs",
    "start",
    "end",
];

/// A command's options map, with the keys each command reads checked off.
pub(super) struct Opts<'n> {
    pub(super) entries: &'n [(String, usize, Node)],
    known: std::cell::RefCell<Vec<&'static str>>,
}

impl<'n> Opts<'n> {
    pub(super) fn of(r: &Reader<'_>, arg: Option<&'n Node>) -> R<Option<Opts<'n>>> {
        match arg.map(|a| &a.value) {
            Some(Value::Map(m)) => Ok(Some(Opts {
                entries: m,
                known: Default::default(),
            })),
            Some(Value::Seq(_)) => r.err(
                arg.expect("some").line,
                "a command's options are a map, not a list",
            ),
            _ => Ok(None),
        }
    }

    pub(super) fn get(&self, key: &'static str) -> Option<&'n Node> {
        self.known.borrow_mut().push(key);
        self.entries
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, v)| v)
    }

    pub(super) fn text(&self, r: &Reader<'_>, keys: &[&'static str]) -> R<Option<String>> {
        for k in keys {
            if let Some(n) = self.get(k) {
                return r.text(n).map(Some);
            }
        }
        Ok(None)
    }

    pub(super) fn bool(&self, r: &Reader<'_>, key: &'static str) -> R<Option<bool>> {
        self.get(key).map(|n| r.boolean(n)).transpose()
    }

    pub(super) fn number(&self, r: &Reader<'_>, key: &'static str) -> R<Option<u32>> {
        self.get(key).map(|n| r.number(n)).transpose()
    }

    pub(super) fn millis(&self, r: &Reader<'_>, key: &'static str) -> R<Option<Duration>> {
        Ok(self
            .number(r, key)?
            .map(|v| Duration::from_millis(v.into())))
    }

    /// Refuses any key no reader asked for (selector keys count as asked for when the
    /// command takes a selector map).
    pub(super) fn check(&self, r: &Reader<'_>, command: &str) -> R<()> {
        let selects = matches!(
            command,
            "tapOn" | "doubleTapOn" | "longPressOn" | "assertVisible" | "assertNotVisible"
        );
        if selects {
            return Ok(());
        }
        let known = self.known.borrow();
        if let Some((k, line, _)) = self
            .entries
            .iter()
            .find(|(k, _, _)| !known.contains(&k.as_str()))
        {
            let mut names: Vec<&str> = known
                .iter()
                .copied()
                .filter(|k| !matches!(*k, "url"))
                .collect();
            names.dedup();
            return r.err(
                *line,
                format!(
                    "`{k}` is not an option of {command} (its options: {})",
                    names.join(", ")
                ),
            );
        }
        Ok(())
    }

    pub(super) fn check_only(&self, r: &Reader<'_>, keys: &[&str]) -> R<()> {
        match self
            .entries
            .iter()
            .find(|(k, _, _)| !keys.contains(&k.as_str()))
        {
            Some((k, line, _)) => r.err(
                *line,
                format!("`{k}` is not supported here (known: {})", keys.join(", ")),
            ),
            None => Ok(()),
        }
    }
}
