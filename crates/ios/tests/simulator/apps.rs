//! Apps: listing, launching (with a locale), terminating, installing a bundle or a zip,
//! uninstalling, opening URLs; hostile bundle ids never reach simctl.

use std::path::{Path, PathBuf};

use fake_xcode::{NOTES_BUNDLE, NOTES_NAME};
use mobile_device::{AppId, DeviceError, DeviceUrl, LaunchOptions, Locales, NextStep};

use crate::{Harness, U, app, real, run};

/// The package a test installs: the file opened, or the folder by its path (the server
/// opens or copies it when it checks the path; these tests drive the backend directly).
fn package(path: &std::path::Path) -> mobile_device::AppPackage {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let content = if path.is_file() {
        mobile_device::PackageContent::File(std::fs::File::open(path).unwrap())
    } else {
        mobile_device::PackageContent::Folder(path.to_path_buf())
    };
    mobile_device::AppPackage { name, content }
}

#[test]
fn list_apps_keeps_names_with_quotes_braces_and_cjk() {
    // real-capable
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        let apps = dev.list_apps().await.unwrap();
        assert!(!apps.is_empty());
        if real() {
            assert!(
                apps.iter()
                    .any(|a| a.package_name == "com.apple.Preferences")
            );
            return;
        }
        let qwen = apps
            .iter()
            .find(|a| a.package_name == "com.alibaba.qwen")
            .unwrap();
        assert_eq!(qwen.app_name, "Qwen");
        let notes = apps
            .iter()
            .find(|a| a.package_name == NOTES_BUNDLE)
            .unwrap();
        assert_eq!(notes.app_name, NOTES_NAME);
        let settings = apps
            .iter()
            .find(|a| a.package_name == "com.apple.Preferences")
            .unwrap();
        assert_eq!(settings.app_name, "Settings");
        h.assert_calls(&[("xcrun", &["simctl", "listapps", U])]);
    });
}

#[test]
fn launch_with_locale_foreground_and_terminate() {
    // real-capable (uses Settings)
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let settings = app("com.apple.Preferences");
        h.clear_log();
        dev.launch_app(
            &settings,
            &LaunchOptions::in_locales(Some(Locales::parse("de-CH, en").unwrap())),
        )
        .await
        .unwrap();
        h.assert_calls(&[(
            "xcrun",
            &[
                "simctl",
                "launch",
                "--terminate-running-process",
                U,
                "com.apple.Preferences",
                "-AppleLanguages",
                "(de-CH, en)",
                "-AppleLocale",
                "de_CH",
            ],
        )]);
        if !real() {
            let sim = h.sim();
            assert_eq!(sim.foreground.as_deref(), Some("com.apple.Preferences"));
            assert!(sim.running.contains_key("com.apple.Preferences"));
        }
        let fg = dev.foreground_app().await.unwrap();
        assert_eq!(fg.package_name, "com.apple.Preferences");
        h.clear_log();
        dev.terminate_app(&settings).await.unwrap();
        // Terminating an app that is not running is not an error.
        dev.terminate_app(&settings).await.unwrap();
        h.assert_calls(&[
            (
                "xcrun",
                &["simctl", "terminate", U, "com.apple.Preferences"],
            ),
            (
                "xcrun",
                &["simctl", "terminate", U, "com.apple.Preferences"],
            ),
        ]);
        if !real() {
            assert!(h.sim().running.is_empty());
        }
    });
}

#[test]
fn uninstalling_or_clearing_a_missing_app_says_so_and_touches_nothing() {
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        let missing = app("com.example.missing");
        let e = dev.uninstall_app(&missing).await.unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("com.example.missing") && msg.contains("not installed"),
            "{msg}"
        );
        let clear = LaunchOptions {
            clear_state: true,
            ..Default::default()
        };
        let e = dev.launch_app(&missing, &clear).await.unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("no data to clear"), "{msg}");
        for e in [
            dev.uninstall_app(&missing).await.unwrap_err(),
            dev.launch_app(&missing, &clear).await.unwrap_err(),
        ] {
            assert!(
                matches!(
                    e,
                    DeviceError::NotFound {
                        next: Some(NextStep::ListApps),
                        ..
                    }
                ),
                "{e:?}"
            );
        }
        if !real() {
            // Only the app list was read: nothing uninstalled, launched or terminated.
            let changed: Vec<String> = h
                .commands()
                .iter()
                .map(|c| c.argv.join(" "))
                .filter(|c| !c.contains("listapps"))
                .collect();
            assert!(changed.is_empty(), "{changed:?}");
        }
    });
}

#[test]
fn launching_a_missing_app_says_so() {
    // real-capable
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let e = dev
            .launch_app(&app("com.example.missing"), &LaunchOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::NotFound { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("com.example.missing"), "{msg}");
        assert!(msg.contains("not installed"), "{msg}");
        assert!(
            matches!(
                e,
                DeviceError::NotFound {
                    next: Some(NextStep::ListApps),
                    ..
                }
            ),
            "{e:?}"
        );
    });
}

#[test]
fn hostile_bundle_ids_never_reach_simctl() {
    run(async {
        for bad in [
            "com.x;reboot",
            "com.x$(id)",
            "com.x `id`",
            "com.x\nid",
            "com.x&&y",
            "a/../b",
            // A leading dash would read as an option.
            "-rf",
        ] {
            assert!(AppId::parse(bad).is_err(), "{bad:?} must be rejected");
        }
        if real() {
            return;
        }
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        // Valid as an Android package name, not as an iOS bundle id.
        let e = dev
            .launch_app(&app("com.example.my_app"), &LaunchOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::InvalidInput(_)), "{e:?}");
        assert!(e.to_string().contains("bundle id"), "{e}");
        assert!(
            h.commands().is_empty(),
            "nothing may run: {:?}",
            h.commands()
        );
    });
}

pub(crate) fn make_app_bundle(dir: &Path, name: &str, bundle_id: &str, display: &str) -> PathBuf {
    let app = dir.join(format!("{name}.app"));
    std::fs::create_dir_all(&app).unwrap();
    let mut info = plist::Dictionary::new();
    info.insert("CFBundleIdentifier".into(), bundle_id.into());
    info.insert("CFBundleName".into(), name.into());
    info.insert("CFBundleDisplayName".into(), display.into());
    info.insert("CFBundleExecutable".into(), name.into());
    plist::Value::Dictionary(info)
        .to_file_xml(app.join("Info.plist"))
        .unwrap();
    std::fs::write(app.join(name), b"\xcf\xfa\xed\xfe").unwrap();
    app
}

#[test]
fn install_app_dir_zip_and_uninstall() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let work = tempfile::tempdir().unwrap();
        let app_dir = make_app_bundle(work.path(), "Demo", "com.example.demo", "Demo App");
        h.clear_log();
        dev.install_app(package(&app_dir), None).await.unwrap();
        h.assert_calls(&[(
            "xcrun",
            &["simctl", "install", U, app_dir.to_str().unwrap()],
        )]);
        let apps = dev.list_apps().await.unwrap();
        assert!(
            apps.iter()
                .any(|a| a.package_name == "com.example.demo" && a.app_name == "Demo App")
        );

        // A zip holding Payload/Zipped.app.
        let src = tempfile::tempdir().unwrap();
        let zapp = make_app_bundle(src.path(), "Zipped", "com.example.zipped", "Zipped");
        let zip_path = work.path().join("Zipped.zip");
        {
            let f = std::fs::File::create(&zip_path).unwrap();
            let mut z = zip::ZipWriter::new(f);
            let opts: zip::write::SimpleFileOptions = Default::default();
            z.add_directory("Payload/Zipped.app/", opts).unwrap();
            for entry in std::fs::read_dir(&zapp).unwrap() {
                let p = entry.unwrap().path();
                let name = format!(
                    "Payload/Zipped.app/{}",
                    p.file_name().unwrap().to_str().unwrap()
                );
                z.start_file(name, opts).unwrap();
                std::io::Write::write_all(&mut z, &std::fs::read(&p).unwrap()).unwrap();
            }
            z.finish().unwrap();
        }
        h.clear_log();
        dev.install_app(package(&zip_path), None).await.unwrap();
        let calls = h.commands();
        assert_eq!(calls.len(), 1);
        assert_eq!(&calls[0].argv[..3], &["simctl", "install", U]);
        assert!(
            calls[0].argv[3].ends_with("/Payload/Zipped.app"),
            "{:?}",
            calls[0].argv
        );
        assert!(
            h.sim()
                .apps
                .iter()
                .any(|a| a.bundle_id == "com.example.zipped")
        );
        h.clear_log();

        // An .ipa is a device build: refused before simctl runs.
        let ipa = work.path().join("Device.ipa");
        std::fs::write(&ipa, b"PK\x03\x04").unwrap();
        let e = dev
            .install_app(package(&ipa), None)
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains(".ipa") && e.contains("simulator"), "{e}");
        let e = dev
            .install_app(package(&work.path().join("missing.app")), None)
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("was not found"), "{e}");
        assert!(h.commands().is_empty());

        dev.uninstall_app(&app("com.example.demo")).await.unwrap();
        h.assert_calls(&[
            ("xcrun", &["simctl", "listapps", U]),
            ("xcrun", &["simctl", "uninstall", U, "com.example.demo"]),
        ]);
        assert!(
            !h.sim()
                .apps
                .iter()
                .any(|a| a.bundle_id == "com.example.demo")
        );
        let e = dev
            .uninstall_app(&app("com.example.demo"))
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::NotFound { .. }), "{e:?}");
        assert!(e.to_string().contains("not installed"));
    });
}

#[test]
fn open_url_and_a_scheme_nobody_handles() {
    // real-capable
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        let url = DeviceUrl::parse("https://example.com/a?b=1&c=$(id)").unwrap();
        dev.open_url(&url).await.unwrap();
        h.assert_calls(&[(
            "xcrun",
            &["simctl", "openurl", U, "https://example.com/a?b=1&c=$(id)"],
        )]);
        if !real() {
            let sim = h.sim();
            assert_eq!(sim.opened_urls, vec!["https://example.com/a?b=1&c=$(id)"]);
            assert_eq!(sim.foreground.as_deref(), Some("com.apple.mobilesafari"));
            // A custom scheme waits behind "Open in “Qwen”?": not a success.
            let e = dev
                .open_url(&DeviceUrl::parse("qwen://chat").unwrap())
                .await
                .unwrap_err();
            let m = e.to_string();
            assert!(
                m.contains("is asking “Open in “Qwen”?” before opening qwen://chat"),
                "{m}"
            );
            let sim = h.sim();
            assert_eq!(sim.foreground.as_deref(), Some("com.apple.mobilesafari"));
            let open = sim
                .visible()
                .into_iter()
                .find(|e| e.label.as_deref() == Some("Open"))
                .unwrap();
            let (x, y) = (
                (open.x + open.width / 2.0).round(),
                (open.y + open.height / 2.0).round(),
            );
            assert!(
                m.contains(&format!("Tap its Open button at ({x}, {y})")),
                "{m}"
            );
            dev.tap(mobile_device::Point::new(x as i32, y as i32))
                .await
                .unwrap();
            assert_eq!(h.sim().foreground.as_deref(), Some("com.alibaba.qwen"));
            assert_eq!(
                h.sim().opened_urls.last().map(String::as_str),
                Some("qwen://chat")
            );
        }
        let e = dev
            .open_url(&DeviceUrl::parse("zzzz://nothing").unwrap())
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("can open zzzz://nothing"), "{e}");
    });
}
