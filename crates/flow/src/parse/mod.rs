//! Reading a flow file: the config document, `---`, the commands; `${NAME}` replaced
//! from the flow's `env`; `runFlow: file` read relative to the flow.
//!
//! Every command and key this crate does not run is an error naming its line, never
//! skipped: a flow that passes here did all it says. The shapes and defaults follow
//! Maestro's readers (`YamlCommandReader.kt`: exactly two documents; `YamlFluentCommand.kt`:
//! one key per command, the bare-string commands of its `parse`; `YamlElementSelector.kt`,
//! `YamlSwipe.kt`, `YamlScrollUntilVisible.kt`: defaults 400 ms swipes, 20 s and 100 %
//! visibility; `Orchestra.kt`: `MAX_ERASE_CHARACTERS = 50`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::model::*;
use crate::yaml::{self, Node, Value};

mod values;

use values::{KNOWN_ELSEWHERE, Opts};

/// A flow that cannot be read, with where.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowError {
    /// The file, when the flow came from one (or from `runFlow: file`).
    pub file: Option<String>,
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}, line {}: {}", self.line, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

impl std::error::Error for FlowError {}

/// Reads a file `runFlow` names: gets the resolved path, returns its text.
pub type Loader<'a> = &'a dyn Fn(&Path) -> Result<String, String>;

/// How to read a flow.
#[derive(Default)]
pub struct ReadOptions<'a> {
    /// The flow's own path, for its name in errors and for `runFlow: file`.
    pub path: Option<PathBuf>,
    /// Values for `${NAME}` given from outside (they win over the flow's `env`).
    pub env: Vec<(String, String)>,
    /// How `runFlow: file` reads a file; without it such a step is an error.
    pub loader: Option<Loader<'a>>,
}

/// Reads a flow's text.
pub fn read_flow(text: &str, options: &ReadOptions<'_>) -> Result<Flow, FlowError> {
    let mut r = Reader {
        file: options.path.as_ref().map(|p| p.display().to_string()),
        dir: options
            .path
            .as_ref()
            .and_then(|p| p.parent().map(Path::to_path_buf)),
        env: Vec::new(),
        outside: options.env.clone(),
        loader: options.loader,
        depth: 0,
        app_id: None,
    };
    r.flow(text)
}

/// The names of the commands this crate runs, for messages.
pub const COMMANDS: &[&str] = &[
    "launchApp",
    "tapOn",
    "doubleTapOn",
    "longPressOn",
    "inputText",
    "eraseText",
    "assertVisible",
    "assertNotVisible",
    "extendedWaitUntil",
    "scroll",
    "swipe",
    "scrollUntilVisible",
    "back",
    "pressKey",
    "hideKeyboard",
    "openLink",
    "waitForAnimationToEnd",
    "takeScreenshot",
    "runFlow",
    "setLocation",
    "repeat",
];

const MAX_DEPTH: usize = 16;

struct Reader<'a> {
    file: Option<String>,
    dir: Option<PathBuf>,
    /// The flow's `env`, then each `runFlow`'s, innermost last.
    env: Vec<(String, String)>,
    outside: Vec<(String, String)>,
    loader: Option<Loader<'a>>,
    depth: usize,
    app_id: Option<String>,
}

type R<T> = Result<T, FlowError>;

impl Reader<'_> {
    fn err<T>(&self, line: usize, message: impl Into<String>) -> R<T> {
        Err(FlowError {
            file: self.file.clone(),
            line,
            message: message.into(),
        })
    }

    fn flow(&mut self, text: &str) -> R<Flow> {
        let docs = yaml::documents(text).map_err(|e| FlowError {
            file: self.file.clone(),
            line: e.line,
            message: e.message,
        })?;
        if docs.len() != 2 {
            let line = docs.last().map_or(1, |d| d.line);
            return self.err(
                line,
                format!(
                    "a flow is a config document (appId: …), then a line `---`, then the list of commands; this text has {} document(s)",
                    docs.len()
                ),
            );
        }
        let config = self.config(&docs[0])?;
        self.app_id = config.app_id.clone();
        self.env = config.env.clone();
        let steps = match &docs[1].value {
            Value::Seq(items) => self.steps(items)?,
            Value::Null => Vec::new(),
            _ => {
                return self.err(
                    docs[1].line,
                    format!(
                        "the commands must be a list (`- tapOn: …`), not {}",
                        docs[1].kind()
                    ),
                );
            }
        };
        Ok(Flow { config, steps })
    }

    fn config(&self, doc: &Node) -> R<Config> {
        let mut c = Config::default();
        let entries = match &doc.value {
            Value::Map(m) => m,
            Value::Null => return Ok(c),
            _ => return self.err(doc.line, "the config document must be a map (appId: …)"),
        };
        for (key, line, v) in entries {
            match key.as_str() {
                "appId" | "url" => c.app_id = Some(self.raw(v)?),
                "name" => c.name = Some(self.raw(v)?),
                "tags" => match &v.value {
                    Value::Seq(items) => {
                        for i in items {
                            c.tags.push(self.raw(i)?);
                        }
                    }
                    _ => return self.err(v.line, "tags must be a list"),
                },
                "env" => c.env = self.pairs(v, false)?,
                other => {
                    return self.err(
                        *line,
                        format!(
                            "the config key `{other}` is not supported (known: appId, name, tags, env)"
                        ),
                    );
                }
            }
        }
        Ok(c)
    }

    fn steps(&mut self, items: &[Node]) -> R<Vec<Step>> {
        items.iter().map(|n| self.step(n)).collect()
    }

    fn step(&mut self, node: &Node) -> R<Step> {
        let (name, line, arg) = match &node.value {
            Value::Text(t) => (t.as_str(), node.line, None),
            Value::Map(m) if m.len() == 1 => (m[0].0.as_str(), m[0].1, Some(&m[0].2)),
            Value::Map(m) if m.is_empty() => return self.err(node.line, "an empty command"),
            Value::Map(m) => {
                let keys: Vec<&str> = m.iter().map(|(k, _, _)| k.as_str()).collect();
                return self.err(
                    m[1].1,
                    format!(
                        "a command is a map with one key; this one has {} ({}): indent the options under the command",
                        keys.len(),
                        keys.join(", ")
                    ),
                );
            }
            _ => return self.err(node.line, format!("a command cannot be {}", node.kind())),
        };
        // A bare string, or a map whose value is empty, is the command with no options.
        let arg = arg.filter(|a| a.value != Value::Null);
        let mut step = Step {
            line,
            file: self.file.clone(),
            label: None,
            optional: false,
            command: Command::Back,
        };
        step.command = self.command(name, line, arg, &mut step)?;
        Ok(step)
    }

    fn command(
        &mut self,
        name: &str,
        line: usize,
        arg: Option<&Node>,
        step: &mut Step,
    ) -> R<Command> {
        let opts = Opts::of(self, arg)?;
        let cmd = match name {
            "launchApp" => {
                let mut l = LaunchApp {
                    stop_app: true,
                    ..Default::default()
                };
                let mut app = None;
                if let Some(a) = arg {
                    match &a.value {
                        Value::Text(_) => app = Some(self.text(a)?),
                        _ => {
                            let o = opts.as_ref().expect("a map");
                            app = o.text(self, &["appId", "url"])?;
                            l.clear_state = o.bool(self, "clearState")?;
                            l.stop_app = o.bool(self, "stopApp")?.unwrap_or(true);
                            if let Some(p) = o.get("permissions") {
                                l.permissions = Some(self.pairs(p, true)?);
                            }
                            if let Some(p) = o.get("arguments") {
                                l.arguments = Some(self.pairs(p, true)?);
                            }
                        }
                    }
                }
                l.app_id =
                    match app.or_else(|| self.app_id.clone()) {
                        Some(a) => a,
                        None => return self.err(
                            line,
                            "launchApp needs an app: give appId in the config or launchApp: APP_ID",
                        ),
                    };
                Command::LaunchApp(l)
            }
            "tapOn" | "doubleTapOn" | "longPressOn" => {
                let kind = match name {
                    "tapOn" => TapKind::Tap,
                    "doubleTapOn" => TapKind::Double,
                    _ => TapKind::Long,
                };
                let Some(a) = arg else {
                    return self.err(
                        line,
                        format!("{name} needs an element (text, id, …) or a point"),
                    );
                };
                let target =
                    match &opts {
                        Some(o) if o.get("point").is_some() => {
                            let p = o.get("point").expect("checked");
                            if let Some((k, l, _)) = o.entries.iter().find(|(k, _, _)| {
                                !matches!(k.as_str(), "point" | "label" | "optional")
                            }) {
                                return self.err(*l, format!("`{k}` cannot go with `point`"));
                            }
                            Target::Point(self.point(p)?)
                        }
                        _ => Target::Element(self.selector(a, true)?),
                    };
                Command::Tap { kind, target }
            }
            "inputText" => match (arg, &opts) {
                (Some(a), None) => Command::InputText(self.text(a)?),
                (Some(a), Some(o)) => match o.text(self, &["text"])? {
                    Some(t) => Command::InputText(t),
                    None => return self.err(a.line, "inputText needs `text`"),
                },
                (None, _) => return self.err(line, "inputText needs the text to type"),
            },
            "eraseText" => match (arg, &opts) {
                (None, _) => Command::EraseText(50),
                (Some(a), None) => Command::EraseText(self.number(a)?),
                (Some(_), Some(o)) => {
                    Command::EraseText(o.number(self, "charactersToErase")?.unwrap_or(50))
                }
            },
            "assertVisible" | "assertNotVisible" => {
                let Some(a) = arg else {
                    return self.err(line, format!("{name} needs an element (text, id, …)"));
                };
                let s = self.selector(a, false)?;
                if name == "assertVisible" {
                    Command::AssertVisible(s)
                } else {
                    Command::AssertNotVisible(s)
                }
            }
            "extendedWaitUntil" => {
                let Some(o) = &opts else {
                    return self.err(
                        line,
                        "extendedWaitUntil needs `visible` or `notVisible`, and `timeout`",
                    );
                };
                let visible = o
                    .get("visible")
                    .map(|n| self.selector(n, false))
                    .transpose()?;
                let not_visible = o
                    .get("notVisible")
                    .map(|n| self.selector(n, false))
                    .transpose()?;
                if visible.is_none() && not_visible.is_none() {
                    return self.err(
                        line,
                        "extendedWaitUntil expects either `visible` or `notVisible`",
                    );
                }
                let timeout = o
                    .millis(self, "timeout")?
                    .unwrap_or(Duration::from_millis(17_000));
                Command::ExtendedWaitUntil {
                    visible,
                    not_visible,
                    timeout,
                }
            }
            "scroll" => Command::Scroll,
            "swipe" => {
                let Some(o) = &opts else {
                    return self.err(line, "swipe needs `direction`, or `start` and `end`");
                };
                let duration = o
                    .millis(self, "duration")?
                    .unwrap_or(Duration::from_millis(400));
                let dir = o.get("direction").map(|d| self.direction(d)).transpose()?;
                match (o.get("start"), o.get("end"), dir, o.get("from")) {
                    (Some(s), Some(e), None, None) => Command::Swipe(Swipe::Points(self.point(s)?, self.point(e)?, duration)),
                    (None, None, Some(d), Some(from)) => Command::Swipe(Swipe::FromElement(self.selector(from, false)?, d, duration)),
                    (None, None, Some(d), None) => Command::Swipe(Swipe::Direction(d, duration)),
                    _ => return self.err(line, "swipe takes `direction` (with `from` for an element), or both `start` and `end`"),
                }
            }
            "scrollUntilVisible" => {
                let Some(o) = &opts else {
                    return self.err(line, "scrollUntilVisible needs `element`");
                };
                let Some(el) = o.get("element") else {
                    return self.err(line, "scrollUntilVisible needs `element`");
                };
                let element = self.selector(el, false)?;
                let direction = o
                    .get("direction")
                    .map(|d| self.direction(d))
                    .transpose()?
                    .unwrap_or(Direction::Down);
                let timeout = o
                    .millis(self, "timeout")?
                    .unwrap_or(Duration::from_millis(20_000));
                let visibility = o
                    .number(self, "visibilityPercentage")?
                    .unwrap_or(100)
                    .min(100) as u8;
                let center = o.bool(self, "centerElement")?.unwrap_or(false);
                if center {
                    return self.err(line, "scrollUntilVisible's centerElement is not supported");
                }
                Command::ScrollUntilVisible {
                    element,
                    direction,
                    timeout,
                    visibility,
                    center,
                }
            }
            "back" => Command::Back,
            "pressKey" => match (arg, &opts) {
                (Some(a), None) => Command::PressKey(self.text(a)?),
                (Some(a), Some(o)) => match o.text(self, &["key"])? {
                    Some(k) => Command::PressKey(k),
                    None => return self.err(a.line, "pressKey needs `key`"),
                },
                (None, _) => {
                    return self.err(line, "pressKey needs a key name (Enter, Back, Home, …)");
                }
            },
            "hideKeyboard" | "hide keyboard" => Command::HideKeyboard,
            "openLink" => match (arg, &opts) {
                (Some(a), None) => Command::OpenLink(self.text(a)?),
                (Some(a), Some(o)) => match o.text(self, &["link"])? {
                    Some(k) => Command::OpenLink(k),
                    None => return self.err(a.line, "openLink needs `link`"),
                },
                (None, _) => return self.err(line, "openLink needs a link"),
            },
            "waitForAnimationToEnd" => Command::WaitForAnimationToEnd {
                timeout: match &opts {
                    Some(o) => o.millis(self, "timeout")?,
                    None => None,
                },
            },
            "takeScreenshot" => match (arg, &opts) {
                (Some(a), None) => Command::TakeScreenshot(self.text(a)?),
                (Some(a), Some(o)) => match o.text(self, &["path"])? {
                    Some(k) => Command::TakeScreenshot(k),
                    None => return self.err(a.line, "takeScreenshot needs `path`"),
                },
                (None, _) => return self.err(line, "takeScreenshot needs a name"),
            },
            "runFlow" => self.run_flow(line, arg, opts.as_ref())?,
            "setLocation" => {
                let Some(o) = &opts else {
                    return self.err(line, "setLocation needs `latitude` and `longitude`");
                };
                let num = |k: &'static str| -> R<f64> {
                    let Some(n) = o.get(k) else {
                        return self.err(line, format!("setLocation needs `{k}`"));
                    };
                    let t = self.text(n)?;
                    t.trim()
                        .parse::<f64>()
                        .or_else(|_| self.err(n.line, format!("{k} must be a number, got {t:?}")))
                };
                Command::SetLocation {
                    latitude: num("latitude")?,
                    longitude: num("longitude")?,
                }
            }
            "repeat" => {
                let Some(o) = &opts else {
                    return self.err(line, "repeat needs `commands` and `times` or `while`");
                };
                let times = o.number(self, "times")?;
                let condition = match o.get("while") {
                    Some(w) => Some(self.condition(w)?),
                    None => None,
                };
                let Some(c) = o.get("commands") else {
                    return self.err(line, "repeat needs `commands`");
                };
                let Value::Seq(items) = &c.value else {
                    return self.err(c.line, "repeat's commands must be a list");
                };
                Command::Repeat {
                    times,
                    condition,
                    steps: self.steps(items)?,
                }
            }
            other => {
                let known = COMMANDS.join(", ");
                let what = if KNOWN_ELSEWHERE.contains(&other) {
                    "is a Maestro command this runner does not support"
                } else {
                    "is not a command"
                };
                return self.err(
                    line,
                    format!("`{other}` {what}; the supported commands are {known}"),
                );
            }
        };
        if let Some(o) = &opts {
            step.label = o.text(self, &["label"])?;
            step.optional = o.bool(self, "optional")?.unwrap_or(false);
            o.check(self, name)?;
        }
        Ok(cmd)
    }

    fn run_flow(&mut self, line: usize, arg: Option<&Node>, opts: Option<&Opts<'_>>) -> R<Command> {
        let Some(a) = arg else {
            return self.err(line, "runFlow needs a file or `commands`");
        };
        let (file, inline, env) = match opts {
            None => (Some((self.text(a)?, a.line)), None, Vec::new()),
            Some(o) => {
                let file = match o.get("file") {
                    Some(f) => Some((self.text(f)?, f.line)),
                    None => None,
                };
                let env = match o.get("env") {
                    Some(e) => self.pairs(e, true)?,
                    None => Vec::new(),
                };
                if let Some(w) = o.entries.iter().find(|(k, _, _)| k == "when") {
                    return self.err(w.1, "runFlow `when` is not supported");
                }
                (file, o.get("commands"), env)
            }
        };
        if self.depth >= MAX_DEPTH {
            return self.err(line, format!("runFlow nests more than {MAX_DEPTH} deep"));
        }
        let saved = self.env.len();
        self.env.extend(env);
        self.depth += 1;
        let result = match (file, inline) {
            (Some(_), Some(c)) => self.err(c.line, "runFlow takes a file or `commands`, not both"),
            (None, None) => self.err(line, "runFlow needs a file or `commands`"),
            (None, Some(c)) => match &c.value {
                Value::Seq(items) => self
                    .steps(items)
                    .map(|steps| Command::RunFlow { file: None, steps }),
                _ => self.err(c.line, "runFlow's commands must be a list"),
            },
            (Some((file, fline)), None) => {
                self.sub_flow(&file, fline).map(|steps| Command::RunFlow {
                    file: Some(file),
                    steps,
                })
            }
        };
        self.depth -= 1;
        self.env.truncate(saved);
        result
    }

    fn sub_flow(&mut self, file: &str, line: usize) -> R<Vec<Step>> {
        let Some(loader) = self.loader else {
            return self.err(
                line,
                "runFlow with a file needs the flow to be read from a file (give its path)",
            );
        };
        let path = match &self.dir {
            Some(d) => d.join(file),
            None => PathBuf::from(file),
        };
        let text = loader(&path)
            .or_else(|e| self.err(line, format!("runFlow cannot read {file}: {e}")))?;
        let mut sub = Reader {
            file: Some(path.display().to_string()),
            dir: path.parent().map(Path::to_path_buf),
            env: Vec::new(),
            outside: self.outside.clone(),
            loader: self.loader,
            depth: self.depth,
            app_id: None,
        };
        let docs = yaml::documents(&text).map_err(|e| FlowError {
            file: sub.file.clone(),
            line: e.line,
            message: e.message,
        })?;
        if docs.len() != 2 {
            return sub.err(
                1,
                "a flow is a config document, then `---`, then the commands",
            );
        }
        let config = sub.config(&docs[0])?;
        sub.app_id = config.app_id.or_else(|| self.app_id.clone());
        // The caller's variables reach the sub-flow; its own `env` adds to them.
        sub.env = self.env.clone();
        sub.env.extend(config.env);
        match &docs[1].value {
            Value::Seq(items) => sub.steps(items),
            Value::Null => Ok(Vec::new()),
            _ => sub.err(docs[1].line, "the commands must be a list"),
        }
    }
}
