//! Device leases over HTTP: a phone one session uses is refused to another session (of the
//! same server, or of a second server on the same adb server) with who holds it and since
//! when, and is the other's as soon as the first session ends; the other session's device
//! listing says so; `--share-devices` lets sessions share it. What reached the phone is read from the phone's own command log.

use serde_json::{Value, json};
use virtual_phone::{AdbFrontEnd, PhoneConfig, PhoneHandle, VirtualPhone};

use super::{Server, Session, bounded, call, http, text_of};

/// A phone behind its adb-server front end, and the `--adb-server` argument for it.
fn phone() -> (PhoneHandle, AdbFrontEnd, String) {
    let phone = VirtualPhone::start(PhoneConfig::default()).expect("start the virtual phone");
    let front = AdbFrontEnd::start_usb(&phone, "usb:1-1").expect("adb front end");
    let addr = front.addr().to_string();
    (phone, front, addr)
}

/// The taps the phone received, as their `x y`.
fn taps(phone: &PhoneHandle) -> Vec<String> {
    phone
        .commands()
        .iter()
        .flat_map(|c| c.argv.iter())
        .filter(|a| a.len() >= 4 && a[0] == "input" && a[1] == "tap")
        .map(|a| format!("{} {}", a[2], a[3]))
        .collect()
}

fn tap(id: u64, device: &str, x: u32) -> Value {
    call(
        id,
        "mobile_click_on_screen_at_coordinates",
        json!({"device": device, "x": x, "y": 300, "settleTimeoutMs": 0}),
    )
}

fn result(reply: &super::Reply) -> Value {
    reply.response()["result"].clone()
}

async fn delete(server_mcp: &str, session: &Session) {
    let del = http()
        .delete(server_mcp)
        .header("mcp-session-id", &session.id)
        .send()
        .await
        .expect("DELETE");
    assert!(del.status().is_success(), "{}", del.status());
}

/// The hint `session`'s device listing gives `device` (empty when none), and the listing's
/// text line for it.
async fn listed(session: &Session, device: &str) -> (String, String) {
    let l = result(
        &session
            .send(&call(90, "mobile_list_available_devices", json!({})))
            .await,
    );
    let d = &l["structuredContent"]["devices"][0];
    assert_eq!(d["id"], device, "{l}");
    let hint = d["hint"].as_str().unwrap_or("").to_string();
    let text = text_of(&l);
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("- {device}: ")))
        .unwrap_or_else(|| panic!("no line for {device}: {text}"))
        .to_string();
    (hint, line)
}

/// Taps with `session` until it is not refused for a lease, at most 50 tries: a session's
/// end is noticed by its server once its DELETE is answered, not necessarily before.
async fn tap_until_leased(session: &Session, device: &str, x: u32) -> Value {
    for i in 0..50 {
        let r = result(&session.send(&tap(100 + i, device, x)).await);
        if !text_of(&r).contains("in use by") {
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the device was never given to the waiting session");
}

#[tokio::test]
async fn a_second_session_is_refused_until_the_first_ends() {
    bounded(async {
        let (phone, _front, adb) = phone();
        let leases = tempfile::tempdir().unwrap();
        let dir = leases.path().to_str().unwrap();
        let server = Server::start(&["--adb-server", &adb, "--lease-dir", dir], &[]);
        let device = phone.device_serial();
        let (a, _) = Session::open(&server.mcp(), None).await;
        let (b, _) = Session::open(&server.mcp(), None).await;

        // Listing takes no lease: both sessions see the phone.
        for s in [&a, &b] {
            let l = result(
                &s.send(&call(2, "mobile_list_available_devices", json!({})))
                    .await,
            );
            assert_eq!(l["structuredContent"]["devices"][0]["id"], device, "{l}");
        }
        let first = result(&a.send(&tap(3, &device, 101)).await);
        assert_ne!(first["isError"], true, "{first}");
        // B's listing says the phone is another session's, and since when; A's does not.
        let (hint, line) = listed(&b, &device).await;
        assert!(
            hint.starts_with("in use by another session of this server since ")
                && hint.contains(" UTC"),
            "{hint}"
        );
        assert!(line.ends_with(&format!(" — {hint}")), "{line}");
        assert_eq!(listed(&a, &device).await.0, "", "A holds it");
        let refused = result(&b.send(&tap(3, &device, 202)).await);
        assert_eq!(refused["isError"], true, "{refused}");
        let why = text_of(&refused);
        assert!(
            why.contains(&format!("Device {device} is in use by another session"))
                && why.contains(" since ")
                && why.contains("UTC"),
            "{why}"
        );
        assert!(why.contains("--share-devices"), "{why}");
        // A keeps the phone.
        let again = result(&a.send(&tap(4, &device, 103)).await);
        assert_ne!(again["isError"], true, "{again}");
        assert_eq!(
            taps(&phone),
            ["101 300", "103 300"],
            "B's tap never reached the phone"
        );

        // A ends its session: the phone is B's, and A's lease file is free for others.
        delete(&server.mcp(), &a).await;
        let got = tap_until_leased(&b, &device, 204).await;
        assert_ne!(got["isError"], true, "{got}");
        assert_eq!(taps(&phone), ["101 300", "103 300", "204 300"]);
        assert_eq!(listed(&b, &device).await.0, "", "B holds it now");
    })
    .await;
}

#[tokio::test]
async fn a_second_server_on_the_same_adb_server_is_refused_until_the_first_stops() {
    bounded(async {
        let (phone, _front, adb) = phone();
        let leases = tempfile::tempdir().unwrap();
        let dir = leases.path().to_str().unwrap();
        let one = Server::start(&["--adb-server", &adb, "--lease-dir", dir], &[]);
        let two = Server::start(&["--adb-server", &adb, "--lease-dir", dir], &[]);
        let device = phone.device_serial();
        let (a, _) = Session::open(&one.mcp(), None).await;
        let (b, _) = Session::open(&two.mcp(), None).await;
        let first = result(&a.send(&tap(2, &device, 111)).await);
        assert_ne!(first["isError"], true, "{first}");
        let refused = result(&b.send(&tap(2, &device, 222)).await);
        let why = text_of(&refused);
        assert_eq!(refused["isError"], true, "{refused}");
        assert!(
            why.contains(&format!(
                "in use by another mobile-mcp process (pid {})",
                one.child.id()
            )),
            "{why}"
        );
        assert_eq!(taps(&phone), ["111 300"]);
        // The first server is killed (no clean shutdown): the OS drops its lock.
        drop(a);
        drop(one);
        let got = result(&b.send(&tap(3, &device, 223)).await);
        assert_ne!(got["isError"], true, "{got}");
        assert_eq!(taps(&phone), ["111 300", "223 300"]);
    })
    .await;
}

#[tokio::test]
async fn sessions_share_a_device_when_asked() {
    bounded(async {
        let (phone, _front, adb) = phone();
        let server = Server::start(&["--adb-server", &adb, "--share-devices"], &[]);
        let device = phone.device_serial();
        let (a, _) = Session::open(&server.mcp(), None).await;
        let (b, _) = Session::open(&server.mcp(), None).await;
        for (s, x) in [(&a, 121), (&b, 232), (&a, 123)] {
            let r = result(&s.send(&tap(2, &device, x)).await);
            assert_ne!(r["isError"], true, "{r}");
        }
        assert_eq!(taps(&phone), ["121 300", "232 300", "123 300"]);
    })
    .await;
}

#[tokio::test]
async fn a_session_left_idle_past_session_idle_gives_its_device_up() {
    bounded(async {
        let (phone, _front, adb) = phone();
        let leases = tempfile::tempdir().unwrap();
        let dir = leases.path().to_str().unwrap();
        let server = Server::start(
            &[
                "--adb-server",
                &adb,
                "--lease-dir",
                dir,
                "--session-idle",
                "1",
            ],
            &[],
        );
        let device = phone.device_serial();
        let (a, _) = Session::open(&server.mcp(), None).await;
        let first = result(&a.send(&tap(2, &device, 131)).await);
        assert_ne!(first["isError"], true, "{first}");
        // A says nothing more; once it has been idle for a second its session closes and
        // B, refused until then, gets the phone.
        let (b, _) = Session::open(&server.mcp(), None).await;
        let got = tap_until_leased(&b, &device, 242).await;
        assert_ne!(got["isError"], true, "{got}");
        assert_eq!(taps(&phone), ["131 300", "242 300"]);
    })
    .await;
}
