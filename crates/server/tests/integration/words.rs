//! Router tests of what the first calls read: argument errors in plain words (the
//! argument, what it must be, what was given; no serde wording, no 309-digit numbers, no
//! internal type names, no off-topic tail), `~` named as not expanded, `device` optional
//! when one device is connected, and a written file named by a path that leads to it
//! even when its real folder's name is not UTF-8.

use mobile_mcp::ServerOptions;
use serde_json::json;

use crate::router::{start, text_of};

#[tokio::test]
async fn argument_errors_are_in_plain_words() {
    let h = start(ServerOptions::default()).await;
    let big = 1e308f64.to_string();
    // (tool, arguments, what the text says, what it must not say)
    let cases = [
        (
            "mobile_take_screenshot",
            json!({"device": "double-1", "maxSize": 1e308}),
            "maxSize must be a whole number of at least 1; got 1e308",
            vec!["invalid type", "u32", "floating point", big.as_str()],
        ),
        (
            "mobile_swipe_on_screen",
            json!({"device": "double-1", "direction": "sideways"}),
            "direction must be one of up, down, left, right; got \"sideways\"",
            vec!["variant", "`"],
        ),
        (
            "mobile_take_screenshot",
            json!({"device": "double-1", "clip": 5}),
            "clip must be an element ref",
            vec!["untagged", "ClipParam", "variant"],
        ),
        (
            "mobile_drag_on_screen",
            json!({"device": "double-1", "from": true, "to": "@e1"}),
            "from and to must each be",
            vec!["untagged", "DragEnd", "variant"],
        ),
        (
            "mobile_launch_app",
            json!({"device": "double-1"}),
            "mobile_launch_app needs packageName (Package name (Android) or bundle id (iOS)",
            vec!["missing field", "needs device", "`"],
        ),
        (
            "mobile_long_press_on_screen_at_coordinates",
            json!({"device": "double-1", "x": 1, "y": 1, "duration": 1e308}),
            "got 1e308",
            vec![big.as_str()],
        ),
        (
            "mobile_save_screenshot",
            json!({"device": "double-1", "saveTo": "~/shot.png"}),
            "`~` is not expanded",
            vec!["does not exist"],
        ),
    ];
    for (tool, args, want, not) in cases {
        let r = h.call(tool, args.clone()).await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{tool} {args}: {t}");
        assert!(t.contains(want), "{tool} {args}: {t}");
        for n in not {
            assert!(!t.contains(n), "{tool} {args} says {n:?}: {t}");
        }
        assert!(t.len() < 600, "{tool} {args}: {t}");
    }
    assert!(h.calls.take().is_empty(), "nothing reached the device");
}

#[tokio::test]
async fn device_may_be_left_out_when_one_is_connected() {
    let h = start(ServerOptions::default()).await;
    let tools = h.client.list_all_tools().await.unwrap();
    let apps = tools.iter().find(|t| t.name == "mobile_list_apps").unwrap();
    let required = apps
        .input_schema
        .get("required")
        .cloned()
        .unwrap_or_default();
    assert!(
        !required.to_string().contains("device"),
        "device is not required: {required}"
    );
    let r = h.call("mobile_list_apps", json!({})).await;
    let t = text_of(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    assert!(t.contains("com.example.notes"), "{t}");
    assert!(t.contains("Device: double-1"), "{t}");
    assert_eq!(h.calls.take(), vec!["list_apps"]);
    // A batch without device runs its steps on that device.
    let r = h
        .call(
            "mobile_batch_commands",
            json!({"steps": [{"name": "mobile_press_button", "arguments": {"button": "HOME", "observe": "none"}}]}),
        )
        .await;
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    assert!(h.calls.take().contains(&"press_button HOME".to_string()));
}

#[cfg(unix)]
#[tokio::test]
async fn a_file_in_a_folder_named_in_bytes_that_are_not_utf8_is_named_by_a_usable_path() {
    use std::os::unix::ffi::OsStrExt;
    let h = start(ServerOptions::default()).await;
    let tmp = tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let odd = tmp.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    std::fs::create_dir(&odd).unwrap();
    std::os::unix::fs::symlink(&odd, tmp.path().join("link")).unwrap();
    let given = tmp.path().join("link").join("out.txt");
    let given = given.to_str().unwrap().to_string();
    let r = h
        .call(
            "mobile_adb_pull",
            json!({"device": "double-1", "remote_path": "/sdcard/x", "local_path": given}),
        )
        .await;
    let t = text_of(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    assert!(!t.contains('\u{fffd}'), "no replacement character: {t}");
    assert!(t.ends_with(&format!("to {given}")), "{t}");
    assert_eq!(std::fs::read(odd.join("out.txt")).unwrap(), b"data");
    // The path it names leads to the file.
    assert_eq!(std::fs::read(&given).unwrap(), b"data");
}

#[tokio::test]
async fn files_with_names_up_to_255_bytes_are_written() {
    let h = start(ServerOptions::default()).await;
    let tmp = tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    for len in [221usize, 240, 255] {
        // A pull (no extension rule) and a screenshot (.png), each with a name of `len` bytes.
        let pulled = format!("{}.bin", "p".repeat(len - 4));
        let shot = format!("{}.png", "s".repeat(len - 4));
        let r = h
            .call(
                "mobile_adb_pull",
                json!({"device": "double-1", "remote_path": "/sdcard/x", "local_path": tmp.path().join(&pulled)}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{len}: {}", text_of(&r));
        assert_eq!(std::fs::read(tmp.path().join(&pulled)).unwrap(), b"data");
        let r = h
            .call(
                "mobile_save_screenshot",
                json!({"device": "double-1", "saveTo": tmp.path().join(&shot), "maxSize": 32}),
            )
            .await;
        assert_ne!(r.is_error, Some(true), "{len}: {}", text_of(&r));
        let png = std::fs::read(tmp.path().join(&shot)).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{len}");
    }
    // Nothing but the six files is left in the folder.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 6);
}
