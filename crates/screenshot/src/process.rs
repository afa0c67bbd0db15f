//! The pipeline's entry points: options checked, a capture opened as a row source
//! (raw frame, PNG read row by row, or an image decoded whole), scaled and encoded.

use std::borrow::Cow;
use std::io::Cursor;

use image::{DynamicImage, ImageFormat, RgbImage, RgbaImage};
use mobile_device::{CaptureFormat, DeviceError, Result, Screenshot};

use crate::annotate::Overlay;
use crate::clip::Region;
use crate::downscale::AreaDownscaler;
use crate::jpeg;
use crate::{OutputFormat, ProcessedScreenshot, ScreenshotOptions};

/// Decodes a capture into pixels (the general path; [`process`] streams the common cases).
pub fn decode(capture: &Screenshot) -> Result<DynamicImage> {
    match capture.format {
        CaptureFormat::Png => image::load_from_memory_with_format(&capture.bytes, ImageFormat::Png)
            .map_err(|e| DeviceError::backend(format!("the device sent an invalid PNG: {e}"))),
        CaptureFormat::Jpeg => {
            image::load_from_memory_with_format(&capture.bytes, ImageFormat::Jpeg)
                .map_err(|e| DeviceError::backend(format!("the device sent an invalid JPEG: {e}")))
        }
        CaptureFormat::Rgba8 { width, height } => {
            let img =
                RgbaImage::from_raw(width, height, raw_frame(capture, width, height)?.to_vec())
                    .ok_or_else(|| DeviceError::backend("the framebuffer has the wrong size"))?;
            Ok(DynamicImage::ImageRgba8(img))
        }
        CaptureFormat::ScaledRgb8 { width, height, .. } => {
            let need = width as usize * height as usize * 3;
            let img = capture
                .bytes
                .get(..need)
                .and_then(|b| RgbImage::from_raw(width, height, b.to_vec()))
                .ok_or_else(|| DeviceError::backend("the scaled frame has the wrong size"))?;
            Ok(DynamicImage::ImageRgb8(img))
        }
    }
}

/// The pixel bytes of a raw RGBA frame, checked against its size.
fn raw_frame(capture: &Screenshot, width: u32, height: u32) -> Result<&[u8]> {
    let need = width as usize * height as usize * 4;
    capture.bytes.get(..need).ok_or_else(|| {
        DeviceError::backend(format!(
            "the framebuffer is {} bytes, {width}x{height} RGBA needs {need}",
            capture.bytes.len()
        ))
    })
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
///
/// Every route ends in the area downscaler fed row by row, so no full-size decoded
/// frame is ever held beside the capture: a raw frame is read in place, and an 8-bit
/// RGB/RGBA PNG (what `screencap -p` and `simctl io screenshot` write) is inflated one
/// row at a time (`png` crate). That keeps the server's peak memory at the capture plus
/// the small output (a 1080×2400 frame would otherwise add 10 MB). Other inputs (JPEG,
/// grey, 16-bit or interlaced PNG) are decoded whole by `image` first. A frame already
/// scaled to the asked size ([`StreamScaler`](crate::StreamScaler)) is only encoded.
///
/// The scaled rows leave the downscaler in bands of a few MCU rows (`jpeg::BAND_ROWS`). A
/// JPEG is encoded band by band on two threads while the later rows are still being
/// inflated and scaled (the crate's private `jpeg` module); a PNG is encoded whole once every band has arrived. The server
/// calls this from tokio's blocking pool.
pub fn process(capture: &Screenshot, opts: &ScreenshotOptions) -> Result<ProcessedScreenshot> {
    render(capture, opts, None, None)
}

/// [`process`] of the `window` of the capture only (in the capture's screen pixels), with
/// `overlay` drawn onto the scaled image before it is encoded. The crop is made while the
/// rows are read, before scaling, so the region keeps the capture's detail; an overlay
/// needs the whole scaled image, so it is collected first and then encoded.
pub(crate) fn render(
    capture: &Screenshot,
    opts: &ScreenshotOptions,
    window: Option<Region>,
    overlay: Option<&Overlay<'_>>,
) -> Result<ProcessedScreenshot> {
    check_options(opts)?;
    let source = Source::open(capture, opts, window)?;
    let (tw, th) = source.target;
    let from = source.from;
    let whole = |source: Source<'_>| -> Result<Vec<u8>> {
        let mut rows = Vec::with_capacity(tw as usize * th as usize * 3);
        source.bands(&mut |band| rows.extend_from_slice(&band))?;
        Ok(rows)
    };
    let (bytes, mime_type) = match (opts.format, overlay) {
        (OutputFormat::Jpeg { quality }, None) => (
            jpeg::encode(tw, th, quality, jpeg::Tables::Fitted, |sink| {
                source.bands(sink)
            })?,
            "image/jpeg",
        ),
        (OutputFormat::Jpeg { quality }, Some(overlay)) => {
            let mut rows = whole(source)?;
            overlay.draw(&mut rows, (tw, th), from);
            let band = jpeg::BAND_ROWS * tw as usize * 3;
            (
                jpeg::encode(tw, th, quality, jpeg::Tables::Fitted, |sink| {
                    for b in rows.chunks(band) {
                        sink(Cow::Owned(b.to_vec()));
                    }
                    Ok(())
                })?,
                "image/jpeg",
            )
        }
        (OutputFormat::Png, overlay) => {
            let mut rows = whole(source)?;
            if let Some(overlay) = overlay {
                overlay.draw(&mut rows, (tw, th), from);
            }
            let img = RgbImage::from_raw(tw, th, rows)
                .ok_or_else(|| DeviceError::backend("the scaled image has the wrong size"))?;
            let mut out = Vec::new();
            DynamicImage::ImageRgb8(img)
                .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
                .map_err(|e| DeviceError::backend(format!("PNG encoding failed: {e}")))?;
            (out, "image/png")
        }
    };
    Ok(ProcessedScreenshot {
        bytes,
        mime_type,
        width: tw,
        height: th,
        source_width: from.0,
        source_height: from.1,
    })
}

/// A capture opened for scaling: its pixels, their size, and the size they become.
struct Source<'a> {
    pixels: Pixels<'a>,
    /// Size of `pixels`.
    size: (u32, u32),
    /// The size of the screen image the capture shows (larger than `size` for a frame
    /// scaled as it arrived); of the window only, with one.
    from: (u32, u32),
    target: (u32, u32),
    /// The part of `pixels` that is kept, in `pixels`' own coordinates.
    window: Region,
}

enum Pixels<'a> {
    /// A raw RGBA frame, read in place.
    Rgba(&'a [u8]),
    /// RGB rows scaled as they arrived.
    Rgb(&'a [u8]),
    /// An image decoded whole.
    Decoded(RgbaImage),
    /// An 8-bit PNG read row by row, and its bytes per pixel (3 or 4).
    Png(Box<PngRows<'a>>, usize),
}

impl<'a> Source<'a> {
    fn open(
        capture: &'a Screenshot,
        opts: &ScreenshotOptions,
        window: Option<Region>,
    ) -> Result<Self> {
        // The pixels, their size, and the size of the screen image they show.
        let (pixels, size, from) = match capture.format {
            CaptureFormat::Rgba8 { width, height } => (
                Pixels::Rgba(raw_frame(capture, width, height)?),
                (width, height),
                (width, height),
            ),
            CaptureFormat::Png => match png_rows(&capture.bytes)? {
                Some((reader, bpp)) => {
                    let info = reader.info();
                    let (w, h) = (info.width, info.height);
                    (Pixels::Png(Box::new(reader), bpp), (w, h), (w, h))
                }
                None => Self::decoded(decode(capture)?),
            },
            CaptureFormat::Jpeg => Self::decoded(decode(capture)?),
            CaptureFormat::ScaledRgb8 {
                width,
                height,
                source_width,
                source_height,
            } => {
                let need = width as usize * height as usize * 3;
                let rows = capture.bytes.get(..need).ok_or_else(|| {
                    DeviceError::backend(format!(
                        "the scaled frame is {} bytes, {width}x{height} RGB needs {need}",
                        capture.bytes.len()
                    ))
                })?;
                (
                    Pixels::Rgb(rows),
                    (width, height),
                    (source_width, source_height),
                )
            }
        };
        let full = Region::whole(size);
        let (window, from) = match window {
            None => (full, from),
            Some(w) => {
                let w = w.checked_within(from)?;
                // A frame scaled as it arrived: the window in its own (smaller) pixels.
                (w.rescaled(from, size), (w.width, w.height))
            }
        };
        let target = target_size(from.0, from.1, opts);
        // Never enlarge what arrived (a frame scaled with other options than these).
        let target = (target.0.min(window.width), target.1.min(window.height));
        Ok(Source {
            pixels,
            size,
            from,
            target,
            window,
        })
    }

    fn decoded(img: DynamicImage) -> (Pixels<'a>, (u32, u32), (u32, u32)) {
        let (w, h) = (img.width(), img.height());
        (Pixels::Decoded(img.into_rgba8()), (w, h), (w, h))
    }

    /// Hands the scaled image to `sink`, top to bottom, in bands of [`jpeg::BAND_ROWS`]
    /// rows (the last may be shorter).
    fn bands(self, sink: &mut dyn FnMut(Cow<'a, [u8]>)) -> Result<()> {
        let (sw, _) = self.size;
        let (tw, th) = self.target;
        let win = self.window;
        let whole = win == Region::whole(self.size);
        if let Pixels::Rgb(rows) = self.pixels
            && whole
            && self.size == self.target
        {
            // Already the asked size (the usual case for a scaled frame): used as it is.
            for band in rows.chunks(jpeg::BAND_ROWS * tw as usize * 3) {
                sink(Cow::Borrowed(band));
            }
            return Ok(());
        }
        let mut scaler = AreaDownscaler::new(win.width, win.height, tw, th)?;
        let row_len = |bpp: usize| sw as usize * bpp;
        let (top, bottom) = (win.y as usize, (win.y + win.height) as usize);
        // The window's columns of one source row.
        let cols = |bpp: usize| win.x as usize * bpp..(win.x + win.width) as usize * bpp;
        match self.pixels {
            Pixels::Rgba(frame) => {
                for row in frame.chunks_exact(row_len(4)).take(bottom).skip(top) {
                    scaler.push_row_banded::<4>(&row[cols(4)], sink);
                }
            }
            Pixels::Rgb(rows) => {
                for row in rows.chunks_exact(row_len(3)).take(bottom).skip(top) {
                    scaler.push_row_banded::<3>(&row[cols(3)], sink);
                }
            }
            Pixels::Decoded(img) => {
                for row in img.as_raw().chunks_exact(row_len(4)).take(bottom).skip(top) {
                    scaler.push_row_banded::<4>(&row[cols(4)], sink);
                }
            }
            Pixels::Png(mut reader, bpp) => {
                let mut y = 0usize;
                // Rows below the window are never inflated.
                while y < bottom
                    && let Some(row) = reader.next_row().map_err(invalid_png)?
                {
                    if y >= top {
                        let data = &row.data()[cols(bpp)];
                        match bpp {
                            4 => scaler.push_row_banded::<4>(data, sink),
                            _ => scaler.push_row_banded::<3>(data, sink),
                        }
                    }
                    y += 1;
                }
            }
        }
        let rest = scaler.finish_rows()?;
        if !rest.is_empty() {
            sink(Cow::Owned(rest));
        }
        Ok(())
    }
}

/// Rejects options the pipeline cannot honour.
pub(crate) fn check_options(opts: &ScreenshotOptions) -> Result<()> {
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
    Ok(())
}

/// Opens an 8-bit RGB/RGBA, non-interlaced PNG to be read row by row, with its bytes
/// per pixel; `None` for the rarer layouts the caller decodes whole.
///
/// One thread: inflating on a second thread while this one scaled (rows handed over in
/// recycled batches) measured no faster on a 2-core host, since each row then crosses
/// cores instead of being summed while still in this core's cache; the second thread
/// encodes JPEG bands instead ([`crate::jpeg`]).
fn png_rows(bytes: &[u8]) -> Result<Option<(PngRows<'_>, usize)>> {
    let reader = png_reader(bytes).map_err(invalid_png)?;
    let bpp = match reader.output_color_type() {
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        _ => return Ok(None),
    };
    if reader.info().interlaced {
        return Ok(None);
    }
    Ok(Some((reader, bpp)))
}

/// A PNG read row by row from memory.
type PngRows<'a> = png::Reader<Cursor<&'a [u8]>>;

/// A row-by-row PNG reader that expands palettes and low bit depths to 8 bits.
fn png_reader(bytes: &[u8]) -> std::result::Result<PngRows<'_>, png::DecodingError> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    decoder.read_info()
}

fn invalid_png(e: png::DecodingError) -> DeviceError {
    DeviceError::backend(format!("the device sent an invalid PNG: {e}"))
}

#[cfg(test)]
mod tests;
