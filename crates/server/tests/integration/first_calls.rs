//! End to end: no surprises in a new user's first calls (issue #30). The built binary
//! against the real adb server and the virtual phone (or `--demo`); what the phone
//! received and its state afterwards are checked, not only the server's text.

use std::time::Duration;

use serde_json::json;
use test_support::{McpChild, text_of};
use virtual_phone::state::InputEvent;

const DEADLINE: Duration = Duration::from_secs(240);

/// Runs the binary with `args` and no client; it must stop by itself. Its exit status
/// and stderr.
fn run_to_exit(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = std::process::Command::new(crate::SERVER)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the server");
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            return (status, err);
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server with {args:?} kept running");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_tool_list_naming_no_tool_stops_the_server() {
    let (status, err) = run_to_exit(&["--deny-tools", "mobile_launch_ap,mobile_list_apps"]);
    assert!(
        !status.success(),
        "a deny list with a typo must not start: {err}"
    );
    assert!(
        err.contains("--deny-tools: no tool is named \"mobile_launch_ap\""),
        "{err}"
    );
    assert!(err.contains("did you mean mobile_launch_app?"), "{err}");
    assert!(
        !err.contains("\"mobile_list_apps\""),
        "a real tool is not named: {err}"
    );
    let (status, err) = run_to_exit(&["--allow-tools", "mobile_list_apps,take_screenshot"]);
    assert!(!status.success(), "{err}");
    assert!(
        err.contains("--allow-tools: no tool is named \"take_screenshot\""),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_adb_server_the_error_says_so_and_how_it_was_looked_for() {
    tokio::time::timeout(DEADLINE, async {
        // A loopback port nothing listens on, and no adb binary to start a server with.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = format!("127.0.0.1:{port}");
        let mcp = McpChild::spawn(
            crate::SERVER,
            &["--adb-server", &server],
            &[
                ("PATH".into(), "/nonexistent".into()),
                ("ANDROID_HOME".into(), "/nonexistent".into()),
            ],
        )
        .await;
        for (tool, args) in [
            ("mobile_list_apps", json!({"device": "emulator-5554"})),
            ("mobile_list_apps", json!({})),
        ] {
            let r = mcp.call(tool, args.clone()).await;
            let t = text_of(&r);
            assert_eq!(r.is_error, Some(true), "{args}: {t}");
            assert!(!t.contains("No devices are connected"), "{args}: {t}");
            assert!(
                t.contains(&format!("no adb server answered at {server}")),
                "{args}: {t}"
            );
            assert!(t.contains("no adb binary was found"), "{args}: {t}");
        }
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_phone_keeps_its_id_and_device_may_be_left_out() {
    tokio::time::timeout(DEADLINE, async {
        let mut ids = Vec::new();
        for _ in 0..2 {
            let mcp = McpChild::spawn(
                crate::SERVER,
                &["--demo"],
                &[("PATH".into(), "/nonexistent".into())],
            )
            .await;
            let r = mcp.call("mobile_list_available_devices", json!({})).await;
            let devices = r.structured_content.clone().unwrap()["devices"].clone();
            ids.push(devices[0]["id"].as_str().unwrap().to_string());
            // No device given: the one there is is used, and named.
            let r = mcp.call("mobile_get_screen_size", json!({})).await;
            let t = text_of(&r);
            assert_ne!(r.is_error, Some(true), "{t}");
            assert!(t.contains("Screen size is 1080x2400"), "{t}");
            assert!(
                t.contains(&format!("Device: {}", ids.last().unwrap())),
                "{t}"
            );
        }
        assert_eq!(ids[0], ids[1], "the same id on every start");
        assert_eq!(ids[0], "virtual-pixel-7");
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_calls_on_one_phone_hold_no_surprises() {
    tokio::time::timeout(DEADLINE, async {
        let s = crate::phone_rig::start(crate::phone_rig::Setup::default()).await;
        let (mcp, phone) = (&s.mcp, &s.phone);
        let serial = phone.serial();
        crate::phone_rig::wait_online(mcp, &serial).await;

        // `device` left out with one phone connected: the press reaches it, the result says which.
        phone.update_state(|st| st.input_events.clear());
        let r = mcp
            .call(
                "mobile_press_button",
                json!({"button": "HOME", "observe": "none"}),
            )
            .await;
        let t = text_of(&r);
        assert_ne!(r.is_error, Some(true), "{t}");
        assert!(t.contains(&format!("Device: {serial}")), "{t}");
        let ev = phone.state().input_events;
        assert!(
            matches!(ev.as_slice(), [InputEvent::Key { code: 3, .. }]),
            "{ev:?}"
        );

        // A swipe that starts off the screen is refused like a tap; nothing is sent.
        phone.update_state(|st| st.input_events.clear());
        let r = mcp
            .call(
                "mobile_swipe_on_screen",
                json!({"device": serial, "direction": "up", "x": 5000, "y": 5000}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(
            t.contains("outside the screen") && t.contains("1080x2400"),
            "{t}"
        );
        assert!(
            phone.state().input_events.is_empty(),
            "{:?}",
            phone.state().input_events
        );

        // An unknown package: no monkey argument echo; a label gets the package it names.
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": "Settings"}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(
            t.contains("Did you mean com.android.settings (Settings)?"),
            "{t}"
        );
        assert!(
            !t.contains(":Monkey:") && !t.contains("AllowPackage"),
            "{t}"
        );
        let r = mcp
            .call(
                "mobile_launch_app",
                json!({"device": serial, "packageName": "com.example.nothing"}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(
            !t.contains(":Monkey:") && !t.contains("monkey aborted"),
            "{t}"
        );
        assert!(t.contains("not installed"), "{t}");

        // Terminating an app that is not installed is an error, and nothing is stopped.
        phone.clear_log();
        let r = mcp
            .call(
                "mobile_terminate_app",
                json!({"device": serial, "packageName": "com.example.nothing"}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{t}");
        assert!(!t.contains("Terminated"), "{t}");
        assert!(t.contains("com.example.nothing"), "{t}");
        let shells: Vec<String> = phone
            .shell_commands()
            .into_iter()
            .map(|c| c.command)
            .collect();
        assert!(
            !shells.iter().any(|c| c.contains("force-stop")),
            "{shells:?}"
        );
        // An installed one still stops.
        mcp.ok(
            "mobile_launch_app",
            json!({"device": serial, "packageName": "com.example.notes"}),
        )
        .await;
        let r = mcp
            .call(
                "mobile_terminate_app",
                json!({"device": serial, "packageName": "com.example.notes", "observe": "none"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(
            text_of(&r).starts_with("Terminated com.example.notes"),
            "{}",
            text_of(&r)
        );

        // Text longer than one adb request can carry is typed whole, in several commands.
        mcp.ok(
            "mobile_launch_app",
            json!({"device": serial, "packageName": "com.example.notes"}),
        )
        .await;
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": serial, "id": "new_note"}),
        )
        .await;
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": serial, "id": "title_input"}),
        )
        .await;
        let long: String = (0..70_000)
            .map(|i| (b'a' + (i % 26) as u8) as char)
            .collect();
        let r = mcp
            .call(
                "mobile_type_keys",
                json!({"device": serial, "text": long, "observe": "none"}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(phone.state().focused_text().as_deref(), Some(long.as_str()));
    })
    .await
    .expect("the test finished within its deadline");
}
