//! Screenshot regions: a rectangle of the capture returned on its own, at the capture's
//! detail, and the sentence that maps its pixels back to screen coordinates.
//!
//! The crop is made by the pipeline while it reads the capture's rows (`process.rs`), before
//! the area downscaler, so a region is only scaled if it is larger than `maxSize`.
//!
//! ```
//! use mobile_device::{CaptureFormat, Screenshot, ScreenshotOptions};
//! use mobile_screenshot::clip::{self, Region};
//! let frame = Screenshot { format: CaptureFormat::Rgba8 { width: 40, height: 80 }, bytes: vec![255; 40 * 80 * 4] };
//! let r = Region { x: 10, y: 20, width: 8, height: 6 };
//! let out = clip::process_clip(&frame, r, &ScreenshotOptions::default()).unwrap();
//! assert_eq!((out.width, out.height), (8, 6));
//! ```

use std::io::Cursor;

use mobile_device::{CaptureFormat, DeviceError, Result, Screenshot};

use crate::{ProcessedScreenshot, ScreenshotOptions};

/// A rectangle in pixels: `x, y` its top-left corner, never empty once checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width; at least 1.
    pub width: u32,
    /// Height; at least 1.
    pub height: u32,
}

impl Region {
    /// The whole of an image of `size`.
    pub fn whole(size: (u32, u32)) -> Region {
        Region {
            x: 0,
            y: 0,
            width: size.0,
            height: size.1,
        }
    }

    /// The region, checked to be non-empty and to lie inside an image of `size`.
    ///
    /// # Errors
    /// An empty region, or one reaching past the image.
    pub fn checked_within(self, size: (u32, u32)) -> Result<Region> {
        let (w, h) = size;
        if self.width == 0 || self.height == 0 {
            return Err(DeviceError::invalid(format!(
                "the clip is empty ({}x{}); give a width and height of at least 1",
                self.width, self.height
            )));
        }
        let right = u64::from(self.x) + u64::from(self.width);
        let bottom = u64::from(self.y) + u64::from(self.height);
        if right > u64::from(w) || bottom > u64::from(h) {
            return Err(DeviceError::invalid(format!(
                "the clip {}x{} at ({}, {}) reaches outside the {w}x{h} screenshot",
                self.width, self.height, self.x, self.y
            )));
        }
        Ok(self)
    }

    /// This region of an image of `from`, in the pixels of the same image at `to`
    /// (at least one pixel, inside `to`).
    pub(crate) fn rescaled(self, from: (u32, u32), to: (u32, u32)) -> Region {
        if from == to {
            return self;
        }
        let fx = f64::from(to.0) / f64::from(from.0.max(1));
        let fy = f64::from(to.1) / f64::from(from.1.max(1));
        let x = ((f64::from(self.x) * fx).floor() as u32).min(to.0.saturating_sub(1));
        let y = ((f64::from(self.y) * fy).floor() as u32).min(to.1.saturating_sub(1));
        let r = ((f64::from(self.x + self.width) * fx).ceil() as u32).clamp(x + 1, to.0);
        let b = ((f64::from(self.y + self.height) * fy).ceil() as u32).clamp(y + 1, to.1);
        Region {
            x,
            y,
            width: r - x,
            height: b - y,
        }
    }
}

/// The size of the screen image a capture shows, without decoding its pixels (a PNG's
/// header, a raw frame's format; a JPEG's header).
///
/// # Errors
/// A capture that cannot be read.
pub fn capture_size(capture: &Screenshot) -> Result<(u32, u32)> {
    match capture.format {
        CaptureFormat::Rgba8 { width, height } => Ok((width, height)),
        CaptureFormat::ScaledRgb8 {
            source_width,
            source_height,
            ..
        } => Ok((source_width, source_height)),
        CaptureFormat::Png => {
            let decoder = png::Decoder::new(Cursor::new(&capture.bytes));
            let reader = decoder.read_info().map_err(|e| {
                DeviceError::backend(format!("the device sent an invalid PNG: {e}"))
            })?;
            Ok((reader.info().width, reader.info().height))
        }
        CaptureFormat::Jpeg => {
            image::ImageReader::with_format(Cursor::new(&capture.bytes), image::ImageFormat::Jpeg)
                .into_dimensions()
                .map_err(|e| DeviceError::backend(format!("the device sent an invalid JPEG: {e}")))
        }
    }
}

/// Decodes `region` of the capture (in the pixels of the screen image it shows, see
/// [`capture_size`]), scales it only if it is larger than `opts` allows, and encodes it.
/// `source_width`/`source_height` of the result are the region's size.
///
/// # Errors
/// An empty region or one outside the capture, invalid options, an unreadable capture.
pub fn process_clip(
    capture: &Screenshot,
    region: Region,
    opts: &ScreenshotOptions,
) -> Result<ProcessedScreenshot> {
    crate::process::render(capture, opts, Some(region), None)
}

/// The screen rectangle a clipped screenshot shows, in the device's input coordinates
/// (pixels on Android, points on iOS).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenRect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl ProcessedScreenshot {
    /// The sentence that maps a pixel of this clipped screenshot to screen coordinates:
    /// screen x = `x + px * fx`, screen y = `y + py * fy`.
    pub fn clip_mapping(&self, shown: ScreenRect) -> String {
        let fx = shown.width / f64::from(self.width.max(1));
        let fy = shown.height / f64::from(self.height.max(1));
        let (ox, oy) = (shown.x.round() as i64, shown.y.round() as i64);
        let (sw, sh) = (shown.width.round() as i64, shown.height.round() as i64);
        if (fx - 1.0).abs() < 1e-9 && (fy - 1.0).abs() < 1e-9 {
            format!(
                "Screenshot is {}x{}, the screen region {sw}x{sh} at ({ox}, {oy}). To tap something you see in it, add {ox} to its x and {oy} to its y.",
                self.width, self.height
            )
        } else {
            format!(
                "Screenshot is {}x{}, the screen region {sw}x{sh} at ({ox}, {oy}). To tap something you see in it, multiply its x by {fx:.3} and add {ox}; multiply its y by {fy:.3} and add {oy}.",
                self.width, self.height
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use image::{DynamicImage, ImageFormat, RgbaImage};

    use super::*;
    use crate::OutputFormat;

    fn pattern(w: u32, h: u32) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| {
            image::Rgba([
                (x * 7 % 256) as u8,
                (y * 5 % 256) as u8,
                ((x + y) % 256) as u8,
                255,
            ])
        })
    }

    fn png_of(img: &RgbaImage) -> Screenshot {
        let mut bytes = Vec::new();
        DynamicImage::ImageRgba8(img.clone())
            .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
            .unwrap();
        Screenshot {
            format: CaptureFormat::Png,
            bytes,
        }
    }

    const FULL_PNG: ScreenshotOptions = ScreenshotOptions {
        max_size: None,
        scale: None,
        format: OutputFormat::Png,
    };

    #[test]
    fn a_clip_is_the_crop_of_the_capture_for_every_source() {
        let img = pattern(90, 160);
        let r = Region {
            x: 13,
            y: 41,
            width: 30,
            height: 57,
        };
        let want = image::imageops::crop_imm(&img, r.x, r.y, r.width, r.height).to_image();
        let raw = Screenshot {
            format: CaptureFormat::Rgba8 {
                width: 90,
                height: 160,
            },
            bytes: img.as_raw().clone(),
        };
        for cap in [png_of(&img), raw] {
            let out = process_clip(&cap, r, &FULL_PNG).unwrap();
            assert_eq!((out.width, out.height), (30, 57));
            assert_eq!((out.source_width, out.source_height), (30, 57));
            let got = image::load_from_memory(&out.bytes).unwrap().into_rgba8();
            assert!(got.pixels().zip(want.pixels()).all(|(a, b)| a == b));
        }
    }

    #[test]
    fn a_large_clip_is_scaled_to_max_size_and_a_small_one_is_not() {
        let cap = png_of(&pattern(600, 1000));
        let r = Region {
            x: 0,
            y: 100,
            width: 600,
            height: 800,
        };
        let opts = ScreenshotOptions {
            max_size: Some(400),
            ..FULL_PNG
        };
        let out = process_clip(&cap, r, &opts).unwrap();
        assert_eq!((out.width, out.height), (300, 400));
        let small = Region {
            x: 5,
            y: 5,
            width: 100,
            height: 50,
        };
        let out = process_clip(&cap, small, &opts).unwrap();
        assert_eq!((out.width, out.height), (100, 50));
    }

    #[test]
    fn empty_and_outside_clips_are_refused() {
        let cap = png_of(&pattern(50, 50));
        let empty = Region {
            x: 1,
            y: 1,
            width: 0,
            height: 4,
        };
        assert!(
            process_clip(&cap, empty, &FULL_PNG)
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        let outside = Region {
            x: 40,
            y: 0,
            width: 20,
            height: 4,
        };
        let e = process_clip(&cap, outside, &FULL_PNG)
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside the 50x50"), "{e}");
    }

    #[test]
    fn sizes_without_decoding_and_the_mapping() {
        let cap = png_of(&pattern(33, 44));
        assert_eq!(capture_size(&cap).unwrap(), (33, 44));
        let out = process_clip(
            &cap,
            Region {
                x: 3,
                y: 4,
                width: 10,
                height: 10,
            },
            &FULL_PNG,
        )
        .unwrap();
        let m = out.clip_mapping(ScreenRect {
            x: 3.0,
            y: 4.0,
            width: 10.0,
            height: 10.0,
        });
        assert!(m.contains("add 3 to its x and 4 to its y"), "{m}");
        let m = out.clip_mapping(ScreenRect {
            x: 1.0,
            y: 2.0,
            width: 5.0,
            height: 5.0,
        });
        assert!(m.contains("multiply its x by 0.500 and add 1"), "{m}");
    }
}
