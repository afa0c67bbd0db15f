//! The one screenshot pipeline: decode what the device captured, scale it, encode it.
//!
//! Runs in-process (no ImageMagick, no sips). `max_size` wins over `scale`; images are
//! never enlarged. Also writes the sentence that maps screenshot coordinates to screen
//! coordinates, because a model that taps what it sees in a scaled image must multiply.

use std::io::Cursor;

use image::{DynamicImage, ImageBuffer, ImageFormat, RgbImage, Rgba, RgbaImage};

use crate::error::{DeviceError, Result};
use crate::types::{CaptureFormat, Screenshot};

/// The longest side of a screenshot when the caller gives neither `maxSize` nor `scale`.
pub const DEFAULT_MAX_SIZE: u32 = 1024;
/// JPEG quality of screenshots (parity with the peer's default).
pub const DEFAULT_JPEG_QUALITY: u8 = 75;

/// How to encode the processed image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Png,
    Jpeg { quality: u8 },
}

/// What the caller asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenshotOptions {
    /// Longest side in pixels; wins over `scale`.
    pub max_size: Option<u32>,
    /// Factor in (0, 1].
    pub scale: Option<f64>,
    pub format: OutputFormat,
}

impl Default for ScreenshotOptions {
    fn default() -> Self {
        ScreenshotOptions {
            max_size: Some(DEFAULT_MAX_SIZE),
            scale: None,
            format: OutputFormat::Jpeg {
                quality: DEFAULT_JPEG_QUALITY,
            },
        }
    }
}

/// An encoded screenshot and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessedScreenshot {
    pub bytes: Vec<u8>,
    pub mime_type: &'static str,
    pub width: u32,
    pub height: u32,
    /// Size of the captured image before scaling, in pixels.
    pub source_width: u32,
    pub source_height: u32,
}

impl ProcessedScreenshot {
    /// The sentence that tells a model how to turn screenshot coordinates into screen
    /// coordinates. `screen` is the size in the device's input coordinates (pixels on
    /// Android, points on iOS) in the orientation of the capture.
    pub fn coordinate_mapping(&self, screen: (u32, u32)) -> String {
        let (sw, sh) = screen;
        if sw == self.width && sh == self.height {
            return format!(
                "Screenshot is {}x{}. Screen coordinates match the screenshot.",
                self.width, self.height
            );
        }
        let fx = sw as f64 / self.width.max(1) as f64;
        let fy = sh as f64 / self.height.max(1) as f64;
        format!(
            "Screenshot is {}x{}. Screen coordinates are {}x{}. To tap something you see in this screenshot, multiply its x by {:.3} and y by {:.3}.",
            self.width, self.height, sw, sh, fx, fy
        )
    }
}

/// Decodes a capture into pixels.
pub fn decode(capture: &Screenshot) -> Result<DynamicImage> {
    match capture.format {
        CaptureFormat::Png => image::load_from_memory_with_format(&capture.bytes, ImageFormat::Png)
            .map_err(|e| DeviceError::backend(format!("the device sent an invalid PNG: {e}"))),
        CaptureFormat::Jpeg => {
            image::load_from_memory_with_format(&capture.bytes, ImageFormat::Jpeg)
                .map_err(|e| DeviceError::backend(format!("the device sent an invalid JPEG: {e}")))
        }
        CaptureFormat::Rgba8 { width, height } => {
            let need = width as usize * height as usize * 4;
            if capture.bytes.len() < need {
                return Err(DeviceError::backend(format!(
                    "the framebuffer is {} bytes, {width}x{height} RGBA needs {need}",
                    capture.bytes.len()
                )));
            }
            let img = RgbaImage::from_raw(width, height, capture.bytes[..need].to_vec())
                .ok_or_else(|| DeviceError::backend("the framebuffer has the wrong size"))?;
            Ok(DynamicImage::ImageRgba8(img))
        }
    }
}

/// The target size for an image of `w`×`h` under `opts`.
pub fn target_size(w: u32, h: u32, opts: &ScreenshotOptions) -> (u32, u32) {
    let factor = if let Some(max) = opts.max_size {
        let longest = w.max(h).max(1);
        (max as f64 / longest as f64).min(1.0)
    } else if let Some(s) = opts.scale {
        s.clamp(f64::MIN_POSITIVE, 1.0)
    } else {
        1.0
    };
    if factor >= 1.0 {
        return (w, h);
    }
    let tw = ((w as f64 * factor).round() as u32).max(1);
    let th = ((h as f64 * factor).round() as u32).max(1);
    (tw, th)
}

/// Decodes, scales and encodes a capture.
pub fn process(capture: &Screenshot, opts: &ScreenshotOptions) -> Result<ProcessedScreenshot> {
    if let Some(s) = opts.scale
        && !(s > 0.0 && s <= 1.0)
    {
        return Err(DeviceError::invalid(format!(
            "scale must be greater than 0 and at most 1, got {s}"
        )));
    }
    if opts.max_size == Some(0) {
        return Err(DeviceError::invalid("maxSize must be at least 1"));
    }
    let (img, (sw, sh), (tw, th)) = match capture.format {
        // A raw frame is scaled straight from the capture's bytes: no 10 MB copy first.
        CaptureFormat::Rgba8 { width, height }
            if target_size(width, height, opts) != (width, height) =>
        {
            let need = width as usize * height as usize * 4;
            let frame = capture
                .bytes
                .get(..need)
                .and_then(|b| ImageBuffer::<Rgba<u8>, &[u8]>::from_raw(width, height, b))
                .ok_or_else(|| {
                    DeviceError::backend(format!(
                        "the framebuffer is {} bytes, {width}x{height} RGBA needs {need}",
                        capture.bytes.len()
                    ))
                })?;
            let (tw, th) = target_size(width, height, opts);
            let small = downscale_rgba_to_rgb(frame.as_raw(), width, height, tw, th)?;
            (DynamicImage::ImageRgb8(small), (width, height), (tw, th))
        }
        _ => {
            let img = decode(capture)?;
            let (sw, sh) = (img.width(), img.height());
            let (tw, th) = target_size(sw, sh, opts);
            // Area averaging: each source pixel lands in exactly one target pixel. For the
            // 2-3x reductions of phone screenshots it looks like a box filter, needs no float
            // intermediate (`resize_exact` kept one of 16 bytes per pixel of a 1080-wide frame)
            // and is several times faster (crates/device/benches/screenshot.rs, stage rows).
            let img = if (tw, th) == (sw, sh) {
                img
            } else if let DynamicImage::ImageRgba8(frame) = &img {
                DynamicImage::ImageRgb8(downscale_rgba_to_rgb(frame.as_raw(), sw, sh, tw, th)?)
            } else {
                img.thumbnail_exact(tw, th)
            };
            (img, (sw, sh), (tw, th))
        }
    };
    let mut out = Cursor::new(Vec::with_capacity((tw * th) as usize / 4));
    let mime_type = match opts.format {
        OutputFormat::Png => {
            img.write_to(&mut out, ImageFormat::Png)
                .map_err(|e| DeviceError::backend(format!("PNG encoding failed: {e}")))?;
            "image/png"
        }
        OutputFormat::Jpeg { quality } => {
            let rgb = img.to_rgb8();
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
            rgb.write_with_encoder(enc)
                .map_err(|e| DeviceError::backend(format!("JPEG encoding failed: {e}")))?;
            "image/jpeg"
        }
    };
    Ok(ProcessedScreenshot {
        bytes: out.into_inner(),
        mime_type,
        width: tw,
        height: th,
        source_width: sw,
        source_height: sh,
    })
}

/// Area-averaging downscale of tightly packed RGBA8 rows to RGB8 (alpha dropped: screenshots
/// are opaque and JPEG has no alpha). Target pixel (x, y) is the mean of the source block
/// `[x·sw/tw, (x+1)·sw/tw) × [y·sh/th, (y+1)·sh/th)`: every source pixel counts exactly once,
/// like a box filter, in integer arithmetic over sequential rows. This one pass replaces
/// `thumbnail` + `to_rgb8` (a generic per-pixel walk plus a copy) on the hot path.
/// Requires `0 < tw <= sw`, `0 < th <= sh` and `src.len() >= sw * sh * 4`.
fn downscale_rgba_to_rgb(src: &[u8], sw: u32, sh: u32, tw: u32, th: u32) -> Result<RgbImage> {
    let (sw, sh, tw, th) = (sw as usize, sh as usize, tw as usize, th as usize);
    // Source column where each target column starts (and the end of the last).
    let xs: Vec<usize> = (0..=tw).map(|x| x * sw / tw).collect();
    let mut out = vec![0u8; tw * th * 3];
    let mut acc = vec![0u32; tw * 3];
    for ty in 0..th {
        let (y0, y1) = (ty * sh / th, (ty + 1) * sh / th);
        acc.iter_mut().for_each(|a| *a = 0);
        for row in src[y0 * sw * 4..y1 * sw * 4].chunks_exact(sw * 4) {
            for (tx, a) in acc.chunks_exact_mut(3).enumerate() {
                for p in row[xs[tx] * 4..xs[tx + 1] * 4].chunks_exact(4) {
                    a[0] += u32::from(p[0]);
                    a[1] += u32::from(p[1]);
                    a[2] += u32::from(p[2]);
                }
            }
        }
        let rows = (y1 - y0) as u32;
        let dst = &mut out[ty * tw * 3..(ty + 1) * tw * 3];
        for (tx, (a, d)) in acc.chunks_exact(3).zip(dst.chunks_exact_mut(3)).enumerate() {
            let n = rows * (xs[tx + 1] - xs[tx]) as u32;
            for c in 0..3 {
                d[c] = ((a[c] + n / 2) / n) as u8;
            }
        }
    }
    RgbImage::from_raw(tw as u32, th as u32, out)
        .ok_or_else(|| DeviceError::backend("the scaled image has the wrong size"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn downscale_averages_blocks_and_drops_alpha() {
        // 4x2 -> 2x1: each target pixel is the mean of a 2x2 block.
        let mut src = Vec::new();
        for y in 0..2u8 {
            for x in 0..4u8 {
                src.extend_from_slice(&[x * 10 + y, 100, if x < 2 { 0 } else { 255 }, 7]);
            }
        }
        let out = downscale_rgba_to_rgb(&src, 4, 2, 2, 1).unwrap();
        assert_eq!(out.dimensions(), (2, 1));
        // Means: R (0+10+1+11)/4 = 5.5 -> 6, (20+30+21+31)/4 = 25.5 -> 26.
        assert_eq!(out.as_raw(), &vec![6, 100, 0, 26, 100, 255]);
        // Uneven blocks (1080 -> 461 columns) still cover every source pixel once: a flat
        // frame stays flat.
        let flat = vec![200u8; 1080 * 24 * 4];
        let out = downscale_rgba_to_rgb(&flat, 1080, 24, 461, 10).unwrap();
        assert!(out.as_raw().iter().all(|&v| v == 200));
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
}
