//! End to end: what the tools that write files on this machine do to files already
//! there, and what a tap outside the screen does. The built binary, the real adb server
//! and the virtual phone; the files and the phone's input log are checked, not only the
//! server's text.

use std::time::Duration;

use serde_json::json;
use test_support::{McpChild, text_of};
use virtual_phone::PhoneHandle;
use virtual_phone::adb_server::PrivateAdbServer;

const DEADLINE: Duration = Duration::from_secs(240);

struct Rig {
    mcp: McpChild,
    phone: PhoneHandle,
    serial: String,
    _adb: PrivateAdbServer,
}

async fn rig(args: &[&str]) -> Rig {
    let s = crate::phone_rig::start(crate::phone_rig::Setup {
        args,
        ..Default::default()
    })
    .await;
    let serial = s.phone.serial();
    Rig {
        mcp: s.mcp,
        phone: s.phone,
        serial,
        _adb: s.adb,
    }
}

fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap()
}

/// Names in a folder, the hidden temporary files included.
fn names(dir: &std::path::Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_pull_keeps_the_file_that_was_there() {
    tokio::time::timeout(DEADLINE, async {
        let Rig { mcp, serial, phone: _phone, _adb } = rig(&[]).await;
        let tmp = tempdir();
        let local = tmp.path().join("keep.txt");
        std::fs::write(&local, b"the user's bytes").unwrap();
        let r = mcp
            .call(
                "mobile_adb_pull",
                json!({"device": serial, "remote_path": "/sdcard/no/such/file", "local_path": local.display().to_string(), "overwrite": true}),
            )
            .await;
        assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
        assert_eq!(std::fs::read(&local).unwrap(), b"the user's bytes");
        assert_eq!(names(tmp.path()), ["keep.txt"], "no temporary file is left");
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn existing_files_are_replaced_only_with_overwrite() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            serial,
            phone: _phone,
            _adb,
        } = rig(&[]).await;
        let tmp = tempdir();
        let p = |n: &str| tmp.path().join(n).display().to_string();
        let old = b"old bytes".to_vec();
        for n in ["shot.png", "dump.xml", "logs.txt", "down.bin", "rec.mp4"] {
            std::fs::write(p(n), &old).unwrap();
        }
        std::fs::write(p("up.bin"), b"new from the phone").unwrap();
        mcp.ok(
            "mobile_adb_push",
            json!({"device": serial, "local_path": p("up.bin"), "remote_path": "/sdcard/up.bin"}),
        )
        .await;
        let writers = [
            (
                "mobile_save_screenshot",
                json!({"saveTo": p("shot.png")}),
                "shot.png",
            ),
            (
                "mobile_ui_dump",
                json!({"output_path": p("dump.xml")}),
                "dump.xml",
            ),
            (
                "mobile_get_device_logs",
                json!({"saveTo": p("logs.txt")}),
                "logs.txt",
            ),
            (
                "mobile_adb_pull",
                json!({"remote_path": "/sdcard/up.bin", "local_path": p("down.bin")}),
                "down.bin",
            ),
            (
                "mobile_start_screen_recording",
                json!({"output": p("rec.mp4"), "timeLimit": 5}),
                "rec.mp4",
            ),
        ];
        for (tool, args, file) in &writers {
            let mut args = args.clone();
            args["device"] = json!(serial);
            let r = mcp.call(tool, args.clone()).await;
            let t = text_of(&r);
            assert_eq!(
                r.is_error,
                Some(true),
                "{tool} replaced {file} without overwrite: {t}"
            );
            assert!(
                t.contains(file) && t.contains("overwrite: true"),
                "{tool}: {t}"
            );
            assert_eq!(
                std::fs::read(p(file)).unwrap(),
                old,
                "{tool} touched {file}"
            );
            args["overwrite"] = json!(true);
            mcp.ok(tool, args).await;
            if *tool == "mobile_start_screen_recording" {
                tokio::time::sleep(Duration::from_millis(300)).await;
                mcp.ok("mobile_stop_screen_recording", json!({"device": serial}))
                    .await;
            }
            assert_ne!(
                std::fs::read(p(file)).unwrap(),
                old,
                "{tool} with overwrite did not replace {file}"
            );
        }
        assert_eq!(std::fs::read(p("down.bin")).unwrap(), b"new from the phone");
        assert!(image::open(p("shot.png")).is_ok());
        // A new file needs no overwrite, and no temporary file is left anywhere.
        mcp.ok(
            "mobile_save_screenshot",
            json!({"device": serial, "saveTo": p("new.jpg")}),
        )
        .await;
        assert_eq!(
            names(tmp.path()),
            [
                "down.bin", "dump.xml", "logs.txt", "new.jpg", "rec.mp4", "shot.png", "up.bin"
            ]
        );
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_server_writes_no_local_file() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            serial,
            phone: _phone,
            _adb,
        } = rig(&["--read-only"]).await;
        let tmp = tempdir();
        let p = |n: &str| tmp.path().join(n).display().to_string();
        for (tool, args) in [
            (
                "mobile_ui_dump",
                json!({"device": serial, "output_path": p("dump.xml")}),
            ),
            (
                "mobile_get_device_logs",
                json!({"device": serial, "saveTo": p("logs.txt")}),
            ),
            (
                "mobile_save_screenshot",
                json!({"device": serial, "saveTo": p("shot.png")}),
            ),
            (
                "mobile_adb_pull",
                json!({"device": serial, "remote_path": "/sdcard/x", "local_path": p("x")}),
            ),
            (
                "mobile_start_screen_recording",
                json!({"device": serial, "output": p("r.mp4")}),
            ),
        ] {
            let r = mcp.call(tool, args).await;
            let t = text_of(&r);
            assert_eq!(r.is_error, Some(true), "{tool}: {t}");
            assert!(t.contains("--read-only"), "{tool}: {t}");
        }
        assert!(names(tmp.path()).is_empty(), "{:?}", names(tmp.path()));
        // The reads still work, answered in the reply.
        let xml = mcp.ok("mobile_ui_dump", json!({"device": serial})).await;
        assert!(xml.contains("<hierarchy"), "{xml}");
        let tools = mcp.client.list_all_tools().await.unwrap();
        let dump = tools
            .iter()
            .find(|t| t.name == "mobile_ui_dump")
            .expect("ui_dump listed");
        assert!(dump.input_schema["properties"].get("output_path").is_none());
        assert_eq!(
            dump.annotations.as_ref().unwrap().read_only_hint,
            Some(true)
        );
    })
    .await
    .expect("the test finished within its deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taps_outside_the_screen_are_refused_with_its_size() {
    tokio::time::timeout(DEADLINE, async {
        let Rig {
            mcp,
            phone,
            serial,
            _adb,
        } = rig(&[]).await;
        phone.update_state(|s| s.input_events.clear());
        for (tool, args) in [
            (
                "mobile_click_on_screen_at_coordinates",
                json!({"device": serial, "x": 99999, "y": 5}),
            ),
            (
                "mobile_double_tap_on_screen",
                json!({"device": serial, "x": 5, "y": 99999}),
            ),
            (
                "mobile_long_press_on_screen_at_coordinates",
                json!({"device": serial, "x": 2000, "y": 2000}),
            ),
        ] {
            let r = mcp.call(tool, args.clone()).await;
            let t = text_of(&r);
            assert_eq!(r.is_error, Some(true), "{tool} {args}: {t}");
            assert!(
                t.contains("outside the screen") && t.contains("1080x2400"),
                "{tool}: {t}"
            );
        }
        assert!(
            phone.state().input_events.is_empty(),
            "{:?}",
            phone.state().input_events
        );
        // A point inside the screen only when it is turned sideways is checked against the
        // screen as it is now (upright here): refused, nothing sent (issue #26, item 12).
        let r = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": serial, "x": 2300, "y": 1000}),
            )
            .await;
        assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
        assert!(phone.state().input_events.is_empty());
        mcp.ok(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": serial, "x": 1000, "y": 2300}),
        )
        .await;
        assert_eq!(phone.state().input_events.len(), 1);
    })
    .await
    .expect("the test finished within its deadline");
}
