//! The screenshot pipeline on a phone-sized capture: 1080×2400 PNG (what `screencap -p` sends)
//! and a raw RGBA framebuffer (what `screencap` without `-p` sends), each decoded, scaled to a
//! longest side of 1024 and encoded as JPEG q75 (the defaults of `mobile_take_screenshot`).
//! Also the same PNG annotated (14 row boxes and ref tags) and clipped (a 1080×600 band at
//! full detail). Throughput is in bytes of the capture. Run with `cargo bench -p mobile-screenshot --bench screenshot`.

use std::hint::black_box;
use std::io::Cursor;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use image::{ImageFormat, Rgba, RgbaImage};
use mobile_device::ScreenshotOptions;
use mobile_device::{CaptureFormat, Screenshot};
use mobile_screenshot::annotate::{self, Mark};
use mobile_screenshot::clip::{self, Region};
use mobile_screenshot::{StreamScaler, process};

const W: u32 = 1080;
const H: u32 = 2400;

/// A UI-like frame: flat background, a status bar, cards, and rows of small "glyph" blocks
/// (flat areas compress well, edges do not, like a real screen).
fn frame() -> RgbaImage {
    let mut img = RgbaImage::from_pixel(W, H, Rgba([245, 245, 247, 255]));
    for y in 0..H {
        for x in 0..W {
            let p = if y < 80 {
                Rgba([32, 33, 36, 255])
            } else if (y / 300) % 2 == 0 && (40..W - 40).contains(&x) && (y % 300) > 20 {
                let row = (y % 300) / 24;
                let col = x / 14;
                if row % 2 == 1 && (col * 7 + row * 3) % 5 != 0 && x % 14 < 10 && y % 24 < 16 {
                    Rgba([40, 40, 40, 255])
                } else {
                    Rgba([255, 255, 255, 255])
                }
            } else {
                Rgba([245, 245, 247, 255])
            };
            img.put_pixel(x, y, p);
        }
    }
    img
}

fn bench(c: &mut Criterion) {
    let img = frame();
    let mut png = Vec::new();
    img.write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .expect("encode the test PNG");
    let png = Screenshot {
        format: CaptureFormat::Png,
        bytes: png,
    };
    let raw = Screenshot {
        format: CaptureFormat::Rgba8 {
            width: W,
            height: H,
        },
        bytes: img.into_raw(),
    };
    let opts = ScreenshotOptions::default();
    for (name, shot) in [("png", &png), ("rgba", &raw)] {
        let out = process(shot, &opts).expect("process");
        eprintln!(
            "{name} -> {}x{} JPEG, {} bytes",
            out.width,
            out.height,
            out.bytes.len()
        );
    }

    let mut g = c.benchmark_group("screenshot");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(png.bytes.len() as u64));
    g.bench_function("png_1080x2400_to_jpeg_1024", |b| {
        b.iter(|| process(black_box(&png), &opts).expect("process"))
    });
    g.throughput(Throughput::Bytes(raw.bytes.len() as u64));
    g.bench_function("rgba_1080x2400_to_jpeg_1024", |b| {
        b.iter(|| process(black_box(&raw), &opts).expect("process"))
    });
    // `annotate: true`: the same, with 14 list rows' boxes and ref tags drawn.
    let marks: Vec<Mark> = (0..14)
        .map(|i| Mark {
            x: 42.0,
            y: 240.0 + 150.0 * f64::from(i),
            width: 996.0,
            height: 140.0,
            label: format!("@e{}", i + 1),
        })
        .collect();
    g.throughput(Throughput::Bytes(png.bytes.len() as u64));
    g.bench_function("png_1080x2400_annotated_14_marks_to_jpeg_1024", |b| {
        b.iter(|| {
            annotate::process_annotated(black_box(&png), &opts, None, &marks).expect("annotate")
        })
    });
    // `clip`: a 1080×600 band, kept at full detail.
    let band = Region {
        x: 0,
        y: 900,
        width: 1080,
        height: 600,
    };
    g.bench_function("png_1080x2400_clip_1080x600_to_jpeg", |b| {
        b.iter(|| clip::process_clip(black_box(&png), band, &opts).expect("clip"))
    });
    g.finish();

    // The stages, to see where the time goes.
    let mut g = c.benchmark_group("screenshot_stage");
    g.sample_size(20);
    let decoded =
        image::load_from_memory_with_format(&png.bytes, ImageFormat::Png).expect("decode");
    g.throughput(Throughput::Bytes(png.bytes.len() as u64));
    g.bench_function("decode_png", |b| {
        b.iter(|| image::load_from_memory_with_format(black_box(&png.bytes), ImageFormat::Png))
    });
    g.throughput(Throughput::Bytes(raw.bytes.len() as u64));
    g.bench_function("thumbnail_rgba_461x1024", |b| {
        b.iter(|| black_box(&decoded).thumbnail_exact(461, 1024))
    });
    g.bench_function("resize_exact_triangle_461x1024", |b| {
        b.iter(|| {
            black_box(&decoded).resize_exact(461, 1024, image::imageops::FilterType::Triangle)
        })
    });
    // This crate's own stages: PNG rows inflated and unfiltered (no scaling), the area
    // downscaler alone (raw rows in, RGB out), and `jpeg-encoder` 4:2:0 q75 with and without
    // optimized Huffman tables (the byte counts are printed once).
    g.throughput(Throughput::Bytes(png.bytes.len() as u64));
    g.bench_function("png_rows_inflate", |b| {
        b.iter(|| {
            let mut d = png::Decoder::new(Cursor::new(black_box(&png.bytes[..])));
            d.set_transformations(png::Transformations::EXPAND);
            let mut r = d.read_info().expect("header");
            let mut n = 0u32;
            while let Some(row) = r.next_row().expect("row") {
                n += u32::from(row.data()[0]);
            }
            n
        })
    });
    g.throughput(Throughput::Bytes(raw.bytes.len() as u64));
    let scale_raw = || {
        let mut s = StreamScaler::new(W, H, &opts).expect("scaler");
        for row in black_box(&raw.bytes).chunks_exact(W as usize * 4) {
            s.push_rgba_row(row);
        }
        s.finish().expect("scaled")
    };
    g.bench_function("area_downscale_rgba_461x1024", |b| b.iter(scale_raw));
    let ours = scale_raw().bytes;
    g.throughput(Throughput::Bytes(ours.len() as u64));
    for optimized in [true, false] {
        let encode = || {
            let mut out = Vec::new();
            let mut enc = jpeg_encoder::Encoder::new(&mut out, 75);
            enc.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
            enc.set_optimized_huffman_tables(optimized);
            enc.encode(black_box(&ours), 461, 1024, jpeg_encoder::ColorType::Rgb)
                .expect("encode");
            out
        };
        let name = if optimized { "optimized" } else { "standard" };
        eprintln!(
            "jpeg-encoder 4:2:0 q75 {name} Huffman tables: {} bytes",
            encode().len()
        );
        g.bench_function(
            format!("jpeg_encoder_whole_one_thread_{name}_461x1024"),
            |b| b.iter(encode),
        );
    }
    // What we ship: the same scaled image through `process` (a frame that arrives already
    // scaled is only encoded), i.e. 32-row bands on two threads, written again with fitted
    // Huffman tables.
    let scaled = Screenshot {
        format: CaptureFormat::ScaledRgb8 {
            width: 461,
            height: 1024,
            source_width: 1080,
            source_height: 2400,
        },
        bytes: ours.clone(),
    };
    let opts = ScreenshotOptions::default();
    eprintln!(
        "banded JPEG, fitted tables: {} bytes",
        process(&scaled, &opts).expect("process").bytes.len()
    );
    g.bench_function("banded_jpeg_two_threads_fitted_461x1024", |b| {
        b.iter(|| process(black_box(&scaled), &opts).expect("process"))
    });
    let small = decoded.thumbnail_exact(461, 1024).to_rgb8();
    g.throughput(Throughput::Bytes(small.as_raw().len() as u64));
    g.bench_function("jpeg_q75_461x1024", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 75);
            black_box(&small).write_with_encoder(enc).expect("encode");
            out
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
