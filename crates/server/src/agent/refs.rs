//! `@eN` refs: given by the server alone (backends return elements without them), by
//! identity, in one table per device and session ([`RefTable`]).
//!
//! An element is known by keys ([`keys`]), each its base (type, id, text, label) and a
//! place:
//! - an element alone with its base on screen: the base alone;
//! - a look-alike (one "Add to cart" per row): the one-of-a-kind text between it and the
//!   look-alike before it (its row's title, "after Milk"), and the one between it and the
//!   look-alike after it (the next row's title, "before Eggs"). The first look-alike on
//!   screen has no "after" key and the last no "before" key: what sits above the first one
//!   may be a toolbar rather than its row, whose title may have scrolled off, and what sits
//!   below the last one a bottom bar;
//! - a look-alike with neither: which one it is of how many (a new count, new refs).
//!
//! [`RefTable::number`] gives an element the ref its keys name, so an element keeps its
//! ref while it stays on screen (a row scrolling up loses its "after" key and keeps its
//! "before" one) and when it comes back; an element whose keys name two refs, or a ref two
//! elements claim, gets a new ref never given before, and the old ones are refused. So a
//! ref either names the element it named when given or names nothing
//! ([`RefTable::former`]).
//!
//! A look-alike's row title (the one-of-a-kind text nearest above it; for the first one on
//! screen only when it is not the topmost such text, which may be a toolbar) is remembered
//! per ref ([`rows`]): an element whose keys name a ref but which sits under another ref's
//! row title gets a new ref, so when a whole row is deleted its look-alike's ref does not
//! pass to the row above, whose look-alike is then known only by the title below it. The
//! one case left: when that row above shows only its look-alike (its title scrolled under
//! a toolbar), the deletion looks like a scroll in one list, and the ref can pass.
//!
//! What the table keeps is bounded: a text is kept as at most [`KEPT_CHARS`] characters
//! and a hash of the whole, and the table starts afresh past [`MAX_REFS`] refs or
//! [`MAX_BYTES`] of kept text (then old refs name nothing).
//!
//! Not for: what the agent last saw or what changed (`observe`), or finding the element a
//! ref names in a list (`aim`).

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use mobile_device::Element;

/// How many refs a device's table gives before it starts afresh.
const MAX_REFS: usize = 20_000;
/// How many bytes of kept text a device's table holds before it starts afresh.
const MAX_BYTES: usize = 4 << 20;
/// Longest text an identity keeps whole, in characters; a longer one is kept as its first
/// characters and a hash of the whole.
const KEPT_CHARS: usize = 64;

/// `s` as an identity keeps it: whole up to [`KEPT_CHARS`], else its start, `…` and a
/// 64-bit hash of the whole (a growing text's every version is a new identity, so what
/// each keeps must not grow with it).
fn kept(s: &str) -> String {
    match s.char_indices().nth(KEPT_CHARS) {
        None => s.to_string(),
        Some((cut, _)) => {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            s.hash(&mut h);
            format!("{}…{:016x}", &s[..cut], h.finish())
        }
    }
}

/// What an element shows: its type, id, text and label (as kept).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Base {
    kind: String,
    id: String,
    text: String,
    label: String,
}

impl Base {
    pub(crate) fn of(e: &Element) -> Base {
        Base {
            kind: kept(&e.element_type),
            id: kept(e.identifier.as_deref().unwrap_or_default()),
            text: kept(e.text.as_deref().unwrap_or_default()),
            label: kept(e.label.as_deref().unwrap_or_default()),
        }
    }

    /// The name a one-of-a-kind element lends its neighbours: its text, else its label.
    fn name(&self) -> &str {
        if self.text.is_empty() {
            &self.label
        } else {
            &self.text
        }
    }

    /// `Button "Buy now"`, as the agent saw it.
    fn describe(&self) -> String {
        let ty = self.kind.rsplit('.').next().unwrap_or(&self.kind);
        let name = [&self.text, &self.label, &self.id]
            .into_iter()
            .find(|v| !v.is_empty())
            .map(|v| format!(" {}", serde_json::to_string(v).unwrap_or_default()))
            .unwrap_or_default();
        format!("{ty}{name}")
    }

    fn bytes(&self) -> usize {
        self.kind.len() + self.id.len() + self.text.len() + self.label.len()
    }
}

/// Where an element sits among elements like it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Place {
    /// The only element with its base on screen.
    Alone,
    /// A look-alike after the one-of-a-kind element of this name, with no look-alike
    /// between them (its row's title).
    After(String),
    /// A look-alike before the one-of-a-kind element of this name, with no look-alike
    /// between them (the next row's title).
    Before(String),
    /// A look-alike with no such neighbour: the nth of `of`.
    Nth { nth: usize, of: usize },
}

/// One way to know an element again.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    base: Base,
    place: Place,
}

impl Key {
    fn bytes(&self) -> usize {
        let place = match &self.place {
            Place::After(s) | Place::Before(s) => s.len(),
            _ => 0,
        };
        self.base.bytes() + place + 48
    }
}

/// The name element `i` lends its neighbours, if it is one of a kind and has one.
fn landmark<'a>(bases: &'a [Base], at: &HashMap<&Base, Vec<usize>>, i: usize) -> Option<&'a str> {
    let b = &bases[i];
    (at[b].len() == 1 && !b.name().is_empty()).then(|| b.name())
}

/// The keys of each element of a list, in order (see the module's front door). A key two
/// elements of the list share names neither.
pub(crate) fn keys(elements: &[Element]) -> Vec<Vec<Key>> {
    let bases: Vec<Base> = elements.iter().map(Base::of).collect();
    let mut at: HashMap<&Base, Vec<usize>> = HashMap::new();
    for (i, b) in bases.iter().enumerate() {
        at.entry(b).or_default().push(i);
    }
    let landmark = |i: usize| landmark(&bases, &at, i);
    let mut out: Vec<Vec<Place>> = vec![Vec::new(); elements.len()];
    for idx in at.values() {
        if let [only] = idx.as_slice() {
            out[*only].push(Place::Alone);
            continue;
        }
        let of = idx.len();
        for (k, &i) in idx.iter().enumerate() {
            if k > 0
                && let Some(name) = (idx[k - 1] + 1..i).rev().find_map(landmark)
            {
                out[i].push(Place::After(name.to_string()));
            }
            if k + 1 < of
                && let Some(name) = (i + 1..idx[k + 1]).find_map(landmark)
            {
                out[i].push(Place::Before(name.to_string()));
            }
        }
    }
    let mut keys: Vec<Vec<Key>> = out
        .into_iter()
        .zip(&bases)
        .map(|(places, b)| {
            places
                .into_iter()
                .map(|place| Key {
                    base: b.clone(),
                    place,
                })
                .collect()
        })
        .collect();
    let mut count: HashMap<Key, usize> = HashMap::new();
    for k in keys.iter().flatten() {
        *count.entry(k.clone()).or_insert(0) += 1;
    }
    for ks in &mut keys {
        ks.retain(|k| count[k] == 1);
    }
    // A look-alike left without a key is known by its position among its look-alikes.
    for idx in at.values() {
        for (nth, &i) in idx.iter().enumerate() {
            if keys[i].is_empty() {
                keys[i].push(Key {
                    base: bases[i].clone(),
                    place: Place::Nth { nth, of: idx.len() },
                });
            }
        }
    }
    keys
}

/// The row title of each look-alike: the one-of-a-kind text nearest above it, with no
/// look-alike like it between them. For the first look-alike on screen only when some
/// other one-of-a-kind text sits above that one (so not a toolbar at the top, which sits
/// above whichever row is first). Not a key (it never gives a ref: a row whose title
/// scrolled off may sit under a section header); a ref whose element now sits under the
/// title of another ref's row is refused ([`RefTable::number`]).
fn rows(elements: &[Element]) -> Vec<Option<String>> {
    let bases: Vec<Base> = elements.iter().map(Base::of).collect();
    let mut at: HashMap<&Base, Vec<usize>> = HashMap::new();
    for (i, b) in bases.iter().enumerate() {
        at.entry(b).or_default().push(i);
    }
    let landmark = |i: usize| landmark(&bases, &at, i);
    let mut out = vec![None; elements.len()];
    for idx in at.values().filter(|idx| idx.len() > 1) {
        for (k, &i) in idx.iter().enumerate() {
            let from = if k == 0 { 0 } else { idx[k - 1] + 1 };
            let Some(j) = (from..i).rev().find(|&j| landmark(j).is_some()) else {
                continue;
            };
            if k == 0 && !(0..j).any(|h| landmark(h).is_some()) {
                continue;
            }
            out[i] = landmark(j).map(str::to_string);
        }
    }
    out
}

/// What a ref named when it was given.
#[derive(Debug, Clone)]
struct Named {
    base: Base,
    /// Given to the nth of several look-alikes with no other key.
    counted: bool,
}

/// The refs given on one device in one session.
#[derive(Debug, Default)]
pub(crate) struct RefTable {
    /// The ref each key names.
    by_key: HashMap<Key, u64>,
    /// What each ref named when given.
    named: HashMap<u64, Named>,
    /// The ref last seen under each row title, by base ([`rows`]).
    by_row: HashMap<(Base, String), u64>,
    /// The last ref given (refs are never given twice, also after a fresh start).
    next: u64,
    /// Bytes of text kept in `by_key`, `named` and `by_row`, roughly.
    bytes: usize,
}

/// What a ref that is not on the screen now once named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Former {
    /// Type and text, label or id, as the agent saw it.
    pub what: String,
    /// Elements like it are on screen, but more or fewer than when the ref was given.
    pub ambiguous: bool,
}

/// The number in `@eN`.
fn number_of(reference: &str) -> Option<u64> {
    reference.strip_prefix("@e")?.parse().ok()
}

impl RefTable {
    /// Gives `elements` (a list just read from the device) their refs: the ref their keys
    /// name, else a new one never given before.
    pub(crate) fn number(&mut self, mut elements: Vec<Element>) -> Vec<Element> {
        if self.named.len() > MAX_REFS || self.bytes > MAX_BYTES {
            self.by_key.clear();
            self.named.clear();
            self.by_row.clear();
            self.bytes = 0;
        }
        let keys = keys(&elements);
        let rows = rows(&elements);
        let found: Vec<Option<u64>> = keys
            .iter()
            .zip(&rows)
            .map(|(ks, row)| {
                let refs: HashSet<u64> = ks
                    .iter()
                    .filter_map(|k| self.by_key.get(k).copied())
                    .collect();
                let r = match refs.len() {
                    1 => refs.into_iter().next(),
                    _ => None,
                }?;
                // Under another ref's row title: that ref's row may be the one here (a row
                // deleted between them), so neither is trusted.
                let under = row
                    .as_ref()
                    .and_then(|t| self.by_row.get(&(ks[0].base.clone(), t.clone())));
                match under {
                    Some(&other) if other != r => None,
                    _ => Some(r),
                }
            })
            .collect();
        let mut claims: HashMap<u64, usize> = HashMap::new();
        for r in found.iter().flatten() {
            *claims.entry(*r).or_insert(0) += 1;
        }
        for (((e, ks), found), row) in elements.iter_mut().zip(&keys).zip(found).zip(&rows) {
            let r = match found {
                Some(r) if claims[&r] == 1 => r,
                _ => {
                    self.next += 1;
                    let base = ks[0].base.clone();
                    self.bytes += base.bytes() + 48;
                    self.named.insert(
                        self.next,
                        Named {
                            base,
                            counted: matches!(ks[0].place, Place::Nth { .. }),
                        },
                    );
                    self.next
                }
            };
            for k in ks {
                if self.by_key.insert(k.clone(), r).is_none() {
                    self.bytes += k.bytes();
                }
            }
            if let Some(t) = row {
                let bytes = ks[0].base.bytes() + t.len() + 48;
                if self
                    .by_row
                    .insert((ks[0].base.clone(), t.clone()), r)
                    .is_none()
                {
                    self.bytes += bytes;
                }
            }
            e.reference = format!("@e{r}");
        }
        elements
    }

    /// What `reference` named when it was given, if it was given here, judged against
    /// `now` (a numbered list in which it is not).
    pub(crate) fn former(&self, reference: &str, now: &[Element]) -> Option<Former> {
        let named = self.named.get(&number_of(reference)?)?;
        Some(Former {
            what: named.base.describe(),
            ambiguous: named.counted && now.iter().any(|e| Base::of(e) == named.base),
        })
    }

    /// Bytes of text the table keeps, roughly.
    #[cfg(test)]
    pub(crate) fn kept_bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mobile_device::Rect;

    fn el(kind: &str, text: &str, y: i32) -> Element {
        Element {
            element_type: kind.into(),
            text: Some(text.into()),
            rect: Rect {
                x: 0,
                y,
                width: 100,
                height: 40,
            },
            ..Default::default()
        }
    }

    /// A shop list under a toolbar "Shop": each row a title and an "Add to cart" button;
    /// `partial` is a row whose title has scrolled under the toolbar, its button still on
    /// screen.
    fn shop(partial: Option<&str>, rows: &[&str]) -> Vec<Element> {
        let mut v = vec![el("TextView", "Shop", 0)];
        let mut y = 100;
        if partial.is_some() {
            v.push(el("Button", "Add to cart", y));
            y += 100;
        }
        for r in rows {
            v.push(el("TextView", r, y));
            v.push(el("Button", "Add to cart", y + 50));
            y += 100;
        }
        v
    }

    fn ref_of<'a>(list: &'a [Element], row_title: Option<&str>) -> &'a str {
        // The button after the title (or the first button for the partial row).
        let i = match row_title {
            Some(t) => {
                list.iter()
                    .position(|e| e.text.as_deref() == Some(t))
                    .unwrap()
                    + 1
            }
            None => list
                .iter()
                .position(|e| e.text.as_deref() == Some("Add to cart"))
                .unwrap(),
        };
        &list[i].reference
    }

    #[test]
    fn a_row_scrolling_off_keeps_its_ref_and_never_passes_it_to_the_next_row() {
        let mut t = RefTable::default();
        let s0 = t.number(shop(None, &["Milk", "Eggs", "Bread"]));
        let milk = ref_of(&s0, Some("Milk")).to_string();
        let eggs = ref_of(&s0, Some("Eggs")).to_string();
        // Milk's title scrolls under the toolbar; its button is still on screen.
        let s1 = t.number(shop(Some("Milk"), &["Eggs", "Bread", "Jam"]));
        assert_eq!(ref_of(&s1, None), milk, "Milk's button keeps its ref");
        assert_eq!(ref_of(&s1, Some("Eggs")), eggs);
        // Milk's button goes, Eggs' title scrolls under the toolbar: Eggs' button is now
        // first, under the toolbar, where Milk's was.
        let s2 = t.number(shop(Some("Eggs"), &["Bread", "Jam", "Butter"]));
        assert_eq!(ref_of(&s2, None), eggs, "Eggs' button keeps its ref");
        assert!(
            s2.iter().all(|e| e.reference != milk),
            "Milk's ref is on no element: {:?}",
            s2.iter().map(|e| &e.reference).collect::<Vec<_>>()
        );
        let f = t.former(&milk, &s2).unwrap();
        assert_eq!(f.what, "Button \"Add to cart\"");
        assert!(!f.ambiguous);
        // Scrolled back: Milk's button comes back with its ref.
        let back = t.number(shop(None, &["Milk", "Eggs", "Bread"]));
        assert_eq!(ref_of(&back, Some("Milk")), milk);
        assert_eq!(ref_of(&back, Some("Eggs")), eggs);
    }

    #[test]
    fn a_deleted_rows_ref_never_passes_to_the_row_above() {
        let mut t = RefTable::default();
        let s0 = t.number(shop(None, &["Milk", "Eggs", "Bread"]));
        let milk = ref_of(&s0, Some("Milk")).to_string();
        let eggs = ref_of(&s0, Some("Eggs")).to_string();
        let bread = ref_of(&s0, Some("Bread")).to_string();
        // Eggs' row (title and button) is deleted; Milk's button is the first on screen.
        let s1 = t.number(shop(None, &["Milk", "Bread"]));
        assert!(
            s1.iter().all(|e| e.reference != eggs),
            "Eggs' ref went to {:?}",
            s1.iter().find(|e| e.reference == eggs)
        );
        let m = ref_of(&s1, Some("Milk"));
        assert!(
            m == milk || !s0.iter().any(|e| e.reference == m),
            "Milk's button got another element's ref {m}"
        );
        assert_eq!(ref_of(&s1, Some("Bread")), bread);
        // Scrolling still keeps refs (the toolbar above the first button is no row).
        let s2 = t.number(shop(Some("Milk"), &["Bread", "Jam"]));
        assert_eq!(ref_of(&s2, Some("Bread")), bread);
    }

    #[test]
    fn refs_are_unique_in_every_list() {
        let mut t = RefTable::default();
        for rows in [
            &["A", "B", "C"][..],
            &["B", "C", "D"],
            &["A", "C", "B"],
            &["C"],
            &["C", "C", "A"],
        ] {
            let list = t.number(shop(Some("x"), rows));
            let refs: HashSet<_> = list.iter().map(|e| e.reference.clone()).collect();
            assert_eq!(refs.len(), list.len(), "{rows:?}");
        }
    }

    #[test]
    fn a_growing_text_keeps_what_the_table_holds_bounded() {
        // A note typed in 1 KB pieces up to 300 KB: every version is a new identity.
        let mut t = RefTable::default();
        let piece = "x".repeat(1024);
        let mut note = String::new();
        for _ in 0..300 {
            note.push_str(&piece);
            t.number(vec![el("EditText", &note, 100), el("Button", "Save", 200)]);
        }
        assert!(
            t.kept_bytes() < 300 * 1024,
            "{} bytes kept for 300 versions",
            t.kept_bytes()
        );
        // Two long texts that differ only at the end are still two identities.
        let a = t.number(vec![el("EditText", &format!("{note}a"), 100)]);
        let b = t.number(vec![el("EditText", &format!("{note}b"), 100)]);
        assert_ne!(a[0].reference, b[0].reference);
    }
}
