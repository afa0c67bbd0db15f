//! The iOS test bodies, the same for the fake toolchain and a Mac's real simulators.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulators_beside_the_android_phone_and_every_tool_works() {
    let mac = Mac::from_env().await;
    let x = mac.expect();
    tokio::time::timeout(x.deadline, async {
        let android = x.android_neighbour.then(AndroidNeighbour::start);
        let mut env = mac.env();
        let args = match &android {
            Some(a) => {
                env.extend(a.adb.env());
                vec!["--adb-server".into(), format!("127.0.0.1:{}", a.adb.port())]
            }
            None => {
                let (args, no_adb) = mac.without_android();
                env.extend(no_adb);
                args
            }
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mcp = McpChild::spawn(crate::SERVER, &args, &env).await;
        let work = tempfile::Builder::new()
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        let (udid, app) = (x.udid.as_str(), x.app.as_str());

        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let devices = r.structured_content.unwrap()["devices"].clone();
        let find = |id: &str| {
            devices
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["id"] == id)
                .cloned()
        };
        let iphone = find(udid).unwrap_or_else(|| panic!("no booted simulator in {devices}"));
        assert_eq!(iphone["platform"], "ios");
        assert_eq!(iphone["type"], "simulator");
        assert_eq!(iphone["state"], "online");
        if let Some(off) = &x.shutdown_udid {
            let ipad = find(off).unwrap_or_else(|| panic!("{off} not listed: {devices}"));
            assert_eq!(ipad["state"], "shutdown");
            assert!(
                ipad["hint"].as_str().unwrap().contains("simctl boot"),
                "{ipad}"
            );
        }
        if let Some(a) = &android {
            assert!(
                find(&a.phone.serial()).is_some(),
                "the Android phone is listed too: {devices}"
            );
        }
        let dev = json!(udid);

        // The app survives listing (names with spaces, quotes and CJK too) and launching.
        let r = mcp.call("mobile_list_apps", json!({"device": dev})).await;
        let apps = r.structured_content.clone().unwrap()["apps"].clone();
        assert!(
            apps.as_array()
                .unwrap()
                .iter()
                .any(|a| a["packageName"] == app
                    && x.app_name
                        .as_ref()
                        .is_none_or(|n| a["appName"] == n.as_str())),
            "{apps}"
        );
        if let Some(name) = &x.app_name {
            assert!(text_of(&r).contains(name.as_str()), "{}", text_of(&r));
        }
        mac.clear_log();
        mcp.ok(
            "mobile_launch_app",
            json!({"device": dev, "packageName": app}),
        )
        .await;
        mac.check_log(|log| {
            assert!(
                has_argv(log, "xcrun", &["simctl", "launch", udid, app]),
                "{log:?}"
            )
        });
        mac.assert_launched(app).await;
        let r = mcp
            .call("mobile_get_foreground_app", json!({"device": dev}))
            .await;
        if r.is_error != Some(true) {
            assert_eq!(r.structured_content.unwrap()["packageName"], app);
        }

        // Screen size, well-formed elements, taps by ref.
        let r = mcp
            .call("mobile_get_screen_size", json!({"device": dev}))
            .await;
        assert!(text_of(&r).contains("points"), "{}", text_of(&r));
        let size: ScreenSize =
            serde_json::from_value(r.structured_content.unwrap()).expect("a screen size");
        assert!(
            size.width > 0 && size.height > 0 && size.scale >= 1.0,
            "{size:?}"
        );
        if let Some(screen) = x.screen {
            assert_eq!((size.width, size.height, size.scale), screen);
        }
        let r = mcp
            .call("mobile_list_elements_on_screen", json!({"device": dev}))
            .await;
        let els: Vec<Element> =
            serde_json::from_value(r.structured_content.unwrap()["elements"].clone())
                .expect("well-formed elements");
        for e in &els {
            assert!(
                e.reference
                    .strip_prefix("@e")
                    .is_some_and(|n| n.parse::<u32>().is_ok()),
                "{e:?}"
            );
            assert!(!e.element_type.is_empty(), "{e:?}");
        }
        let first = els
            .iter()
            .find(|e| e.rect.width > 0)
            .unwrap_or_else(|| panic!("no element with a size: {els:?}"));
        mac.clear_log();
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": dev, "ref": first.reference}),
        )
        .await;
        mac.check_log(|log| {
            assert!(
                log.iter().any(|c| c.tool == "idb"
                    && c.argv.first().map(String::as_str) == Some("ui")
                    && c.argv.get(1).map(String::as_str) == Some("tap")),
                "{log:?}"
            );
        });

        // The screenshot decodes at the size it reports, in the screen's proportions.
        let r = mcp
            .call("mobile_take_screenshot", json!({"device": dev}))
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        let t = text_of(&r);
        assert!(
            t.contains(&format!(
                "Screen coordinates are {}x{}",
                size.width, size.height
            )),
            "{t}"
        );
        let Some(ContentBlock::Image(img)) = r.content.get(1) else {
            panic!("no image: {t}")
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&img.data)
            .unwrap();
        let shot = image::load_from_memory(&bytes).expect("the screenshot decodes");
        let (w, h) = (shot.width(), shot.height());
        assert!(
            t.starts_with(&format!("Screenshot is {w}x{h}.")),
            "{w}x{h}: {t}"
        );
        assert_eq!(w.max(h), 1024, "the default longest side");
        let ratio = |a: u32, b: u32| a as f64 / b as f64;
        assert!(
            (ratio(w, h) - ratio(size.width, size.height)).abs() < 0.01,
            "{w}x{h} vs {size:?}"
        );

        // Orientation round trip.
        for o in ["landscape", "portrait"] {
            mcp.ok(
                "mobile_set_orientation",
                json!({"device": dev, "orientation": o}),
            )
            .await;
            let r = mcp
                .call("mobile_get_orientation", json!({"device": dev}))
                .await;
            let got: Orientation =
                serde_json::from_value(r.structured_content.unwrap()["orientation"].clone())
                    .expect("an orientation");
            assert_eq!(serde_json::to_value(got).unwrap(), o);
        }

        // Input, gestures, buttons, URL: each reaches idb/simctl with exact argv.
        mac.clear_log();
        mcp.ok(
            "mobile_type_keys",
            json!({"device": dev, "text": "hi there; $(x)", "submit": false}),
        )
        .await;
        mcp.ok(
            "mobile_press_button",
            json!({"device": dev, "button": "HOME"}),
        )
        .await;
        mcp.ok(
            "mobile_swipe_on_screen",
            json!({"device": dev, "direction": "up"}),
        )
        .await;
        mcp.ok(
            "mobile_double_tap_on_screen",
            json!({"device": dev, "x": 10, "y": 20}),
        )
        .await;
        mcp.ok(
            "mobile_long_press_on_screen_at_coordinates",
            json!({"device": dev, "x": 10, "y": 20}),
        )
        .await;
        mcp.ok(
            "mobile_open_url",
            json!({"device": dev, "url": "https://example.com/?a=1&b=$(id)"}),
        )
        .await;
        mac.check_log(|log| {
            assert!(
                has_argv(
                    log,
                    "idb",
                    &["ui", "text", "hi there; $(x)", "--udid", udid]
                ),
                "{log:?}"
            );
            assert!(
                has_argv(log, "idb", &["ui", "button", "HOME", "--udid", udid]),
                "{log:?}"
            );
            assert!(
                has_argv(
                    log,
                    "xcrun",
                    &[
                        "simctl",
                        "openurl",
                        udid,
                        "https://example.com/?a=1&b=$(id)"
                    ]
                ),
                "{log:?}"
            );
        });
        mac.assert_launched(SAFARI).await;
        let e = mcp
            .call(
                "mobile_press_button",
                json!({"device": dev, "button": "BACK"}),
            )
            .await;
        assert_eq!(e.is_error, Some(true));
        assert!(
            text_of(&e).contains("HOME, ENTER, DEL, LOCK, SIDE_BUTTON, SIRI, APPLE_PAY"),
            "{}",
            text_of(&e)
        );

        mcp.ok(
            "mobile_terminate_app",
            json!({"device": dev, "packageName": app}),
        )
        .await;
        mac.check_log(|log| {
            assert!(
                has_argv(log, "xcrun", &["simctl", "terminate", udid, app]),
                "{log:?}"
            )
        });
        mac.assert_terminated(app).await;
        mcp.ok("mobile_get_device_logs", json!({"device": dev, "limit": 5}))
            .await;
        let dump = mcp.ok("mobile_ui_dump", json!({"device": dev})).await;
        let dump: Value = serde_json::from_str(&dump)
            .unwrap_or_else(|e| panic!("the dump is idb's JSON ({e}): {dump}"));
        assert!(dump.as_array().is_some_and(|a| !a.is_empty()), "{dump}");

        // Install from an .app folder (when there is one to install), uninstall, refuse an .ipa.
        if let Some((path, bundle)) = &x.install {
            mcp.ok(
                "mobile_install_app",
                json!({"device": dev, "path": path.display().to_string()}),
            )
            .await;
            mac.check_log(|log| {
                assert!(
                    log.iter()
                        .any(|c| c.argv.get(1).map(String::as_str) == Some("install")),
                    "{log:?}"
                )
            });
            mac.assert_installed(bundle, true).await;
            mcp.ok(
                "mobile_uninstall_app",
                json!({"device": dev, "bundle_id": bundle}),
            )
            .await;
            mac.assert_installed(bundle, false).await;
        }
        let ipa = work.path().join("x.ipa");
        std::fs::write(&ipa, b"PK").unwrap();
        let r = mcp
            .call(
                "mobile_install_app",
                json!({"device": dev, "path": ipa.display().to_string()}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).contains(".ipa"), "{}", text_of(&r));

        // Clear messages: bad bundle id, not booted, not installed.
        mac.clear_log();
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": dev, "packageName": "com.x;rm -rf ~"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).contains("not a valid app id"));
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": dev, "packageName": "-rf"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        mac.check_log(|log| assert!(log.is_empty(), "nothing ran for invalid ids: {log:?}"));
        if let Some(off) = &x.shutdown_udid {
            let r = mcp
                .call(
                    "mobile_launch_app",
                    json!({"device": off, "packageName": app}),
                )
                .await;
            assert_eq!(r.is_error, Some(true));
            assert!(
                text_of(&r).to_lowercase().contains("boot"),
                "{}",
                text_of(&r)
            );
        }
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": dev, "packageName": "com.example.missing"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        assert!(
            text_of(&r).to_lowercase().contains("not installed"),
            "{}",
            text_of(&r)
        );
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_simulator_app_lists_as_tokens_and_launches_from_the_token() {
    let mac = Mac::from_env().await;
    let x = mac.expect();
    tokio::time::timeout(x.deadline, async {
        let mut env = mac.env();
        env.push(("MCP_MODEL_PAYLOAD_FILTER".into(), "1".into()));
        let (args, no_adb) = mac.without_android();
        env.extend(no_adb);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mcp = McpChild::spawn(crate::SERVER, &args, &env).await;
        let filter = mcp_payload_filter::Filter::global();
        let r = mcp
            .call("mobile_list_apps", json!({"device": x.udid}))
            .await;
        assert!(!filter.contains_term(&serde_json::to_string(&r).unwrap()));
        let apps: Value = r.structured_content.unwrap()["apps"].clone();
        let app = x.filtered_app.as_deref().unwrap_or(&x.app);
        let listed = apps
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a["packageName"].as_str())
            .find(|p| filter.decode_str(p) == app)
            .unwrap_or_else(|| panic!("{app} not listed: {apps}"))
            .to_string();
        // An id holding a filtered term is listed as a token, and only then.
        assert_eq!(
            listed.contains("__mcp_ref_"),
            filter.contains_term(app),
            "{app} listed as {listed}"
        );
        mcp.ok(
            "mobile_launch_app",
            json!({"device": x.udid, "packageName": listed}),
        )
        .await;
        mac.check_log(|log| {
            assert!(
                has_argv(log, "xcrun", &["simctl", "launch", &x.udid, app]),
                "{log:?}"
            )
        });
        mac.assert_launched(app).await;
    })
    .await
    .expect("the test finished within its deadline");
}
