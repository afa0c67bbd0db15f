//! The tests of `agent::refs` (beside it, to keep that file short).

use super::*;

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

/// A shop list under a toolbar "Shop" (y 0 to 40; the list shows from y 60): each row
/// a title and an "Add to cart" button 50 below it, rows 100 apart; `partial` is a row
/// whose title has scrolled under the toolbar, its button still on screen at `top`;
/// else the first row's title is at `top`. A scroll moves `top` (by less than a row
/// here, as a swipe does, unless a test says otherwise).
fn shop(top: i32, partial: Option<&str>, rows: &[&str]) -> Vec<Element> {
    let mut v = vec![el("TextView", "Shop", 0)];
    let mut y = top;
    if partial.is_some() {
        v.push(el("Button", "Add to cart", y));
        y += 50;
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
    let s0 = t.number(shop(100, None, &["Milk", "Eggs", "Bread"]));
    let milk = ref_of(&s0, Some("Milk")).to_string();
    let eggs = ref_of(&s0, Some("Eggs")).to_string();
    // Scrolled by 70: Milk's title scrolls under the toolbar; its button is still on screen.
    let s1 = t.number(shop(80, Some("Milk"), &["Eggs", "Bread", "Jam"]));
    assert_eq!(ref_of(&s1, None), milk, "Milk's button keeps its ref");
    assert_eq!(ref_of(&s1, Some("Eggs")), eggs);
    // By 90 more: Milk's button goes, Eggs' title scrolls under the toolbar: Eggs'
    // button is now first, under the toolbar.
    let s2 = t.number(shop(90, Some("Eggs"), &["Bread", "Jam", "Butter"]));
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
    let back = t.number(shop(100, None, &["Milk", "Eggs", "Bread"]));
    assert_eq!(ref_of(&back, Some("Milk")), milk);
    assert_eq!(ref_of(&back, Some("Eggs")), eggs);
}

#[test]
fn a_deleted_rows_ref_never_passes_to_the_row_above() {
    let mut t = RefTable::default();
    let s0 = t.number(shop(100, None, &["Milk", "Eggs", "Bread"]));
    let milk = ref_of(&s0, Some("Milk")).to_string();
    let eggs = ref_of(&s0, Some("Eggs")).to_string();
    let bread = ref_of(&s0, Some("Bread")).to_string();
    // Eggs' row (title and button) is deleted; Milk's button is the first on screen.
    let s1 = t.number(shop(100, None, &["Milk", "Bread"]));
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
    let s2 = t.number(shop(80, Some("Milk"), &["Bread", "Jam"]));
    assert_eq!(ref_of(&s2, Some("Bread")), bread);
}

#[test]
fn a_deleted_rows_ref_never_passes_to_a_row_above_showing_only_its_button() {
    let mut t = RefTable::default();
    // A's title is under the toolbar, its button still on screen.
    let s0 = t.number(shop(80, Some("A"), &["B", "C"]));
    let a = ref_of(&s0, None).to_string();
    let b = ref_of(&s0, Some("B")).to_string();
    let c = ref_of(&s0, Some("C")).to_string();
    // B's row is deleted: A's button stays where it was, C's row moves up. A's button
    // is now before C, as B's would be had the list scrolled by one row.
    let s1 = t.number(shop(80, Some("A"), &["C"]));
    assert!(
        s1.iter().all(|e| e.reference != b),
        "B's ref went to {:?}",
        s1.iter().find(|e| e.reference == b)
    );
    let f = t.former(&b, &s1).unwrap();
    assert_eq!(f.what, "Button \"Add to cart\"");
    // Not A's own ref either: on the screen this is also a scroll by one row, in which
    // the button here is B's (see the next test). A new ref, so both are refused.
    let now = ref_of(&s1, None).to_string();
    assert!(
        !s0.iter().any(|e| e.reference == now),
        "A's button got {now} from {s0:?}"
    );
    assert_eq!(ref_of(&s1, Some("C")), c);
    // It keeps its new ref while it stays, and through a scroll by less than a row.
    let s2 = t.number(shop(80, Some("A"), &["C"]));
    assert_eq!(ref_of(&s2, None), now);
    let s3 = t.number(shop(60, Some("A"), &["C", "D"]));
    assert_eq!(ref_of(&s3, None), now);
    assert_eq!(ref_of(&s3, Some("C")), c);
    assert!(s3.iter().all(|e| e.reference != a && e.reference != b));
}

#[test]
fn a_deleted_rows_ref_never_passes_to_a_row_pulled_down_at_the_end_of_the_list() {
    let mut t = RefTable::default();
    // First seen at the end of the list, A's title under the toolbar.
    let s0 = t.number(shop(80, Some("A"), &["B", "C"]));
    let b = ref_of(&s0, Some("B")).to_string();
    let c = ref_of(&s0, Some("C")).to_string();
    // B's row is deleted; the list, at its end, pulls the rows above down by a row to fill
    // the screen (LinearLayoutManager fills an end gap): A's title shows, A's button sits
    // where B's was, before C, which stays.
    let s1 = t.number(shop(80, Some("Z"), &["A", "C"]));
    assert!(
        s1.iter().all(|e| e.reference != b),
        "B's ref went to {:?}",
        s1.iter().find(|e| e.reference == b)
    );
    assert_eq!(ref_of(&s1, Some("C")), c);
}

#[test]
fn a_scroll_by_exactly_one_row_under_a_toolbar_gives_the_first_button_a_new_ref() {
    let mut t = RefTable::default();
    let s0 = t.number(shop(80, Some("A"), &["B", "C", "D"]));
    let c = ref_of(&s0, Some("C")).to_string();
    let d = ref_of(&s0, Some("D")).to_string();
    // One row exactly: B's button sits where A's was, each row where the one above it
    // was; the screen is the one a deletion of B's row would leave (the test above).
    let s1 = t.number(shop(80, Some("B"), &["C", "D", "E"]));
    let first = ref_of(&s1, None);
    assert!(
        !s0.iter().any(|e| e.reference == first),
        "B's button got {first}, a ref given before"
    );
    assert_eq!(ref_of(&s1, Some("C")), c);
    assert_eq!(ref_of(&s1, Some("D")), d);
}

/// Rows "Item n" of a list 100 apart (title, then its button 50 below), under a toolbar
/// "Shop", scrolled by `scroll`: the elements on screen (y 60 to 560) and which row's
/// button each one is.
fn window(rows: &[usize], scroll: i32) -> (Vec<Element>, Vec<Option<usize>>) {
    let mut v = vec![el("TextView", "Shop", 0)];
    let mut who = vec![None];
    for (i, &n) in rows.iter().enumerate() {
        let y = 60 + 100 * i as i32 - scroll;
        for (dy, e, w) in [
            (0, el("TextView", &format!("Item {n}"), y), None),
            (50, el("Button", "Add to cart", y + 50), Some(n)),
        ] {
            if y + dy >= 60 && y + dy + 40 <= 560 {
                v.push(e);
                who.push(w);
            }
        }
    }
    (v, who)
}

#[test]
fn refs_never_pass_to_another_row_across_scrolls_and_deletions() {
    // (200 seeds passed once; a few each run.)
    for seed in 0..4 {
        walk(seed);
    }
}

/// 400 steps over a list of 150 rows from its top: scrolls and deletions chosen by
/// `seed`. Panics if a ref is ever on another row's button than the one it was given
/// to, or if a button that stays on screen loses its ref more than allowed.
fn walk(start: u64) {
    let mut seed = start;
    let mut t = RefTable::default();
    let mut rows: Vec<usize> = (1..=150).collect();
    let mut scroll = 0;
    // Which row each ref was given to, and the refs of the last list.
    let mut owner: HashMap<String, usize> = HashMap::new();
    let mut last: HashMap<usize, String> = HashMap::new();
    let (mut kept, mut deleted_under_partial) = (0, 0);
    // Buttons that stayed on screen but got a new ref, after a scroll by part of a row,
    // by whole rows, and a deletion.
    let mut renewed = [0; 3];
    // Rows whose button got a new ref after a scroll by whole rows or a deletion (after
    // that refusal, the title it was seen under may name its old ref and refuse it
    // again), and the last ref each row's button had.
    let mut doubted = HashSet::new();
    let mut ever: HashMap<usize, String> = HashMap::new();
    let mut change = 0;
    for step in 0..400 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let roll = (seed >> 33) as i32;
        let (list, who) = window(&rows, scroll);
        let list = t.number(list);
        let mut now = HashMap::new();
        for (e, w) in list.iter().zip(&who) {
            let Some(n) = *w else { continue };
            let o = *owner.entry(e.reference.clone()).or_insert(n);
            assert_eq!(
                o, n,
                "step {step}: row {o}'s ref {} on row {n}",
                e.reference
            );
            match last.get(&n) {
                Some(r) if *r == e.reference => kept += 1,
                Some(_) => {
                    assert!(
                        change > 0 || doubted.contains(&n),
                        "seed {start} step {step}: row {n}"
                    );
                    renewed[change] += 1
                }
                None => {}
            }
            if ever
                .insert(n, e.reference.clone())
                .is_some_and(|r| r != e.reference)
                && change > 0
            {
                doubted.insert(n);
            }
            now.insert(n, e.reference.clone());
        }
        last = now;
        // Mostly a scroll by a part of a row or more (sometimes by rows exactly), now
        // and then the second row on screen deleted, the first maybe showing only its
        // button.
        // The first row with its button on screen, and whether its title is hidden.
        let first = (scroll - 50 + 99).div_euclid(100).max(0) as usize;
        let by;
        (by, change) = if step % 5 == 4 && first + 1 < rows.len() {
            deleted_under_partial += usize::from(100 * (first as i32) < scroll);
            rows.remove(first + 1);
            (0, 2)
        } else if roll % 4 == 0 {
            (100 * (roll % 3 - 1), 1)
        } else {
            ((roll % 250 - 90) | 1, 0)
        };
        // A list at its end scrolls back to fill the screen (RecyclerView does).
        let max = 100 * rows.len() as i32 - 500;
        scroll = (scroll + by).clamp(0, max.max(0));
    }
    assert!(deleted_under_partial > 10, "{deleted_under_partial}");
    // A scroll by part of a row keeps the ref of every button never refused (asserted
    // above); by whole rows the first button's may go (it sits where the first one was),
    // and a deletion the button's above the deleted row (the first one, or under its title
    // and before two).
    let [part, whole, deleted] = renewed;
    assert!(kept > 1000, "{kept}");
    assert!(
        part * 20 < kept,
        "{renewed:?} after scrolls by part of a row"
    );
    assert!(whole + deleted <= 400 / 5 + 400 / 4, "{renewed:?}");
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
        let list = t.number(shop(80, Some("x"), rows));
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
