//! `@eN` refs: given by the server alone, by identity, once per device and session.
//!
//! An element's identity across lists is its type, id, text and label; for look-alikes (one
//! "Add to cart" per row) also the nearest one-of-a-kind text above it (its row's title)
//! and which occurrence it is in tree order ([`identities`]). A [`RefTable`] gives refs by
//! identity ([`RefTable::number`]): an element keeps its ref in every later list, and a ref
//! is never given to another element, so a ref the agent kept from any earlier look either
//! names its element on the screen now or names nothing ([`RefTable::former`]).
//!
//! Not for: what the agent last saw or what changed (`observe`), or finding the element a
//! ref names in a list (`aim`).

use std::collections::HashMap;

use mobile_device::Element;

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
    /// For an element with look-alikes (the same kind, id, text and label elsewhere in the
    /// list, such as one "Add to cart" button per row): the text of the nearest element
    /// above it in tree order that is one of a kind (its row's "Product 2"). So when the
    /// rows scroll, each button stays with its row instead of with its position. Empty for
    /// an element without look-alikes.
    anchor: String,
    /// Which occurrence of the same (kind, id, text, label, anchor) it is, top to bottom.
    nth: usize,
}

type Key<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

impl Identity {
    fn key(&self) -> Key<'_> {
        (&self.kind, &self.id, &self.text, &self.label, &self.anchor)
    }
}

/// How many elements of `ids` share each (kind, id, text, label, anchor): the ones `nth`
/// tells apart.
fn look_alikes(ids: &[Identity]) -> HashMap<Key<'_>, usize> {
    let mut n = HashMap::new();
    for k in ids {
        *n.entry(k.key()).or_insert(0) += 1;
    }
    n
}

/// An element's kind, id, text and label.
type Base = (String, String, String, String);

/// The identities of a list's elements, in order.
pub(crate) fn identities(elements: &[Element]) -> Vec<Identity> {
    let base = |e: &Element| {
        (
            e.element_type.clone(),
            e.identifier.clone().unwrap_or_default(),
            e.text.clone().unwrap_or_default(),
            e.label.clone().unwrap_or_default(),
        )
    };
    let bases: Vec<_> = elements.iter().map(base).collect();
    let mut count: HashMap<&Base, usize> = HashMap::new();
    for b in &bases {
        *count.entry(b).or_insert(0) += 1;
    }
    let mut anchor = String::new();
    let mut seen: HashMap<(&Base, String), usize> = HashMap::new();
    let mut out = Vec::with_capacity(elements.len());
    for b in &bases {
        let alone = count[b] == 1;
        let own = if alone { String::new() } else { anchor.clone() };
        let n = seen.entry((b, own.clone())).or_insert(0);
        let nth = *n;
        *n += 1;
        if alone {
            let name = if b.2.is_empty() { &b.3 } else { &b.2 };
            if !name.is_empty() {
                anchor = name.clone();
            }
        }
        out.push(Identity {
            kind: b.0.clone(),
            id: b.1.clone(),
            text: b.2.clone(),
            label: b.3.clone(),
            anchor: own,
            nth,
        });
    }
    out
}

/// A ref given to an identity, and how many look-alikes it had then: with another count
/// "the second Product row" may be another row, so the identity gets a new ref.
#[derive(Debug, Clone)]
struct Given {
    reference: String,
    look_alikes: usize,
}

/// The refs given on one device: by identity, and what each ref named.
#[derive(Debug, Default)]
pub(crate) struct RefTable {
    refs: HashMap<Identity, Given>,
    /// Every ref given, with the identity it names (also after that identity got a new
    /// ref), to say what a stale ref was.
    named: HashMap<String, Identity>,
    next: u64,
}

/// What a ref that is not on the screen now once named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Former {
    /// Type and text, label or id, as the agent saw it.
    pub what: String,
    /// Elements like it are on screen, but more or fewer than when the ref was given.
    pub ambiguous: bool,
}

impl RefTable {
    /// Gives `elements` (a list just read from the device) their refs: the ref their
    /// identity already has here, else a new one never given before.
    pub(crate) fn number(&mut self, mut elements: Vec<Element>) -> Vec<Element> {
        let seen = self;
        if seen.named.len() > MAX_REFS {
            seen.refs.clear();
            seen.named.clear();
        }
        let ids = identities(&elements);
        let counts = look_alikes(&ids);
        for (e, k) in elements.iter_mut().zip(&ids) {
            let n = counts[&k.key()];
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

    /// What `reference` named when it was given, if it was given here, judged
    /// against `now` (a numbered list in which it is not).
    pub(crate) fn former(&self, reference: &str, now: &[Element]) -> Option<Former> {
        let k = self.named.get(reference)?;
        let ty = k.kind.rsplit('.').next().unwrap_or(&k.kind);
        let name = [&k.text, &k.label, &k.id]
            .into_iter()
            .find(|v| !v.is_empty())
            .map(|v| format!(" {}", serde_json::to_string(v).unwrap_or_default()))
            .unwrap_or_default();
        let ids = identities(now);
        Some(Former {
            what: format!("{ty}{name}"),
            ambiguous: ids.iter().any(|n| n.key() == k.key()),
        })
    }
}
