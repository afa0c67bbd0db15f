//! A long list of look-alikes: the default phone plus a Cart app whose one screen is many
//! rows, each a one-of-a-kind title and a button labelled like every other row's.
//!
//! - `com.example.cart` `main` (`.MainActivity`, title "Cart"): for row `n` from 1, a text
//!   "Item n" (`title`) and a Button "Add to cart" (`add`, content-desc "Add to cart"); all
//!   buttons share text, label and resource id, as the rows of a `RecyclerView` bound from one
//!   row layout do (AOSP `RecyclerView.Adapter.onBindViewHolder` fills the same views per
//!   row). A tap on a button flips its `checked` (so a test sees which row's button a tap
//!   hit: [`checked_rows`]). The list is taller than the screen and scrolls with a vertical
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

/// The rows (from 1) whose "Add to cart" is checked now, in order.
pub fn checked_rows(state: &PhoneState) -> Vec<usize> {
    state
        .packages
        .get(CART)
        .and_then(|p| p.screens.get("main"))
        .map(|sc| {
            sc.elements
                .iter()
                .filter(|e| e.kind == ElementKind::Button)
                .enumerate()
                .filter(|(_, e)| e.checked)
                .map(|(i, _)| i + 1)
                .collect()
        })
        .unwrap_or_default()
}
