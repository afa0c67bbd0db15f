//! `mobile-screenshot`: the one screenshot pipeline of mobile-mcp. Decodes what a device
//! captured, scales it with an area (box) filter, and encodes it as JPEG or PNG.
//!
//! For: the server, which hands every capture to [`process()`], and backends that read a raw
//! framebuffer from a socket, which scale it while it arrives with [`StreamScaler`].
//!
//! Not for: capturing (the backends do that) or the options' types, which live in
//! `mobile-device` (and are re-exported here) so that the `Device` trait can take them
//! without the image stack.
//!
//! ```
//! use mobile_device::{CaptureFormat, Screenshot, ScreenshotOptions};
//! let frame = Screenshot { format: CaptureFormat::Rgba8 { width: 4, height: 8 }, bytes: vec![255; 4 * 8 * 4] };
//! let out = mobile_screenshot::process(&frame, &ScreenshotOptions { max_size: Some(4), ..Default::default() }).unwrap();
//! assert_eq!((out.width, out.height, out.mime_type), (2, 4, "image/jpeg"));
//! ```
//!
//! Runs in-process (no ImageMagick, no sips). `max_size` wins over `scale`; images are
//! never enlarged. Also writes the sentence that maps screenshot coordinates to screen
//! coordinates, because a model that taps what it sees in a scaled image must multiply.
//!
//! Modules: `process` (entry points and the input sources), `stream` ([`StreamScaler`]),
//! `downscale` (the area downscaler), `jpeg` (banded JPEG encoding on two threads),
//! [`text`] (text drawing with the embedded Roboto font), [`clip`] (screenshot regions),
//! [`annotate`] (element boxes and refs drawn on the image).

#![warn(missing_docs)]

pub mod annotate;
pub mod clip;
mod downscale;
mod jpeg;
mod process;
mod stream;
pub mod text;

pub use mobile_device::{DEFAULT_JPEG_QUALITY, DEFAULT_MAX_SIZE, OutputFormat, ScreenshotOptions};
pub use process::{decode, process, target_size};
pub use stream::StreamScaler;

/// An encoded screenshot and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessedScreenshot {
    /// The encoded image.
    pub bytes: Vec<u8>,
    /// `image/jpeg` or `image/png`.
    pub mime_type: &'static str,
    /// Width of the encoded image, in pixels.
    pub width: u32,
    /// Height of the encoded image, in pixels.
    pub height: u32,
    /// Width of the captured image before scaling, in pixels.
    pub source_width: u32,
    /// Height of the captured image before scaling, in pixels.
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
