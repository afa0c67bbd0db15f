//! Every `Device` method is reached through `dyn Device` on the virtual phone: each area
//! file's inherent method has its forwarder in `device/mod.rs`, or the trait's default
//! would answer "not supported". Only what Android has no command for may say so.

use std::time::Duration;

use mobile_android::{AndroidBackend, AndroidConfig};
use mobile_device::conformance::{METHODS, Probe, call_every_method, unsupported};
use mobile_device::{AppId, AppPackage, DeviceBackend, DevicePath, DeviceUrl, PackageContent};
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, VirtualPhone};

/// What Android itself cannot do on the default virtual phone: folding (the Pixel 7 is
/// not a foldable). The clipboard goes through the on-device helper (`helper/`).
const ANDROID_UNSUPPORTED: &[&str] = &["fold"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_method_android_supports_is_forwarded() {
    tokio::time::timeout(Duration::from_secs(120), async {
        let phone = VirtualPhone::start(PhoneConfig::default()).expect("start the virtual phone");
        let adb = PrivateAdbServer::start().expect("start a private adb server");
        adb.connect(&phone).expect("adb connect");
        let backend = AndroidBackend::new(AndroidConfig {
            servers: vec![adb.socket_addr()],
            adb_path: Some("/nonexistent/adb".into()),
            ..Default::default()
        });
        let found = backend.discover().await;
        let info = found
            .devices
            .iter()
            .find(|d| d.id == phone.serial())
            .expect("the phone is listed")
            .clone();
        let device = backend.open(&info).await.expect("open");

        let dir = tempfile::tempdir().unwrap();
        let apk = dir.path().join("hello.apk");
        std::fs::write(&apk, virtual_phone::fake_apk("com.example.hello", "Hello")).unwrap();
        let push = dir.path().join("up.bin");
        std::fs::write(&push, b"pushed").unwrap();
        let probe = Probe {
            app: AppId::parse("com.example.notes").unwrap(),
            package: AppPackage {
                name: "hello.apk".into(),
                content: PackageContent::File(std::fs::File::open(&apk).unwrap()),
            },
            installed: AppId::parse("com.example.hello").unwrap(),
            url: DeviceUrl::parse("https://example.com").unwrap(),
            crash: "0".into(),
            push: std::fs::File::open(&push).unwrap(),
            remote: DevicePath::parse("/sdcard/Download/up.bin").unwrap(),
            pull_into: std::fs::File::create(dir.path().join("down.bin")).unwrap(),
            record_into: std::fs::File::create(dir.path().join("rec.mp4")).unwrap(),
        };
        let results = call_every_method(device.as_ref(), probe).await;
        let called: Vec<&str> = results.iter().map(|(m, _)| *m).collect();
        assert_eq!(called, METHODS);
        assert_eq!(
            unsupported(&results),
            ANDROID_UNSUPPORTED,
            "{:#?}",
            results
                .iter()
                .filter(|(_, r)| r.is_err())
                .collect::<Vec<_>>()
        );
        // The calls reached the phone: the package was installed (its uninstall found it),
        // and the pushed file is there.
        let ok = |m: &str| results.iter().any(|(n, r)| *n == m && r.is_ok());
        assert!(ok("install_app") && ok("uninstall_app"), "{results:#?}");
        let state = phone.state();
        assert!(!state.packages.contains_key("com.example.hello"));
        assert_eq!(
            state
                .files
                .get("/sdcard/Download/up.bin")
                .map(|f| f.data.clone()),
            Some(b"pushed".to_vec())
        );
        assert!(phone.injections().is_empty(), "{:?}", phone.injections());
    })
    .await
    .expect("the forwarding test finished within its deadline");
}
