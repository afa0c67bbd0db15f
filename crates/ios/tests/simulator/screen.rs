//! The screen through idb: elements, taps, typing, swipes, buttons, screenshots, size and
//! orientation.

use std::path::Path;
use std::time::Duration;

use fake_xcode as fake;
use mobile_device::{Button, CaptureFormat, DeviceError, Orientation, Point};

use crate::{Harness, U, real, run};

#[test]
fn elements_tap_type_swipe_and_buttons() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        // The home screen: one button per app icon, as idb reports icons.
        let els = dev.list_elements().await.unwrap();
        h.assert_calls(&[("idb", &["ui", "describe-all", "--json", "--udid", U])]);
        // Refs are the server's to give (`Observations::number`), not the backend's.
        assert_eq!(els[0].reference, "");
        assert_eq!(els[0].element_type, "Application");
        let icon = els
            .iter()
            .find(|e| e.label.as_deref() == Some("Qwen"))
            .unwrap();
        assert_eq!(icon.element_type, "Button");
        let c = icon.rect.center();
        dev.tap(c).await.unwrap();
        h.assert_calls(&[(
            "idb",
            &["ui", "tap", &c.x.to_string(), &c.y.to_string(), "--udid", U],
        )]);
        assert_eq!(h.sim().foreground.as_deref(), Some("com.alibaba.qwen"));

        // Qwen's screen: the nested composer is flattened depth-first.
        let els = dev.list_elements().await.unwrap();
        let refs: Vec<_> = els.iter().map(|e| e.reference.as_str()).collect();
        assert_eq!(
            refs,
            ["", "", "", "", ""],
            "five elements, refs left to the server"
        );
        let field = els
            .iter()
            .find(|e| e.label.as_deref() == Some("Ask Qwen"))
            .unwrap();
        assert_eq!(field.identifier.as_deref(), Some("qwen.input"));
        dev.tap(field.rect.center()).await.unwrap();
        dev.type_text("hello; $(id) 世界").await.unwrap();
        dev.type_text("-5").await.unwrap();
        h.clear_log();
        let els = dev.list_elements().await.unwrap();
        let field = els
            .iter()
            .find(|e| e.label.as_deref() == Some("Ask Qwen"))
            .unwrap();
        assert_eq!(field.value.as_deref(), Some("hello; $(id) 世界-5"));
        let fg = dev.foreground_app().await.unwrap();
        assert_eq!(fg.package_name, "com.alibaba.qwen");
        h.clear_log();

        dev.type_text("ok").await.unwrap();
        dev.type_text("-x").await.unwrap();
        dev.swipe(
            Point::new(200, 700),
            Point::new(200, 300),
            Duration::from_millis(500),
        )
        .await
        .unwrap();
        dev.long_press(Point::new(10, 20), Duration::from_secs(1))
            .await
            .unwrap();
        dev.double_tap(Point::new(5, 6)).await.unwrap();
        dev.press_button(Button::Home).await.unwrap();
        dev.press_button(Button::Lock).await.unwrap();
        h.assert_calls(&[
            ("idb", &["ui", "text", "ok", "--udid", U]),
            ("idb", &["ui", "text", "--udid", U, "--", "-x"]),
            (
                "idb",
                &[
                    "ui",
                    "swipe",
                    "200",
                    "700",
                    "200",
                    "300",
                    "--duration",
                    "0.5",
                    "--udid",
                    U,
                ],
            ),
            (
                "idb",
                &["ui", "tap", "10", "20", "--duration", "1", "--udid", U],
            ),
            ("idb", &["ui", "multi-tap", "5", "6", "--udid", U]),
            ("idb", &["ui", "button", "HOME", "--udid", U]),
            ("idb", &["ui", "button", "LOCK", "--udid", U]),
        ]);
        let sim = h.sim();
        assert_eq!(sim.foreground, None);
        assert_eq!(sim.buttons, ["HOME", "LOCK"]);

        let e = dev.press_button(Button::VolumeUp).await.unwrap_err();
        assert!(matches!(e, DeviceError::Unsupported { .. }));
        let msg = e.to_string();
        assert!(
            msg.contains("VOLUME_UP")
                && msg.contains("HOME, ENTER, DEL, LOCK, SIDE_BUTTON, SIRI, APPLE_PAY"),
            "{msg}"
        );
        let e = dev.tap(Point::new(-1, 5)).await.unwrap_err();
        assert!(matches!(e, DeviceError::InvalidInput(_)));
        assert!(h.commands().is_empty());

        let raw = dev.ui_dump().await.unwrap();
        assert!(
            raw.starts_with("[{\"AXFrame\":\"{{0, 0}, {402, 874}}\""),
            "{raw}"
        );
    });
}

#[test]
fn elements_wait_out_the_empty_tree_after_a_launch() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let mut state = fake::read_state(&h.state).unwrap();
        state.simulators[0].pending_empty_trees = 2;
        state.save(&h.state).unwrap();
        h.clear_log();
        let els = dev.list_elements().await.unwrap();
        assert!(
            els.iter().any(|e| e.label.as_deref() == Some("Qwen")),
            "{els:?}"
        );
        let describe: &[&str] = &["ui", "describe-all", "--json", "--udid", U];
        h.assert_calls(&[("idb", describe), ("idb", describe), ("idb", describe)]);
    });
}

#[test]
fn screenshot_screen_size_and_orientation() {
    // real-capable (orientation change needs idb)
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        let shot = dev
            .screenshot(&mobile_device::ScreenshotOptions::default())
            .await
            .unwrap();
        assert_eq!(shot.format, CaptureFormat::Png);
        let (w, hgt) = mobile_ios::parse::png_dimensions(&shot.bytes).unwrap();
        if !real() {
            assert_eq!((w, hgt), (1206, 2622));
            let calls = h.commands();
            assert_eq!(calls.len(), 1);
            let argv = &calls[0].argv;
            assert_eq!(&argv[..5], &["simctl", "io", U, "screenshot", "--type=png"]);
            assert!(
                argv[5].ends_with("screenshot.png") && argv[5] != "-",
                "{argv:?}"
            );
            assert!(
                !Path::new(&argv[5]).exists(),
                "the temporary file is removed"
            );
        }
        let size = dev.screen_size().await.unwrap();
        assert_eq!(size.width as f64 * size.scale, w as f64);
        if !real() {
            assert_eq!((size.width, size.height, size.scale), (402, 874, 3.0));
        }
        assert_eq!(dev.orientation().await.unwrap(), Orientation::Portrait);
        h.clear_log();
        dev.set_orientation(Orientation::Landscape).await.unwrap();
        // The rotation is checked in the tree, where it shows.
        h.assert_calls(&[
            ("idb", &["ui", "rotate", "LANDSCAPE_LEFT", "--udid", U]),
            ("idb", &["ui", "describe-all", "--json", "--udid", U]),
        ]);
        assert_eq!(dev.orientation().await.unwrap(), Orientation::Landscape);
        if !real() {
            let size = dev.screen_size().await.unwrap();
            assert_eq!((size.width, size.height), (874, 402));
        }
        dev.set_orientation(Orientation::Portrait).await.unwrap();
    });
}
