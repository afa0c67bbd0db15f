//! The pipeline end to end: every input route, both output formats, the options.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, RgbaImage};
use mobile_device::{CaptureFormat, DEFAULT_JPEG_QUALITY, Screenshot};

use super::{Source, process};
use crate::downscale::downscale_rgba_to_rgb;
use crate::jpeg;
use crate::{OutputFormat, ScreenshotOptions};

fn png(w: u32, h: u32) -> Screenshot {
    let img = RgbaImage::from_fn(w, h, |x, y| {
        image::Rgba([(x % 256) as u8, (y % 256) as u8, 90, 255])
    });
    let mut buf = Cursor::new(Vec::new());
    DynamicImage::ImageRgba8(img)
        .write_to(&mut buf, ImageFormat::Png)
        .unwrap();
    Screenshot {
        format: CaptureFormat::Png,
        bytes: buf.into_inner(),
    }
}

#[test]
fn default_scales_longest_side_to_1024_jpeg() {
    let p = process(&png(1080, 2400), &ScreenshotOptions::default()).unwrap();
    assert_eq!((p.width, p.height), (461, 1024));
    assert_eq!(p.mime_type, "image/jpeg");
    let back = image::load_from_memory(&p.bytes).unwrap();
    assert_eq!((back.width(), back.height()), (461, 1024));
    assert_eq!(
        p.coordinate_mapping((1080, 2400)),
        "Screenshot is 461x1024. Screen coordinates are 1080x2400. To tap something you see in this screenshot, multiply its x by 2.343 and y by 2.344."
    );
}

#[test]
fn max_size_wins_and_never_enlarges() {
    let opts = ScreenshotOptions {
        max_size: Some(500),
        scale: Some(0.1),
        format: OutputFormat::Png,
    };
    let p = process(&png(1080, 2400), &opts).unwrap();
    assert_eq!((p.width, p.height), (225, 500));
    let opts = ScreenshotOptions {
        max_size: Some(4000),
        ..opts
    };
    let p = process(&png(100, 200), &opts).unwrap();
    assert_eq!((p.width, p.height), (100, 200));
    assert_eq!(
        p.coordinate_mapping((100, 200)),
        "Screenshot is 100x200. Screen coordinates match the screenshot."
    );
}

#[test]
fn scale_and_raw_frames() {
    let raw = Screenshot {
        format: CaptureFormat::Rgba8 {
            width: 4,
            height: 2,
        },
        bytes: vec![200; 32],
    };
    let opts = ScreenshotOptions {
        max_size: None,
        scale: Some(0.5),
        format: OutputFormat::Png,
    };
    let p = process(&raw, &opts).unwrap();
    assert_eq!((p.width, p.height), (2, 1));
    let bad = Screenshot {
        format: CaptureFormat::Rgba8 {
            width: 4,
            height: 2,
        },
        bytes: vec![0; 3],
    };
    assert!(process(&bad, &opts).is_err());
    let opts = ScreenshotOptions {
        scale: Some(1.5),
        ..opts
    };
    assert!(process(&raw, &opts).is_err());
    let garbage = Screenshot {
        format: CaptureFormat::Png,
        bytes: b"not a png".to_vec(),
    };
    assert!(
        process(&garbage, &ScreenshotOptions::default())
            .unwrap_err()
            .to_string()
            .contains("invalid PNG")
    );
}

fn encode_png(img: DynamicImage) -> Vec<u8> {
    let mut buf = Cursor::new(Vec::new());
    img.write_to(&mut buf, ImageFormat::Png).unwrap();
    buf.into_inner()
}

#[test]
fn streamed_png_rows_match_the_whole_decode() {
    // A busy frame, so any row or column slip changes pixels.
    let rgba = RgbaImage::from_fn(1080, 2400, |x, y| {
        image::Rgba([
            (x * 7 % 256) as u8,
            (y * 3 % 256) as u8,
            ((x ^ y) % 256) as u8,
            255,
        ])
    });
    let opts = ScreenshotOptions::default();
    let one = downscale_rgba_to_rgb(rgba.as_raw(), 1080, 2400, 461, 1024).unwrap();
    let raw = Screenshot {
        format: CaptureFormat::Rgba8 {
            width: 1080,
            height: 2400,
        },
        bytes: rgba.clone().into_raw(),
    };
    let rgb = DynamicImage::ImageRgba8(rgba.clone()).to_rgb8();
    let rgb16 = DynamicImage::ImageRgb8(rgb.clone()).to_rgba16();
    let png_of = |img: DynamicImage| Screenshot {
        format: CaptureFormat::Png,
        bytes: encode_png(img),
    };
    // Every route: RGBA and RGB PNGs read row by row, a 16-bit PNG decoded whole, the
    // raw frame read in place.
    for capture in [
        png_of(DynamicImage::ImageRgba8(rgba.clone())),
        png_of(DynamicImage::ImageRgb8(rgb)),
        png_of(DynamicImage::ImageRgba16(rgb16)),
        raw.clone(),
    ] {
        let source = Source::open(&capture, &opts, None).unwrap();
        assert_eq!((source.from, source.target), ((1080, 2400), (461, 1024)));
        let mut bands = Vec::new();
        source
            .bands(&mut |band| bands.push(band.into_owned()))
            .unwrap();
        // Whole bands (1024 rows divide evenly); together, the one-scaler image.
        let sizes: Vec<usize> = bands.iter().map(|b| b.len() / (461 * 3)).collect();
        assert_eq!(
            sizes,
            vec![jpeg::BAND_ROWS; 1024 / jpeg::BAND_ROWS],
            "{:?}",
            capture.format
        );
        assert!(bands.concat() == *one.as_raw());
    }
    // The JPEG decodes to the pixels of the scaled image encoded whole (restart
    // markers change bytes, not pixels).
    let p = process(&raw, &opts).unwrap();
    let mut plain = Vec::new();
    let mut enc = jpeg_encoder::Encoder::new(&mut plain, DEFAULT_JPEG_QUALITY);
    enc.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    enc.encode(one.as_raw(), 461, 1024, jpeg_encoder::ColorType::Rgb)
        .unwrap();
    let decoded = |b: &[u8]| image::load_from_memory(b).unwrap().to_rgb8();
    assert!(decoded(&p.bytes) == decoded(&plain));
    // And the PNG output is the scaled image itself.
    let png_opts = ScreenshotOptions {
        format: OutputFormat::Png,
        ..opts
    };
    let p = process(&raw, &png_opts).unwrap();
    assert!(decoded(&p.bytes) == one);
}

#[test]
fn grey_png_and_truncated_png() {
    // Grey PNGs take the whole-decode route and come out the same grey.
    let grey = image::GrayImage::from_pixel(300, 600, image::Luma([77]));
    let shot = Screenshot {
        format: CaptureFormat::Png,
        bytes: encode_png(DynamicImage::ImageLuma8(grey)),
    };
    let opts = ScreenshotOptions {
        format: OutputFormat::Png,
        ..Default::default()
    };
    let p = process(&shot, &opts).unwrap();
    let back = image::load_from_memory(&p.bytes).unwrap().to_rgb8();
    assert_eq!(back.dimensions(), (300, 600));
    assert!(back.pixels().all(|px| px.0 == [77, 77, 77]));
    // A PNG cut in half is an error, not a half-black image.
    let mut cut = png(1080, 2400);
    cut.bytes.truncate(cut.bytes.len() / 2);
    let e = process(&cut, &ScreenshotOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("invalid PNG"), "{e}");
}

#[test]
fn jpeg_is_baseline_4_2_0_at_the_asked_quality() {
    let p = process(&png(1080, 2400), &ScreenshotOptions::default()).unwrap();
    // SOF0 marker: FFC0, length, precision, height, width, 3 components of
    // (id, sampling HxV, table): luma 2x2, both chroma 1x1.
    let sof = p.bytes.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
    let f = &p.bytes[sof..];
    assert_eq!(u16::from_be_bytes([f[5], f[6]]), 1024);
    assert_eq!(u16::from_be_bytes([f[7], f[8]]), 461);
    assert_eq!(f[9], 3);
    assert_eq!([f[11], f[14], f[17]], [0x22, 0x11, 0x11]);
    let q90 = ScreenshotOptions {
        format: OutputFormat::Jpeg { quality: 90 },
        ..Default::default()
    };
    let hi = process(&png(1080, 2400), &q90).unwrap();
    assert!(hi.bytes.len() > p.bytes.len(), "quality 90 must cost bytes");
}
