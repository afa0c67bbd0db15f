//! A phone that stalls and comes back, and the calls that meet the stall: a tap whose
//! settle wait meets it, a screenshot the client cancels (`notifications/cancelled`), one
//! whose client drops the connection, and one left to its deadline. During the stall no
//! call may claim a success it did not have; after it the same session works, and heavy
//! calls (screenshots, more than the per-device bound at once) are all served, so the
//! cancelled and abandoned calls left no admission behind (`inflight`).

use super::*;

/// How long each stall lasts: longer than the server's `--timeout` in the soak
/// ([`DEVICE_TIMEOUT_SECS`]), so a call left to its deadline fails by it.
const STALL: Duration = Duration::from_secs(7);
/// The soak server's `--timeout`.
pub(super) const DEVICE_TIMEOUT_SECS: &str = "5";
/// Screenshots sent at once after each stall: more than the per-device bound (2).
const BURST: usize = 5;

/// What the stall rounds saw.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct StallFigures {
    pub stalls: usize,
    /// Taps whose settle wait met a stall, reported as performed.
    pub taps_through: usize,
    /// Of those, how many said the screen was not checked or not settled.
    pub taps_unsettled: usize,
    /// Calls cancelled by `notifications/cancelled` while in flight.
    pub cancelled: usize,
    /// Calls whose client dropped the connection while in flight.
    pub dropped: usize,
    /// Calls left to the deadline: failed with a reason, or served once the phone was back.
    pub timed_out: usize,
    pub served_late: usize,
    /// Screenshots served after the stalls, in bursts.
    pub after: usize,
}

fn has_image(result: &Value) -> bool {
    result["content"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["type"] == "image"))
}

fn taps_at(phone: &PhoneHandle, x: f64, y: f64) -> usize {
    phone
        .state()
        .input_events
        .iter()
        .filter(|e| matches!(e, InputEvent::Tap { x: a, y: b } if *a == x && *b == y))
        .count()
}

/// Screenshots the phone has been asked for: `screencap` lines other than the settle
/// wait's frame hash (`screencap | sha1sum`, Android 11 and earlier).
fn screencaps(phone: &PhoneHandle) -> usize {
    phone
        .commands()
        .iter()
        .filter(|r| r.command.contains("screencap") && !r.command.contains("sha1sum"))
        .count()
}

/// Polls `f` every 5 ms, at most 20 s; whether it came true.
async fn until(mut f: impl FnMut() -> bool) -> bool {
    for _ in 0..4000 {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    false
}

/// Stall rounds on `phone` (this task's alone) until `end`.
pub(super) async fn stall_rounds(
    url: &str,
    dev: &str,
    phone: &PhoneHandle,
    end: Instant,
    faults: &Faults,
) -> StallFigures {
    let (session, _) = Session::open(url, None).await;
    let mut fig = StallFigures::default();
    let mut id = 9000u64;
    let mut next = || {
        id += 1;
        id
    };
    // One screenshot first, as an agent takes before it acts: the first capture on a
    // phone also lists its displays (once), and that listing, not the capture, would
    // meet the first stall.
    let warm = session
        .send(&call(
            next(),
            "mobile_take_screenshot",
            json!({"device": dev}),
        ))
        .await;
    if let Some(r) = result_of(&warm, "a screenshot before the stalls", faults)
        && !has_image(&r)
    {
        faults.add(format!("a screenshot before the stalls: {}", text_of(&r)));
    }
    while Instant::now() + STALL < end {
        fig.stalls += 1;
        let r = session
            .send(&call(
                next(),
                "mobile_press_button",
                json!({"device": dev, "button": "HOME", "settleTimeoutMs": 0, "observe": "none"}),
            ))
            .await;
        if let Some(r) = result_of(&r, "HOME before a stall", faults)
            && r["isError"] == true
        {
            faults.add(format!("HOME before a stall: {}", text_of(&r)));
        }

        // A tap, and the stall begins as soon as the phone has it: its settle wait and
        // observation meet the stall. The tap happened; the reply must say so.
        let (tx, ty) = (200.0 + fig.stalls as f64, 2000.0);
        let before = taps_at(phone, tx, ty);
        let tap_call = call(
            next(),
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "x": tx, "y": ty, "settleTimeoutMs": 2000}),
        );
        let tap = session.send(&tap_call);
        // While it stalls: one screenshot cancelled by the client, one whose client
        // drops the connection, one left to the server's deadline.
        let cancel_id = next();
        let cancel_call = call(cancel_id, "mobile_take_screenshot", json!({"device": dev}));
        let drop_call = call(next(), "mobile_take_screenshot", json!({"device": dev}));
        let left_call = call(next(), "mobile_take_screenshot", json!({"device": dev}));
        let during = async {
            if until(|| taps_at(phone, tx, ty) > before).await {
                phone.stall(STALL);
            } else {
                faults.add("the tap before a stall never reached the phone".into());
            }
            let shots = screencaps(phone);
            let cancelled = try_send(session.request(&cancel_call));
            // The cancel goes once the cancelled screenshot, the only one in flight, has
            // reached the phone: the server has the call then, and the cancel cannot
            // overtake it (a cancel for a request the server has not seen is ignored, as
            // the MCP specification allows). Only then do the other two start.
            let rest = async {
                if !until(|| screencaps(phone) > shots).await {
                    faults.add(format!(
                        "a screenshot during stall {} never reached the phone",
                        fig.stalls
                    ));
                }
                let r = session
                    .send(
                        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": cancel_id, "reason": "the soak cancels"}}),
                    )
                    .await;
                if r.status != 202 {
                    faults.add(format!(
                        "notifications/cancelled: HTTP {} {}",
                        r.status, r.body
                    ));
                }
                let dropped = try_send(
                    session
                        .request(&drop_call)
                        .timeout(Duration::from_millis(500)),
                );
                let left = session.send(&left_call);
                tokio::join!(dropped, left)
            };
            let (cancelled, (dropped, left)) = tokio::join!(cancelled, rest);
            (cancelled, (), dropped, left)
        };
        let (tap, (cancelled, (), dropped, left)) = tokio::join!(tap, during);
        if let Some(r) = result_of(&tap, "tap as the phone stalls", faults) {
            if r["isError"] == true {
                faults.add(format!(
                    "a tap the phone performed was reported as failed: {}",
                    text_of(&r)
                ));
            } else {
                fig.taps_through += 1;
                let t = text_of(&r);
                if t.contains("not checked") || t.contains("not settled") {
                    fig.taps_unsettled += 1;
                }
            }
        }
        match cancelled {
            // No answer, an error, or a failed result: each is what a cancel may leave.
            Ok(r) => match r.messages.iter().find_map(|m| m.get("result")) {
                Some(res) if res["isError"] != true => faults.add(format!(
                    "a cancelled screenshot during a stall came back as a success: {}",
                    text_of(res)
                )),
                _ => fig.cancelled += 1,
            },
            Err(_) => fig.cancelled += 1,
        }
        match dropped {
            Err(_) => fig.dropped += 1,
            Ok(r) => faults.add(format!(
                "a screenshot with a 500 ms client limit during a stall was answered: HTTP {} {:?}",
                r.status,
                r.body.chars().take(300).collect::<String>()
            )),
        }
        if let Some(r) = result_of(&left, "a screenshot during a stall", faults) {
            let t = text_of(&r);
            if r["isError"] == true {
                if t.contains("timed out after") {
                    fig.timed_out += 1;
                } else {
                    faults.add(format!("a screenshot during a stall failed unclearly: {t}"));
                }
            } else if has_image(&r) {
                fig.served_late += 1;
            } else {
                faults.add(format!(
                    "a screenshot during a stall: no image and no error: {t}"
                ));
            }
        }

        // The phone comes back: the same session works, and a burst of heavy calls is
        // served in full (nothing the cancelled or abandoned calls held is still held).
        if !until(|| !phone.stalled()).await {
            faults.add("a stall did not end".into());
        }
        let burst = futures_util::future::join_all((0..BURST).map(|_| {
            try_send(
                session
                    .request(&call(
                        next(),
                        "mobile_take_screenshot",
                        json!({"device": dev, "maxSize": 400}),
                    ))
                    .timeout(Duration::from_secs(60)),
            )
        }))
        .await;
        for r in burst {
            match r {
                Ok(r) => {
                    if let Some(res) = result_of(&r, "a screenshot after a stall", faults) {
                        if has_image(&res) && res["isError"] != true {
                            fig.after += 1;
                        } else {
                            faults.add(format!(
                                "a screenshot after a stall failed: {}",
                                text_of(&res)
                            ));
                        }
                    }
                }
                Err(e) => faults.add(format!("a screenshot after a stall was not served: {e}")),
            }
        }
        let (ax, ay) = (100.0 + fig.stalls as f64, 2100.0);
        let r = session
            .send(&call(
                next(),
                "mobile_click_on_screen_at_coordinates",
                json!({"device": dev, "x": ax, "y": ay, "settleTimeoutMs": 0, "observe": "none"}),
            ))
            .await;
        if let Some(res) = result_of(&r, "a tap after a stall", faults)
            && (res["isError"] == true || taps_at(phone, ax, ay) != 1)
        {
            faults.add(format!(
                "a tap after a stall: {} (taps there: {})",
                text_of(&res),
                taps_at(phone, ax, ay)
            ));
        }
    }
    fig
}
