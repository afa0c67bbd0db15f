//! A long list of look-alikes: the default phone plus a Cart app whose one screen is many
//! rows, each a one-of-a-kind title and a button labelled like every other row's.
//!
//! - `com.example.cart` `main` (`.MainActivity`, title "Cart"): for row `n` from 1, a text
//!   "Item n" (`title`) and a Button "Add to cart" (`add`, content-desc "Add to cart"); all
//!   buttons share text, label and resource id, as the rows of a `RecyclerView` bound from one
//!   row layout do (AOSP `RecyclerView.Adapter.onBindViewHolder` fills the same views per
//!   row). A tap on a button flips its `checked` (so a test sees which row's button a tap
//!   hit: [`checked_rows`]); [`delete_row`] removes a row as the app would. The list is taller than the screen and scrolls with a vertical
//!   `input swipe` (see `scenario`); a row whose title scrolled off can still show its button.
//!
//! This is the shape issue #26 names ("Add to cart" per row, refs kept across scrolls): an
//! element known only by its neighbours. A modelling choice, not a capture.

use crate::scenario::{default_state, installed_package, refresh_launcher};
use crate::state::{Action, Element, ElementKind, PhoneState, Screen};

/// The Cart app's package name.
pub const CART: &str = "com.example.cart";

/// The default phone with the Cart app installed (not launched), its list `rows` long.
pub fn look_alike_state(rows: usize) -> PhoneState {
    let mut s = default_state();
    let mut p = installed_package(CART, "Cart", 10160);
    let mut elements = Vec::with_capacity(2 * rows);
    for n in 1..=rows {
        elements.push(Element::new(ElementKind::Text, &format!("Item {n}")).id(&id("title")));
        elements.push(
            Element::new(ElementKind::Button, "Add to cart")
                .id(&id("add"))
                .desc("Add to cart")
                .action(Action::Toggle),
        );
    }
    let activity = format!("{CART}.MainActivity");
    p.screens.insert(
        "main".into(),
        Screen {
            activity,
            title: "Cart".into(),
            elements,
        },
    );
    s.packages.insert(CART.to_string(), p);
    refresh_launcher(&mut s);
    s
}

fn id(name: &str) -> String {
    format!("{CART}:id/{name}")
}

/// The rows (by the number in their title) whose "Add to cart" is checked now, in order.
pub fn checked_rows(state: &PhoneState) -> Vec<usize> {
    let Some(sc) = state.packages.get(CART).and_then(|p| p.screens.get("main")) else {
        return Vec::new();
    };
    let mut row: Option<usize> = None;
    let mut out = Vec::new();
    for e in &sc.elements {
        match e.kind {
            ElementKind::Text => row = e.text.strip_prefix("Item ").and_then(|n| n.parse().ok()),
            ElementKind::Button if e.checked => out.extend(row),
            _ => {}
        }
    }
    out
}

/// Deletes row `n` (its title and its button), as the app does when the item is removed
/// (`RecyclerView.Adapter.notifyItemRemoved`: the rows below move up). Whether it was there.
pub fn delete_row(state: &mut PhoneState, n: usize) -> bool {
    let Some(sc) = state
        .packages
        .get_mut(CART)
        .and_then(|p| p.screens.get_mut("main"))
    else {
        return false;
    };
    let title = format!("Item {n}");
    let Some(i) = sc.elements.iter().position(|e| e.text == title) else {
        return false;
    };
    sc.elements.drain(i..(i + 2).min(sc.elements.len()));
    true
}
