//! What a caller asks of a screenshot: its size and encoding. The pipeline that honours
//! it is the `mobile-screenshot` crate; a backend that scales while it reads (Android's
//! raw frames) receives these options through [`crate::Device::screenshot`].

/// The longest side of a screenshot when the caller gives neither `maxSize` nor `scale`.
pub const DEFAULT_MAX_SIZE: u32 = 1024;
/// JPEG quality of screenshots (parity with the peer's default).
pub const DEFAULT_JPEG_QUALITY: u8 = 75;

/// How to encode the processed image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// PNG, lossless.
    Png,
    /// JPEG at `quality` (1 to 100).
    Jpeg {
        /// 1 (smallest) to 100 (best).
        quality: u8,
    },
}

/// What the caller asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenshotOptions {
    /// Longest side in pixels; wins over `scale`.
    pub max_size: Option<u32>,
    /// Factor in (0, 1].
    pub scale: Option<f64>,
    /// The encoding of the result.
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
