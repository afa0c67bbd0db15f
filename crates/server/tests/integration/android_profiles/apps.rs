//! Apps on profiles: several launcher activities, real labels, missing services, the
//! keyguard, native crashes.

use super::*;

fn two_launchers() -> Profile {
    let mut p = Profile::default();
    p.extra_launchers.insert(
        "com.example.notes".into(),
        vec!["com.example.notes.QuickNoteActivity".into()],
    );
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launch_with_two_launcher_activities_opens_the_app_not_the_chooser() {
    bounded(async {
        let r = rig(two_launchers()).await;
        r.mcp
            .ok(
                "mobile_launch_app",
                json!({"device": r.dev, "packageName": "com.example.notes"}),
            )
            .await;
        let s = r.phone.state();
        assert_eq!(
            s.foreground_package(),
            Some("com.example.notes"),
            "{:?}",
            s.foreground()
        );
        assert!(
            !argvs(&r.phone)
                .iter()
                .any(|a| a.iter().any(|w| w.contains("ResolverActivity"))),
            "the chooser was started: {:?}",
            argvs(&r.phone)
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launch_behind_the_keyguard_is_an_error() {
    bounded(async {
        let r = rig(Profile {
            keyguard: true,
            ..Profile::default()
        })
        .await;
        let res = r
            .mcp
            .call(
                "mobile_launch_app",
                json!({"device": r.dev, "packageName": "com.example.notes"}),
            )
            .await;
        let t = err_text(&res);
        assert!(t.contains("keyguard") || t.contains("locked"), "{t}");
        let res = r
            .mcp
            .call("mobile_get_foreground_app", json!({"device": r.dev}))
            .await;
        let t = text_of(&res);
        assert!(t.contains("keyguard") || t.contains("locked"), "{t}");
        assert!(
            !t.contains("com.example.notes"),
            "the app behind was reported: {t}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn locale_launch_where_the_locale_service_is_missing_says_so() {
    bounded(async {
        let r = rig(Profile::android(29)).await;
        let res = r
            .mcp
            .call(
                "mobile_launch_app",
                json!({"device": r.dev, "packageName": "com.example.notes", "locale": "fr-FR"}),
            )
            .await;
        let t = err_text(&res);
        assert!(t.contains("Android 13"), "{t}");
        assert_ne!(
            r.phone.state().foreground_package(),
            Some("com.example.notes")
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_labels_still_give_readable_names() {
    bounded(async {
        let r = rig(Profile {
            resource_labels: true,
            ..Profile::default()
        })
        .await;
        let res = r
            .mcp
            .call("mobile_list_apps", json!({"device": r.dev}))
            .await;
        let apps = res.structured_content.unwrap()["apps"].clone();
        let name = |pkg: &str| {
            apps.as_array()
                .unwrap()
                .iter()
                .find(|a| a["packageName"] == pkg)
                .map(|a| a["appName"].as_str().unwrap().to_string())
        };
        assert_eq!(
            name("com.example.notes").as_deref(),
            Some("Notes"),
            "{apps}"
        );
        assert_eq!(
            name("com.android.chrome").as_deref(),
            Some("Chrome"),
            "{apps}"
        );
        // One round trip: the listing itself (the device listing's `getprop` aside).
        let cmds: Vec<_> = argvs(&r.phone)
            .into_iter()
            .filter(|a| a[0] != "getprop")
            .collect();
        assert_eq!(cmds.len(), 1, "{cmds:?}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_crash_is_listed_once() {
    bounded(async {
        let r = rig(Profile {
            native_crash: true,
            ..Profile::default()
        })
        .await;
        let res = r
            .mcp
            .call("mobile_list_crashes", json!({"device": r.dev}))
            .await;
        let crashes = res.structured_content.unwrap()["crashes"].clone();
        let native: Vec<_> = crashes
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                let id = c["id"].as_str().unwrap();
                id.starts_with("5001") || id.starts_with("5012")
            })
            .collect();
        assert_eq!(native.len(), 1, "{crashes}");
        let t = r
            .mcp
            .ok(
                "mobile_get_crash",
                json!({"device": r.dev, "id": native[0]["id"]}),
            )
            .await;
        assert!(
            t.contains("Fatal signal 11") && t.contains("backtrace:"),
            "{t}"
        );
    })
    .await;
}
