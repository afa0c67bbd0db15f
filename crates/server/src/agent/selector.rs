//! Finding an element by what it shows (`text`, `id`, `label`; exact or contains) instead
//! of a ref or coordinates: one match acts, several or none are refused with the
//! candidates (the nearest by edit distance when nothing matches).

use mobile_device::Element;

use crate::params::{MatchMode, Selector};

impl Selector {
    /// Whether any of text, id, label was given.
    pub(crate) fn given(&self) -> bool {
        self.text.is_some() || self.id.is_some() || self.label.is_some()
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (k, v) in [
            ("text", &self.text),
            ("id", &self.id),
            ("label", &self.label),
        ] {
            if let Some(v) = v {
                parts.push(format!(
                    "{k}={}",
                    serde_json::to_string(v).unwrap_or_default()
                ));
            }
        }
        let how = match self.match_mode.unwrap_or_default() {
            MatchMode::Exact => "",
            MatchMode::Contains => " (contains)",
        };
        format!("{}{how}", parts.join(" "))
    }

    fn field_matches(&self, want: &Option<String>, have: Option<&str>, is_id: bool) -> bool {
        let Some(want) = want else {
            return true;
        };
        let Some(have) = have.filter(|h| !h.is_empty()) else {
            return false;
        };
        match self.match_mode.unwrap_or_default() {
            MatchMode::Exact => {
                have == want || (is_id && have.rsplit(":id/").next() == Some(want.as_str()))
            }
            MatchMode::Contains => have.to_lowercase().contains(&want.to_lowercase()),
        }
    }

    /// Whether `e` matches every field given.
    pub(crate) fn matches(&self, e: &Element) -> bool {
        self.field_matches(&self.text, e.text.as_deref(), false)
            && self.field_matches(&self.id, e.identifier.as_deref(), true)
            && self.field_matches(&self.label, e.label.as_deref(), false)
    }

    /// The one element it names, or a refusal worded for the model.
    pub(crate) fn find<'a>(&self, elements: &'a [Element]) -> Result<&'a Element, String> {
        let hits: Vec<&Element> = elements.iter().filter(|e| self.matches(e)).collect();
        match hits.as_slice() {
            [one] => Ok(one),
            [] => {
                let near = nearest(self, elements, 5);
                Err(format!(
                    "No element matches {} on the current screen ({} elements). Nearest: {}. Use one of their refs, or correct the selector",
                    self.describe(),
                    elements.len(),
                    if near.is_empty() {
                        "none".to_string()
                    } else {
                        near.join("; ")
                    }
                ))
            }
            many => Err(format!(
                "{} elements match {}; name one by its ref: {}",
                many.len(),
                self.describe(),
                many.iter()
                    .take(10)
                    .map(|e| short(e))
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
        }
    }
}

/// `@e3 Button "Buy now" at 540,900`.
pub(crate) fn short(e: &Element) -> String {
    let ty = e.element_type.rsplit('.').next().unwrap_or(&e.element_type);
    let name = e
        .text
        .as_deref()
        .filter(|t| !t.is_empty())
        .or(e.label.as_deref())
        .or(e.identifier.as_deref())
        .unwrap_or("");
    let c = e.rect.center();
    format!(
        "{} {ty} {} at {},{}",
        e.reference,
        serde_json::to_string(name).unwrap_or_default(),
        c.x,
        c.y
    )
}

/// Levenshtein distance over characters, case-insensitive (also the nearest tool name for
/// a policy typo and the nearest app for a package that is not installed).
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The `n` elements closest to the selector by edit distance of the fields it gives.
fn nearest(sel: &Selector, elements: &[Element], n: usize) -> Vec<String> {
    let mut scored: Vec<(usize, &Element)> = elements
        .iter()
        .filter_map(|e| {
            let mut best: Option<usize> = None;
            for (want, have) in [
                (&sel.text, e.text.as_deref()),
                (&sel.id, e.identifier.as_deref()),
                (&sel.label, e.label.as_deref()),
            ] {
                if let (Some(w), Some(h)) = (want, have.filter(|h| !h.is_empty())) {
                    let h = h.rsplit(":id/").next().unwrap_or(h);
                    let d = distance(w, h);
                    best = Some(best.map_or(d, |b| b.min(d)));
                }
            }
            best.map(|d| (d, e))
        })
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    scored.into_iter().take(n).map(|(_, e)| short(e)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(distance("Buy now", "buy now"), 0);
        assert_eq!(distance("Bye now", "Buy now"), 2);
        assert_eq!(distance("", "abc"), 3);
    }
}
