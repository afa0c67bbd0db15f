//! Observations belong to the HTTP session that made them: one session's look at a device
//! (its change lists, its refs) is not another's.

use serde_json::{Value, json};

use super::{Server, Session, bounded, call, text_of};

fn result(reply: &super::Reply) -> Value {
    reply.response()["result"].clone()
}

#[tokio::test]
async fn a_session_is_told_what_changed_since_its_own_last_look() {
    bounded(async {
        // Two sessions on one phone, on purpose: no leases.
        let server = Server::start(&["--demo", "--share-devices"], &[]);
        let (a, _) = Session::open(&server.mcp(), None).await;
        let (b, _) = Session::open(&server.mcp(), None).await;
        let devices = a
            .send(&call(2, "mobile_list_available_devices", json!({})))
            .await;
        let device = result(&devices)["structuredContent"]["devices"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("the demo phone is listed: {devices:?}"))
            .to_string();
        // A looks at the launcher.
        let look = a
            .send(&call(
                3,
                "mobile_list_elements_on_screen",
                json!({"device": device}),
            ))
            .await;
        assert_ne!(result(&look)["isError"], true, "{look:?}");
        // B opens Settings (and so sees it).
        let open = b
            .send(&call(
                2,
                "mobile_launch_app",
                json!({"device": device, "packageName": "com.android.settings"}),
            ))
            .await;
        assert_ne!(result(&open)["isError"], true, "{open:?}");
        // A acts without changing the screen: what it is told is measured against its own
        // last look (the launcher), so Settings is news to it.
        let press = a
            .send(&call(
                4,
                "mobile_press_button",
                json!({"device": device, "button": "VOLUME_UP"}),
            ))
            .await;
        let r = result(&press);
        assert_ne!(r["isError"], true, "{press:?}");
        let t = text_of(&r);
        assert!(!t.contains("No change on screen"), "{t}");
        assert!(t.contains("Search settings"), "A is shown Settings: {t}");
        // The phone is in Settings, as B left it.
        let front = a
            .send(&call(
                5,
                "mobile_get_foreground_app",
                json!({"device": device}),
            ))
            .await;
        assert_eq!(
            result(&front)["structuredContent"]["packageName"],
            "com.android.settings",
            "{front:?}"
        );
        // B, whose last look is Settings, is told nothing changed.
        let again = b
            .send(&call(
                3,
                "mobile_press_button",
                json!({"device": device, "button": "VOLUME_UP"}),
            ))
            .await;
        let t = text_of(&result(&again));
        assert!(t.contains("No change on screen"), "{t}");
    })
    .await;
}
