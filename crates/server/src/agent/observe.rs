//! What the agent last saw of each device and what changed since.
//!
//! An observation is the element list the agent was last given for a device (by
//! `mobile_list_elements_on_screen`, an action's result, `mobile_wait_for` or an annotated
//! screenshot), numbered by the device's [`RefTable`]. An action's result reports the
//! difference to the last observation ([`diff`]) and the new list becomes the observation.
//! Observations and refs belong to one session (one [`Observations`] per MCP session): what
//! another session's agent saw or was given is not this one's.
//!
//! Not for: giving refs (`refs`), or reading the screen (the tools do, through
//! `MobileServer::elements`).

use std::collections::HashMap;
use std::sync::Mutex;

use mobile_device::{Element, ScreenFingerprint};
use serde::Serialize;

use super::refs::{Base, Former, RefTable};

/// One device's last observation.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    pub elements: Vec<Element>,
    /// The frame hash the screen showed both just before and just after the list was read
    /// (so the list is what that frame shows), when one was taken.
    pub fingerprint: Option<ScreenFingerprint>,
}

/// One device: its last observation and every ref given on it.
#[derive(Debug, Default)]
struct Seen {
    last: Option<Observation>,
    refs: RefTable,
}

/// Observations and refs by device id.
#[derive(Debug, Default)]
pub(crate) struct Observations(Mutex<HashMap<String, Seen>>);

impl Observations {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Seen>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The device's last observation.
    pub(crate) fn last(&self, device: &str) -> Option<Observation> {
        self.lock().get(device).and_then(|s| s.last.clone())
    }

    /// Gives `elements` (a list just read from the device) their refs on this device
    /// ([`RefTable::number`]).
    pub(crate) fn number(&self, device: &str, elements: Vec<Element>) -> Vec<Element> {
        self.lock()
            .entry(device.to_string())
            .or_default()
            .refs
            .number(elements)
    }

    /// What `reference` named when it was given on this device, if it was, judged
    /// against `now` (a numbered list in which it is not).
    pub(crate) fn former(&self, device: &str, reference: &str, now: &[Element]) -> Option<Former> {
        self.lock().get(device)?.refs.former(reference, now)
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
        fingerprint: Option<ScreenFingerprint>,
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
    // Both lists were numbered by the same table: an element is the one with the same
    // ref (and, for lists numbered elsewhere, the same look).
    let key = |e: &Element| (e.reference.clone(), Base::of(e));
    let old_at: HashMap<_, usize> = before
        .iter()
        .enumerate()
        .map(|(i, e)| (key(e), i))
        .collect();
    let new_set: std::collections::HashSet<_> = now.iter().map(key).collect();
    let mut c = Changes {
        total: now.len(),
        ..Changes::default()
    };
    for b in now {
        match old_at.get(&key(b)) {
            None => c.added.push(b.clone()),
            Some(&j) => {
                let a = &before[j];
                if a.rect != b.rect || a.states != b.states || a.value != b.value {
                    c.changed.push(b.clone());
                }
            }
        }
    }
    for a in before {
        if !new_set.contains(&key(a)) {
            c.removed.push(a.clone());
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
    /// Whether the screen shows what the agent last saw: nothing added, removed or
    /// changed (a first look, which lists every element, is not empty).
    pub(crate) fn is_empty(&self) -> bool {
        !self.new_screen
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
    }

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
        if self.is_empty() {
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
    fn look_alikes_in_scrolled_rows_keep_the_row_they_belong_to() {
        let o = Observations::default();
        let row = |title: &str, y| {
            let mut t = el("", title, y);
            t.element_type = "android.widget.TextView".into();
            [t, el("", "Add to cart", y + 50)]
        };
        let list = |titles: &[&str]| -> Vec<Element> {
            titles
                .iter()
                .enumerate()
                .flat_map(|(i, t)| row(t, 100 * i as i32))
                .collect()
        };
        let before = o.number("d", list(&["Product 1", "Product 2", "Product 3"]));
        assert_eq!(refs(&before), ["@e1", "@e2", "@e3", "@e4", "@e5", "@e6"]);
        // Scrolled by one row: as many "Add to cart" buttons as before, each one row up.
        let now = o.number("d", list(&["Product 2", "Product 3", "Product 4"]));
        assert_eq!(
            refs(&now)[..4],
            ["@e3", "@e4", "@e5", "@e6"],
            "Product 2's button is still @e4, not Product 1's @e2"
        );
        assert!(!refs(&now).contains(&"@e2"));
        let f = o.former("d", "@e2", &now).unwrap();
        assert!(!f.ambiguous, "Product 1's button is gone, not ambiguous");
    }

    #[test]
    fn the_change_list_of_a_scroll_names_the_row_that_went() {
        let o = Observations::default();
        let text = |t: &str, y| {
            let mut e = el("", t, y);
            e.element_type = "android.widget.TextView".into();
            e
        };
        let cart = |y| el("", "Add to cart", y);
        // Milk's title is under the toolbar, its button still on screen; then one more
        // row up: Milk's button goes and Eggs' button is first under the toolbar.
        let s1 = o.number(
            "d",
            vec![
                text("Shop", 0),
                cart(100),
                text("Eggs", 200),
                cart(250),
                text("Bread", 300),
                cart(350),
            ],
        );
        let s2 = o.number(
            "d",
            vec![
                text("Shop", 0),
                cart(150),
                text("Bread", 200),
                cart(250),
                text("Jam", 300),
                cart(350),
            ],
        );
        let (milk, eggs) = (&s1[1].reference, &s1[3].reference);
        let c = diff(Some(&s1), &s2);
        assert!(!c.new_screen);
        let removed = refs(&c.removed);
        assert!(
            removed.contains(&milk.as_str()),
            "Milk's button went: {removed:?}"
        );
        assert!(
            !removed.contains(&eggs.as_str()),
            "Eggs' button stayed: {removed:?}"
        );
        assert!(refs(&c.changed).contains(&eggs.as_str()), "and moved");
    }

    #[test]
    fn a_different_screen_is_a_new_screen() {
        let before = [el("@e1", "A", 1), el("@e2", "B", 2)];
        let now = [el("@e1", "C", 1), el("@e2", "D", 2)];
        assert!(diff(Some(&before), &now).new_screen);
        assert!(diff(None, &now).new_screen);
    }
}
