//! Device-wide tools on profiles: the mock location through `cmd location` (Android 12+)
//! and `ps -o` naming the log's processes (the clipboard is in `unicode.rs`).

use super::*;

fn provider_location(phone: &PhoneHandle) -> Option<(f64, f64)> {
    phone
        .state()
        .location
        .test_providers
        .get("gps")
        .and_then(|p| p.location)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_location_on_android_14_sets_the_gps_test_provider() {
    bounded(async {
        let r = rig(Profile::android(34)).await;
        r.mcp
            .ok(
                "mobile_set_location",
                json!({"device": r.dev, "latitude": 48.8584, "longitude": 2.2945}),
            )
            .await;
        let s = r.phone.state();
        assert!(
            s.location.mock_allowed("com.android.shell"),
            "{:?}",
            s.location
        );
        let gps = s
            .location
            .test_providers
            .get("gps")
            .cloned()
            .unwrap_or_default();
        assert!(gps.enabled, "{gps:?}");
        assert_eq!(gps.location, Some((48.8584, 2.2945)));

        r.mcp
            .ok("mobile_set_location", json!({"device": r.dev}))
            .await;
        assert!(r.phone.state().location.test_providers.is_empty());
        assert!(
            r.phone.injections().is_empty(),
            "{:?}",
            r.phone.injections()
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_location_on_android_12_works_and_on_11_and_10_says_what_is_needed() {
    bounded(async {
        let r = rig(Profile::android(31)).await;
        r.mcp
            .ok(
                "mobile_set_location",
                json!({"device": r.dev, "latitude": -33.8568, "longitude": 151.2153}),
            )
            .await;
        assert_eq!(provider_location(&r.phone), Some((-33.8568, 151.2153)));

        for sdk in [30, 29, 26] {
            let r = rig(Profile::android(sdk)).await;
            let res = r
                .mcp
                .call(
                    "mobile_set_location",
                    json!({"device": r.dev, "latitude": 1.5, "longitude": 2.5}),
                )
                .await;
            let t = err_text(&res);
            assert!(t.contains("Android 12"), "SDK {sdk}: {t}");
            assert!(t.contains("geo fix"), "SDK {sdk}: {t}");
            assert_eq!(provider_location(&r.phone), None);
            // Nothing was tried on the device: the release alone decides.
            assert!(
                !argvs(&r.phone)
                    .iter()
                    .any(|a| a.first().is_some_and(|w| w == "cmd")),
                "{:?}",
                argvs(&r.phone)
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_process_filter_names_pids_through_toybox_ps_o() {
    bounded(async {
        for sdk in [26, 34] {
            let r = rig(Profile::android(sdk)).await;
            let t = r
                .mcp
                .ok(
                    "mobile_get_device_logs",
                    json!({"device": r.dev, "filter": ["process=system_server"]}),
                )
                .await;
            assert!(t.contains("System now ready"), "SDK {sdk}: {t}");
            assert!(!t.contains("starting service 'zygote'"), "SDK {sdk}: {t}");
            assert!(
                argvs(&r.phone)
                    .iter()
                    .any(|a| a.first().is_some_and(|w| w == "ps")),
                "{:?}",
                argvs(&r.phone)
            );
        }
    })
    .await;
}
