//! A scenario whose Shop app lives: the default phone plus `com.example.shop`.
//!
//! - `main` (`.MainActivity`, title "Shop"): slides in over 300 ms when launched; EditText
//!   `search_input` (hint "Search products", raises the keyboard), Button "Live" → `live`,
//!   and 20 rows "Product 1" … "Product 20" that arrive 500 ms after the screen is entered (a
//!   progress spinner turns until then); the list scrolls and a swipe flings. Each row → `detail`.
//! - `detail` (`.DetailActivity`, title "Product"): slides in over 300 ms; text "Product
//!   details", Button "Add to cart" (shows the snackbar "Added to cart" for
//!   [`super::SNACKBAR_LONG_MS`]; rows move down while it shows and back up when it goes),
//!   Button "Buy now" → `checkout`, Button "Share" → `share`, Button "Back" = BACK.
//! - `checkout` (`.CheckoutActivity`, title "Checkout"): slides in; EditTexts `name_input`,
//!   `street_input`, `city_input`, `zip_input`, `country_input`, `company_input`,
//!   `phone_input`, `email_input` and Button
//!   "Place order" (→ `done`); a focused field raises the keyboard, which pans the form.
//! - `share` (`.ShareActivity`, title "Share"): text "Link copied".
//! - `done` (`.DoneActivity`, title "Thank you"): text "Order placed".
//! - `live` (`.LiveActivity`, title "Live"): text "Live now" and a spinner that never stops.
//!
//! The 300 ms slide is the order of AOSP's `config_mediumAnimTime` (400 ms) and
//! `config_shortAnimTime` (200 ms) in frameworks/base/core/res/res/values/config.xml; the
//! 500 ms late list is a network round trip, a modelling choice.

use std::collections::BTreeMap;

use crate::scenario::{default_state, installed_package, refresh_launcher};
use crate::state::{Action, Element, ElementKind, PhoneState, Screen};

use super::{SNACKBAR_LONG_MS, ScreenLife, Snack};

/// The Shop app's package name.
pub const SHOP: &str = "com.example.shop";

fn nav(s: &str) -> Action {
    Action::Navigate {
        screen: s.to_string(),
    }
}

fn id(name: &str) -> String {
    format!("{SHOP}:id/{name}")
}

fn screen(activity: &str, title: &str, elements: Vec<Element>) -> Screen {
    Screen {
        activity: format!("{SHOP}.{activity}"),
        title: title.to_string(),
        elements,
    }
}

fn button(text: &str, name: &str, action: Action) -> Element {
    Element::new(ElementKind::Button, text)
        .id(&id(name))
        .desc(text)
        .action(action)
}

/// The default phone with the living Shop app installed (not launched).
pub fn living_state() -> PhoneState {
    let mut s = default_state();
    let mut p = installed_package(SHOP, "Shop", 10150);
    let mut main = vec![
        Element::new(ElementKind::EditText, "")
            .id(&id("search_input"))
            .hint("Search products"),
        button("Live", "live", nav("live")),
    ];
    for i in 1..=20 {
        main.push(
            Element::new(ElementKind::ListItem, &format!("Product {i}"))
                .id(&id("product"))
                .action(nav("detail")),
        );
    }
    let field = |name: &str, hint: &str| {
        Element::new(ElementKind::EditText, "")
            .id(&id(name))
            .hint(hint)
    };
    let screens: Vec<(&str, Screen)> = vec![
        ("main", screen("MainActivity", "Shop", main)),
        (
            "detail",
            screen(
                "DetailActivity",
                "Product",
                vec![
                    Element::new(ElementKind::Text, "Product details").id(&id("details")),
                    // Navigating to the screen it is on changes nothing: the snackbar is
                    // the visible effect.
                    button("Add to cart", "add", nav("detail")),
                    button("Buy now", "buy", nav("checkout")),
                    button("Share", "share", nav("share")),
                    button("Back", "back", Action::Back),
                ],
            ),
        ),
        (
            "checkout",
            screen(
                "CheckoutActivity",
                "Checkout",
                vec![
                    field("name_input", "Full name"),
                    field("street_input", "Street"),
                    field("city_input", "City"),
                    field("zip_input", "Postal code"),
                    field("country_input", "Country"),
                    field("company_input", "Company"),
                    field("phone_input", "Phone"),
                    field("email_input", "Email"),
                    button("Place order", "place", nav("done")),
                ],
            ),
        ),
        (
            "share",
            screen(
                "ShareActivity",
                "Share",
                vec![Element::new(ElementKind::Text, "Link copied").id(&id("shared"))],
            ),
        ),
        (
            "done",
            screen(
                "DoneActivity",
                "Thank you",
                vec![Element::new(ElementKind::Text, "Order placed").id(&id("done"))],
            ),
        ),
        (
            "live",
            screen(
                "LiveActivity",
                "Live",
                vec![Element::new(ElementKind::Text, "Live now").id(&id("live_text"))],
            ),
        ),
    ];
    p.activities = screens.iter().map(|(_, sc)| sc.activity.clone()).collect();
    p.activities.sort();
    p.launcher_activity = Some(format!("{SHOP}.MainActivity"));
    p.main_screen = "main".into();
    p.screens = screens
        .into_iter()
        .map(|(n, sc)| (n.to_string(), sc))
        .collect::<BTreeMap<_, _>>();
    s.packages.insert(SHOP.to_string(), p);
    refresh_launcher(&mut s);

    let slide = |l: ScreenLife| ScreenLife { enter_ms: 300, ..l };
    let life = &mut s.living.screens;
    life.insert(
        format!("{SHOP}/main"),
        slide(ScreenLife {
            late_from: Some(2),
            late_after_ms: 500,
            keyboard: true,
            ..ScreenLife::default()
        }),
    );
    life.insert(
        format!("{SHOP}/detail"),
        slide(ScreenLife {
            snackbars: [(
                id("add"),
                Snack {
                    text: "Added to cart".into(),
                    duration_ms: SNACKBAR_LONG_MS,
                },
            )]
            .into_iter()
            .collect(),
            ..ScreenLife::default()
        }),
    );
    life.insert(
        format!("{SHOP}/checkout"),
        slide(ScreenLife {
            keyboard: true,
            ..ScreenLife::default()
        }),
    );
    for name in ["share", "done"] {
        life.insert(format!("{SHOP}/{name}"), slide(ScreenLife::default()));
    }
    life.insert(
        format!("{SHOP}/live"),
        slide(ScreenLife {
            spinner: true,
            ..ScreenLife::default()
        }),
    );
    s
}
