//! The living screen at chosen moments, on a manual clock.

use super::scenario::{SHOP, living_state};
use super::*;
use crate::layout::{hit_test, layout};
use crate::state::Action;

/// The living phone with a manual clock at `t0`, the Shop app launched and stamped.
fn shop() -> PhoneState {
    let mut s = living_state();
    s.living.clock = Clock::manual(1_000_000);
    s.start_activity(SHOP, None).expect("shop launches");
    after_command(&mut s);
    s
}

fn texts(s: &PhoneState) -> Vec<String> {
    let mut out = Vec::new();
    layout(s).walk(&mut |n| {
        if n.element.is_some() || n.resource_id.ends_with("snackbar_text") {
            out.push(n.text.clone());
        }
    });
    out
}

fn bounds_of(s: &PhoneState, text: &str) -> Option<[i32; 4]> {
    let mut found = None;
    layout(s).walk(&mut |n| {
        if found.is_none() && n.text == text {
            found = Some(n.bounds);
        }
    });
    found
}

fn has_class(s: &PhoneState, class: &str) -> bool {
    let mut found = false;
    layout(s).walk(&mut |n| found |= n.class == class);
    found
}

#[test]
fn a_launched_screen_slides_in_then_rests() {
    let s = shop();
    s.living.clock.advance(2 * FRAME_MS);
    let moving = bounds_of(&s, "Live").expect("the button is on screen while sliding");
    s.living.clock.advance(FRAME_MS);
    let later = bounds_of(&s, "Live").unwrap();
    assert!(later[0] < moving[0], "it moves left frame by frame");
    s.living.clock.advance(1000);
    let rest = bounds_of(&s, "Live").unwrap();
    assert!(rest[0] < later[0]);
    s.living.clock.advance(1000);
    assert_eq!(bounds_of(&s, "Live").unwrap(), rest, "at rest it stays");
}

#[test]
fn the_list_arrives_late_with_a_spinner_until_then() {
    let s = shop();
    s.living.clock.advance(400);
    assert!(!texts(&s).contains(&"Product 1".to_string()));
    assert!(has_class(&s, "android.widget.ProgressBar"));
    s.living.clock.advance(200);
    assert!(texts(&s).contains(&"Product 1".to_string()));
    assert!(!has_class(&s, "android.widget.ProgressBar"));
}

#[test]
fn a_snackbar_goes_by_itself_and_the_rows_move_back() {
    let mut s = shop();
    s.navigate("detail");
    after_command(&mut s);
    s.living.clock.advance(1000);
    let buy_before = bounds_of(&s, "Buy now").unwrap();
    let key = key_of(&s, 1).unwrap();
    s.run_action(
        &Action::Navigate {
            screen: "detail".into(),
        },
        &key,
    );
    after_command(&mut s);
    s.living.clock.advance(500);
    assert!(texts(&s).contains(&"Added to cart".to_string()));
    let buy_during = bounds_of(&s, "Buy now").unwrap();
    assert!(
        buy_during[1] > buy_before[1],
        "rows move down under the snackbar"
    );
    s.living.clock.advance(SNACKBAR_LONG_MS);
    assert!(!texts(&s).contains(&"Added to cart".to_string()));
    assert_eq!(bounds_of(&s, "Buy now").unwrap(), buy_before);
    // A tap where "Buy now" was during the snackbar now lands on its neighbour.
    let root = layout(&s);
    let (x, y) = (buy_during[0] + 5, (buy_during[1] + buy_during[3]) / 2);
    let hit = hit_test(&root, f64::from(x), f64::from(y)).map(|n| n.text.clone());
    assert_ne!(hit.as_deref(), Some("Buy now"));
}

#[test]
fn focus_raises_the_keyboard_which_pans_the_form() {
    let mut s = shop();
    s.navigate("checkout");
    after_command(&mut s);
    s.living.clock.advance(1000);
    let email = bounds_of(&s, "Email").unwrap();
    s.focus(Some(format!("{SHOP}:id/email_input")));
    after_command(&mut s);
    s.living.clock.advance(1000);
    let panned = bounds_of(&s, "Email").unwrap();
    assert!(
        panned[1] < email[1],
        "the focused field is moved up above the keyboard"
    );
}

#[test]
fn the_spinner_screen_never_rests() {
    let mut s = shop();
    s.navigate("live");
    after_command(&mut s);
    s.living.clock.advance(5000);
    let root = layout(&s);
    let a = spinner(&s, &root);
    s.living.clock.advance(FRAME_MS);
    let b = spinner(&s, &root);
    assert!(!a.is_empty());
    assert_ne!(a, b, "the spinner's head moves every frame");
}

#[test]
fn static_screens_stay_static() {
    let mut s = living_state();
    s.living.clock = Clock::manual(5);
    s.start_activity("com.example.notes", None).unwrap();
    after_command(&mut s);
    let before = layout(&s);
    s.living.clock.advance(FRAME_MS);
    assert_eq!(layout(&s), before);
    assert!(spinner(&s, &before).is_empty());
}
