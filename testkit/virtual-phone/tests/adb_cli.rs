//! The real `adb` client and server (Debian adb 29.0.6) against the virtual phone.
//! Every adb call runs under a 20 s timeout; each test has its own private adb server.

mod common;

use std::time::{Duration, Instant};

use common::{Rig, text};
use virtual_phone::fake_apk;

#[test]
fn devices_l_shows_model_and_product() {
    let rig = Rig::new();
    let out = rig.adb.adb(&["devices", "-l"]).unwrap();
    let listing = text(&out);
    let line = listing
        .lines()
        .find(|l| l.starts_with(&rig.phone.serial()))
        .unwrap_or_else(|| panic!("phone not listed:\n{listing}"));
    assert!(line.contains(" device "), "{line}");
    assert!(line.contains("product:panther"), "{line}");
    assert!(line.contains("model:Pixel_7"), "{line}");
    assert!(line.contains("device:panther"), "{line}");
}

#[test]
fn shell_output_quoting_and_exit_behaviour() {
    let rig = Rig::new();
    assert_eq!(rig.shell(&["echo", "hello", "world"]), "hello world\n");
    // adb joins arguments with spaces: the device shell then splits them again.
    assert_eq!(rig.shell(&["echo", "'a  b'", "\"c d\""]), "a  b c d\n");
    assert_eq!(rig.shell(&["getprop", "ro.product.model"]), "Pixel 7\n");
    assert_eq!(rig.shell(&["getprop", "ro.build.version.sdk"]), "34\n");
    assert_eq!(rig.shell(&["wm", "size"]), "Physical size: 1080x2400\n");
    assert_eq!(rig.shell(&["wm", "density"]), "Physical density: 420\n");
    assert_eq!(
        rig.shell(&["frobnicate"]),
        "/system/bin/sh: frobnicate: inaccessible or not found\n"
    );
    // Without shell_v2 there is no exit status: adb exits 0 even for `false`.
    let out = rig.adb_raw(&["shell", "false"]);
    assert!(out.status.success());
    // A refused service gives "error: closed" and a non-zero exit.
    let out = rig.adb_raw(&["reboot"]);
    assert!(!out.status.success());
    assert!(
        rig.phone
            .commands()
            .iter()
            .any(|r| r.refused && r.service.starts_with("reboot:"))
    );
    // What the shell received, split.
    let rec = rig
        .phone
        .shell_commands()
        .into_iter()
        .find(|r| r.command.starts_with("echo 'a"))
        .unwrap();
    assert_eq!(
        rec.argv,
        vec![vec!["echo".to_string(), "a  b".into(), "c d".into()]]
    );
    assert!(rig.phone.injections().is_empty());
}

fn decode_png(bytes: &[u8]) -> image::RgbaImage {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .expect("valid PNG")
        .to_rgba8()
}

#[test]
fn exec_out_screencap_is_a_png_of_the_current_screen() {
    let rig = Rig::new();
    let home = rig.adb_ok(&["exec-out", "screencap", "-p"]).stdout;
    let home_img = decode_png(&home);
    assert_eq!(home_img.dimensions(), (1080, 2400));
    assert!(
        rig.phone
            .commands()
            .iter()
            .any(|r| r.service == "exec:screencap '-p'")
    );

    rig.shell(&["am", "start", "-n", "com.example.notes/.MainActivity"]);
    let notes = decode_png(&rig.adb_ok(&["exec-out", "screencap", "-p"]).stdout);
    assert_eq!(notes.dimensions(), (1080, 2400));
    assert_ne!(
        home_img.as_raw(),
        notes.as_raw(),
        "screen changed, screenshot must too"
    );

    // Raw screencap: 16-byte header (w, h, format=RGBA_8888, colour space) then pixels.
    let raw = rig.adb_ok(&["exec-out", "screencap"]).stdout;
    let word = |i: usize| u32::from_le_bytes(raw[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!((word(0), word(1), word(2)), (1080, 2400, 1));
    assert_eq!(raw.len(), 16 + 1080 * 2400 * 4);
    assert_eq!(&raw[16..], notes.as_raw().as_slice());

    // Landscape after rotation.
    rig.shell(&["settings", "put", "system", "user_rotation", "1"]);
    let land = decode_png(&rig.adb_ok(&["exec-out", "screencap", "-p"]).stdout);
    assert_eq!(land.dimensions(), (2400, 1080));
}

#[test]
fn push_pull_round_trip_5mb() {
    let rig = Rig::new();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.bin");
    let data: Vec<u8> = (0..5 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&src, &data).unwrap();
    rig.adb_ok(&["push", src.to_str().unwrap(), "/sdcard/Download/big.bin"]);
    assert_eq!(
        rig.phone.file("/sdcard/Download/big.bin").as_deref(),
        Some(data.as_slice())
    );
    let back = dir.path().join("back.bin");
    rig.adb_ok(&["pull", "/sdcard/Download/big.bin", back.to_str().unwrap()]);
    assert!(std::fs::read(&back).unwrap() == data, "pulled bytes differ");
    assert!(
        rig.shell(&["ls", "/sdcard/Download"])
            .lines()
            .any(|l| l == "big.bin")
    );
    // Pulling a missing file fails.
    assert!(
        !rig.adb_raw(&["pull", "/sdcard/nope.bin", back.to_str().unwrap()])
            .status
            .success()
    );
}

#[test]
fn install_and_uninstall_change_the_package_list() {
    let rig = Rig::new();
    let dir = tempfile::tempdir().unwrap();
    let apk = dir.path().join("weather.apk");
    std::fs::write(&apk, fake_apk("com.example.weather", "Weather")).unwrap();
    assert!(
        !rig.shell(&["pm", "list", "packages"])
            .contains("package:com.example.weather\n")
    );
    let out = rig.adb_ok(&["install", apk.to_str().unwrap()]);
    assert!(text(&out).contains("Success"), "{}", text(&out));
    let third = rig.shell(&["pm", "list", "packages", "-3"]);
    assert!(third.contains("package:com.example.weather\n"), "{third}");
    // adb's push-install path: sync push, `pm 'install' PATH`, then `rm PATH </dev/null`.
    let cmds = rig.phone.shell_commands();
    assert!(cmds.iter().any(|r| r.argv
        == vec![vec![
            "pm".to_string(),
            "install".into(),
            "/data/local/tmp/weather.apk".into()
        ]]));
    assert!(cmds.iter().any(|r| {
        r.argv
            .first()
            .is_some_and(|a| a.first().map(String::as_str) == Some("rm"))
    }));
    assert!(
        rig.phone.injections().is_empty(),
        "{:?}",
        rig.phone.injections()
    );
    assert!(
        rig.phone.file("/data/local/tmp/weather.apk").is_none(),
        "adb removes the pushed APK"
    );
    // The launcher shows it; it launches.
    let out = rig.shell(&[
        "monkey",
        "-p",
        "com.example.weather",
        "-c",
        "android.intent.category.LAUNCHER",
        "1",
    ]);
    assert!(out.contains("Events injected: 1"), "{out}");
    assert_eq!(
        rig.phone.state().foreground_package(),
        Some("com.example.weather")
    );

    let out = rig.adb_ok(&["uninstall", "com.example.weather"]);
    assert!(text(&out).contains("Success"), "{}", text(&out));
    assert!(
        !rig.shell(&["pm", "list", "packages"])
            .contains("com.example.weather")
    );
    assert_ne!(
        rig.phone.state().foreground_package(),
        Some("com.example.weather")
    );
}

#[test]
fn tap_on_a_button_changes_the_next_ui_dump() {
    let rig = Rig::new();
    rig.shell(&[
        "monkey",
        "-p",
        "com.example.notes",
        "-c",
        "android.intent.category.LAUNCHER",
        "1",
    ]);
    let before = text(&rig.adb_ok(&["exec-out", "uiautomator", "dump", "/dev/tty"]));
    assert!(before.contains("text=\"New note\""), "{before}");
    assert!(before.ends_with("UI hierchary dumped to: /dev/tty\n"));
    let (x, y) = rig.phone.element_center("New note").unwrap();
    rig.shell(&["input", "tap", &x.to_string(), &y.to_string()]);
    let out = rig.shell(&["uiautomator", "dump"]);
    assert_eq!(out, "UI hierchary dumped to: /sdcard/window_dump.xml\n");
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("dump.xml");
    rig.adb_ok(&["pull", "/sdcard/window_dump.xml", local.to_str().unwrap()]);
    let after = std::fs::read_to_string(&local).unwrap();
    assert_ne!(before, after);
    assert!(
        after.contains("resource-id=\"com.example.notes:id/title_input\""),
        "{after}"
    );
    assert!(!after.contains("text=\"New note\" resource-id=\"com.example.notes:id/new_note\""));
    // Type into the title field and save: the note appears on the list screen.
    let (x, y) = rig.phone.element_center("Title").unwrap();
    rig.shell(&["input", "tap", &x.to_string(), &y.to_string()]);
    rig.shell(&["input", "text", "Buy%smilk\\;\\ now"]);
    assert_eq!(
        rig.phone.state().focused_text().as_deref(),
        Some("Buy milk; now")
    );
    let (x, y) = rig.phone.element_center("Save").unwrap();
    rig.shell(&["input", "tap", &x.to_string(), &y.to_string()]);
    let list = text(&rig.adb_ok(&["exec-out", "uiautomator", "dump", "/dev/tty"]));
    assert!(list.contains("text=\"Buy milk; now\""), "{list}");
    assert!(
        rig.phone.injections().is_empty(),
        "{:?}",
        rig.phone.injections()
    );
}

#[test]
fn metacharacters_are_recorded_as_injection_and_not_run() {
    let rig = Rig::new();
    let before = rig.phone.state();
    // What a careless server would send for a package name `com.x;…`.
    let out = rig.adb_raw(&[
        "shell",
        "am force-stop com.x; settings put system user_rotation 1; echo $(id) `id`",
    ]);
    assert!(out.status.success());
    assert_eq!(text(&out), "", "nothing ran, nothing printed");
    let inj = rig.phone.injections();
    assert_eq!(inj.len(), 1, "{inj:?}");
    assert!(
        inj[0].reasons.iter().any(|r| r.contains(';')),
        "{:?}",
        inj[0].reasons
    );
    assert!(
        inj[0].reasons.iter().any(|r| r.contains("$(id)")),
        "{:?}",
        inj[0].reasons
    );
    assert!(
        inj[0].reasons.iter().any(|r| r.contains("`id`")),
        "{:?}",
        inj[0].reasons
    );
    assert_eq!(
        inj[0].argv[1],
        vec!["settings", "put", "system", "user_rotation", "1"]
    );
    let after = rig.phone.state();
    assert_eq!(before.settings, after.settings, "state unchanged");
    assert_eq!(before.stack, after.stack);
    // The same text quoted is harmless.
    rig.shell(&["echo", "'a;b $(id) `id`'"]);
    assert_eq!(rig.phone.injections().len(), 1);
}

#[test]
fn logcat_and_settings_via_adb() {
    let rig = Rig::new();
    let out = text(&rig.adb_ok(&["logcat", "-d"]));
    assert!(out.starts_with("--------- beginning of main\n"), "{out}");
    assert!(out.contains("--------- beginning of crash\n"));
    assert!(
        rig.phone.injections().is_empty(),
        "adb's own logcat prefix is not an injection"
    );
    let crash = rig.shell(&["logcat", "-b", "crash", "-d"]);
    assert!(crash.contains("FATAL EXCEPTION: main"), "{crash}");
    rig.shell(&[
        "content",
        "insert",
        "--uri",
        "content://settings/system",
        "--bind",
        "name:s:user_rotation",
        "--bind",
        "value:i:1",
    ]);
    assert_eq!(
        rig.shell(&["settings", "get", "system", "user_rotation"]),
        "1\n"
    );
}

#[test]
fn stopping_the_phone_takes_it_offline() {
    let phone = virtual_phone::VirtualPhone::start(virtual_phone::PhoneConfig::default()).unwrap();
    let adb = virtual_phone::adb_server::PrivateAdbServer::start().unwrap();
    adb.connect(&phone).unwrap();
    let serial = phone.serial();
    phone.stop();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = adb.adb(&["-s", &serial, "get-state"]).unwrap();
        let state = text(&out);
        if state.trim() != "device" {
            break;
        }
        assert!(Instant::now() < deadline, "still online after stop");
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = adb.adb(&["-s", &serial, "shell", "echo", "hi"]).unwrap();
    assert!(!out.status.success());
    let _ = adb.adb(&["disconnect", &serial]);
}

#[test]
fn screenrecord_stops_on_sigint() {
    let rig = Rig::new();
    let serial = rig.phone.serial();
    let port = rig.adb.port();
    let home = rig.adb.home().to_path_buf();
    let started = Instant::now();
    let recorder = std::thread::spawn(move || {
        let mut cmd = std::process::Command::new("adb");
        cmd.args([
            "-P",
            &port.to_string(),
            "-s",
            &serial,
            "shell",
            "screenrecord",
            "--time-limit",
            "30",
            "/sdcard/rec.mp4",
        ]);
        cmd.env("HOME", home);
        virtual_phone::adb_server::run_with_timeout(cmd, Duration::from_secs(20))
    });
    // Wait until it is running, then stop it the way mobilecli does.
    let deadline = Instant::now() + Duration::from_secs(10);
    while rig.shell(&["pidof", "screenrecord"]).trim().is_empty() {
        assert!(Instant::now() < deadline, "screenrecord never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    rig.shell(&["pkill", "-INT", "screenrecord"]);
    recorder.join().unwrap().expect("screenrecord returned");
    assert!(started.elapsed() < Duration::from_secs(15));
    let data = rig
        .phone
        .file("/sdcard/rec.mp4")
        .expect("recording written");
    assert_eq!(&data[4..8], b"ftyp");
}
