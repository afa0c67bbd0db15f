//! The agent loop against a scripted phone in process: a list screen whose "Product"
//! buttons open a detail screen with "Buy now" where "Product 2" was, a list read that can
//! be held half way, a fingerprint that can stall. What the phone received (each tap and
//! the screen it landed on) is checked, not only the server's text.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mobile_device::*;
use mobile_mcp::{MobileServer, ServerOptions};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;

const ID: &str = "scripted-1";

/// What the phone shows, what it received, and what the test holds back.
#[derive(Default)]
struct Phone {
    detail: AtomicBool,
    /// Each tap, with the screen it landed on.
    taps: Mutex<Vec<(&'static str, Point)>>,
    /// A list read takes what the screen shows, then waits for `release`.
    hold_list: AtomicBool,
    list_read: Notify,
    release: Notify,
    /// A fingerprint never answers.
    stall_fingerprint: AtomicBool,
}

impl Phone {
    fn screen(&self) -> &'static str {
        if self.detail.load(Ordering::SeqCst) {
            "detail"
        } else {
            "list"
        }
    }

    fn elements(&self) -> Vec<Element> {
        let el = |kind: &str, text: &str, y: i32| Element {
            element_type: kind.into(),
            text: Some(text.into()),
            rect: Rect {
                x: 0,
                y,
                width: 1080,
                height: 100,
            },
            states: ElementStates {
                enabled: true,
                clickable: kind == "android.widget.Button",
                ..Default::default()
            },
            ..Default::default()
        };
        match self.screen() {
            "list" => vec![
                el("android.widget.TextView", "Shop", 0),
                el("android.widget.Button", "Product 1", 200),
                el("android.widget.Button", "Product 2", 400),
            ],
            _ => vec![
                el("android.widget.TextView", "Detail", 0),
                el("android.widget.Button", "Buy now", 400),
            ],
        }
    }
}

struct Scripted(Arc<Phone>);

#[async_trait]
impl Device for Scripted {
    fn id(&self) -> &str {
        ID
    }
    fn platform(&self) -> Platform {
        Platform::Android
    }
    fn coordinate_unit(&self) -> CoordinateUnit {
        CoordinateUnit::Pixels
    }
    async fn screen_size(&self) -> Result<ScreenSize> {
        Ok(ScreenSize {
            unit: CoordinateUnit::Pixels,
            width: 1080,
            height: 2400,
            scale: 2.625,
            density: Some(420),
        })
    }
    async fn orientation(&self) -> Result<Orientation> {
        Ok(Orientation::Portrait)
    }
    async fn list_elements(&self) -> Result<Vec<Element>> {
        let now = self.0.elements();
        if self.0.hold_list.load(Ordering::SeqCst) {
            self.0.list_read.notify_one();
            self.0.release.notified().await;
        }
        Ok(now)
    }
    async fn tap(&self, at: Point) -> Result<()> {
        let on = self.0.screen();
        self.0.taps.lock().unwrap().push((on, at));
        if on == "list" && at.y >= 200 && at.y < 500 {
            self.0.detail.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
    async fn screen_fingerprint(&self) -> Result<ScreenFingerprint> {
        if self.0.stall_fingerprint.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        Ok(ScreenFingerprint::new(
            SettleSignal::FrameHash,
            self.0.screen(),
        ))
    }
}

struct Backend(Arc<Phone>);

#[async_trait]
impl DeviceBackend for Backend {
    fn name(&self) -> &str {
        "scripted"
    }
    async fn discover(&self) -> Discovery {
        Discovery {
            devices: vec![DeviceInfo {
                id: ID.into(),
                name: "Scripted".into(),
                platform: Platform::Android,
                kind: DeviceKind::Emulator,
                version: Some("14".into()),
                state: DeviceState::Online,
                model: None,
                hint: None,
            }],
            notes: vec![],
        }
    }
    async fn open(&self, _info: &DeviceInfo) -> Result<Arc<dyn Device>> {
        Ok(Arc::new(Scripted(self.0.clone())))
    }
}

struct Harness {
    client: RunningService<RoleClient, ()>,
    phone: Arc<Phone>,
}

async fn start(options: ServerOptions) -> Harness {
    let phone = Arc::new(Phone::default());
    let mut registry = DeviceRegistry::new();
    registry.register(Arc::new(Backend(phone.clone())));
    let server = MobileServer::new(Arc::new(registry), options);
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(s) = server.serve(b).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(a).await.expect("client initializes");
    Harness { client, phone }
}

impl Harness {
    async fn call(&self, name: &str, args: Value) -> CallToolResult {
        let args = args.as_object().cloned().unwrap_or_default();
        tokio::time::timeout(
            Duration::from_secs(20),
            self.client
                .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args)),
        )
        .await
        .expect("call finishes")
        .expect("call succeeds at the protocol level")
    }

    fn taps(&self) -> Vec<(&'static str, Point)> {
        self.phone.taps.lock().unwrap().clone()
    }
}

fn text(r: &CallToolResult) -> String {
    test_support::text_of(r)
}

#[tokio::test]
async fn a_tap_by_ref_lands_on_the_screen_it_was_looked_up_on() {
    let h = start(ServerOptions::default()).await;
    let r = h
        .call("mobile_list_elements_on_screen", json!({"device": ID}))
        .await;
    let els = r.structured_content.unwrap()["elements"].clone();
    let product2 = els
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["text"] == "Product 2")
        .unwrap()["ref"]
        .clone();
    h.phone.hold_list.store(true, Ordering::SeqCst);
    // A taps Product 2 by ref; while its list read is on the way back, B taps Product 1,
    // which opens the detail screen, whose "Buy now" sits where Product 2 was.
    let by_ref = h.call(
        "mobile_click_on_screen_at_coordinates",
        json!({"device": ID, "ref": product2, "observe": "none"}),
    );
    let other = async {
        h.phone.list_read.notified().await;
        h.call(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": ID, "x": 540, "y": 250, "observe": "none"}),
        )
        .await
    };
    let gate = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        h.phone.hold_list.store(false, Ordering::SeqCst);
        h.phone.release.notify_one();
    };
    let (a, b, ()) = tokio::join!(by_ref, other, gate);
    let taps = h.taps();
    assert_eq!(taps.len(), 2, "{taps:?}\n{}\n{}", text(&a), text(&b));
    let at_product2 = taps
        .iter()
        .find(|(_, p)| *p == Point::new(540, 450))
        .unwrap_or_else(|| panic!("{taps:?}"));
    assert_eq!(
        at_product2.0, "list",
        "the tap by ref landed on the screen it was looked up on, not on Buy now: {taps:?}"
    );
    assert_ne!(a.is_error, Some(true), "{}", text(&a));
}

#[tokio::test]
async fn a_stalled_settle_still_returns_the_action_that_happened() {
    let h = start(ServerOptions {
        timeout: Duration::from_secs(1),
        ..ServerOptions::default()
    })
    .await;
    h.phone.stall_fingerprint.store(true, Ordering::SeqCst);
    let r = h
        .call(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": ID, "x": 540, "y": 250, "settleTimeoutMs": 300}),
        )
        .await;
    let t = text(&r);
    assert_ne!(r.is_error, Some(true), "the tap happened: {t}");
    assert!(t.starts_with("Tapped at (540, 250)"), "{t}");
    assert!(t.contains("not checked for settling"), "{t}");
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["settle"]["settled"], false, "{sc}");
    assert!(
        sc["settle"]["error"]
            .as_str()
            .unwrap()
            .contains("timed out")
            || sc["settle"]["error"]
                .as_str()
                .unwrap()
                .contains("did not finish"),
        "{sc}"
    );
    // What the screen shows now still follows: the detail screen the tap opened.
    assert!(t.contains("Buy now"), "{t}");
    assert_eq!(h.taps(), vec![("list", Point::new(540, 250))]);
    assert_eq!(h.phone.screen(), "detail");
}
