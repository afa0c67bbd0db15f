//! Router tests of arguments the tools do not know and of what file errors reveal: a
//! misspelled argument is an error naming the valid ones and reaches no device (batch
//! steps too), and a refused path names the path, never the host's allowed folders.

use mobile_mcp::ServerOptions;
use serde_json::json;

use crate::router::{start, text_of};

#[tokio::test]
async fn unknown_arguments_are_refused_naming_the_valid_ones() {
    let h = start(ServerOptions::default()).await;
    let tmp = tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let file = tmp.path().join("logs.txt");
    let r = h
        .call(
            "mobile_get_device_logs",
            json!({"device": "double-1", "save_to": file.display().to_string()}),
        )
        .await;
    let t = text_of(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(t.contains("\"save_to\" (did you mean saveTo?)"), "{t}");
    assert!(
        t.contains("its arguments are device, limit, filter, saveTo, overwrite"),
        "{t}"
    );
    assert!(!file.exists());
    let r = h
        .call(
            "mobile_click_on_screen_at_coordinates",
            json!({"device": "double-1", "x": 1, "y": 1, "button": "left"}),
        )
        .await;
    assert_eq!(r.is_error, Some(true), "{}", text_of(&r));
    assert!(
        text_of(&r).contains("no argument \"button\""),
        "{}",
        text_of(&r)
    );
    let r = h
        .call("mobile_list_available_devices", json!({"device": "x"}))
        .await;
    assert!(
        text_of(&r).contains("it takes no arguments"),
        "{}",
        text_of(&r)
    );
    // A batch step gets the same check, and the batch stops before the device.
    let r = h
        .call(
            "mobile_batch_commands",
            json!({"device": "double-1", "steps": [
                {"name": "mobile_type_keys", "arguments": {"txt": "x"}},
                {"name": "mobile_press_button", "arguments": {"button": "HOME"}}
            ]}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        text_of(&r).contains("mobile_type_keys has no argument \"txt\""),
        "{}",
        text_of(&r)
    );
    assert!(h.calls.take().is_empty());
    // Listing devices in a batch still works: it is given no device argument.
    let r = h
        .call(
            "mobile_batch_commands",
            json!({"device": "double-1", "steps": [{"name": "mobile_list_available_devices"}]}),
        )
        .await;
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
}

#[tokio::test]
async fn file_errors_do_not_print_the_allowed_folders() {
    let h = start(ServerOptions::default()).await;
    let cwd = std::env::current_dir().unwrap().display().to_string();
    let tmp = std::fs::canonicalize(std::env::temp_dir())
        .unwrap()
        .display()
        .to_string();
    for (tool, args) in [
        (
            "mobile_save_screenshot",
            json!({"device": "double-1", "saveTo": "/etc/shot.png"}),
        ),
        (
            "mobile_adb_push",
            json!({"device": "double-1", "local_path": "/etc/hostname", "remote_path": "/sdcard/x"}),
        ),
        (
            "mobile_adb_pull",
            json!({"device": "double-1", "remote_path": "/sdcard/x", "local_path": "no-such-folder/x"}),
        ),
        (
            "mobile_install_app",
            json!({"device": "double-1", "path": "missing.apk"}),
        ),
    ] {
        let r = h.call(tool, args).await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{tool}: {t}");
        assert!(
            !t.contains(&cwd),
            "{tool} prints the working directory: {t}"
        );
        assert!(!t.contains(&tmp), "{tool} prints the temp directory: {t}");
    }
    let r = h
        .call(
            "mobile_save_screenshot",
            json!({"device": "double-1", "saveTo": "/etc/shot.png"}),
        )
        .await;
    assert!(
        text_of(&r).contains("\"/etc/shot.png\" is outside the allowed folders")
            && text_of(&r).contains("--files-root"),
        "{}",
        text_of(&r)
    );
    assert!(h.calls.take().is_empty());
}
