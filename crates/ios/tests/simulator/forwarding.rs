//! Every `Device` method is reached through `dyn Device` on the fake simulator: each area
//! file's inherent method has its forwarder in `simulator/mod.rs`, or the trait's default
//! would answer "not supported". Only what a simulator cannot do may say so.

use mobile_device::conformance::{METHODS, Probe, call_every_method, unsupported};
use mobile_device::{AppPackage, DevicePath, DeviceUrl, PackageContent};

use super::apps::make_app_bundle;
use super::{Harness, app, real, run};

/// What the simulator backend does not do: crash reports, file transfers, folding and a
/// device-side screen fingerprint (the server hashes the element list instead).
const IOS_UNSUPPORTED: &[&str] = &[
    "crashes",
    "crash",
    "push_file",
    "pull_file",
    "fold",
    "screen_fingerprint",
];

#[test]
fn every_method_the_simulator_supports_is_forwarded() {
    if real() {
        return;
    }
    run(async {
        let h = Harness::new();
        let dev = h.device().await;
        let work = tempfile::tempdir().unwrap();
        let bundle = make_app_bundle(work.path(), "Demo", "com.example.demo", "Demo App");
        let push = work.path().join("up.bin");
        std::fs::write(&push, b"x").unwrap();
        let probe = Probe {
            app: app("com.apple.Preferences"),
            package: AppPackage {
                name: "Demo.app".into(),
                content: PackageContent::Folder(bundle),
            },
            installed: app("com.example.demo"),
            url: DeviceUrl::parse("https://example.com").unwrap(),
            crash: "0".into(),
            push: std::fs::File::open(&push).unwrap(),
            remote: DevicePath::parse("/tmp/up.bin").unwrap(),
            pull_into: std::fs::File::create(work.path().join("down.bin")).unwrap(),
            record_into: std::fs::File::create(work.path().join("rec.mp4")).unwrap(),
        };
        h.clear_log();
        let results = call_every_method(dev.as_ref(), probe).await;
        let called: Vec<&str> = results.iter().map(|(m, _)| *m).collect();
        assert_eq!(called, METHODS);
        assert_eq!(
            unsupported(&results),
            IOS_UNSUPPORTED,
            "{:#?}",
            results
                .iter()
                .filter(|(_, r)| r.is_err())
                .collect::<Vec<_>>()
        );
        // The calls reached the fake: the bundle was installed (its uninstall found it).
        let ok = |m: &str| results.iter().any(|(n, r)| *n == m && r.is_ok());
        assert!(ok("install_app") && ok("uninstall_app"), "{results:#?}");
        assert!(
            h.commands()
                .iter()
                .any(|c| c.argv.first().map(String::as_str) == Some("simctl")
                    && c.argv.get(1).map(String::as_str) == Some("install")),
            "{:?}",
            h.commands()
        );
        assert!(
            !h.sim()
                .apps
                .iter()
                .any(|a| a.bundle_id == "com.example.demo")
        );
    });
}
