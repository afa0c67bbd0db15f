//! Every `Device` method of the Android backend against the virtual phone, through a
//! private adb server (never the default one on 5037). Asserts on
//! what the phone received (the argv its shell split) and on its state afterwards.
//!
//! The backend never runs `adb start-server` for a server that answers (it speaks the
//! host protocol itself), so no `ANDROID_ADB_SERVER_PORT` is needed: every test gives
//! the private server's address explicitly and an adb path that does not exist.

use std::sync::Arc;
use std::time::Duration;

use mobile_android::{AndroidBackend, AndroidConfig};
use mobile_device::{
    AppId, Button, CaptureFormat, Device, DeviceBackend, DeviceError, DeviceKind, DevicePath,
    DeviceState, DeviceUrl, LaunchOptions, Locales, LogFilter, LogQuery, Orientation, Point,
    RecordingOptions,
};
use mobile_device::{OutputFormat, ScreenshotOptions};
use mobile_screenshot as screenshot;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::state::InputEvent;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

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

/// Upper bound for each whole test; a hang fails instead of blocking CI.
const TEST_DEADLINE: Duration = Duration::from_secs(120);

struct Rig {
    device: Arc<dyn Device>,
    phone: PhoneHandle,
    _adb: PrivateAdbServer,
}

async fn rig() -> Rig {
    let phone = VirtualPhone::start(PhoneConfig::default()).expect("start the virtual phone");
    let adb = PrivateAdbServer::start().expect("start a private adb server");
    adb.connect(&phone).expect("adb connect");
    let config = AndroidConfig {
        servers: vec![adb.socket_addr()],
        adb_path: Some("/nonexistent/adb".into()),
        ..Default::default()
    };
    let backend = AndroidBackend::new(config);
    let found = backend.discover().await;
    let info = found
        .devices
        .iter()
        .find(|d| d.id == phone.serial())
        .unwrap_or_else(|| panic!("phone not listed: {found:?}"))
        .clone();
    assert_eq!(info.state, DeviceState::Online, "{info:?}");
    assert_eq!(info.model.as_deref(), Some("Pixel 7"));
    assert_eq!(info.name, "Pixel 7");
    assert_eq!(info.version.as_deref(), Some("14"));
    assert_eq!(
        info.kind,
        DeviceKind::Real,
        "a host:port device without qemu props is real"
    );
    let device = backend.open(&info).await.expect("open");
    Rig {
        device,
        phone,
        _adb: adb,
    }
}

/// The argv of every shell command the phone received since the log was cleared.
fn argvs(phone: &PhoneHandle) -> Vec<Vec<String>> {
    phone
        .shell_commands()
        .into_iter()
        .flat_map(|c| c.argv)
        .collect()
}

fn v(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

fn events(phone: &PhoneHandle) -> Vec<InputEvent> {
    phone.state().input_events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_method_through_a_private_adb_server() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let Rig { device, phone, _adb } = rig().await;
        let d = device.as_ref();

        phone.clear_log();
        let size = d.screen_size().await.unwrap();
        assert_eq!((size.width, size.height), (1080, 2400));
        assert!(size.scale > 1.0);
        // Three reads sent at once (the natural size, the density, the current rotation's
        // size): any may reach the phone first.
        let mut got = argvs(&phone);
        got.sort();
        assert_eq!(
            got,
            vec![
                v(&["dumpsys", "window", "displays"]),
                v(&["wm", "density"]),
                v(&["wm", "size"])
            ]
        );

        phone.clear_log();
        let apps = d.list_apps().await.unwrap();
        assert!(apps.iter().any(|a| a.package_name == "com.example.notes"), "{apps:?}");
        assert_eq!(
            argvs(&phone),
            vec![v(&[
                "cmd",
                "package",
                "query-activities",
                "-a",
                "android.intent.action.MAIN",
                "-c",
                "android.intent.category.LAUNCHER"
            ])]
        );

        // Launch with a locale: set-app-locales, resolve-activity, am start -n.
        phone.clear_log();
        let notes = AppId::parse("com.example.notes").unwrap();
        d.launch_app(&notes, &LaunchOptions::in_locales(Some(Locales::parse("fr-FR").unwrap())))
            .await
            .unwrap();
        let got = argvs(&phone);
        assert_eq!(
            got[0],
            v(&["cmd", "locale", "set-app-locales", "com.example.notes", "--locales", "fr-FR"])
        );
        assert_eq!(
            got[1],
            v(&["cmd", "package", "resolve-activity", "--brief", "com.example.notes"])
        );
        assert_eq!(got[2][..3], v(&["am", "start", "-n"])[..]);
        assert!(got[2][3].starts_with("com.example.notes/"), "{got:?}");
        let st = phone.state();
        assert_eq!(st.foreground().unwrap().package, "com.example.notes");
        assert_eq!(st.app_locales.get("com.example.notes").map(String::as_str), Some("fr-FR"));

        let fg = d.foreground_app().await.unwrap();
        assert_eq!(fg.package_name, "com.example.notes");
        assert!(fg.activity.unwrap().starts_with("com.example.notes."));

        // Elements, and a tap at the exact centre of one.
        phone.clear_log();
        let els = d.list_elements().await.unwrap();
        assert_eq!(argvs(&phone), vec![v(&["uiautomator", "dump", "/dev/tty"])]);
        assert!(!els.is_empty());
        for e in &els {
            assert_eq!(e.reference, "", "refs are the server's to give");
        }
        let xml = d.ui_dump().await.unwrap();
        assert!(xml.contains("<hierarchy"), "{xml}");
        let target = els
            .iter()
            .find(|e| e.identifier.as_deref() == Some("com.example.notes:id/new_note"))
            .unwrap_or_else(|| panic!("no new_note button in {els:#?}"));
        let c = target.rect.center();
        phone.clear_log();
        phone.update_state(|s| s.input_events.clear());
        d.tap(c).await.unwrap();
        assert_eq!(argvs(&phone), vec![v(&["input", "tap", &c.x.to_string(), &c.y.to_string()])]);
        assert_eq!(
            events(&phone),
            vec![InputEvent::Tap { x: c.x as f64, y: c.y as f64 }]
        );

        // Typing: spaces become %s, a literal "%s" is cut in two, hostile text stays literal.
        let text = "Hi there; $(reboot) `id` 'q' \"x\" 100%sure";
        phone.update_state(|s| s.input_events.clear());
        d.type_text(text).await.unwrap();
        let typed: String = events(&phone)
            .into_iter()
            .map(|e| match e {
                InputEvent::Text { text } => text,
                other => panic!("unexpected event {other:?}"),
            })
            .collect();
        assert_eq!(typed, text);
        assert!(phone.injections().is_empty(), "{:?}", phone.injections());

        // Non-ASCII is pasted through the clipboard by the on-device helper; with no field
        // focused there is nowhere to paste: a clear error, the clipboard untouched.
        phone.clear_log();
        phone.update_state(|s| s.clipboard = "the user's copy".into());
        let e = d.type_text("héllo 日本").await.unwrap_err();
        assert!(e.to_string().contains("no field has the focus"), "{e}");
        assert!(argvs(&phone).iter().all(|a| a[0] != "input" && a[0] != "env"));
        assert!(phone.state().clip.calls.is_empty());

        // Focused: the text lands in the field, the user's clip is back, no `input text`.
        phone.update_state(|s| {
            let _ = s.start_activity("com.example.notes", None);
            s.stack.last_mut().unwrap().screen = "editor".into();
            s.focus(Some("com.example.notes:id/body_input".into()));
        });
        phone.clear_log();
        d.type_text("héllo 日本").await.unwrap();
        let st = phone.state();
        assert_eq!(st.focused_text().as_deref(), Some("héllo 日本"));
        assert_eq!(st.clipboard, "the user's copy");
        let got = argvs(&phone);
        assert!(got.contains(&v(&["input", "keyevent", "KEYCODE_PASTE"])), "{got:?}");
        assert!(got.iter().all(|a| !(a[0] == "input" && a[1] == "text")), "{got:?}");
        assert!(
            got.iter().any(|a| a[0] == "env" && a[1].starts_with("CLASSPATH=/data/local/tmp/mobilemcp-helper-") && a[2] == "app_process"),
            "{got:?}"
        );
        assert!(phone.injections().is_empty(), "{:?}", phone.injections());

        // The clipboard, both ways.
        d.set_clipboard("copié 📋").await.unwrap();
        assert_eq!(phone.state().clipboard, "copié 📋");
        assert_eq!(d.clipboard().await.unwrap(), "copié 📋");

        // Gestures and keys.
        phone.update_state(|s| s.input_events.clear());
        d.press_button(Button::Back).await.unwrap();
        d.swipe(Point::new(500, 1500), Point::new(500, 500), Duration::from_millis(300))
            .await
            .unwrap();
        d.long_press(Point::new(100, 200), Duration::from_millis(800)).await.unwrap();
        d.double_tap(Point::new(10, 20)).await.unwrap();
        let ev = events(&phone);
        assert!(matches!(&ev[0], InputEvent::Key { name, .. } if name == "BACK"), "{ev:?}");
        assert_eq!(
            ev[1],
            InputEvent::Swipe { x1: 500.0, y1: 1500.0, x2: 500.0, y2: 500.0, duration_ms: 300 }
        );
        assert!(
            matches!(ev[2], InputEvent::LongPress { x, y, duration_ms: 800 } if x == 100.0 && y == 200.0)
                || matches!(ev[2], InputEvent::Swipe { x1, y1, x2, y2, duration_ms: 800 } if (x1, y1, x2, y2) == (100.0, 200.0, 100.0, 200.0)),
            "{ev:?}"
        );
        assert_eq!(ev[3..], [InputEvent::Tap { x: 10.0, y: 20.0 }, InputEvent::Tap { x: 10.0, y: 20.0 }]);
        let e = d.press_button(Button::Siri).await.unwrap_err();
        assert!(e.to_string().contains("HOME, ENTER, DEL, BACK"), "{e}");
        assert!(d.tap(Point::new(-1, 5)).await.is_err());

        // Orientation.
        phone.clear_log();
        d.set_orientation(Orientation::Landscape).await.unwrap();
        assert_eq!(
            argvs(&phone),
            vec![
                v(&["wm", "size"]),
                v(&["settings", "put", "system", "accelerometer_rotation", "0"]),
                v(&["settings", "put", "system", "user_rotation", "1"])
            ]
        );
        assert_eq!(d.orientation().await.unwrap(), Orientation::Landscape);
        d.set_orientation(Orientation::Portrait).await.unwrap();
        assert_eq!(d.orientation().await.unwrap(), Orientation::Portrait);

        // A URL with shell syntax in it is one literal argument.
        let url = DeviceUrl::parse("https://example.com/a?b=1&c=$(id);x='y'").unwrap();
        phone.clear_log();
        d.open_url(&url).await.unwrap();
        assert_eq!(
            argvs(&phone),
            vec![v(&["am", "start", "-a", "android.intent.action.VIEW", "-d", url.as_str()])]
        );
        assert_eq!(phone.state().browser_url, url.as_str());

        // Terminate.
        d.launch_app(&notes, &LaunchOptions::default()).await.unwrap();
        phone.clear_log();
        d.terminate_app(&notes).await.unwrap();
        // Checked to be installed first (an app that is not is an error, not "Terminated").
        assert_eq!(
            argvs(&phone),
            vec![
                v(&["pm", "path", "com.example.notes"]),
                v(&["am", "force-stop", "com.example.notes"])
            ]
        );
        assert_ne!(
            phone.state().foreground().map(|f| f.package.clone()).as_deref(),
            Some("com.example.notes")
        );

        // Files, byte for byte.
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let local = dir.path().join("up.bin");
        std::fs::write(&local, &data).unwrap();
        let remote = DevicePath::parse("/sdcard/Download/up.bin").unwrap();
        let open = |p: &std::path::Path| std::fs::File::open(p).unwrap();
        let create = |p: &std::path::Path| std::fs::File::create(p).unwrap();
        assert_eq!(d.push_file(open(&local), &remote).await.unwrap(), data.len() as u64);
        assert_eq!(phone.file("/sdcard/Download/up.bin").as_deref(), Some(&data[..]));
        let back = dir.path().join("down.bin");
        assert_eq!(d.pull_file(&remote, create(&back)).await.unwrap(), data.len() as u64);
        assert_eq!(std::fs::read(&back).unwrap(), data);
        let missing = DevicePath::parse("/sdcard/none.bin").unwrap();
        assert!(d.pull_file(&missing, create(&dir.path().join("x"))).await.is_err());

        // Install (streamed, with progress) and uninstall.
        let apk = dir.path().join("hello.apk");
        std::fs::write(&apk, virtual_phone::fake_apk("com.example.hello", "Hello")).unwrap();
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let s2 = seen.clone();
        d.install_app(package(&apk), Some(Arc::new(move |a, b| s2.lock().unwrap().push((a, b)))))
            .await
            .unwrap();
        assert!(phone.state().packages.contains_key("com.example.hello"));
        let total = std::fs::metadata(&apk).unwrap().len();
        assert_eq!(*seen.lock().unwrap(), vec![(0, total), (total, total)]);
        assert!(d.install_app(package(&dir.path().join("x.ipa")), None).await.is_err());
        // A bigger package reports progress on the way, through a streamed exec.
        let mut big = virtual_phone::fake_apk("com.example.big", "Big");
        big.resize(3 * 1024 * 1024 + 17, 0);
        let big_apk = dir.path().join("big.apk");
        std::fs::write(&big_apk, &big).unwrap();
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let s3 = seen.clone();
        phone.clear_log();
        d.install_app(package(&big_apk), Some(Arc::new(move |a, b| s3.lock().unwrap().push((a, b)))))
            .await
            .unwrap();
        let n = big.len() as u64;
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.first(), Some(&(0, n)));
        assert_eq!(seen.last(), Some(&(n, n)));
        assert!(seen.len() >= 4, "{seen:?}");
        assert!(phone.state().packages.contains_key("com.example.big"));
        let all = phone.commands();
        let exec: Vec<_> = all.iter().filter(|c| c.service.starts_with("exec:")).collect();
        assert_eq!(exec.len(), 1, "{all:?}");
        assert_eq!(exec[0].argv, vec![v(&["cmd", "package", "install", "-S", &n.to_string()])]);
        let hello = AppId::parse("com.example.hello").unwrap();
        d.uninstall_app(&hello).await.unwrap();
        assert!(!phone.state().packages.contains_key("com.example.hello"));
        assert!(matches!(
            d.uninstall_app(&hello).await.unwrap_err(),
            DeviceError::NotFound { .. }
        ));

        // Logs and crashes.
        phone.clear_log();
        let logs = d.logs(&LogQuery { limit: mobile_device::LogLimit::parse(5.0).unwrap(), filters: vec![] }).await.unwrap();
        assert_eq!(argvs(&phone), vec![v(&["logcat", "-d", "-v", "threadtime", "-t", "5"])]);
        assert!(!logs.is_empty() && logs.len() <= 5, "{logs:?}");
        let filtered = d
            .logs(&LogQuery {
                limit: mobile_device::LogLimit::parse(50.0).unwrap(),
                filters: vec![LogFilter::parse("level=error").unwrap()],
            })
            .await
            .unwrap();
        assert!(filtered.iter().all(|e| e.level.as_deref() == Some("error")));
        phone.clear_log();
        let crashes = d.crashes().await.unwrap();
        assert_eq!(argvs(&phone), vec![v(&["logcat", "-b", "crash", "-d", "-v", "threadtime"])]);
        for c in &crashes {
            let text = d.crash(&c.id).await.unwrap();
            assert!(!text.is_empty());
        }
        assert!(matches!(d.crash("nope").await.unwrap_err(), DeviceError::NotFound { .. }));

        // Screenshot: the first capture is the raw frame, scaled while it arrives; the
        // second tries PNG (the route is then chosen by measured time, see capture.rs).
        phone.clear_log();
        let opts = ScreenshotOptions { format: OutputFormat::Png, ..Default::default() };
        let shot = d.screenshot(&opts).await.unwrap();
        assert_eq!(
            shot.format,
            CaptureFormat::ScaledRgb8 { width: 461, height: 1024, source_width: 1080, source_height: 2400 }
        );
        let png = d.screenshot(&opts).await.unwrap();
        assert_eq!(png.format, CaptureFormat::Png);
        assert!(png.bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert_eq!(
            screenshot::process(&png, &opts).unwrap(),
            screenshot::process(&shot, &opts).unwrap(),
            "both routes show the same frame"
        );
        d.screenshot(&opts).await.unwrap();
        let log = argvs(&phone);
        assert_eq!(
            log[..3],
            [v(&["dumpsys", "SurfaceFlinger", "--display-id"]), v(&["screencap"]), v(&["screencap", "-p"])],
            "the display list is read once"
        );
        assert_eq!(log.len(), 4, "one round trip per capture: {log:?}");

        // Screen recording: started in the background, stopped, pulled, removed.
        phone.clear_log();
        let out = dir.path().join("rec.mp4");
        d.start_recording(&RecordingOptions { time_limit: mobile_device::RecordingLimit::parse(30.0).unwrap() })
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let rec = d.stop_recording(std::fs::File::create(&out).unwrap()).await.unwrap();
        assert!(rec.bytes > 0 && std::fs::metadata(&out).unwrap().len() == rec.bytes);
        assert!(
            phone.state().files.keys().all(|k| !k.contains("mobile-mcp-")),
            "the recording is removed from the device"
        );
        let got = argvs(&phone);
        assert_eq!(got[0][..3], v(&["screenrecord", "--time-limit", "30"])[..]);
        let path = got[0][3].clone();
        assert!(path.starts_with("/sdcard/mobile-mcp-") && path.ends_with(".mp4"), "{path}");
        assert!(got.contains(&v(&["pkill", "-INT", "screenrecord"])), "{got:?}");
        assert_eq!(got.last().unwrap(), &v(&["rm", "-f", &path]));
        assert!(d.stop_recording(std::fs::File::create(dir.path().join("no.mp4")).unwrap()).await.is_err());

        // The clipboard through the helper, still as set above.
        assert_eq!(d.clipboard().await.unwrap(), "copié 📋");
        // A mock location through the test provider (Android 12+), and cleared again.
        d.set_location(Some(mobile_device::Location { latitude: mobile_device::Latitude::parse(1.5).unwrap(), longitude: mobile_device::Longitude::parse(2.5).unwrap() }))
            .await
            .unwrap();
        assert_eq!(
            phone.state().location.test_providers.get("gps").and_then(|p| p.location),
            Some((1.5, 2.5))
        );
        d.set_location(None).await.unwrap();
        assert!(phone.state().location.test_providers.is_empty());

        assert!(phone.injections().is_empty(), "{:?}", phone.injections());
    })
    .await
    .expect("test finished in time");
}

/// The `--demo` configuration: one server, never started by the backend. It lists and
/// drives the phone through that server, and where nothing answers it says only that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_of_one_server_only_never_starts_one() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let adb = PrivateAdbServer::start().unwrap();
        adb.connect(&phone).unwrap();
        let backend = AndroidBackend::new(AndroidConfig::only_server(adb.socket_addr()));
        let found = backend.discover().await;
        let info = found
            .devices
            .iter()
            .find(|d| d.id == phone.serial())
            .unwrap_or_else(|| panic!("phone not listed: {found:?}"));
        let d = backend.open(info).await.unwrap();
        phone.update_state(|s| s.input_events.clear());
        d.tap(Point::new(5, 6)).await.unwrap();
        assert_eq!(events(&phone), vec![InputEvent::Tap { x: 5.0, y: 6.0 }]);

        let port = virtual_phone::adb_server::free_port().unwrap();
        let dead: std::net::SocketAddrV4 = format!("127.0.0.1:{port}").parse().unwrap();
        let found = AndroidBackend::new(AndroidConfig::only_server(dead))
            .discover()
            .await;
        assert!(found.devices.is_empty(), "{found:?}");
        assert_eq!(
            found.notes,
            vec![format!("no adb server answered at {dead}")]
        );
    })
    .await
    .expect("test finished in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_that_vanishes_gives_a_clear_error() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let Rig {
            device,
            phone,
            _adb,
        } = rig().await;
        assert!(device.screen_size().await.is_ok());
        phone.stop();
        let e = device.screen_size().await.unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains(device.id()) || text.contains("adb server"),
            "the error names the device or the server: {text}"
        );
        // The adb server keeps the transport as `offline`: listed, with a hint.
        let backend = AndroidBackend::new(AndroidConfig {
            servers: vec![_adb.socket_addr()],
            adb_path: Some("/nonexistent/adb".into()),
            ..Default::default()
        });
        let mut listed = None;
        for _ in 0..30 {
            let found = backend.discover().await;
            listed = found.devices.into_iter().find(|d| d.id == device.id());
            if listed
                .as_ref()
                .is_some_and(|d| d.state != DeviceState::Online)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let info = listed.expect("the offline device stays listed");
        assert_eq!(info.state, DeviceState::Offline, "{info:?}");
        assert!(info.hint.unwrap().contains("reconnect"));
    })
    .await
    .expect("test finished in time");
}

/// With no server on the configured loopback port, discovery starts one with
/// `adb -P PORT start-server` (bounded in time) and lists through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_starts_a_missing_server_on_its_own_port() {
    let Some(adb) = mobile_android::find_adb(None, None, std::env::var_os("PATH")) else {
        eprintln!("no adb on PATH; skipping");
        return;
    };
    tokio::time::timeout(TEST_DEADLINE, async {
        let home = tempfile::tempdir().unwrap();
        // A wrapper that gives the server a private HOME (its key and logs stay there).
        let wrapper = home.path().join("adb");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nHOME='{}' ADB_LOCAL_TRANSPORT_MAX_PORT=0 exec '{}' \"$@\"\n",
                home.path().display(),
                adb.display()
            ),
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let port = virtual_phone::adb_server::free_port().unwrap();
        let addr: std::net::SocketAddrV4 = format!("127.0.0.1:{port}").parse().unwrap();
        let backend = AndroidBackend::new(AndroidConfig {
            servers: vec![addr],
            adb_path: Some(wrapper.clone()),
            ..Default::default()
        });
        let found = backend.discover().await;
        let kill = std::process::Command::new(&wrapper)
            .args(["-P", &port.to_string(), "kill-server"])
            .output();
        assert!(found.devices.is_empty(), "{found:?}");
        assert_eq!(
            found.notes,
            vec![format!(
                "the adb server at {addr} lists no devices: connect a phone with USB debugging on, start an emulator, or run `adb connect HOST:PORT`"
            )],
            "the server was started and answered"
        );
        assert!(kill.is_ok());
    })
    .await
    .expect("test finished in time");
}

/// Two adb servers that both see the same phone: two distinct ids, each usable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_give_distinct_ids() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let a = PrivateAdbServer::start().unwrap();
        let b = PrivateAdbServer::start().unwrap();
        a.connect(&phone).unwrap();
        b.connect(&phone).unwrap();
        let mut config = AndroidConfig {
            servers: vec![a.socket_addr()],
            adb_path: Some("/nonexistent/adb".into()),
            ..Default::default()
        };
        config.add_server(b.socket_addr());
        let backend = AndroidBackend::new(config);
        let found = backend.discover().await;
        let ids: Vec<&str> = found.devices.iter().map(|d| d.id.as_str()).collect();
        let second = format!("{}/{}", b.socket_addr(), phone.serial());
        assert_eq!(
            ids,
            vec![phone.serial().as_str(), second.as_str()],
            "{found:?}"
        );
        for info in &found.devices {
            let d = backend.open(info).await.unwrap();
            assert_eq!(d.screen_size().await.unwrap().width, 1080);
        }
    })
    .await
    .expect("test finished in time");
}

/// Input to one device is serialized: two agents typing at once never interleave, and
/// hostile file names travel through the sync protocol untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_typing_does_not_interleave_and_paths_stay_literal() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let Rig {
            device,
            phone,
            _adb,
        } = rig().await;
        phone.update_state(|s| s.input_events.clear());
        // Each text needs several `input` commands (a `%s` cut and a newline).
        let a = "aaa 100%sure\naaa";
        let b = "bbb 50%sale\nbbb";
        let (d1, d2) = (device.clone(), device.clone());
        let (r1, r2) = tokio::join!(
            tokio::spawn(async move { d1.type_text(a).await }),
            tokio::spawn(async move { d2.type_text(b).await })
        );
        r1.unwrap().unwrap();
        r2.unwrap().unwrap();
        let typed: String = events(&phone)
            .into_iter()
            .map(|e| match e {
                InputEvent::Text { text } => text,
                InputEvent::Key { name, .. } if name == "ENTER" => "\n".into(),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert!(
            typed == format!("{a}{b}") || typed == format!("{b}{a}"),
            "{typed:?}"
        );

        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("x");
        std::fs::write(&local, b"x").unwrap();
        let remote = DevicePath::parse("/sdcard/a;b $(id) `q` 'c'.txt").unwrap();
        device
            .push_file(std::fs::File::open(&local).unwrap(), &remote)
            .await
            .unwrap();
        assert_eq!(phone.file(remote.as_str()).as_deref(), Some(&b"x"[..]));
        device
            .pull_file(
                &remote,
                std::fs::File::create(dir.path().join("y")).unwrap(),
            )
            .await
            .unwrap();
        assert!(phone.injections().is_empty(), "{:?}", phone.injections());
    })
    .await
    .expect("test finished in time");
}

/// A listing reads a device's properties once per connection: listing again sends the
/// phone nothing but what the adb server answers itself, and a reconnect (a new adb
/// `transport_id`, as after a reboot) reads them afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_reads_properties_once_per_connection() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let adb = PrivateAdbServer::start().unwrap();
        adb.connect(&phone).unwrap();
        let backend = AndroidBackend::new(AndroidConfig {
            servers: vec![adb.socket_addr()],
            adb_path: Some("/nonexistent/adb".into()),
            ..Default::default()
        });
        let getprops = |phone: &PhoneHandle| {
            argvs(phone)
                .into_iter()
                .filter(|a| a.first().map(String::as_str) == Some("getprop"))
                .count()
        };
        let listed = |found: mobile_device::Discovery| {
            let d = found
                .devices
                .into_iter()
                .find(|d| d.id == phone.serial())
                .expect("listed");
            (d.name, d.version, d.state)
        };
        let first = listed(backend.discover().await);
        assert_eq!(
            first,
            (
                "Pixel 7".to_string(),
                Some("14".to_string()),
                DeviceState::Online
            )
        );
        assert_eq!(getprops(&phone), 1);

        phone.clear_log();
        assert_eq!(listed(backend.discover().await), first);
        assert!(
            phone.commands().is_empty(),
            "a second listing sends the phone nothing: {:?}",
            phone.commands()
        );

        adb.disconnect(&phone).unwrap();
        adb.connect(&phone).unwrap();
        phone.clear_log();
        assert_eq!(listed(backend.discover().await), first);
        assert_eq!(getprops(&phone), 1, "a new connection is read again");
    })
    .await
    .expect("test finished in time");
}
