//! `mobile_launch_app` into a known state, end to end: the built binary, the real adb
//! server and the virtual phone. Each option is checked in the phone's state afterwards
//! (the app's data gone, its permissions as asked in `dumpsys package`, the extras the app
//! received, the deep link opened in the app), and an impossible request is a clear error
//! before anything is launched.

use std::time::Duration;

use serde_json::json;
use test_support::{McpChild, text_of};
use virtual_phone::PhoneHandle;
use virtual_phone::state::{Element, ElementKind, Extra};

const DEADLINE: Duration = Duration::from_secs(240);
const NOTES: &str = "com.example.notes";

async fn rig() -> (crate::phone_rig::Started, String) {
    let s = crate::phone_rig::start(crate::phone_rig::Setup {
        args: &["--allow-url-scheme", "notes"],
        ..Default::default()
    })
    .await;
    let serial = s.phone.serial();
    (s, serial)
}

fn granted(phone: &PhoneHandle, perm: &str) -> bool {
    let dump = phone.shell(&format!("dumpsys package {NOTES}"));
    let line = dump
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{perm}: granted=")))
        .unwrap_or_else(|| panic!("{perm} not in dumpsys:\n{dump}"));
    line.contains("granted=true")
}

fn notes_shown(phone: &PhoneHandle) -> Vec<String> {
    phone.state().packages[NOTES].screens["main"]
        .elements
        .iter()
        .map(|e| e.text.clone())
        .collect()
}

async fn launch(mcp: &McpChild, args: serde_json::Value) -> String {
    mcp.ok("mobile_launch_app", args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_state_wipes_the_apps_data_and_permissions() {
    tokio::time::timeout(DEADLINE, async {
        let (s, serial) = rig().await;
        let (mcp, phone) = (&s.mcp, &s.phone);
        launch(mcp, json!({"device": serial, "packageName": NOTES})).await;
        // What using the app left behind: a note, a preference file, a granted permission.
        phone.update_state(|st| {
            st.app_screen_mut(NOTES, "main")
                .unwrap()
                .elements
                .push(Element::new(ElementKind::Text, "Buy milk"));
        });
        phone.shell(&format!("pm grant {NOTES} android.permission.CAMERA"));
        assert!(notes_shown(phone).contains(&"Buy milk".to_string()));
        assert!(granted(phone, "android.permission.CAMERA"));

        let said = launch(
            mcp,
            json!({"device": serial, "packageName": NOTES, "clearState": true}),
        )
        .await;
        assert!(
            said.starts_with("Cleared its data, then launched com.example.notes"),
            "{said}"
        );
        assert!(!notes_shown(phone).contains(&"Buy milk".to_string()));
        assert!(!granted(phone, "android.permission.CAMERA"));
        assert_eq!(phone.state().foreground_package(), Some(NOTES));
        assert!(
            phone
                .shell_commands()
                .iter()
                .any(|c| c.argv.iter().any(|a| a == &["pm", "clear", NOTES]))
        );
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permissions_are_set_as_asked_and_impossible_ones_refused() {
    tokio::time::timeout(DEADLINE, async {
        let (s, serial) = rig().await;
        let (mcp, phone) = (&s.mcp, &s.phone);
        let said = launch(
            mcp,
            json!({"device": serial, "packageName": NOTES,
                   "permissions": {"all": "allow", "notifications": "deny"}}),
        )
        .await;
        assert!(
            said.starts_with(
                "Granted 3 permissions, denied 1 permission, then launched com.example.notes"
            ),
            "{said}"
        );
        assert!(granted(phone, "android.permission.CAMERA"));
        assert!(granted(phone, "android.permission.ACCESS_FINE_LOCATION"));
        assert!(granted(phone, "android.permission.ACCESS_COARSE_LOCATION"));
        assert!(!granted(phone, "android.permission.POST_NOTIFICATIONS"));

        let said = launch(
            mcp,
            json!({"device": serial, "packageName": NOTES, "permissions": {"location": "deny"}}),
        )
        .await;
        assert!(said.starts_with("Denied 2 permissions"), "{said}");
        assert!(!granted(phone, "android.permission.ACCESS_FINE_LOCATION"));
        assert!(granted(phone, "android.permission.CAMERA"));

        // A permission the app does not request, named by its group: refused before any
        // pm call, naming what the app does request.
        phone.shell("am force-stop com.example.notes");
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": NOTES, "permissions": {"sms": "allow"}}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(
            t.contains("com.example.notes does not request the sms permission"),
            "{t}"
        );
        assert!(t.contains("android.permission.CAMERA"), "{t}");
        assert_ne!(
            phone.state().foreground_package(),
            Some(NOTES),
            "nothing was launched"
        );
        // By its full name: the device's own refusal.
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": NOTES,
                       "permissions": {"android.permission.READ_SMS": "allow"}}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(
            t.contains("has not requested permission android.permission.READ_SMS"),
            "{t}"
        );
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": NOTES,
                       "permissions": {"android.permission.INTERNET": "deny"}}),
            )
            .await;
        let t = text_of(&r);
        assert!(t.contains("is not a changeable permission type"), "{t}");
        // A bad value is refused when the arguments are read.
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": NOTES, "permissions": {"camera": "yes"}}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(
            text_of(&r)
                .contains("the permission \"camera\" must be \"allow\", \"deny\" or \"unset\""),
            "{}",
            text_of(&r)
        );
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_reach_the_app_as_typed_extras_when_it_starts_afresh() {
    tokio::time::timeout(DEADLINE, async {
        let (s, serial) = rig().await;
        let (mcp, phone) = (&s.mcp, &s.phone);
        let args = json!({"user": "ada lovelace; reboot", "count": 3, "pro": true, "ratio": 0.5});
        let said = launch(
            mcp,
            json!({"device": serial, "packageName": NOTES, "arguments": args}),
        )
        .await;
        assert!(
            said.starts_with("Passed 4 launch arguments, then launched"),
            "{said}"
        );
        let extras = phone
            .state()
            .foreground()
            .unwrap()
            .intent
            .clone()
            .unwrap()
            .extras;
        assert_eq!(extras["user"], Extra::String("ada lovelace; reboot".into()));
        assert_eq!(extras["count"], Extra::Int(3));
        assert_eq!(extras["pro"], Extra::Bool(true));
        assert_eq!(extras["ratio"], Extra::Float(0.5));

        // Running already: without stopFirst the app keeps the intent it started with …
        launch(
            mcp,
            json!({"device": serial, "packageName": NOTES, "arguments": {"user": "grace"}}),
        )
        .await;
        let extras = phone
            .state()
            .foreground()
            .unwrap()
            .intent
            .clone()
            .unwrap()
            .extras;
        assert_eq!(extras["user"], Extra::String("ada lovelace; reboot".into()));
        // … with it, the app starts afresh and gets the new ones.
        let said = launch(
            mcp,
            json!({"device": serial, "packageName": NOTES, "stopFirst": true,
                   "arguments": {"user": "grace"}}),
        )
        .await;
        assert!(
            said.starts_with("Stopped it first, passed 1 launch argument"),
            "{said}"
        );
        let extras = phone
            .state()
            .foreground()
            .unwrap()
            .intent
            .clone()
            .unwrap()
            .extras;
        assert_eq!(extras["user"], Extra::String("grace".into()));
        assert_eq!(extras.len(), 1);
        assert!(phone.injections().is_empty());
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_link_opens_in_the_named_app() {
    tokio::time::timeout(DEADLINE, async {
        let (s, serial) = rig().await;
        let (mcp, phone) = (&s.mcp, &s.phone);
        let said = launch(
            mcp,
            json!({"device": serial, "packageName": NOTES, "url": "notes://new/today"}),
        )
        .await;
        assert!(said.starts_with("Opened notes://new/today in com.example.notes"), "{said}");
        let st = phone.state();
        let f = st.foreground().unwrap();
        assert_eq!((f.package.as_str(), f.screen.as_str()), (NOTES, "editor"));
        assert_eq!(f.intent.as_ref().unwrap().data.as_deref(), Some("notes://new/today"));
        assert!(
            phone.shell_commands().iter().any(|c| c.argv.iter().any(|a| a.last().map(String::as_str) == Some(NOTES)
                && a.iter().any(|w| w == "notes://new/today"))),
            "the VIEW intent is limited to the package"
        );
        // An app with no filter for the link: a clear error naming the app.
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": "com.android.settings", "url": "notes://x"}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(t.contains("com.android.settings has no activity that opens this URL"), "{t}");
        // A scheme the server does not allow is refused before the device.
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": NOTES, "url": "other://x"}),
            )
            .await;
        assert!(text_of(&r).contains("--allow-url-scheme other"), "{}", text_of(&r));
    })
    .await
    .expect("the test finished within its deadline");
}
