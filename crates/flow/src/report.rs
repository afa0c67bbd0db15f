//! What a run reports: per step its line, command, what matched, what was done and
//! whether its check held; the flow's verdict; a text rendering and a JUnit XML report
//! (one `<testsuite>` per flow, one `<testcase>` per step, as JUnit's XML schema that CI
//! systems read: `testsuites` > `testsuite` > `testcase` with `failure`).

use std::fmt::Write as _;
use std::time::Duration;

use mobile_device::Element;
use serde::Serialize;

use crate::model::{Selector, Step};
use crate::runner::describe;

/// One step that ran.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// Its line.
    pub line: usize,
    /// The file it came from, when not the flow's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The command's name.
    pub command: String,
    /// Its `label:`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// How deep in `runFlow` / `repeat` it ran (0: the flow's own).
    pub depth: usize,
    /// The element it found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<String>,
    /// What it did.
    pub action: String,
    /// The check it made, when it held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// Whether it passed.
    pub passed: bool,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long it took.
    #[serde(skip)]
    pub duration: Duration,
}

impl StepReport {
    pub(crate) fn new(step: &Step, depth: usize) -> Self {
        StepReport {
            line: step.line,
            file: step.file.clone(),
            command: step.command.name().to_string(),
            label: step.label.clone(),
            depth,
            matched: None,
            action: String::new(),
            check: None,
            passed: false,
            error: None,
            duration: Duration::ZERO,
        }
    }

    /// One line: `line 7 tapOn: matched Button "OK" at 540,900; tapOn at (540, 900)`.
    pub fn render(&self) -> String {
        let mut s = format!(
            "{}{} line {} {}",
            "  ".repeat(self.depth),
            if self.passed { "ok  " } else { "FAIL" },
            self.line,
            self.label.as_deref().unwrap_or(&self.command)
        );
        let mut parts = Vec::new();
        if let Some(m) = &self.matched {
            parts.push(format!("matched {m}"));
        }
        if !self.action.is_empty() {
            parts.push(self.action.clone());
        }
        if let Some(c) = &self.check {
            parts.push(format!("check held: {c}"));
        }
        if let Some(e) = &self.error {
            parts.push(e.clone());
        }
        if !parts.is_empty() {
            let _ = write!(s, ": {}", parts.join("; "));
        }
        s
    }
}

/// A flow's run.
#[derive(Debug, Clone, Serialize)]
pub struct FlowReport {
    /// The flow's name.
    pub name: String,
    /// Whether every step passed (optional ones aside).
    pub passed: bool,
    /// The failing step and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Every step that ran, in order.
    pub steps: Vec<StepReport>,
    /// How long the run took.
    #[serde(skip)]
    pub duration: Duration,
}

impl FlowReport {
    /// The verdict line, then one line per step.
    pub fn render(&self) -> String {
        let ran = self.steps.len();
        let mut out = match &self.failure {
            None => format!("Flow {} passed: {ran} steps.", quoted(&self.name)),
            Some(f) => format!("Flow {} FAILED: {f}", quoted(&self.name)),
        };
        for s in &self.steps {
            out.push('\n');
            out.push_str(&s.render());
        }
        out
    }
}

fn quoted(name: &str) -> String {
    if name.is_empty() {
        "(unnamed)".into()
    } else {
        format!("{name:?}")
    }
}

/// A JUnit XML report of several flows.
pub fn junit(flows: &[FlowReport]) -> String {
    let tests: usize = flows.iter().map(|f| f.steps.len().max(1)).sum();
    let failures = flows.iter().filter(|f| !f.passed).count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"mobile-mcp flows\" tests=\"{tests}\" failures=\"{failures}\">"
    );
    for f in flows {
        let failed = f.steps.iter().filter(|s| !s.passed).count()
            + usize::from(!f.passed && f.steps.iter().all(|s| s.passed));
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" time=\"{:.3}\">",
            esc(&f.name),
            f.steps.len().max(1),
            f.duration.as_secs_f64()
        );
        if f.steps.is_empty() {
            let _ = write!(
                x,
                "    <testcase name=\"(no steps)\" classname=\"{}\">",
                esc(&f.name)
            );
            if let Some(why) = &f.failure {
                let _ = write!(x, "<failure message=\"{}\"/>", esc(why));
            }
            x.push_str("</testcase>\n");
        }
        for s in &f.steps {
            let _ = write!(
                x,
                "    <testcase name=\"line {} {}\" classname=\"{}\" time=\"{:.3}\"",
                s.line,
                esc(s.label.as_deref().unwrap_or(&s.command)),
                esc(&f.name),
                s.duration.as_secs_f64()
            );
            match &s.error {
                Some(e) if !s.passed => {
                    let _ = writeln!(x, "><failure message=\"{}\"/></testcase>", esc(e));
                }
                _ => x.push_str("/>\n"),
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\n' => o.push_str("&#10;"),
            c if (c as u32) < 0x20 && c != '\t' => {}
            c => o.push(c),
        }
    }
    o
}

/// Up to five elements whose text, label or id is nearest to what `s` asks (edit
/// distance, case-insensitive), for a failing step.
pub(crate) fn nearest(s: &Selector, list: &[Element]) -> String {
    let wanted = s
        .text
        .as_deref()
        .or(s.id.as_deref())
        .unwrap_or_default()
        .to_lowercase();
    let mut scored: Vec<(usize, &Element)> = list
        .iter()
        .filter(|e| {
            [&e.text, &e.label, &e.identifier]
                .iter()
                .any(|v| v.as_deref().is_some_and(|t| !t.is_empty()))
        })
        .map(|e| {
            let best = [&e.text, &e.label, &e.identifier, &e.value]
                .iter()
                .filter_map(|v| v.as_deref())
                .map(|t| {
                    let t = t.to_lowercase();
                    let tail = t.rsplit('/').next().unwrap_or(&t).to_string();
                    levenshtein(&wanted, &t).min(levenshtein(&wanted, &tail))
                })
                .min()
                .unwrap_or(usize::MAX);
            (best, e)
        })
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    if scored.is_empty() {
        return format!("nothing with text ({} elements)", list.len());
    }
    scored
        .iter()
        .take(5)
        .map(|(_, e)| describe(e))
        .collect::<Vec<_>>()
        .join("; ")
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().take(200).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().take(200).enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_escapes_and_counts() {
        let step = StepReport {
            line: 3,
            file: None,
            command: "tapOn".into(),
            label: None,
            depth: 0,
            matched: None,
            action: String::new(),
            check: None,
            passed: false,
            error: Some("no element matches text \"<OK>\"".into()),
            duration: Duration::ZERO,
        };
        let r = FlowReport {
            name: "login & out".into(),
            passed: false,
            failure: Some("x".into()),
            steps: vec![step],
            duration: Duration::ZERO,
        };
        let x = junit(&[r]);
        assert!(x.contains("name=\"login &amp; out\""), "{x}");
        assert!(x.contains("failures=\"1\""), "{x}");
        assert!(x.contains("&quot;&lt;OK&gt;&quot;"), "{x}");
    }

    #[test]
    fn the_nearest_candidates_come_first() {
        let e = |t: &str| Element {
            element_type: "Element".into(),
            text: Some(t.into()),
            ..Default::default()
        };
        let list = vec![e("Settings"), e("Sign in"), e("Sign up")];
        let n = nearest(&Selector::text("Sign In now"), &list);
        assert!(n.starts_with("Element \"Sign in\""), "{n}");
    }
}
