//! Discovery, and the failures every call can meet: no xcrun, a shut-down simulator,
//! no idb, a hung tool.

use std::sync::Arc;
use std::time::Duration;

use fake_xcode::{self as fake, BOOTED_UDID, SHUTDOWN_UDID, UNAVAILABLE_UDID};
use mobile_device::{
    Button, DeviceBackend, DeviceError, DeviceRegistry, DeviceState, LaunchOptions, LogQuery,
    Orientation, Point,
};
use mobile_ios::{IosBackend, IosConfig};

use crate::{Harness, app, fake_bins, real, run};

#[test]
fn discovery_lists_booted_shutdown_and_unavailable_with_hints() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let d = h.backend.discover().await;
        assert_eq!(h.backend.name(), "ios-simulator");
        assert!(d.notes.is_empty(), "{:?}", d.notes);
        assert_eq!(d.devices.len(), 3);
        let phone = d.devices.iter().find(|d| d.id == BOOTED_UDID).unwrap();
        assert_eq!(phone.name, "iPhone 16 Pro");
        assert_eq!(phone.version.as_deref(), Some("18.5"));
        assert_eq!(phone.state, DeviceState::Online);
        assert_eq!(phone.model.as_deref(), Some("iPhone 16 Pro"));
        assert_eq!(phone.hint, None);
        let ipad = d.devices.iter().find(|d| d.id == SHUTDOWN_UDID).unwrap();
        assert_eq!(ipad.state, DeviceState::Shutdown);
        assert!(
            ipad.hint
                .as_deref()
                .unwrap()
                .contains(&format!("xcrun simctl boot {SHUTDOWN_UDID}"))
        );
        let old = d.devices.iter().find(|d| d.id == UNAVAILABLE_UDID).unwrap();
        assert_eq!(old.state, DeviceState::Other("unavailable".into()));
        assert!(
            old.hint
                .as_deref()
                .unwrap()
                .contains("runtime profile not found")
        );
        h.assert_calls(&[("xcrun", &["simctl", "list", "devices", "-j"])]);

        // Through the registry, a shut-down simulator is refused with the boot hint.
        let mut reg = DeviceRegistry::new();
        reg.register(Arc::new(IosBackend::new(h.backend.config().clone())));
        let e = reg.resolve(SHUTDOWN_UDID).await.err().unwrap().to_string();
        assert!(
            e.contains("is shutdown") && e.contains("xcrun simctl boot"),
            "{e}"
        );
        assert!(reg.resolve(BOOTED_UDID).await.is_ok());
    });
}

#[test]
fn missing_xcrun_is_explained() {
    run(async {
        let config = IosConfig::from_vars(
            Some("/nonexistent/xcrun".into()),
            None,
            &std::ffi::OsString::new(),
        );
        let d = IosBackend::new(config).discover().await;
        assert!(d.devices.is_empty());
        assert_eq!(d.notes.len(), 1);
        let note = &d.notes[0];
        assert!(note.contains("xcrun was not found"), "{note}");
        assert!(note.contains("/nonexistent/xcrun"), "{note}");
        assert!(note.contains("macOS with Xcode"), "{note}");
    });
}

#[test]
fn a_simulator_booted_outside_shows_up_online() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let (xcrun, _) = fake_bins();
        let boot = |udid: &str| {
            std::process::Command::new(&xcrun)
                .args(["simctl", "boot", udid])
                .env(fake::STATE_ENV, &h.state)
                .output()
                .unwrap()
        };
        assert!(boot(SHUTDOWN_UDID).status.success());
        let again = boot(SHUTDOWN_UDID);
        assert_eq!(again.status.code(), Some(149));
        assert!(
            String::from_utf8_lossy(&again.stderr)
                .contains("Unable to boot device in current state: Booted")
        );
        let d = h.backend.discover().await;
        let ipad = d.devices.iter().find(|d| d.id == SHUTDOWN_UDID).unwrap();
        assert_eq!(ipad.state, DeviceState::Online);
        assert_eq!(ipad.hint, None);
        let dev = h.backend.open(ipad).await.unwrap();
        let size = dev.screen_size().await.unwrap();
        assert_eq!((size.width, size.height, size.scale), (834, 1210, 2.0));
    });
}

#[test]
fn a_shut_down_simulator_says_how_to_boot_it() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let found = h.backend.discover().await;
        let info = found
            .devices
            .iter()
            .find(|d| d.id == SHUTDOWN_UDID)
            .unwrap();
        // Opened directly (the registry refuses it): every call explains.
        let dev = h.backend.open(info).await.unwrap();
        let e = dev
            .launch_app(&app("com.apple.Preferences"), &LaunchOptions::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("Simulator {SHUTDOWN_UDID} is not booted")),
            "{e}"
        );
        assert!(
            e.contains(&format!("xcrun simctl boot {SHUTDOWN_UDID}")),
            "{e}"
        );
        let e = dev
            .screenshot(&mobile_device::ScreenshotOptions::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not booted"), "{e}");
        let e = dev
            .logs(&LogQuery::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not booted"), "{e}");
        let e = dev.tap(Point::new(1, 1)).await.unwrap_err().to_string();
        assert!(e.contains("idb_companion") && e.contains("booted"), "{e}");
    });
}

#[test]
fn without_idb_ui_tools_say_how_to_install_it() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::with_idb(false);
        let found = h.backend.discover().await;
        assert!(
            found.notes.iter().any(|n| n.contains("idb was not found")),
            "{:?}",
            found.notes
        );
        let dev = h.device().await;
        for e in [
            dev.tap(Point::new(1, 1)).await.unwrap_err(),
            dev.list_elements().await.unwrap_err(),
            dev.type_text("x").await.unwrap_err(),
            dev.press_button(Button::Home).await.unwrap_err(),
            dev.set_orientation(Orientation::Landscape)
                .await
                .unwrap_err(),
        ] {
            assert!(matches!(e, DeviceError::Unsupported { .. }), "{e:?}");
            let m = e.to_string();
            assert!(
                m.contains("brew install facebook/fb/idb-companion")
                    && m.contains("pip install fb-idb"),
                "{m}"
            );
        }
        // simctl-only tools still work, and the scale comes from the model.
        let size = dev.screen_size().await.unwrap();
        assert_eq!((size.width, size.height, size.scale), (402, 874, 3.0));
    });
}

#[test]
fn a_hung_tool_hits_the_deadline() {
    run(async {
        let dir = tempfile::tempdir().unwrap();
        let hung = dir.path().join("xcrun");
        std::fs::write(&hung, "#!/bin/sh\nexec sleep 30\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hung, std::fs::Permissions::from_mode(0o755)).unwrap();
        let backend =
            IosBackend::new(IosConfig::with_tools(&hung, None).timeout(Duration::from_millis(300)));
        let started = std::time::Instant::now();
        let d = backend.discover().await;
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(d.devices.is_empty());
        assert!(
            d.notes.iter().any(|n| n.contains("timed out after 300 ms")),
            "{:?}",
            d.notes
        );
    });
}

#[test]
fn a_hung_tool_is_killed_when_the_caller_gives_up() {
    run(async {
        // Lists the real fixture's simulators, and hangs on anything else.
        let dir = tempfile::tempdir().unwrap();
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/ios/list-devices-xcode16-recon.json"
        );
        let pids = dir.path().join("pids");
        let hung = dir.path().join("xcrun");
        std::fs::write(
            &hung,
            format!(
                "#!/bin/sh\nif [ \"$1 $2\" = \"simctl list\" ]; then cat '{fixture}'; exit 0; fi\necho $$ >> '{}'\nexec sleep 30\n",
                pids.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hung, std::fs::Permissions::from_mode(0o755)).unwrap();
        let backend = IosBackend::new(IosConfig::with_tools(&hung, None));
        let found = backend.discover().await;
        let info = found
            .devices
            .iter()
            .find(|d| d.state == DeviceState::Online)
            .expect("a booted simulator in the fixture");
        let d = backend.open(info).await.unwrap();
        // The server's deadline (or a cancelled call) drops the call's future.
        let hangs = app("com.example.hangs");
        let plain = LaunchOptions::default();
        let call = d.launch_app(&hangs, &plain);
        assert!(
            tokio::time::timeout(Duration::from_millis(500), call)
                .await
                .is_err()
        );
        let pid = std::fs::read_to_string(&pids).expect("the tool ran");
        let pid: i32 = pid.trim().parse().unwrap();
        let gone = (0..40).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            // SAFETY: signal 0 only asks whether the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0;
            !alive
        });
        assert!(gone, "the hung tool (pid {pid}) was left running");
    });
}
