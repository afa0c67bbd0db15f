//! `mobile_launch_app` into a known state on the fake simulator: the app's data cleared by
//! Maestro's route (bundle copied out of `get_app_container`, uninstalled, reinstalled),
//! privacy set with `simctl privacy`, launch arguments as Maestro writes them, stopped
//! first, and a deep link whose app iOS chooses; each checked in the fake's state file.

use super::*;

const QWEN: &str = "com.alibaba.qwen";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulator_app_launches_cleared_with_privacy_and_arguments() {
    let Some(mac) = Mac::fake_with(|state, dir| {
        state.home = dir.join("home").display().to_string();
        state.simulators[0].app_data.insert(
            QWEN.into(),
            [(
                "Library/Preferences/session.plist".to_string(),
                "logged-in".to_string(),
            )]
            .into(),
        );
    }) else {
        return;
    };
    tokio::time::timeout(Duration::from_secs(240), async {
        let mcp = mac.ios_server(&[]).await;
        let dev = json!(BOOTED_UDID);
        mcp.ok("mobile_launch_app", json!({"device": dev, "packageName": QWEN, "observe": "none"}))
            .await;
        mac.clear_log();

        let said = mcp
            .ok(
                "mobile_launch_app",
                json!({"device": dev, "packageName": QWEN, "observe": "none",
                       "clearState": true,
                       "permissions": {"photos": "allow", "location": "allow", "microphone": "deny"},
                       "arguments": {"isPro": true, "user": "ada", "-count": 3}}),
            )
            .await;
        assert!(
            said.starts_with("Cleared its data, granted 2 permissions, denied 1 permission, passed 3 launch arguments, then launched com.alibaba.qwen"),
            "{said}"
        );
        let sim = mac.fake_sim();
        assert!(!sim.app_data.contains_key(QWEN), "the data container went with the uninstall");
        assert!(sim.apps.iter().any(|a| a.bundle_id == QWEN && a.url_schemes == ["qwen"]), "reinstalled as it was");
        let privacy = &sim.privacy[QWEN];
        assert_eq!(privacy["photos"], "granted");
        assert_eq!(privacy["location-always"], "granted");
        assert_eq!(privacy["microphone"], "revoked");
        assert_eq!(sim.foreground.as_deref(), Some(QWEN));
        // Maestro's form: a boolean keeps its key, other values get a dash.
        assert_eq!(sim.launch_args[QWEN], ["isPro", "true", "-user", "ada", "-count", "3"]);
        mac.check_log(|log| {
            let argvs: Vec<String> = log.iter().map(|c| c.argv.join(" ")).collect();
            let at = |needle: &str| {
                argvs
                    .iter()
                    .position(|a| a.contains(needle))
                    .unwrap_or_else(|| panic!("no {needle} in {argvs:#?}"))
            };
            assert!(at("get_app_container") < at(&format!("uninstall {BOOTED_UDID} {QWEN}")));
            assert!(at(&format!("uninstall {BOOTED_UDID} {QWEN}")) < at("simctl install "));
            assert!(at("privacy") > at("simctl install "), "privacy is set on the reinstalled app");
        });

        // Running already: stopFirst starts it afresh with the new arguments.
        let said = mcp
            .ok(
                "mobile_launch_app",
                json!({"device": dev, "packageName": QWEN, "observe": "none", "stopFirst": true,
                       "arguments": {"user": "grace"}}),
            )
            .await;
        assert!(said.starts_with("Stopped it first"), "{said}");
        assert_eq!(mac.fake_sim().launch_args[QWEN], ["-user", "grace"]);

        // What simctl cannot set is refused before anything runs.
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": dev, "packageName": QWEN, "permissions": {"camera": "allow"}}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(t.contains("no camera service"), "{t}");

        // A link iOS opens in another app: launched, and the result says where it went.
        let said = mcp
            .ok(
                "mobile_launch_app",
                json!({"device": dev, "packageName": QWEN, "observe": "none", "url": "https://example.com/a"}),
            )
            .await;
        assert!(said.contains("iOS opened the URL in com.apple.mobilesafari"), "{said}");
        assert_eq!(mac.fake_sim().opened_urls.last().map(String::as_str), Some("https://example.com/a"));
    })
    .await
    .expect("the test finished within its deadline");
}
