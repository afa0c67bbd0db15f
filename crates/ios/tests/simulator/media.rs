//! Logs, screen recording, the clipboard and the simulated location.

use std::time::Duration;

use mobile_device::{LogFilter, LogQuery, RecordingOptions};

use crate::{Harness, U, real, run};

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
                limit: mobile_device::LogLimit::parse(100.0).unwrap(),
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
                limit: mobile_device::LogLimit::parse(10.0).unwrap(),
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
                limit: mobile_device::LogLimit::parse(1.0).unwrap(),
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
            time_limit: Default::default(),
        })
        .await
        .unwrap();
        let again = dev
            .start_recording(&RecordingOptions {
                time_limit: Default::default(),
            })
            .await
            .unwrap_err();
        assert!(again.to_string().contains("already recording"), "{again}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        let rec = dev
            .stop_recording(std::fs::File::create(&video).unwrap())
            .await
            .unwrap();
        assert!(rec.bytes > 0);
        assert_eq!(std::fs::metadata(&video).unwrap().len(), rec.bytes);
        assert_eq!(std::fs::read(&video).unwrap()[4..8], *b"ftyp");
        // simctl wrote into a private folder of the backend's, never the caller's path;
        // the folder is gone once the video is copied into the given file.
        let calls = h.commands();
        assert_eq!(calls.len(), 1, "{calls:?}");
        let argv = &calls[0].argv;
        assert_eq!(
            argv[..argv.len() - 1],
            ["simctl", "io", U, "recordVideo", "--codec=h264", "--force"]
        );
        let private = std::path::Path::new(argv.last().unwrap());
        assert!(
            private
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("mobile-mcp-recording-"),
            "{private:?}"
        );
        assert!(!private.parent().unwrap().exists(), "{private:?} is left");
        h.clear_log();
        let none = out.path().join("none.mp4");
        assert!(
            dev.stop_recording(std::fs::File::create(&none).unwrap())
                .await
                .is_err()
        );

        dev.set_clipboard("copied 示例 \"text\"").await.unwrap();
        assert_eq!(dev.clipboard().await.unwrap(), "copied 示例 \"text\"");
        dev.set_location(Some(mobile_device::Location {
            latitude: mobile_device::Latitude::parse(37.3349).unwrap(),
            longitude: mobile_device::Longitude::parse(-122.009).unwrap(),
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
