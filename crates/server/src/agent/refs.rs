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
//! pass to the row above, whose look-alike is then known only by the title below it. So
//! does one under a row title never seen, if its ref was last seen under another (a list
//! at its end pulls the row above down into the deleted one's place).
//!
//! When the row above shows only its look-alike (its title scrolled under a toolbar), the
//! deletion looks like a scroll by one row. Where each look-alike sat in the last list
//! that showed its base is remembered ([`Spot`]): a look-alike with no row title whose
//! keys name a ref but which sits where another ref of its base sat, that ref now on no
//! element, gets a new ref, unless it moved with the text above it since its ref was last
//! seen. So the deleted row's ref is refused, and so is the first button's after a scroll
//! by exactly whole rows under a toolbar (the same screen). The keys of refs in doubt
//! are forgotten, so they do not later name two refs.
//!
//! What the table keeps is bounded: a text is kept as at most [`KEPT_CHARS`] characters
//! and a hash of the whole, spots only for the last list of each base, and the table starts
//! afresh past [`MAX_REFS`] refs or [`MAX_BYTES`] of kept text (then old refs name nothing).
//!
//! Not for: what the agent last saw or what changed (`observe`), or finding the element a
//! ref names in a list (`aim`).

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use mobile_device::{Element, Rect};

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

/// Where a look-alike sat in the last list that showed its base: its ref, its bounds, the
/// one-of-a-kind text nearest above it (name and bounds), if any, and its row title.
#[derive(Debug, Clone)]
struct Spot {
    reference: u64,
    rect: Rect,
    above: Option<(String, Rect)>,
    row: Option<String>,
}

impl Spot {
    fn bytes(&self) -> usize {
        self.above.as_ref().map_or(0, |(n, _)| n.len())
            + self.row.as_ref().map_or(0, String::len)
            + 64
    }
}

/// The one-of-a-kind text nearest above each element (name and bounds), if any.
fn above(elements: &[Element]) -> Vec<Option<(String, Rect)>> {
    let bases: Vec<Base> = elements.iter().map(Base::of).collect();
    let mut at: HashMap<&Base, Vec<usize>> = HashMap::new();
    for (i, b) in bases.iter().enumerate() {
        at.entry(b).or_default().push(i);
    }
    let mut out = Vec::with_capacity(elements.len());
    let mut last = None;
    for (i, e) in elements.iter().enumerate() {
        out.push(last.clone());
        if let Some(name) = landmark(&bases, &at, i) {
            last = Some((name.to_string(), e.rect));
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
    /// Where each look-alike base's refs sat in the last list that showed it.
    shown: HashMap<Base, Vec<Spot>>,
    /// The last ref given (refs are never given twice, also after a fresh start).
    next: u64,
    /// Bytes of text kept in `by_key`, `named`, `by_row` and `shown`, roughly.
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
            self.shown.clear();
            self.bytes = 0;
        }
        let keys = keys(&elements);
        let rows = rows(&elements);
        // Refs in doubt (an element here whose keys name one gets a new ref, and it may
        // have had the other): the keys naming them are forgotten, unless an element here
        // has one, so an old key of that element does not later name two refs. (The row
        // titles they were seen under stay: they are what refuses a ref that would pass.)
        let mut forget = Vec::new();
        let mut found: Vec<Option<u64>> = keys
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
                // deleted between them), so neither is trusted. Under a row title no ref was
                // seen under, but `r` was last seen under another: a row pulled down into
                // the place of a deleted one (a list at its end refills), or one renamed.
                let t = row.as_ref();
                let under = t.and_then(|t| self.by_row.get(&(ks[0].base.clone(), t.clone())));
                let was = || {
                    let spots = self.shown.get(&ks[0].base)?;
                    spots.iter().find(|s| s.reference == r)?.row.as_ref()
                };
                match under {
                    Some(&other) if other != r => {
                        forget.extend([r, other]);
                        None
                    }
                    None if t.is_some() && was().is_some_and(|w| Some(w) != t) => {
                        forget.push(r);
                        None
                    }
                    _ => Some(r),
                }
            })
            .collect();
        let above = above(&elements);
        // A look-alike with no row title that sits where another ref of its base sat and
        // that ref is on no element now: it may be that ref's element, unmoved, and the
        // row its keys name deleted below it (the deletion looks like a scroll by whole
        // rows). Neither is trusted, unless it moved with the text above it since its ref
        // was last seen: it gets a new ref. Refusing one may leave another ref unclaimed:
        // to a fixed point.
        while let Some(i) = (0..elements.len()).find(|&i| {
            let look_alike = !matches!(keys[i][0].place, Place::Alone);
            found[i].is_some_and(|r| {
                look_alike
                    && rows[i].is_none()
                    && self.unmoved(&elements, &keys, &found, &above, i, r)
            })
        }) {
            forget.extend(found[i].take());
        }
        forget.retain(|r| !found.contains(&Some(*r)));
        if !forget.is_empty() {
            let mut freed = 0;
            self.by_key.retain(|k, r| {
                let keep = !forget.contains(r);
                freed += if keep { 0 } else { k.bytes() };
                keep
            });
            self.bytes = self.bytes.saturating_sub(freed);
        }
        let mut claims: HashMap<u64, usize> = HashMap::new();
        for r in found.iter().flatten() {
            *claims.entry(*r).or_insert(0) += 1;
        }
        let mut given = Vec::with_capacity(elements.len());
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
            given.push(r);
        }
        let mut spots: HashMap<Base, Vec<Spot>> = HashMap::new();
        let placed = elements.iter().zip(&keys).zip(above).zip(given).zip(rows);
        for ((((e, ks), above), r), row) in placed {
            if !matches!(ks[0].place, Place::Alone) {
                spots.entry(ks[0].base.clone()).or_default().push(Spot {
                    reference: r,
                    rect: e.rect,
                    above,
                    row,
                });
            }
        }
        for (base, new) in spots {
            let b = base.bytes() + 48;
            self.bytes += new.iter().map(Spot::bytes).sum::<usize>();
            match self.shown.insert(base, new) {
                Some(old) => {
                    let old: usize = old.iter().map(Spot::bytes).sum();
                    self.bytes = self.bytes.saturating_sub(old);
                }
                None => self.bytes += b,
            }
        }
        elements
    }

    /// Whether element `i`, whose keys name ref `r`, sits where another ref of its base sat
    /// in the last list that showed the base, that ref named by no element's keys now
    /// (`found`), and `i` did not move with the text above it since `r` was last seen.
    fn unmoved(
        &self,
        elements: &[Element],
        keys: &[Vec<Key>],
        found: &[Option<u64>],
        above: &[Option<(String, Rect)>],
        i: usize,
        r: u64,
    ) -> bool {
        let Some(spots) = self.shown.get(&keys[i][0].base) else {
            return false;
        };
        let e = elements[i].rect;
        let taken = spots
            .iter()
            .any(|s| s.rect == e && s.reference != r && !found.contains(&Some(s.reference)));
        if !taken {
            return false;
        }
        // Moved with the text above it: the same text, shifted as much as the element
        // since `r` was last seen (a scroll; a fixed toolbar above does not move).
        let moved = spots.iter().find(|s| s.reference == r).is_some_and(|s| {
            let (dx, dy) = (e.x - s.rect.x, e.y - s.rect.y);
            match (&s.above, &above[i]) {
                (Some((was_name, was)), Some((name, now))) => {
                    was_name == name
                        && (dx, dy) != (0, 0)
                        && (now.x - was.x, now.y - was.y) == (dx, dy)
                        && (now.width, now.height) == (was.width, was.height)
                        && (e.width, e.height) == (s.rect.width, s.rect.height)
                }
                _ => false,
            }
        });
        !moved
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
mod tests;
