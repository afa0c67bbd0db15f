//! Refs kept and used later: across screen changes on the launcher ([`ref_rounds`]), and
//! across scrolls of a long list of look-alike rows ([`list_rounds`]).

use virtual_phone::look_alikes::{CART, checked_rows, delete_row};

use super::*;

/// Refs kept across screen changes: list the launcher, open an app, go home again, then
/// tap by the refs kept from the first list. Each tap must land on the centre of the
/// element as the phone has it now, or be refused. Returns (landed, refused, wrong).
pub(super) async fn ref_rounds(
    url: &str,
    dev: &str,
    phone: &PhoneHandle,
    until: Instant,
    faults: &Faults,
) -> (usize, usize, usize) {
    let (session, _) = Session::open(url, None).await;
    let (mut landed, mut refused, mut wrong) = (0, 0, 0);
    let mut id = 1000;
    let mut next = || {
        id += 1;
        id
    };
    while Instant::now() < until {
        let r = session
            .send(&call(
                next(),
                "mobile_press_button",
                json!({"device": dev, "button": "HOME", "settleTimeoutMs": 300}),
            ))
            .await;
        result_of(&r, "HOME", faults);
        let r = session
            .send(&call(
                next(),
                "mobile_list_elements_on_screen",
                json!({"device": dev, "format": "json"}),
            ))
            .await;
        let Some(list) = result_of(&r, "list", faults) else {
            continue;
        };
        let kept: Vec<(String, String)> = list["structuredContent"]["elements"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| {
                Some((
                    e["ref"].as_str()?.to_string(),
                    e["text"].as_str()?.to_string(),
                ))
            })
            .filter(|(_, t)| !t.is_empty())
            .take(3)
            .collect();
        if kept.is_empty() {
            faults.add(format!("no element with text to keep a ref of: {list}"));
            break;
        }
        // The screen changes (an app in front, then home again), then the kept refs are used.
        let r = session
            .send(&call(
                next(),
                "mobile_launch_app",
                json!({"device": dev, "packageName": "com.android.settings", "settleTimeoutMs": 300}),
            ))
            .await;
        result_of(&r, "launch Settings", faults);
        let r = session
            .send(&call(
                next(),
                "mobile_press_button",
                json!({"device": dev, "button": "HOME", "settleTimeoutMs": 300}),
            ))
            .await;
        result_of(&r, "HOME", faults);
        for (reference, text) in kept {
            if Instant::now() >= until {
                break;
            }
            phone.update_state(|s| s.input_events.clear());
            let expected = phone.element_center(&text);
            let r = session
                .send(&call(
                    next(),
                    "mobile_click_on_screen_at_coordinates",
                    json!({"device": dev, "ref": reference, "observe": "none"}),
                ))
                .await;
            let Some(result) = result_of(&r, "tap by ref", faults) else {
                continue;
            };
            let taps: Vec<InputEvent> = phone.state().input_events;
            if result["isError"] == true {
                if taps.is_empty() {
                    refused += 1;
                } else {
                    wrong += 1;
                    faults.add(format!(
                        "a refused tap by {reference} reached the phone: {taps:?}"
                    ));
                }
                continue;
            }
            match (expected, taps.as_slice()) {
                (Some((x, y)), [InputEvent::Tap { x: tx, y: ty }])
                    if (*tx - f64::from(x)).abs() <= 1.0 && (*ty - f64::from(y)).abs() <= 1.0 =>
                {
                    landed += 1
                }
                _ => {
                    wrong += 1;
                    faults.add(format!(
                        "tap by {reference} ({text:?}, now at {expected:?}) landed as {taps:?}"
                    ));
                }
            }
            // Back home for the next ref.
            let r = session
                .send(&call(
                    next(),
                    "mobile_press_button",
                    json!({"device": dev, "button": "HOME", "settleTimeoutMs": 300}),
                ))
                .await;
            result_of(&r, "HOME", faults);
        }
    }
    (landed, refused, wrong)
}

/// The row of each "Add to cart" button in a JSON element list of the Cart app: the row
/// of the title right above it, else (a row whose title scrolled off) the row before the
/// nearest title below it among the rows the phone still has (`rows`, in order: rows are
/// deleted). Pairs of (ref, row).
fn buttons_by_row(elements: &[Value], rows: &[usize]) -> Vec<(String, usize)> {
    let row_of = |e: &Value| {
        e["text"]
            .as_str()?
            .strip_prefix("Item ")?
            .parse::<usize>()
            .ok()
    };
    let before = |n: usize| {
        let at = rows.iter().position(|&r| r == n)?;
        at.checked_sub(1).map(|p| rows[p])
    };
    let mut out = Vec::new();
    for (i, e) in elements.iter().enumerate() {
        if e["text"] != "Add to cart" {
            continue;
        }
        let row = match i.checked_sub(1).and_then(|j| row_of(&elements[j])) {
            Some(n) => Some(n),
            None => elements[i + 1..].iter().find_map(row_of).and_then(before),
        };
        if let (Some(r), Some(row)) = (e["ref"].as_str(), row) {
            out.push((r.to_string(), row));
        }
    }
    out
}

/// The rows the Cart app has now, in order (by the number in their title).
fn cart_rows(phone: &PhoneHandle) -> Vec<usize> {
    phone
        .state()
        .packages
        .get(virtual_phone::look_alikes::CART)
        .and_then(|p| p.screens.get("main"))
        .map(|sc| {
            sc.elements
                .iter()
                .filter_map(|e| e.text.strip_prefix("Item ")?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// What the list rounds saw: taps by kept refs that landed on the row the ref named,
/// that were refused, and that landed elsewhere (faults); and the scrolls made.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct ListFigures {
    pub landed: usize,
    pub refused: usize,
    pub wrong: usize,
    pub scrolls: usize,
    /// Rows deleted while their refs were kept.
    pub deleted: usize,
    /// Of them, rows deleted under a row that showed only its button (its title scrolled
    /// off): the deletion looks like a scroll by one row.
    pub deleted_under_button: usize,
}

/// Taps by `reference`, kept from a list where it named the button of `row`: it must check
/// that row's button and no other (the phone's `checked` flags and input records) or be
/// refused with nothing sent to the phone.
#[allow(clippy::too_many_arguments)]
async fn tap_kept(
    session: &Session,
    dev: &str,
    phone: &PhoneHandle,
    id: u64,
    reference: &str,
    row: usize,
    fig: &mut ListFigures,
    faults: &Faults,
) {
    let before = checked_rows(&phone.state());
    phone.update_state(|s| s.input_events.clear());
    let r = session
        .send(&call(
            id,
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "ref": reference, "observe": "none"}),
        ))
        .await;
    let Some(result) = result_of(&r, "tap by a kept row ref", faults) else {
        return;
    };
    let s = phone.state();
    let after = checked_rows(&s);
    let hit: Vec<usize> = before
        .iter()
        .filter(|r| !after.contains(r))
        .chain(after.iter().filter(|r| !before.contains(r)))
        .copied()
        .collect();
    let taps = s.input_events.len();
    if result["isError"] == true {
        if hit.is_empty() && taps == 0 {
            fig.refused += 1;
        } else {
            fig.wrong += 1;
            faults.add(format!(
                "a refused tap by {reference} (row {row}) reached the phone: rows {hit:?}, {:?}",
                s.input_events
            ));
        }
    } else if hit == [row] && taps == 1 {
        fig.landed += 1;
    } else {
        fig.wrong += 1;
        faults.add(format!(
            "tap by {reference} (row {row}) hit rows {hit:?} with {taps} input events: {}",
            text_of(&result)
        ));
    }
}

/// A long list of look-alike rows (the phone's Cart app, `look_alikes`): scroll by a
/// few rows at a time, down and back up, keep the refs of every list seen (bounded), and
/// tap by refs kept one to three scrolls ago; now and then delete the second row on screen
/// (under a first row whose title shows, or one that shows only its button: about half the
/// scroll positions) and tap its button's ref and the row above's. Each tap must check the
/// button of the row the ref named when it was given (the phone's `checked` flags and its
/// input records say which button a tap hit) or be refused with nothing sent.
pub(super) async fn list_rounds(
    url: &str,
    dev: &str,
    phone: &PhoneHandle,
    until: Instant,
    faults: &Faults,
) -> ListFigures {
    let (session, _) = Session::open(url, None).await;
    let mut fig = ListFigures::default();
    let mut id = 5000;
    let mut next = || {
        id += 1;
        id
    };
    let r = session
        .send(&call(
            next(),
            "mobile_launch_app",
            json!({"device": dev, "packageName": CART, "settleTimeoutMs": 300}),
        ))
        .await;
    result_of(&r, "launch Cart", faults);
    // Refs of the last lists, oldest first (a few lists' worth).
    let mut kept: std::collections::VecDeque<Vec<(String, usize)>> = Default::default();
    let mut step = 0usize;
    while Instant::now() < until {
        step += 1;
        let r = session
            .send(&call(
                next(),
                "mobile_list_elements_on_screen",
                json!({"device": dev, "format": "json"}),
            ))
            .await;
        let Some(list) = result_of(&r, "list Cart", faults) else {
            continue;
        };
        let elements = list["structuredContent"]["elements"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let now = buttons_by_row(&elements, &cart_rows(phone));
        if now.is_empty() {
            faults.add(format!("no look-alike rows on the Cart screen: {list}"));
            break;
        }
        // Now and then a row is deleted (the second on screen, under the first, whose title
        // may show or may have scrolled off): its button's ref must then be refused, and the
        // row above's must not land elsewhere.
        if step % 6 == 3
            && let [(above_ref, above), (gone_ref, gone), ..] = now.as_slice()
            && *gone == above + 1
        {
            let gone = *gone;
            let button_only = !elements
                .iter()
                .any(|e| e["text"] == format!("Item {above}"));
            let mut deleted = false;
            phone.update_state(|s| deleted = delete_row(s, gone));
            if deleted {
                fig.deleted += 1;
                fig.deleted_under_button += usize::from(button_only);
                for (reference, row) in [(gone_ref.clone(), gone), (above_ref.clone(), *above)] {
                    tap_kept(
                        &session,
                        dev,
                        phone,
                        next(),
                        &reference,
                        row,
                        &mut fig,
                        faults,
                    )
                    .await;
                }
            }
        }
        kept.push_back(now);
        if kept.len() > 4 {
            kept.pop_front();
        }
        // Tap by a ref from an older list (one to three scrolls ago), if there is one.
        if kept.len() > 1 {
            let old = &kept[step % (kept.len() - 1)];
            let (reference, row) = old[step % old.len()].clone();
            tap_kept(
                &session,
                dev,
                phone,
                next(),
                &reference,
                row,
                &mut fig,
                faults,
            )
            .await;
        }
        // Scroll a few rows: mostly down the list, now and then back up.
        let direction = if step % 7 < 5 { "up" } else { "down" };
        let r = session
            .send(&call(
                next(),
                "mobile_swipe_on_screen",
                json!({"device": dev, "direction": direction, "distance": 400,
                       "settleTimeoutMs": 0, "observe": "none"}),
            ))
            .await;
        if let Some(result) = result_of(&r, "scroll Cart", faults) {
            if result["isError"] == true {
                faults.add(format!("scroll: {}", text_of(&result)));
            } else {
                fig.scrolls += 1;
            }
        }
        // At the end of the list, start again from the top.
        if elements.iter().any(|e| e["text"] == "Item 200") {
            phone.update_state(|s| {
                if let Some(f) = s.stack.last_mut() {
                    f.scroll = 0;
                }
            });
        }
    }
    fig
}
