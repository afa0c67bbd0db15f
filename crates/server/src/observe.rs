//! What the agent last saw of each device, and what changed since.
//!
//! An observation is the element list the agent was last given for a device (by
//! `mobile_list_elements_on_screen`, an action's result or `mobile_wait_for`). The refs in
//! it name its elements; an element's identity across observations is its type, id, text
//! and label, plus which occurrence of that identity it is in tree order
//! ([`identity`]). An action's result reports the difference to the last observation
//! ([`diff`]) and the new list becomes the observation.

use std::collections::HashMap;
use std::sync::Mutex;

use mobile_device::Element;
use serde::Serialize;

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

/// Observations by device id.
#[derive(Debug, Default)]
pub(crate) struct Observations(Mutex<HashMap<String, Observation>>);

impl Observations {
    /// The device's last observation.
    pub(crate) fn last(&self, device: &str) -> Option<Observation> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(device)
            .cloned()
    }

    /// Records what the agent was just shown.
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
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(
            device.to_string(),
            Observation {
                elements: elements.to_vec(),
                fingerprint,
            },
        );
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

/// Finds, in `now`, the element the agent named as `reference` in its last observation
/// `before`: by identity, never by position. `Err` says why it cannot be acted on.
pub(crate) fn refind<'a>(
    before: &[Element],
    reference: &str,
    now: &'a [Element],
) -> Result<&'a Element, RefindError> {
    let Some(i) = before.iter().position(|e| e.reference == reference) else {
        return Err(RefindError::Unknown);
    };
    let old_ids = identities(before);
    let wanted = &old_ids[i];
    let new_ids = identities(now);
    let same: Vec<usize> = new_ids
        .iter()
        .enumerate()
        .filter(|(_, k)| *k == wanted)
        .map(|(j, _)| j)
        .collect();
    // The same identity must be exactly one element, and the count of its look-alikes
    // must not have changed (else "the second Product row" may now be another row).
    let count = |ids: &[Identity]| {
        ids.iter()
            .filter(|k| {
                k.kind == wanted.kind
                    && k.id == wanted.id
                    && k.text == wanted.text
                    && k.label == wanted.label
            })
            .count()
    };
    match same.as_slice() {
        [j] if count(&old_ids) == count(&new_ids) => Ok(&now[*j]),
        [] => Err(RefindError::Gone),
        _ => Err(RefindError::Ambiguous),
    }
}

/// Why a ref cannot be acted on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RefindError {
    /// The ref is not in the last observation.
    Unknown,
    /// Its element is no longer on screen.
    Gone,
    /// Several elements now look like it.
    Ambiguous,
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

    #[test]
    fn a_moved_element_is_found_where_it_is_now() {
        let before = [
            el("@e1", "Added to cart", 100),
            el("@e2", "Buy now", 200),
            el("@e3", "Share", 300),
        ];
        let now = [el("@e1", "Buy now", 100), el("@e2", "Share", 200)];
        let e = refind(&before, "@e2", &now).unwrap();
        assert_eq!(e.text.as_deref(), Some("Buy now"));
        assert_eq!(e.rect.y, 100);
        assert_eq!(refind(&before, "@e1", &now), Err(RefindError::Gone));
        assert_eq!(refind(&before, "@e9", &now), Err(RefindError::Unknown));
        let c = diff(Some(&before), &now);
        assert_eq!(c.removed.len(), 1);
        assert_eq!(c.changed.len(), 2);
        assert!(!c.new_screen);
    }

    #[test]
    fn look_alikes_whose_count_changed_are_ambiguous() {
        let before = [el("@e1", "Row", 100), el("@e2", "Row", 200)];
        let now = [
            el("@e1", "Row", 100),
            el("@e2", "Row", 200),
            el("@e3", "Row", 300),
        ];
        assert_eq!(refind(&before, "@e2", &now), Err(RefindError::Ambiguous));
    }

    #[test]
    fn a_different_screen_is_a_new_screen() {
        let before = [el("@e1", "A", 1), el("@e2", "B", 2)];
        let now = [el("@e1", "C", 1), el("@e2", "D", 2)];
        assert!(diff(Some(&before), &now).new_screen);
        assert!(diff(None, &now).new_screen);
    }
}
