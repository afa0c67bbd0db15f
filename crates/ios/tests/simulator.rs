//! `IosBackend` end to end against the fake toolchain (`fake-xcrun`, `fake-idb` from
//! the `virtual-device` crate): every tool call is checked on what the device answered,
//! on the exact argv the fake received, and on the fake's state afterwards.
//!
//! With `MOBILE_MCP_TEST_IOS=1` (macOS with Xcode, a booted simulator, idb installed)
//! the tests marked `real-capable` run against the real `xcrun`/`idb` found by
//! `IosConfig::from_env()` instead, skipping the fake-only checks (argv log, state).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fake_xcode::{
    self as fake, BOOTED_UDID, LoggedCommand, NOTES_BUNDLE, NOTES_NAME, SHUTDOWN_UDID,
    UNAVAILABLE_UDID,
};
use mobile_device::{
    AppId, Button, CaptureFormat, Device, DeviceBackend, DeviceError, DeviceRegistry, DeviceState,
    DeviceUrl, Locales, LogFilter, LogQuery, Orientation, Point, RecordingOptions,
};
use mobile_ios::{IosBackend, IosConfig};

/// Every test body is bounded.
const TEST_DEADLINE: Duration = Duration::from_secs(120);

fn real() -> bool {
    std::env::var("MOBILE_MCP_TEST_IOS").is_ok_and(|v| v == "1")
}

/// Runs a test body under [`TEST_DEADLINE`]. Building the fakes (once per process,
/// possibly slow on a busy machine) happens before the clock starts.
fn run<F: Future<Output = ()>>(f: F) {
    if !real() {
        fake_bins();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        tokio::time::timeout(TEST_DEADLINE, f)
            .await
            .expect("test exceeded its deadline");
    });
}

/// The fake toolchain's binaries (built once per process when stale).
fn fake_bins() -> (PathBuf, PathBuf) {
    (
        test_support::cargo_bin("fake-xcode", "fake-xcrun"),
        test_support::cargo_bin("fake-xcode", "fake-idb"),
    )
}

/// A fresh fake Mac (or the real one) and a backend on it.
struct Harness {
    _dir: tempfile::TempDir,
    state: PathBuf,
    log: PathBuf,
    backend: IosBackend,
}

impl Harness {
    fn new() -> Harness {
        Self::with_idb(true)
    }

    fn with_idb(idb: bool) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state.json");
        let log = dir.path().join("commands.jsonl");
        let config = if real() {
            IosConfig::from_env()
        } else {
            fake::write_default_state(&state).unwrap();
            let (xcrun, fake_idb) = fake_bins();
            IosConfig::with_tools(xcrun, idb.then_some(fake_idb))
                .timeout(Duration::from_secs(20))
                .env(fake::STATE_ENV, &state)
                .env(fake::LOG_ENV, &log)
        };
        Harness {
            _dir: dir,
            state,
            log,
            backend: IosBackend::new(config),
        }
    }

    /// The booted simulator: the fake's iPhone, or the first booted real one.
    async fn device(&self) -> Arc<dyn Device> {
        let found = self.backend.discover().await;
        let info = found
            .devices
            .iter()
            .find(|d| d.state == DeviceState::Online && (real() || d.id == BOOTED_UDID))
            .unwrap_or_else(|| panic!("no booted simulator: {found:?}"))
            .clone();
        self.backend.open(&info).await.unwrap()
    }

    fn commands(&self) -> Vec<LoggedCommand> {
        fake::read_command_log(&self.log).unwrap()
    }

    fn clear_log(&self) {
        let _ = std::fs::remove_file(&self.log);
    }

    /// Asserts the fake received exactly these calls since the last `clear_log`.
    fn assert_calls(&self, want: &[(&str, &[&str])]) {
        if real() {
            return;
        }
        let got: Vec<(String, Vec<String>)> = self
            .commands()
            .into_iter()
            .map(|c| (c.tool, c.argv))
            .collect();
        let want: Vec<(String, Vec<String>)> = want
            .iter()
            .map(|(t, a)| (t.to_string(), a.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(got, want);
        self.clear_log();
    }

    fn sim(&self) -> fake::Simulator {
        fake::read_state(&self.state)
            .unwrap()
            .simulator(BOOTED_UDID)
            .unwrap()
            .clone()
    }
}

fn app(id: &str) -> AppId {
    AppId::parse(id).unwrap()
}

const U: &str = BOOTED_UDID;

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
        dev.launch_app(&settings, Some(&Locales::parse("de-CH, en").unwrap()))
            .await
            .unwrap();
        h.assert_calls(&[(
            "xcrun",
            &[
                "simctl",
                "launch",
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
fn launching_a_missing_app_says_so() {
    // real-capable
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let e = dev
            .launch_app(&app("com.example.missing"), None)
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::NotFound { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("com.example.missing"), "{msg}");
        assert!(msg.contains("not installed"), "{msg}");
        assert!(msg.contains("mobile_list_apps"), "{msg}");
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
            .launch_app(&app("com.example.my_app"), None)
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

fn make_app_bundle(dir: &Path, name: &str, bundle_id: &str, display: &str) -> PathBuf {
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
        dev.install_app(&app_dir, None).await.unwrap();
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
        dev.install_app(&zip_path, None).await.unwrap();
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
        let e = dev.install_app(&ipa, None).await.unwrap_err().to_string();
        assert!(e.contains(".ipa") && e.contains("simulator"), "{e}");
        let e = dev
            .install_app(&work.path().join("missing.app"), None)
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
            dev.open_url(&DeviceUrl::parse("qwen://chat").unwrap())
                .await
                .unwrap();
            assert_eq!(h.sim().foreground.as_deref(), Some("com.alibaba.qwen"));
        }
        let e = dev
            .open_url(&DeviceUrl::parse("zzzz://nothing").unwrap())
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("can open zzzz://nothing"), "{e}");
    });
}

#[test]
fn elements_tap_type_swipe_and_buttons() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        // The home screen: one icon per app.
        let els = dev.list_elements().await.unwrap();
        h.assert_calls(&[("idb", &["ui", "describe-all", "--json", "--udid", U])]);
        assert_eq!(els[0].reference, "@e1");
        assert_eq!(els[0].element_type, "Application");
        let icon = els
            .iter()
            .find(|e| e.label.as_deref() == Some("Qwen"))
            .unwrap();
        assert_eq!(icon.element_type, "Icon");
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
        assert_eq!(refs, ["@e1", "@e2", "@e3", "@e4", "@e5"]);
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
            ("idb", &["ui", "tap", "5", "6", "--udid", U]),
            ("idb", &["ui", "tap", "5", "6", "--udid", U]),
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
            msg.contains("VOLUME_UP") && msg.contains("HOME, LOCK, SIDE_BUTTON, SIRI, APPLE_PAY"),
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
        let (w, hgt) = mobile_ios::screen::png_dimensions(&shot.bytes).unwrap();
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
        h.assert_calls(&[("idb", &["ui", "rotate", "LANDSCAPE_LEFT", "--udid", U])]);
        assert_eq!(dev.orientation().await.unwrap(), Orientation::Landscape);
        if !real() {
            let size = dev.screen_size().await.unwrap();
            assert_eq!((size.width, size.height), (874, 402));
        }
        dev.set_orientation(Orientation::Portrait).await.unwrap();
    });
}

#[test]
fn logs_filters_and_limit() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        h.clear_log();
        let all = dev
            .logs(&LogQuery {
                limit: 100,
                filters: vec![],
            })
            .await
            .unwrap();
        h.assert_calls(&[(
            "xcrun",
            &[
                "simctl", "spawn", U, "log", "show", "--style", "ndjson", "--last", "1m",
            ],
        )]);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].process.as_deref(), Some("SpringBoard"));
        let errors = dev
            .logs(&LogQuery {
                limit: 10,
                filters: vec![LogFilter::parse("level=error").unwrap()],
            })
            .await
            .unwrap();
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].message,
            "Connection to accessibility server failed"
        );
        let last = dev
            .logs(&LogQuery {
                limit: 1,
                filters: vec![LogFilter::parse("process!=SpringBoard").unwrap()],
            })
            .await
            .unwrap();
        assert_eq!(last.len(), 1);
        assert_eq!(last[0].message, "示例 loaded 3 items");
    });
}

#[test]
fn recording_clipboard_and_location() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let out = tempfile::tempdir().unwrap();
        let video = out.path().join("clip.mp4");
        h.clear_log();
        dev.start_recording(&RecordingOptions {
            output: video.clone(),
            time_limit: None,
        })
        .await
        .unwrap();
        let again = dev
            .start_recording(&RecordingOptions {
                output: video.clone(),
                time_limit: None,
            })
            .await
            .unwrap_err();
        assert!(again.to_string().contains("already recording"), "{again}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        let rec = dev.stop_recording().await.unwrap();
        assert_eq!(rec.path, video);
        assert!(rec.bytes > 0);
        assert_eq!(std::fs::read(&video).unwrap()[4..8], *b"ftyp");
        h.assert_calls(&[(
            "xcrun",
            &[
                "simctl",
                "io",
                U,
                "recordVideo",
                "--codec=h264",
                "--force",
                video.to_str().unwrap(),
            ],
        )]);
        assert!(dev.stop_recording().await.is_err());

        dev.set_clipboard("copied 示例 \"text\"").await.unwrap();
        assert_eq!(dev.clipboard().await.unwrap(), "copied 示例 \"text\"");
        dev.set_location(Some(mobile_device::Location {
            latitude: 37.3349,
            longitude: -122.009,
        }))
        .await
        .unwrap();
        assert_eq!(h.sim().location.as_deref(), Some("37.3349,-122.009"));
        dev.set_location(None).await.unwrap();
        assert_eq!(h.sim().location, None);
        h.assert_calls(&[
            ("xcrun", &["simctl", "pbcopy", U]),
            ("xcrun", &["simctl", "pbpaste", U]),
            (
                "xcrun",
                &["simctl", "location", U, "set", "37.3349,-122.009"],
            ),
            ("xcrun", &["simctl", "location", U, "clear"]),
        ]);
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
            .launch_app(&app("com.apple.Preferences"), None)
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
