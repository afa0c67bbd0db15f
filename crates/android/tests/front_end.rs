//! The backend against the virtual phone's own adb-server front end, the path `--demo`
//! takes: no adb binary, one configured server that is never started. The same calls the
//! private-adb-server suite makes, checked on what the phone received and its state.

use std::time::Duration;

use mobile_android::{AndroidBackend, AndroidConfig};
use mobile_device::{
    CaptureFormat, DeviceBackend, DevicePath, DeviceState, Point, ScreenshotOptions,
};
use virtual_phone::state::InputEvent;
use virtual_phone::{AdbFrontEnd, PhoneConfig, PhoneHandle, VirtualPhone};

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

/// Upper bound for the whole test; a hang fails instead of blocking CI.
const TEST_DEADLINE: Duration = Duration::from_secs(120);

fn events(phone: &PhoneHandle) -> Vec<InputEvent> {
    phone.state().input_events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_call_through_the_front_end() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let front = AdbFrontEnd::start(&phone).unwrap();
        let backend = AndroidBackend::new(AndroidConfig::only_server(front.addr()));
        let found = backend.discover().await;
        assert_eq!(found.devices.len(), 1, "{found:?}");
        let info = &found.devices[0];
        assert_eq!(info.id, phone.serial());
        assert_eq!(info.state, DeviceState::Online);
        assert_eq!(info.model.as_deref(), Some("Pixel 7"));
        let d = backend.open(info).await.unwrap();
        let size = d.screen_size().await.unwrap();
        assert_eq!((size.width, size.height), (1080, 2400));
        phone.update_state(|s| s.input_events.clear());
        d.tap(Point::new(5, 6)).await.unwrap();
        assert_eq!(events(&phone), vec![InputEvent::Tap { x: 5.0, y: 6.0 }]);
        d.type_text("a b").await.unwrap();
        let shot = d.screenshot(&ScreenshotOptions::default()).await.unwrap();
        assert_eq!(
            shot.format,
            CaptureFormat::ScaledRgb8 {
                width: 461,
                height: 1024,
                source_width: 1080,
                source_height: 2400
            }
        );
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("f.txt");
        std::fs::write(&local, b"front bytes!").unwrap();
        let remote = DevicePath::parse("/sdcard/f.txt").unwrap();
        assert_eq!(
            d.push_file(std::fs::File::open(&local).unwrap(), &remote)
                .await
                .unwrap(),
            12
        );
        assert_eq!(
            phone.file("/sdcard/f.txt").as_deref(),
            Some(&b"front bytes!"[..])
        );
        let back = dir.path().join("g.txt");
        assert_eq!(
            d.pull_file(&remote, std::fs::File::create(&back).unwrap())
                .await
                .unwrap(),
            12
        );
        assert_eq!(std::fs::read(&back).unwrap(), b"front bytes!");
        let apk = dir.path().join("d.apk");
        std::fs::write(&apk, virtual_phone::fake_apk("com.example.front", "Front")).unwrap();
        d.install_app(package(&apk), None).await.unwrap();
        assert!(phone.state().packages.contains_key("com.example.front"));
        assert!(!d.list_elements().await.unwrap().is_empty());
        assert!(phone.injections().is_empty());

        // The phone goes away: calls fail with an error, quickly, and nothing panics.
        phone.stop();
        let t = std::time::Instant::now();
        assert!(d.screen_size().await.is_err());
        assert!(t.elapsed() < Duration::from_secs(25), "{:?}", t.elapsed());
    })
    .await
    .expect("test finished in time");
}

/// A transfer large enough to still be running when its caller gives up.
const BIG: usize = 256 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_whose_caller_gives_up_stops() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        let front = AdbFrontEnd::start(&phone).unwrap();
        let backend = AndroidBackend::new(AndroidConfig::only_server(front.addr()));
        let info = backend.discover().await.devices.remove(0);
        let d = backend.open(&info).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("big.bin");
        std::fs::write(&local, vec![7u8; BIG]).unwrap();
        let remote = DevicePath::parse("/sdcard/big.bin").unwrap();
        // The server's deadline (or a cancelled call) drops the call's future.
        let call = d.push_file(std::fs::File::open(&local).unwrap(), &remote);
        assert!(
            tokio::time::timeout(Duration::from_millis(30), call)
                .await
                .is_err(),
            "the push finished before the caller gave up; make BIG larger"
        );
        // Had the upload gone on, the whole file would be on the phone by now.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let on_phone = phone.file("/sdcard/big.bin").map(|f| f.len());
        assert!(
            on_phone.is_none_or(|n| n < BIG),
            "{on_phone:?} bytes arrived"
        );
    })
    .await
    .expect("test finished in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_whose_caller_gives_up_stops_and_leaves_no_partial_file() {
    tokio::time::timeout(TEST_DEADLINE, async {
        let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
        phone.update_state(|s| {
            s.files.insert(
                "/sdcard/big.bin".into(),
                virtual_phone::state::FileEntry {
                    data: vec![7u8; BIG],
                    mode: 0o100644,
                    mtime: 0,
                },
            );
        });
        let front = AdbFrontEnd::start(&phone).unwrap();
        let backend = AndroidBackend::new(AndroidConfig::only_server(front.addr()));
        let info = backend.discover().await.devices.remove(0);
        let d = backend.open(&info).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("big.bin");
        let remote = DevicePath::parse("/sdcard/big.bin").unwrap();
        let call = d.pull_file(&remote, std::fs::File::create(&local).unwrap());
        assert!(
            tokio::time::timeout(Duration::from_millis(30), call)
                .await
                .is_err(),
            "the pull finished before the caller gave up; make BIG larger"
        );
        // Had the download gone on, the whole file would be here by now.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let here = std::fs::metadata(&local).map(|m| m.len() as usize).ok();
        assert!(here.is_none_or(|n| n < BIG), "{here:?} bytes arrived");
    })
    .await
    .expect("test finished in time");
}
