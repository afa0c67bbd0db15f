//! Maestro's element matching, ported to our flat element lists.
//!
//! The rules are read from Maestro's source (`maestro-orchestra/src/main/java/maestro/
//! orchestra/Orchestra.kt`: `buildFilter` and `findElement`; `maestro-client/src/main/
//! java/maestro/Filters.kt`; `Maestro.kt`: `findElementWithTimeout` takes
//! `filter(hierarchy.aggregate()).firstOrNull()`; `utils/StringUtils.kt`: `toRegexSafe`;
//! `drivers/AndroidDriver.kt` and `IOSDriver.kt`: which attributes are `text`,
//! `hintText`, `accessibilityText` and `resource-id`), written here in our own code:
//!
//! - `text` is a regex (case-insensitive, `.` matching newlines, multi-line) that must
//!   match the WHOLE text, or the text with newlines as spaces, or equal the pattern
//!   literally; it is tried on the text (ours: `text`, then `value`, which is what
//!   Maestro's iOS driver puts in `text` when there is no title), the hint and the
//!   accessibility text (ours: `label`). `id` matches the whole resource id or the part
//!   after its last `/`. A pattern that is no valid regex is taken literally.
//! - Text and id matches are replaced by their deepest matching descendant.
//! - `below` / `above` / `leftOf` / `rightOf`: every element with the relation to any
//!   match of the inner selector, nearest first (distance between centres).
//! - The filters are intersected in Maestro's order, keeping the first filter's order.
//!   `index` then sorts by top, then left, and takes that one; without `index` clickable
//!   elements go first. The first of the result is the element acted on: several matches
//!   are no error ("OK" and "ok" collide, and Maestro takes one).
//!
//! Our lists are flat (depth-first, from the accessibility tree), so the tree is read
//! back from them: an element's descendants are the run of elements right after it
//! that lie inside its bounds. `childOf` keeps the first match of its selector and its
//! descendants; `containsChild` keeps the nearest ancestor of the first match of its
//! selector (Maestro: the element whose children include it). Rust's `regex` has no
//! look-around or back-references: such a pattern is taken literally, as an invalid one.

use mobile_device::{Element, Rect};
use regex::{Regex, RegexBuilder};

use crate::model::Selector;

/// The elements `selector` finds, in Maestro's order: the first is the one a command
/// acts on.
pub fn find_all(selector: &Selector, elements: &[Element]) -> Vec<usize> {
    let all: Vec<usize> = (0..elements.len()).collect();
    let scope = match &selector.child_of {
        Some(parent) => match find_all(parent, elements).first() {
            Some(&p) => std::iter::once(p).chain(descendants(elements, p)).collect(),
            None => return Vec::new(),
        },
        None => all,
    };
    let mut result = filter(selector, elements, &scope);
    match selector.index {
        Some(i) => {
            result.sort_by_key(|&e| (elements[e].rect.y, elements[e].rect.x));
            result.get(i).map(|&e| vec![e]).unwrap_or_default()
        }
        None => {
            // Stable: clickable ones first, each group in its order.
            result.sort_by_key(|&e| !elements[e].states.clickable);
            result
        }
    }
}

/// The element `selector` finds, as Maestro picks it.
pub fn find(selector: &Selector, elements: &[Element]) -> Option<usize> {
    find_all(selector, elements).first().copied()
}

/// The intersection of the selector's filters over `nodes`, in the first filter's order.
fn filter(s: &Selector, elements: &[Element], nodes: &[usize]) -> Vec<usize> {
    let mut sets: Vec<Vec<usize>> = Vec::new();
    if let Some(t) = &s.text {
        let re = regex_safe(t);
        sets.push(deepest(elements, nodes, &|e| text_matches(&re, t, e)));
    }
    if let Some(i) = &s.id {
        let re = regex_safe(i);
        sets.push(deepest(elements, nodes, &|e| id_matches(&re, e)));
    }
    let relations: [(&Option<Box<Selector>>, Relation); 4] = [
        (&s.below, |it, other| it.y > other.y),
        (&s.above, |it, other| it.y < other.y),
        (&s.left_of, |it, other| it.x < other.x),
        (&s.right_of, |it, other| it.x > other.x),
    ];
    for (inner, pred) in relations {
        if let Some(inner) = inner {
            let others = filter_ordered(inner, elements, nodes);
            sets.push(relative(elements, nodes, &others, pred));
        }
    }
    if let Some(child) = &s.contains_child {
        let set = match find(child, elements) {
            Some(c) => parent_of(elements, c).into_iter().collect(),
            None => Vec::new(),
        };
        sets.push(set);
    }
    let states = [
        (
            s.enabled,
            (|e: &Element| e.states.enabled) as fn(&Element) -> bool,
        ),
        (s.selected, |e| e.states.selected),
        (s.checked, |e| e.states.checked),
        (s.focused, |e| e.states.focused),
    ];
    for (want, get) in states {
        if let Some(want) = want {
            sets.push(
                nodes
                    .iter()
                    .copied()
                    .filter(|&n| get(&elements[n]) == want)
                    .collect(),
            );
        }
    }
    let mut it = sets.into_iter();
    let Some(first) = it.next() else {
        return nodes.to_vec();
    };
    let mut out = dedup(first);
    for set in it {
        out.retain(|e| set.contains(e));
    }
    out
}

/// Whether an element's bounds stand in a relation to another's.
type Relation = fn(&Rect, &Rect) -> bool;

/// An inner selector's matches as Maestro's nested `buildFilter(...).filterFunc` gives
/// them (its index or clickable-first order included).
fn filter_ordered(s: &Selector, elements: &[Element], nodes: &[usize]) -> Vec<usize> {
    let mut r = filter(s, elements, nodes);
    match s.index {
        Some(i) => {
            r.sort_by_key(|&e| (elements[e].rect.y, elements[e].rect.x));
            r.get(i).map(|&e| vec![e]).unwrap_or_default()
        }
        None => {
            r.sort_by_key(|&e| !elements[e].states.clickable);
            r
        }
    }
}

fn dedup(v: Vec<usize>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(v.len());
    for e in v {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// Maestro's `relativeTo`: pairs (element, other) that hold, nearest first.
fn relative(elements: &[Element], nodes: &[usize], others: &[usize], pred: Relation) -> Vec<usize> {
    let mut pairs: Vec<(usize, f64)> = Vec::new();
    for &n in nodes {
        for &o in others {
            let (a, b) = (&elements[n].rect, &elements[o].rect);
            if pred(a, b) {
                pairs.push((n, distance(a, b)));
            }
        }
    }
    pairs.sort_by(|x, y| x.1.total_cmp(&y.1));
    dedup(pairs.into_iter().map(|(n, _)| n).collect())
}

fn distance(a: &Rect, b: &Rect) -> f64 {
    let (ca, cb) = (a.center(), b.center());
    let (dx, dy) = (f64::from(ca.x - cb.x), f64::from(ca.y - cb.y));
    (dx * dx + dy * dy).sqrt()
}

/// Maestro's `deepestMatchingElement`: each match replaced by its last deepest matching
/// descendant.
fn deepest(elements: &[Element], nodes: &[usize], pred: &dyn Fn(&Element) -> bool) -> Vec<usize> {
    let matched: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&n| pred(&elements[n]))
        .collect();
    let mut out = Vec::with_capacity(matched.len());
    for &m in &matched {
        let mut best = m;
        loop {
            let next = descendants(elements, best)
                .filter(|d| pred(&elements[*d]))
                .filter(|d| nodes.contains(d))
                .last();
            match next {
                Some(d) => best = d,
                None => break,
            }
        }
        out.push(best);
    }
    out
}

/// The descendants of `i`: the run of elements right after it that lie inside it.
pub(crate) fn descendants(elements: &[Element], i: usize) -> impl Iterator<Item = usize> + '_ {
    let outer = elements[i].rect;
    (i + 1..elements.len()).take_while(move |&j| inside(&elements[j].rect, &outer))
}

/// The nearest element whose descendants include `c`.
fn parent_of(elements: &[Element], c: usize) -> Option<usize> {
    (0..c)
        .rev()
        .find(|&p| descendants(elements, p).any(|d| d == c))
}

fn inside(a: &Rect, outer: &Rect) -> bool {
    a.x >= outer.x
        && a.y >= outer.y
        && a.x + a.width <= outer.x + outer.width
        && a.y + a.height <= outer.y + outer.height
}

/// `toRegexSafe` with Maestro's options (IGNORE_CASE, DOT_MATCHES_ALL, MULTILINE), anchored
/// to the whole string; an invalid pattern is matched literally.
pub(crate) fn regex_safe(pattern: &str) -> Regex {
    let build = |p: &str| {
        RegexBuilder::new(&format!(r"\A(?:{p})\z"))
            .case_insensitive(true)
            .dot_matches_new_line(true)
            .multi_line(true)
            .size_limit(1 << 20)
            .build()
    };
    build(pattern).unwrap_or_else(|_| {
        build(&regex::escape(pattern)).unwrap_or_else(|_| Regex::new(r"\A\z").expect("valid"))
    })
}

fn value_matches(re: &Regex, pattern: &str, value: &str) -> bool {
    let stripped = value.replace('\n', " ");
    re.is_match(value) || pattern == value || re.is_match(&stripped) || pattern == stripped
}

/// The text sources Maestro's `textMatches` tries: text, hint, accessibility text.
pub(crate) fn text_matches(re: &Regex, pattern: &str, e: &Element) -> bool {
    let text = e
        .text
        .as_deref()
        .filter(|t| !t.is_empty())
        .or(e.value.as_deref());
    [text, e.label.as_deref()]
        .into_iter()
        .flatten()
        .any(|v| value_matches(re, pattern, v))
}

/// Maestro's `idMatches`: the whole resource id, or the part after its last `/`.
pub(crate) fn id_matches(re: &Regex, e: &Element) -> bool {
    e.identifier.as_deref().is_some_and(|id| {
        re.is_match(id)
            || id
                .rsplit_once('/')
                .is_some_and(|(_, tail)| re.is_match(tail))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mobile_device::ElementStates;

    fn el(kind: &str, text: &str, id: &str, r: (i32, i32, i32, i32)) -> Element {
        Element {
            element_type: kind.into(),
            text: (!text.is_empty()).then(|| text.into()),
            identifier: (!id.is_empty()).then(|| id.into()),
            rect: Rect {
                x: r.0,
                y: r.1,
                width: r.2,
                height: r.3,
            },
            ..Default::default()
        }
    }

    fn clickable(mut e: Element) -> Element {
        e.states = ElementStates {
            clickable: true,
            ..Default::default()
        };
        e
    }

    fn sel(text: &str) -> Selector {
        Selector::text(text)
    }

    #[test]
    fn text_is_a_whole_case_insensitive_regex_and_ok_collides_with_ok() {
        let list = vec![
            el("Button", "ok", "", (0, 100, 100, 50)),
            el("Button", "OK", "", (0, 200, 100, 50)),
            el("Text", "OK then", "", (0, 300, 100, 50)),
        ];
        assert_eq!(find_all(&sel("OK"), &list), vec![0, 1]);
        assert_eq!(find(&sel("OK"), &list), Some(0), "Maestro takes the first");
        assert_eq!(find_all(&sel("OK.*"), &list), vec![0, 1, 2]);
        assert_eq!(find_all(&sel("then"), &list), Vec::<usize>::new());
    }

    #[test]
    fn clickable_elements_go_first_and_index_sorts_by_position() {
        let list = vec![
            el("Text", "Save", "", (0, 500, 100, 50)),
            clickable(el("Button", "Save", "", (0, 100, 100, 50))),
        ];
        assert_eq!(find(&sel("Save"), &list), Some(1));
        let mut s = sel("Save");
        s.index = Some(1);
        assert_eq!(find(&s, &list), Some(0), "index 1 is the lower one");
    }

    #[test]
    fn text_also_matches_the_label_and_newlines_read_as_spaces() {
        let mut e = el("ImageButton", "", "", (0, 0, 10, 10));
        e.label = Some("Navigate up".into());
        let two = el("Text", "Line one\nline two", "", (0, 20, 10, 10));
        let list = vec![e, two];
        assert_eq!(find(&sel("navigate UP"), &list), Some(0));
        assert_eq!(find(&sel("Line one line two"), &list), Some(1));
        assert_eq!(
            find(&sel("Line one.line two"), &list),
            Some(1),
            "dot matches newline"
        );
    }

    #[test]
    fn id_matches_the_whole_id_or_after_the_slash() {
        let list = vec![el("Button", "", "com.app:id/login_button", (0, 0, 10, 10))];
        let id = |i: &str| Selector {
            id: Some(i.into()),
            ..Default::default()
        };
        assert_eq!(find(&id("login_button"), &list), Some(0));
        assert_eq!(find(&id("com.app:id/login_button"), &list), Some(0));
        assert_eq!(find(&id("login"), &list), None);
        assert_eq!(find(&id("LOGIN_.*"), &list), Some(0));
    }

    #[test]
    fn an_invalid_regex_is_taken_literally() {
        let list = vec![el("Text", "Price (USD", "", (0, 0, 10, 10))];
        assert_eq!(find(&sel("Price (USD"), &list), Some(0));
    }

    #[test]
    fn the_deepest_match_wins_over_its_container() {
        let list = vec![
            el("Layout", "Row", "", (0, 0, 100, 100)),
            el("Text", "row", "", (10, 10, 50, 20)),
        ];
        assert_eq!(find_all(&sel("row"), &list), vec![1]);
    }

    #[test]
    fn relations_take_the_nearest_first() {
        let list = vec![
            el("Text", "Title", "", (0, 100, 100, 20)),
            clickable(el("Button", "Buy", "", (0, 200, 100, 40))),
            clickable(el("Button", "Buy", "", (0, 150, 100, 40))),
            clickable(el("Button", "Buy", "", (0, 50, 100, 40))),
        ];
        let mut s = sel("Buy");
        s.below = Some(Box::new(sel("Title")));
        // The intersection keeps the text filter's order; both below Title.
        assert_eq!(find_all(&s, &list), vec![1, 2]);
        let below_only = Selector {
            below: Some(Box::new(sel("Title"))),
            ..Default::default()
        };
        assert_eq!(find(&below_only, &list), Some(2), "nearest below first");
        let mut above = sel("Buy");
        above.above = Some(Box::new(sel("Title")));
        assert_eq!(find_all(&above, &list), vec![3]);
    }

    #[test]
    fn child_of_and_contains_child_read_the_tree_from_bounds() {
        let list = vec![
            el("Row", "", "row1", (0, 0, 100, 50)),
            clickable(el("Button", "Delete", "", (60, 10, 30, 30))),
            el("Row", "", "row2", (0, 50, 100, 50)),
            clickable(el("Button", "Delete", "", (60, 60, 30, 30))),
        ];
        let mut s = sel("Delete");
        s.child_of = Some(Box::new(Selector {
            id: Some("row2".into()),
            ..Default::default()
        }));
        assert_eq!(find(&s, &list), Some(3));
        let holder = Selector {
            contains_child: Some(Box::new(sel("Delete"))),
            ..Default::default()
        };
        assert_eq!(find(&holder, &list), Some(0));
    }

    #[test]
    fn state_filters() {
        let mut on = el("Switch", "Wi-Fi", "", (0, 0, 10, 10));
        on.states.checked = true;
        let off = el("Switch", "Wi-Fi", "", (0, 20, 10, 10));
        let list = vec![off, on];
        let mut s = sel("Wi-Fi");
        s.checked = Some(true);
        assert_eq!(find_all(&s, &list), vec![1]);
        s.checked = Some(false);
        assert_eq!(find_all(&s, &list), vec![0]);
    }
}
