//! What the agent last saw of each device, what changed since, and the refs it may use.
//!
//! An observation is the element list the agent was last given for a device (by
//! `mobile_list_elements_on_screen`, an action's result or `mobile_wait_for`). An
//! element's identity across lists is its type, id, text and label, plus which occurrence
//! of that identity it is in tree order ([`identities`]). Refs are given by identity, once
//! per device ([`Observations::number`]): an element keeps its ref in every later list, and
//! a ref is never given to another element, so a ref the agent kept from any earlier look
//! either names its element on the screen now or names nothing. An action's result reports
//! the difference to the last observation ([`diff`]) and the new list becomes the
//! observation.

use std::collections::HashMap;
use std::sync::Mutex;

use mobile_device::Element;
use serde::Serialize;

/// How many identities a device's ref table holds before it starts afresh (new refs for
/// every element; the old refs then name nothing, so nothing is acted on by mistake).
const MAX_REFS: usize = 20_000;

/// An element's identity: what stays the same when it moves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Identity {
    kind: String,
    id: String,
    text: String,
    label: String,
    /// Which occurrence of the same (kind, id, text, label) it is, top to bottom.
    nth: usize,
}

impl Identity {
    fn base(&self) -> (&str, &str, &str, &str) {
        (&self.kind, &self.id, &self.text, &self.label)
    }
}

/// How many elements of `ids` share each (kind, id, text, label).
fn look_alikes(ids: &[Identity]) -> HashMap<(&str, &str, &str, &str), usize> {
    let mut n = HashMap::new();
    for k in ids {
        *n.entry(k.base()).or_insert(0) += 1;
    }
    n
}

/// The identities of a list's elements, in order.
pub(crate) fn identities(elements: &[Element]) -> Vec<Identity> {
    let mut seen: HashMap<(String, String, String, String), usize> = HashMap::new();
    elements
        .iter()
        .map(|e| {
            let base = (
                e.element_type.clone(),
                e.identifier.clone().unwrap_or_default(),
                e.text.clone().unwrap_or_default(),
                e.label.clone().unwrap_or_default(),
            );
            let n = seen.entry(base.clone()).or_insert(0);
            let nth = *n;
            *n += 1;
            Identity {
                kind: base.0,
                id: base.1,
                text: base.2,
                label: base.3,
                nth,
            }
        })
        .collect()
}

/// One device's last observation.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    pub elements: Vec<Element>,
    /// The frame hash the screen showed both just before and just after the list was read
    /// (so the list is what that frame shows), when one was taken.
    pub fingerprint: Option<String>,
}

/// A ref given to an identity, and how many look-alikes it had then: with another count
/// "the second Product row" may be another row, so the identity gets a new ref.
#[derive(Debug, Clone)]
struct Given {
    reference: String,
    look_alikes: usize,
}

/// One device: its last observation and every ref given on it.
#[derive(Debug, Default)]
struct Seen {
    last: Option<Observation>,
    refs: HashMap<Identity, Given>,
    /// Every ref given, with the identity it names (also after that identity got a new
    /// ref), to say what a stale ref was.
    named: HashMap<String, Identity>,
    next: u64,
}

/// Observations and refs by device id.
#[derive(Debug, Default)]
pub(crate) struct Observations(Mutex<HashMap<String, Seen>>);

/// What a ref that is not on the screen now once named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Former {
    /// Type and text, label or id, as the agent saw it.
    pub what: String,
    /// Elements like it are on screen, but more or fewer than when the ref was given.
    pub ambiguous: bool,
}

impl Observations {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Seen>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The device's last observation.
    pub(crate) fn last(&self, device: &str) -> Option<Observation> {
        self.lock().get(device).and_then(|s| s.last.clone())
    }

    /// Gives `elements` (a list just read from the device) their refs: the ref their
    /// identity already has on this device, else a new one never given before.
    pub(crate) fn number(&self, device: &str, mut elements: Vec<Element>) -> Vec<Element> {
        let mut all = self.lock();
        let seen = all.entry(device.to_string()).or_default();
        if seen.named.len() > MAX_REFS {
            seen.refs.clear();
            seen.named.clear();
        }
        let ids = identities(&elements);
        let counts = look_alikes(&ids);
        for (e, k) in elements.iter_mut().zip(&ids) {
            let n = counts[&k.base()];
            let given = match seen.refs.get(k) {
                Some(g) if g.look_alikes == n => g.reference.clone(),
                _ => {
                    seen.next += 1;
                    let r = format!("@e{}", seen.next);
                    seen.refs.insert(
                        k.clone(),
                        Given {
                            reference: r.clone(),
                            look_alikes: n,
                        },
                    );
                    seen.named.insert(r.clone(), k.clone());
                    r
                }
            };
            e.reference = given;
        }
        elements
    }

    /// What `reference` named when it was given, if it was given on this device, judged
    /// against `now` (a numbered list in which it is not).
    pub(crate) fn former(&self, device: &str, reference: &str, now: &[Element]) -> Option<Former> {
        let all = self.lock();
        let k = all.get(device)?.named.get(reference)?;
        let ty = k.kind.rsplit('.').next().unwrap_or(&k.kind);
        let name = [&k.text, &k.label, &k.id]
            .into_iter()
            .find(|v| !v.is_empty())
            .map(|v| format!(" {}", serde_json::to_string(v).unwrap_or_default()))
            .unwrap_or_default();
        let ids = identities(now);
        Some(Former {
            what: format!("{ty}{name}"),
            ambiguous: ids.iter().any(|n| n.base() == k.base()),
        })
    }

    /// Records what the agent was just shown (a numbered list).
    pub(crate) fn record(&self, device: &str, elements: &[Element]) {
        self.record_paired(device, elements, None);
    }

    /// Records what the agent was just shown, with the frame hash it is known to show.
    pub(crate) fn record_paired(
        &self,
        device: &str,
        elements: &[Element],
        fingerprint: Option<String>,
    ) {
        self.lock().entry(device.to_string()).or_default().last = Some(Observation {
            elements: elements.to_vec(),
            fingerprint,
        });
    }
}

/// What changed between two observations.
#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct Changes {
    /// True when there was no earlier observation or most of the screen changed: then
    /// `added` holds every element.
    #[serde(rename = "newScreen")]
    pub new_screen: bool,
    pub added: Vec<Element>,
    pub removed: Vec<Element>,
    /// Elements still there that moved or changed state (their new form).
    pub changed: Vec<Element>,
    /// How many elements are on screen now.
    pub total: usize,
}

/// The difference from `before` (if any) to `now`.
pub(crate) fn diff(before: Option<&[Element]>, now: &[Element]) -> Changes {
    let Some(before) = before else {
        return Changes {
            new_screen: true,
            added: now.to_vec(),
            total: now.len(),
            ..Changes::default()
        };
    };
    let old_ids = identities(before);
    let new_ids = identities(now);
    let old_at: HashMap<&Identity, usize> =
        old_ids.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let new_set: std::collections::HashSet<&Identity> = new_ids.iter().collect();
    let mut c = Changes {
        total: now.len(),
        ..Changes::default()
    };
    for (i, k) in new_ids.iter().enumerate() {
        match old_at.get(k) {
            None => c.added.push(now[i].clone()),
            Some(&j) => {
                let (a, b) = (&before[j], &now[i]);
                if a.rect != b.rect || a.states != b.states || a.value != b.value {
                    c.changed.push(b.clone());
                }
            }
        }
    }
    for (j, k) in old_ids.iter().enumerate() {
        if !new_set.contains(k) {
            c.removed.push(before[j].clone());
        }
    }
    let kept = now.len() - c.added.len();
    if kept * 2 < now.len().max(before.len()) {
        c.new_screen = true;
        c.added = now.to_vec();
        c.removed.clear();
        c.changed.clear();
    }
    c
}

fn line(sign: &str, e: &Element) -> String {
    let ty = e.element_type.rsplit('.').next().unwrap_or(&e.element_type);
    let mut s = format!("{sign} {} {ty}", e.reference);
    for (k, v) in [
        ("text", &e.text),
        ("label", &e.label),
        ("id", &e.identifier),
    ] {
        if let Some(v) = v.as_deref().filter(|v| !v.is_empty()) {
            let q = serde_json::to_string(v).unwrap_or_default();
            s.push_str(&format!(" {k}={q}"));
        }
    }
    let c = e.rect.center();
    s.push_str(&format!(" at={},{}", c.x, c.y));
    s
}

impl Changes {
    /// The change list as text, one element per line.
    pub(crate) fn render(&self) -> String {
        if self.new_screen {
            let mut s = format!(
                "New screen, {} elements (@ref Type text= label= id= at=centre x,y):",
                self.total
            );
            for e in &self.added {
                s.push('\n');
                s.push_str(line("", e).trim_start());
            }
            return s;
        }
        if self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty() {
            return format!("No change on screen ({} elements).", self.total);
        }
        let mut s = format!(
            "Changes: {} added, {} removed, {} moved or changed ({} elements now):",
            self.added.len(),
            self.removed.len(),
            self.changed.len(),
            self.total
        );
        for (sign, list) in [
            ("+", &self.added),
            ("-", &self.removed),
            ("~", &self.changed),
        ] {
            for e in list {
                s.push('\n');
                s.push_str(&line(sign, e));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mobile_device::{ElementStates, Rect};

    fn el(r: &str, text: &str, y: i32) -> Element {
        Element {
            reference: r.into(),
            element_type: "android.widget.Button".into(),
            text: Some(text.into()),
            label: None,
            identifier: None,
            value: None,
            rect: Rect {
                x: 0,
                y,
                width: 100,
                height: 50,
            },
            states: ElementStates::default(),
        }
    }

    fn refs(list: &[Element]) -> Vec<&str> {
        list.iter().map(|e| e.reference.as_str()).collect()
    }

    #[test]
    fn a_moved_element_keeps_its_ref_and_a_gone_one_names_nothing() {
        let o = Observations::default();
        // What the device's parser numbered: its own @e1.. in every list.
        let before = o.number(
            "d",
            vec![
                el("@e1", "Added to cart", 100),
                el("@e2", "Buy now", 200),
                el("@e3", "Share", 300),
            ],
        );
        assert_eq!(refs(&before), ["@e1", "@e2", "@e3"]);
        o.record("d", &before);
        let now = o.number(
            "d",
            vec![el("@e1", "Buy now", 100), el("@e2", "Share", 200)],
        );
        assert_eq!(refs(&now), ["@e2", "@e3"], "each keeps the ref it had");
        assert_eq!(now[0].rect.y, 100, "where it is now");
        let f = o.former("d", "@e1", &now).unwrap();
        assert_eq!(f.what, "Button \"Added to cart\"");
        assert!(!f.ambiguous);
        assert_eq!(o.former("d", "@e9", &now), None);
        assert_eq!(o.former("other", "@e1", &now), None);
        let c = diff(Some(&before), &now);
        assert_eq!(c.removed.len(), 1);
        assert_eq!(c.changed.len(), 2);
        assert!(!c.new_screen);
        // A new element gets a ref never given before, not the gone one's.
        let later = o.number("d", vec![el("", "Buy now", 100), el("", "Checkout", 200)]);
        assert_eq!(refs(&later), ["@e2", "@e4"]);
    }

    #[test]
    fn look_alikes_whose_count_changed_get_new_refs() {
        let o = Observations::default();
        let before = o.number("d", vec![el("", "Row", 100), el("", "Row", 200)]);
        assert_eq!(refs(&before), ["@e1", "@e2"]);
        let now = o.number(
            "d",
            vec![el("", "Row", 100), el("", "Row", 200), el("", "Row", 300)],
        );
        assert_eq!(refs(&now), ["@e3", "@e4", "@e5"]);
        assert!(o.former("d", "@e2", &now).unwrap().ambiguous);
    }

    #[test]
    fn a_different_screen_is_a_new_screen() {
        let before = [el("@e1", "A", 1), el("@e2", "B", 2)];
        let now = [el("@e1", "C", 1), el("@e2", "D", 2)];
        assert!(diff(Some(&before), &now).new_screen);
        assert!(diff(None, &now).new_screen);
    }
}
