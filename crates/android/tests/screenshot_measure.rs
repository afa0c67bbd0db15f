//! Measures the two screenshot routes on the virtual phone (a benchmark, not a test:
//! ignored by default, prints medians, asserts nothing about time).
//!
//! `cargo test -p mobile-android --release --test screenshot_measure -- --ignored --nocapture`

use std::time::{Duration, Instant};

use adb_client::ADBDeviceExt;
use adb_client::server_device::ADBServerDevice;
use mobile_device::ScreenshotOptions;
use mobile_device::{CaptureFormat, Screenshot};
use mobile_screenshot::process;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, VirtualPhone};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
#[ignore = "benchmark; run with --ignored --nocapture"]
fn raw_versus_png() {
    let phone = VirtualPhone::start(PhoneConfig::default()).unwrap();
    let adb = PrivateAdbServer::start().unwrap();
    adb.connect(&phone).unwrap();
    let capture = |cmd: &str| {
        let mut d = ADBServerDevice::new(phone.serial(), Some(adb.socket_addr()));
        let mut out = Vec::new();
        d.shell_command(&cmd, Some(&mut out), None).unwrap();
        out
    };
    for (name, cmd) in [
        ("raw screencap", "screencap"),
        ("screencap -p", "screencap -p"),
    ] {
        let mut cap = Vec::new();
        let mut total = Vec::new();
        let mut size = 0;
        for _ in 0..9 {
            let t = Instant::now();
            let bytes = capture(cmd);
            cap.push(t.elapsed());
            size = bytes.len();
            let shot = if cmd == "screencap" {
                let mut b = bytes;
                b.drain(..16);
                Screenshot {
                    format: CaptureFormat::Rgba8 {
                        width: 1080,
                        height: 2400,
                    },
                    bytes: b,
                }
            } else {
                Screenshot {
                    format: CaptureFormat::Png,
                    bytes,
                }
            };
            process(&shot, &ScreenshotOptions::default()).unwrap();
            total.push(t.elapsed());
        }
        eprintln!(
            "{name}: {size} bytes, capture median {:?}, capture + scale + JPEG median {:?}",
            median(cap),
            median(total)
        );
    }
    // The phone caches its PNG, so the capture above hides the encode a real phone does
    // for every `screencap -p`. Proxy: encode the same frame here with zlib's default
    // level (what Android's encoder uses); a phone CPU is slower than this host.
    let mut raw = capture("screencap");
    raw.drain(..16);
    let mut enc = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut out = Vec::new();
        image::codecs::png::PngEncoder::new_with_quality(
            &mut out,
            image::codecs::png::CompressionType::Default,
            image::codecs::png::FilterType::Adaptive,
        )
        .write_image(&raw, 1080, 2400, image::ExtendedColorType::Rgba8)
        .unwrap();
        enc.push(t.elapsed());
    }
    eprintln!(
        "PNG encode of one 1080x2400 frame on this host: median {:?}",
        median(enc)
    );
}

use image::ImageEncoder as _;
