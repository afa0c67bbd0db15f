//! [`StreamScaler`]: a raw frame scaled while it arrives, for backends that read a
//! framebuffer from a socket.

use mobile_device::{CaptureFormat, Result, Screenshot};

use crate::ScreenshotOptions;
use crate::downscale::{AreaDownscaler, Scaled};
use crate::process::{check_options, target_size};

/// Scales a raw RGBA frame while it arrives, one row at a time, so a backend reading a
/// framebuffer from a socket never holds the whole frame (10 MB for 1080×2400): what it
/// keeps is one row of sums and the scaled RGB image, which [`process`](fn@crate::process) then only encodes.
#[derive(Debug)]
pub struct StreamScaler {
    inner: AreaDownscaler,
}

impl StreamScaler {
    /// A scaler for a `width`×`height` frame, to the size `opts` gives it.
    ///
    /// # Errors
    /// Invalid options, or an empty frame.
    pub fn new(width: u32, height: u32, opts: &ScreenshotOptions) -> Result<Self> {
        check_options(opts)?;
        let (tw, th) = target_size(width, height, opts);
        let mut inner = AreaDownscaler::new(width, height, tw, th)?;
        // Kept whole: the frame is encoded once it has all arrived.
        inner.reserve_whole();
        Ok(StreamScaler { inner })
    }

    /// The next row of the frame: `width` RGBA pixels (alpha is ignored).
    pub fn push_rgba_row(&mut self, row: &[u8]) {
        self.inner.push_row::<4>(row);
    }

    /// The scaled capture, once every row has arrived.
    ///
    /// # Errors
    /// The frame ended early.
    pub fn finish(self) -> Result<Screenshot> {
        let Scaled { scaled, source } = self.inner.finish()?;
        let (width, height) = scaled.dimensions();
        Ok(Screenshot {
            format: CaptureFormat::ScaledRgb8 {
                width,
                height,
                source_width: source.0,
                source_height: source.1,
            },
            bytes: scaled.into_raw(),
        })
    }
}

#[cfg(test)]
mod tests {
    use image::RgbaImage;
    use mobile_device::{CaptureFormat, Screenshot};

    use super::StreamScaler;
    use crate::{OutputFormat, ScreenshotOptions, process};

    #[test]
    fn stream_scaler_equals_the_pipeline_on_a_whole_frame() {
        let rgba = RgbaImage::from_fn(1080, 2400, |x, y| {
            image::Rgba([(x % 251) as u8, (y % 241) as u8, ((x + y) % 256) as u8, 255])
        });
        let raw = Screenshot {
            format: CaptureFormat::Rgba8 {
                width: 1080,
                height: 2400,
            },
            bytes: rgba.into_raw(),
        };
        let opts = ScreenshotOptions {
            format: OutputFormat::Png,
            ..Default::default()
        };
        let whole = process(&raw, &opts).unwrap();
        let mut s = StreamScaler::new(1080, 2400, &opts).unwrap();
        for row in raw.bytes.chunks_exact(1080 * 4) {
            s.push_rgba_row(row);
        }
        let streamed = s.finish().unwrap();
        assert_eq!(
            streamed.format,
            CaptureFormat::ScaledRgb8 {
                width: 461,
                height: 1024,
                source_width: 1080,
                source_height: 2400
            }
        );
        assert_eq!(streamed.bytes.len(), 461 * 1024 * 3);
        assert_eq!(process(&streamed, &opts).unwrap(), whole);
        // Asked for less than was scaled: scaled again, the source size kept.
        let small = ScreenshotOptions {
            max_size: Some(500),
            ..opts
        };
        let p = process(&streamed, &small).unwrap();
        assert_eq!(
            (p.width, p.height, p.source_width, p.source_height),
            (225, 500, 1080, 2400)
        );
        // A frame that ends early is an error.
        let mut s = StreamScaler::new(1080, 2400, &opts).unwrap();
        s.push_rgba_row(&raw.bytes[..1080 * 4]);
        assert!(
            s.finish()
                .unwrap_err()
                .to_string()
                .contains("ended after 1 of its 2400 rows")
        );
        assert!(
            StreamScaler::new(
                10,
                10,
                &ScreenshotOptions {
                    max_size: Some(0),
                    ..opts
                }
            )
            .is_err()
        );
    }
}
