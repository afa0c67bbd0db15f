//! `mobile-screenshot`: the one screenshot pipeline. Decodes what a device captured, scales
//! it with an area (box) filter, encodes it.
//!
//! Not for: capturing (the backends do that) or the options' types, which live in
//! `mobile-device` so that the `Device` trait can take them without the image stack.
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

use std::borrow::Cow;
use std::io::Cursor;

use image::{DynamicImage, ImageFormat, RgbImage, RgbaImage};

mod jpeg;

use mobile_device::{CaptureFormat, DeviceError, Result, Screenshot};
pub use mobile_device::{DEFAULT_JPEG_QUALITY, DEFAULT_MAX_SIZE, OutputFormat, ScreenshotOptions};

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
/// scaled to the asked size ([`StreamScaler`]) is only encoded.
///
/// The scaled rows leave the downscaler in bands of [`jpeg::BAND_ROWS`] rows. A JPEG is encoded band by
/// band on two threads while the later rows are still being inflated and scaled
/// ([`crate::jpeg`]); a PNG is encoded whole once every band has arrived. The server
/// calls this from tokio's blocking pool.
pub fn process(capture: &Screenshot, opts: &ScreenshotOptions) -> Result<ProcessedScreenshot> {
    check_options(opts)?;
    let source = Source::open(capture, opts)?;
    let (tw, th) = source.target;
    let from = source.from;
    let (bytes, mime_type) = match opts.format {
        OutputFormat::Jpeg { quality } => (
            jpeg::encode(tw, th, quality, jpeg::Tables::Fitted, |sink| {
                source.bands(sink)
            })?,
            "image/jpeg",
        ),
        OutputFormat::Png => {
            let mut rows = Vec::with_capacity(tw as usize * th as usize * 3);
            source.bands(&mut |band| rows.extend_from_slice(&band))?;
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
    /// scaled as it arrived).
    from: (u32, u32),
    target: (u32, u32),
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
    fn open(capture: &'a Screenshot, opts: &ScreenshotOptions) -> Result<Self> {
        match capture.format {
            CaptureFormat::Rgba8 { width, height } => Ok(Source {
                pixels: Pixels::Rgba(raw_frame(capture, width, height)?),
                size: (width, height),
                from: (width, height),
                target: target_size(width, height, opts),
            }),
            CaptureFormat::Png => match png_rows(&capture.bytes)? {
                Some((reader, bpp)) => {
                    let info = reader.info();
                    let (w, h) = (info.width, info.height);
                    Ok(Source {
                        pixels: Pixels::Png(Box::new(reader), bpp),
                        size: (w, h),
                        from: (w, h),
                        target: target_size(w, h, opts),
                    })
                }
                None => Self::decoded(decode(capture)?, opts),
            },
            CaptureFormat::Jpeg => Self::decoded(decode(capture)?, opts),
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
                // Scaled with other options than these: scale what arrived (never enlarge it).
                let (tw, th) = target_size(source_width, source_height, opts);
                Ok(Source {
                    pixels: Pixels::Rgb(rows),
                    size: (width, height),
                    from: (source_width, source_height),
                    target: (tw.min(width), th.min(height)),
                })
            }
        }
    }

    fn decoded(img: DynamicImage, opts: &ScreenshotOptions) -> Result<Self> {
        let (w, h) = (img.width(), img.height());
        Ok(Source {
            pixels: Pixels::Decoded(img.into_rgba8()),
            size: (w, h),
            from: (w, h),
            target: target_size(w, h, opts),
        })
    }

    /// Hands the scaled image to `sink`, top to bottom, in bands of [`jpeg::BAND_ROWS`]
    /// rows (the last may be shorter).
    fn bands(self, sink: &mut dyn FnMut(Cow<'a, [u8]>)) -> Result<()> {
        let (sw, sh) = self.size;
        let (tw, th) = self.target;
        if let Pixels::Rgb(rows) = self.pixels
            && self.size == self.target
        {
            // Already the asked size (the usual case for a scaled frame): used as it is.
            for band in rows.chunks(jpeg::BAND_ROWS * tw as usize * 3) {
                sink(Cow::Borrowed(band));
            }
            return Ok(());
        }
        let mut scaler = AreaDownscaler::new(sw, sh, tw, th)?;
        let row_len = |bpp: usize| sw as usize * bpp;
        match self.pixels {
            Pixels::Rgba(frame) => {
                for row in frame.chunks_exact(row_len(4)) {
                    scaler.push_row_banded::<4>(row, sink);
                }
            }
            Pixels::Rgb(rows) => {
                for row in rows.chunks_exact(row_len(3)) {
                    scaler.push_row_banded::<3>(row, sink);
                }
            }
            Pixels::Decoded(img) => {
                for row in img.as_raw().chunks_exact(row_len(4)) {
                    scaler.push_row_banded::<4>(row, sink);
                }
            }
            Pixels::Png(mut reader, bpp) => {
                while let Some(row) = reader.next_row().map_err(invalid_png)? {
                    match bpp {
                        4 => scaler.push_row_banded::<4>(row.data(), sink),
                        _ => scaler.push_row_banded::<3>(row.data(), sink),
                    }
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
fn check_options(opts: &ScreenshotOptions) -> Result<()> {
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

/// Scales a raw RGBA frame while it arrives, one row at a time, so a backend reading a
/// framebuffer from a socket never holds the whole frame (10 MB for 1080×2400): what it
/// keeps is one row of sums and the scaled RGB image, which [`process`] then only encodes.
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
        inner.out.reserve_exact(inner.tw * inner.th * 3);
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

/// A scaled frame and the size it was scaled from.
struct Scaled {
    scaled: RgbImage,
    source: (u32, u32),
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

/// Area-averaging downscale to RGB8, fed one source row at a time (alpha dropped:
/// screenshots are opaque and JPEG has no alpha).
///
/// Target pixel (x, y) is the mean of the source block
/// `[x·sw/tw, (x+1)·sw/tw) × [y·sh/th, (y+1)·sh/th)`: every source pixel counts exactly
/// once, like a box filter, in integer arithmetic. For the 2–3× reductions of phone
/// screenshots it looks like a box filter, needs no float intermediate (`resize_exact`
/// kept 16 bytes per pixel of a 1080-wide frame) and is several times faster
/// (crates/device/benches/screenshot.rs, stage rows).
///
/// Each source row is only added, byte by byte, into per-column sums (a loop the compiler
/// vectorizes); the sums are folded into target pixels once per target row. When a block
/// has at most [`NARROW_BLOCK`] pixels (every phone-screenshot reduction) the sums are
/// `u16`, half the bytes of `u32` for that loop, and the fold packs each source pixel's
/// channel sums into the 16-bit lanes of one `u64`, keeps a running total along the row,
/// and takes each block as the difference of two totals: no loop per block, whose uneven
/// 2-or-3-column widths cost more than the sums themselves (callgrind). When blocks are
/// at most [`SHORT_BLOCK`] columns wide and have at most [`SHORT_PIXELS`] pixels (a phone
/// screenshot's 2-or-3 × 2-or-3), each block's packed pixels are added directly, with
/// the optional last column masked rather than branched on, and the means take 16-bit
/// multipliers, eight lanes at a time with SSE2 ([`fold_row_short`]): 20.8 M instead of
/// 27.7 M instructions per 1080×2400 → 461×1024 frame (callgrind, PNG rows included
/// neither time). Larger blocks use `u32` sums and add each block's pixels.
#[derive(Debug)]
struct AreaDownscaler {
    sw: usize,
    sh: usize,
    tw: usize,
    th: usize,
    /// Source column where each target column starts (and the end of the last).
    xs: Vec<usize>,
    /// Per source byte (column × channel), the sum over the rows of the current target row
    /// (allocated by the first row, when the bytes per pixel are known).
    sums: ColumnSums,
    /// `recip[n]` = ⌊2⁴⁰/n⌋ + 1 for every block size `n` a target pixel can have (empty when
    /// blocks are too large for a table; [`mean`] then divides).
    recip: Vec<u64>,
    /// Bytes per source pixel of `sums` (set by the first row).
    bpp: usize,
    out: Vec<u8>,
    /// The target row being summed, the source rows seen, and the first source row of the
    /// next target row.
    ty: usize,
    y: usize,
    y_end: usize,
}

/// The largest block, in source pixels, whose channel sums plus half the block fit 16
/// bits: 256 × 255 + 128 < 2¹⁶.
const NARROW_BLOCK: usize = 256;

/// Per-column sums of the source rows of one target row.
#[derive(Debug)]
enum ColumnSums {
    /// Blocks of at most [`NARROW_BLOCK`] pixels; `totals[x]` is the packed running total
    /// of columns `..x` ([`fold_row_narrow`]).
    Narrow {
        sums: Vec<u16>,
        fold: NarrowFold,
    },
    Wide(Vec<u32>),
}

/// How a row of narrow sums becomes target pixels.
#[derive(Debug)]
enum NarrowFold {
    /// Every block is at most [`SHORT_BLOCK`] columns wide and has 2 to [`SHORT_PIXELS`]
    /// pixels ([`fold_row_short`]).
    Short(Short),
    /// Any other narrow block ([`fold_row_narrow`]): room for the running totals, and per
    /// target column how to take its means ([`BlockMean`]) when the target row sums
    /// `sh / th` source rows (`[0]`) or one more (`[1]`), the only two heights.
    Totals {
        totals: Vec<u64>,
        means: [Vec<BlockMean>; 2],
    },
}

impl AreaDownscaler {
    /// Requires `0 < tw <= sw` and `0 < th <= sh`.
    fn new(sw: u32, sh: u32, tw: u32, th: u32) -> Result<Self> {
        if sw == 0 || sh == 0 || tw == 0 || th == 0 || tw > sw || th > sh {
            return Err(DeviceError::backend(format!(
                "cannot scale a {sw}x{sh} image to {tw}x{th}"
            )));
        }
        let (sw, sh, tw, th) = (sw as usize, sh as usize, tw as usize, th as usize);
        Ok(AreaDownscaler {
            sw,
            sh,
            tw,
            th,
            xs: (0..=tw).map(|x| x * sw / tw).collect(),
            sums: ColumnSums::Wide(Vec::new()),
            recip: {
                let max_n = sw.div_ceil(tw) * sh.div_ceil(th);
                if max_n <= 4096 {
                    (0..=max_n as u64)
                        .map(|n| ((1u64 << 40) / n.max(1)) + 1)
                        .collect()
                } else {
                    Vec::new()
                }
            },
            bpp: 0,
            out: Vec::with_capacity(tw * th.min(jpeg::BAND_ROWS) * 3),
            ty: 0,
            y: 0,
            y_end: sh / th,
        })
    }

    /// Adds the next source row, and hands the target rows made so far to `sink` once
    /// they fill a band of [`jpeg::BAND_ROWS`] rows ([`AreaDownscaler::finish_rows`] gives
    /// the rest).
    fn push_row_banded<'a, const BPP: usize>(
        &mut self,
        row: &[u8],
        sink: &mut dyn FnMut(Cow<'a, [u8]>),
    ) {
        self.push_row::<BPP>(row);
        let band = jpeg::BAND_ROWS * self.tw * 3;
        if self.out.len() >= band {
            let next = Vec::with_capacity(band);
            sink(Cow::Owned(std::mem::replace(&mut self.out, next)));
        }
    }

    /// Adds the next source row (`BPP` bytes per pixel, RGB first); extra rows are ignored.
    fn push_row<const BPP: usize>(&mut self, row: &[u8]) {
        if self.ty >= self.th || row.len() < self.sw * BPP {
            return;
        }
        if self.bpp != BPP {
            // First row (a frame never mixes layouts).
            self.bpp = BPP;
            let len = self.sw * BPP;
            self.sums = if self.sw.div_ceil(self.tw) * self.sh.div_ceil(self.th) <= NARROW_BLOCK {
                let fold = match Short::new(&self.xs, self.sh / self.th) {
                    Some(short) => NarrowFold::Short(short),
                    None => NarrowFold::Totals {
                        totals: vec![0; self.sw + 1],
                        means: [0, 1].map(|more| {
                            let rows = self.sh / self.th + more;
                            self.xs
                                .windows(2)
                                .map(|x| BlockMean::new(rows * (x[1] - x[0])))
                                .collect()
                        }),
                    },
                };
                ColumnSums::Narrow {
                    sums: vec![0; len],
                    fold,
                }
            } else {
                ColumnSums::Wide(vec![0; len])
            };
        }
        let row = &row[..self.sw * BPP];
        let y0 = self.ty * self.sh / self.th;
        // The target row's first source row sets the sums (no separate clearing pass).
        let first = self.y == y0;
        match &mut self.sums {
            ColumnSums::Narrow { sums, .. } => add_row(sums, row, first),
            ColumnSums::Wide(sums) => add_row(sums, row, first),
        }
        self.y += 1;
        if self.y == self.y_end {
            let rows = self.y_end - y0;
            let start = self.out.len();
            self.out.resize(start + self.tw * 3, 0);
            let out = &mut self.out[start..];
            match &mut self.sums {
                ColumnSums::Narrow { sums, fold } => {
                    let taller = usize::from(rows > self.sh / self.th);
                    match fold {
                        // Blocks are `width` or `width + 1` columns, `width` 1 to 3.
                        NarrowFold::Short(short) => match short.width {
                            1 => fold_row_short::<BPP, 1>(sums, short, taller, out),
                            2 => fold_row_short::<BPP, 2>(sums, short, taller, out),
                            _ => fold_row_short::<BPP, 3>(sums, short, taller, out),
                        },
                        NarrowFold::Totals { totals, means } => {
                            fold_row_narrow::<BPP>(sums, totals, &self.xs, &means[taller], out)
                        }
                    }
                }
                ColumnSums::Wide(sums) => fold_row::<BPP>(sums, &self.xs, rows, &self.recip, out),
            }
            self.ty += 1;
            self.y_end = (self.ty + 1) * self.sh / self.th;
        }
    }

    fn finish(self) -> Result<Scaled> {
        let (source, (tw, th)) = ((self.sw as u32, self.sh as u32), (self.tw, self.th));
        let scaled = RgbImage::from_raw(tw as u32, th as u32, self.finish_rows()?)
            .ok_or_else(|| DeviceError::backend("the scaled image has the wrong size"))?;
        Ok(Scaled { scaled, source })
    }

    /// The RGB rows made, once every source row they need has arrived.
    fn finish_rows(self) -> Result<Vec<u8>> {
        if self.ty < self.th {
            return Err(DeviceError::backend(format!(
                "the image ended after {} of its {} rows",
                self.y, self.sh
            )));
        }
        Ok(self.out)
    }
}

/// Adds a source row into the column sums, or sets them from it (`first`).
#[inline(always)]
fn add_row<S: Copy + From<u8> + std::ops::AddAssign>(sums: &mut [S], row: &[u8], first: bool) {
    if first {
        for (s, &b) in sums.iter_mut().zip(row) {
            *s = S::from(b);
        }
    } else {
        for (s, &b) in sums.iter_mut().zip(row) {
            *s += S::from(b);
        }
    }
}

/// The widest block, in columns, that [`fold_row_short`] adds directly.
const SHORT_BLOCK: usize = 4;

/// The most pixels a block may have for 16-bit multipliers to give exact means
/// ([`Short`]): `(255·n + n/2) · n < 2¹⁶`.
const SHORT_PIXELS: usize = 16;

/// What [`fold_row_short`] needs: where each block is, how to take its means, and room
/// for the row's block sums.
#[derive(Debug)]
struct Short {
    /// Every block is `width` or `width + 1` columns wide.
    width: usize,
    blocks: Vec<ShortBlock>,
    /// Per target column, for target rows of `sh / th` source rows (`[0]`) and one more
    /// (`[1]`): `n/2` and `2¹⁶/n + 1` in the three colour lanes (alpha lanes 0). Then
    /// `(v + n/2) · (2¹⁶/n + 1) >> 16` is `v / n` rounded to nearest for every sum `v`
    /// of `n` bytes, 2 ≤ n ≤ [`SHORT_PIXELS`] (tested for all of them).
    halves: [Vec<u64>; 2],
    muls: [Vec<u64>; 2],
    sums: Vec<u64>,
}

/// Where a target column's block starts, for blocks of `W` or `W + 1` columns: the
/// block is columns `x0 .. x0 + W`, plus column `extra` when `mask` is all ones.
#[derive(Debug, Clone, Copy)]
struct ShortBlock {
    x0: usize,
    extra: usize,
    mask: u64,
}

/// `v` in the three colour lanes of a packed `u64`.
fn lanes(v: usize) -> u64 {
    let v = v as u64;
    v | v << 16 | v << 32
}

impl Short {
    /// For the target columns `xs` (as in [`AreaDownscaler`]) and target rows of `rows`
    /// or `rows + 1` source rows; `None` when a block is too wide or has too few or too
    /// many pixels.
    fn new(xs: &[usize], rows: usize) -> Option<Short> {
        let (&last, tw) = (xs.last()?, xs.len().checked_sub(1).filter(|&n| n > 0)?);
        // Blocks are `last / tw` or one more columns wide.
        let w = last / tw;
        let widths = || xs.windows(2).map(|x| x[1] - x[0]);
        let fits = |n: usize| (2..=SHORT_PIXELS).contains(&n);
        if w + 1 > SHORT_BLOCK || !widths().all(|c| fits(c * rows) && fits(c * (rows + 1))) {
            return None;
        }
        let blocks = xs
            .windows(2)
            .map(|x| ShortBlock {
                x0: x[0],
                // Inside the row even when masked out.
                extra: (x[0] + w).min(last - 1),
                mask: if x[1] - x[0] > w { u64::MAX } else { 0 },
            })
            .collect();
        let per_column = |f: fn(usize) -> usize| {
            [rows, rows + 1].map(|r| widths().map(|c| lanes(f(c * r))).collect())
        };
        Some(Short {
            width: w,
            blocks,
            halves: per_column(|n| n / 2),
            muls: per_column(|n| (1 << 16) / n + 1),
            sums: vec![0; tw],
        })
    }
}

/// A source pixel's channel sums in the 16-bit lanes of a `u64` (four lanes when there
/// are four channels: the compiler makes that one load).
#[inline(always)]
fn pack<const BPP: usize>(p: &[u16; BPP]) -> u64 {
    let alpha = if BPP == 4 {
        u64::from(p[BPP - 1]) << 48
    } else {
        0
    };
    u64::from(p[0]) | u64::from(p[1]) << 16 | u64::from(p[2]) << 32 | alpha
}

/// Folds `u16` column sums into one target row of RGB means when every block is `W` or
/// `W + 1` columns wide (`W + 1 <= SHORT_BLOCK`) and has 2 to [`SHORT_PIXELS`] pixels.
/// Each block's packed sum is its pixels added directly, the optional last one masked,
/// without a branch: for the 2-or-3-column blocks of a phone screenshot, fewer
/// instructions than [`fold_row_narrow`]'s running total over every column. The means
/// then take 16-bit multiplies, eight lanes at a time with SSE2 ([`means16`]).
#[inline(always)]
fn fold_row_short<const BPP: usize, const W: usize>(
    sums: &[u16],
    short: &mut Short,
    taller: usize,
    out: &mut [u8],
) {
    let (pixels, _) = sums.as_chunks::<BPP>();
    for (b, sum) in short.blocks.iter().zip(&mut short.sums) {
        let mut block = pack(&pixels[b.extra]) & b.mask;
        for p in &pixels[b.x0..b.x0 + W] {
            block = block.wrapping_add(pack(p));
        }
        *sum = block;
    }
    means16(&short.sums, &short.halves[taller], &short.muls[taller], out);
}

/// RGB means of packed block sums: `(v + half) · mul >> 16` per colour lane ([`Short`]).
#[inline(always)]
fn means16(sums: &[u64], halves: &[u64], muls: &[u64], out: &mut [u8]) {
    let (out, _) = out.as_chunks_mut::<3>();
    #[cfg(target_arch = "x86_64")]
    let done = sse2::means16(sums, halves, muls, out);
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for (((&v, &h), &m), px) in sums.iter().zip(halves).zip(muls).zip(out).skip(done) {
        for (c, o) in px.iter_mut().enumerate() {
            let lane = |x: u64| (x >> (16 * c)) & 0xFFFF;
            *o = (((lane(v) + lane(h)) * lane(m)) >> 16) as u8;
        }
    }
}

/// [`means16`] two blocks at a time: their eight 16-bit lanes in one register, one add
/// and one `pmulhuw` for all of them.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi16, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_mulhi_epu16,
        _mm_packus_epi16,
    };

    #[inline(always)]
    fn load(pair: &[u64; 2]) -> __m128i {
        // SAFETY: `pair` is 16 readable bytes and `loadu` has no alignment requirement.
        unsafe { _mm_loadu_si128(pair.as_ptr().cast()) }
    }

    /// Writes the means of the leading pairs of blocks; returns how many blocks that was.
    #[inline(always)]
    pub(super) fn means16(
        sums: &[u64],
        halves: &[u64],
        muls: &[u64],
        out: &mut [[u8; 3]],
    ) -> usize {
        let (out, _) = out.as_chunks_mut::<2>();
        let pairs = sums
            .as_chunks::<2>()
            .0
            .iter()
            .zip(halves.as_chunks::<2>().0)
            .zip(muls.as_chunks::<2>().0)
            .zip(out);
        let mut done = 0;
        for (((v, h), m), o) in pairs {
            // SAFETY: SSE2 is part of the x86-64 baseline, so these instructions exist on
            // every CPU this code is compiled for. No lane carries: v + half < 2¹⁶.
            let bytes = unsafe {
                let means = _mm_mulhi_epu16(_mm_add_epi16(load(v), load(h)), load(m));
                _mm_cvtsi128_si64(_mm_packus_epi16(means, means)) as u64
            };
            // R G B A R G B A → R G B R G B.
            let rgb = (bytes & 0xFF_FFFF) | ((bytes >> 8) & 0xFFFF_FF00_0000);
            let rgb: [u8; 6] = rgb.to_le_bytes()[..6].try_into().expect("six bytes");
            let o: &mut [u8; 6] = o.as_flattened_mut().try_into().expect("two pixels");
            *o = rgb;
            done += 2;
        }
        done
    }
}

/// Folds `u16` column sums of `rows` source rows into one target row of RGB means, for
/// blocks of at most [`NARROW_BLOCK`] pixels.
///
/// Each source pixel's channel sums are packed into the 16-bit lanes of a `u64` and
/// `totals` gets their running total along the row, so a block's packed sum is
/// `totals[x1] − totals[x0]`. That is exact in the three colour lanes even though the
/// totals wrap: the arithmetic is modulo 2⁶⁴, a block's true packed sum has each lane
/// below 2¹⁶, and carries only move upwards (into the ignored alpha lane and beyond).
#[inline(always)]
fn fold_row_narrow<const BPP: usize>(
    sums: &[u16],
    totals: &mut [u64],
    xs: &[usize],
    means: &[BlockMean],
    out: &mut [u8],
) {
    let (pixels, _) = sums.as_chunks::<BPP>();
    let mut total = 0u64;
    for (p, t) in pixels.iter().zip(&mut totals[1..]) {
        total = total.wrapping_add(pack(p));
        *t = total;
    }
    let (out, _) = out.as_chunks_mut::<3>();
    for ((x, px), m) in xs.windows(2).zip(out).zip(means) {
        // Adding half the block in every lane at once: no lane reaches 2¹⁶ (NARROW_BLOCK).
        let block = totals[x[1]]
            .wrapping_sub(totals[x[0]])
            .wrapping_add(m.halves);
        for (c, o) in px.iter_mut().enumerate() {
            *o = ((((block >> (16 * c)) & 0xFFFF) * m.recip) >> 40) as u8;
        }
    }
}

/// How to take the means of a block of `n` pixels: `(v + n/2) · recip >> 40` is `v / n`
/// rounded to nearest, as in [`mean`], with `n/2` in the three colour lanes of `halves`.
#[derive(Debug, Clone, Copy)]
struct BlockMean {
    halves: u64,
    recip: u64,
}

impl BlockMean {
    fn new(n: usize) -> Self {
        let (n, half) = (n as u64, n as u64 / 2);
        BlockMean {
            halves: half | half << 16 | half << 32,
            recip: (1 << 40) / n.max(1) + 1,
        }
    }
}

/// Folds `u32` column sums of `rows` source rows into one target row of RGB means, adding
/// each block's pixels (blocks larger than [`NARROW_BLOCK`] pixels).
fn fold_row<const BPP: usize>(
    sums: &[u32],
    xs: &[usize],
    rows: usize,
    recip: &[u64],
    out: &mut [u8],
) {
    let (pixels, _) = sums.as_chunks::<BPP>();
    let (out, _) = out.as_chunks_mut::<3>();
    for (x, px) in xs.windows(2).zip(out) {
        let mut acc = [0u64; 3];
        for p in &pixels[x[0]..x[1]] {
            for c in 0..3 {
                acc[c] += u64::from(p[c]);
            }
        }
        let n = (rows * (x[1] - x[0])) as u64;
        for c in 0..3 {
            px[c] = mean(acc[c], n, recip);
        }
    }
}

/// `v / n` rounded to nearest, for a sum `v` of `n` bytes. A division per output byte was a
/// visible cost (1.4 M of them per 461×1024 frame); with the reciprocal table it is a
/// multiply and a shift, exact because `(v + n/2)·n < 2⁴⁰` (v ≤ 255·n, n ≤ 4096).
#[inline(always)]
fn mean(v: u64, n: u64, recip: &[u64]) -> u8 {
    let x = v + n / 2;
    match recip.get(n as usize) {
        Some(&m) => ((x * m) >> 40) as u8,
        None => (x / n) as u8,
    }
}

/// Area-averaging downscale of a whole RGBA8 frame (see [`AreaDownscaler`]).
#[cfg(test)]
fn downscale_rgba_to_rgb(src: &[u8], sw: u32, sh: u32, tw: u32, th: u32) -> Result<RgbImage> {
    let mut s = AreaDownscaler::new(sw, sh, tw, th)?;
    for row in src.chunks_exact(sw as usize * 4) {
        s.push_row::<4>(row);
    }
    Ok(s.finish()?.scaled)
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

    /// The definition, pixel by pixel: the rounded mean of the source block.
    fn reference_area_mean(src: &[u8], sw: usize, sh: usize, tw: usize, th: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for ty in 0..th {
            for tx in 0..tw {
                let (y0, y1) = (ty * sh / th, (ty + 1) * sh / th);
                let (x0, x1) = (tx * sw / tw, (tx + 1) * sw / tw);
                let n = ((y1 - y0) * (x1 - x0)) as u64;
                for c in 0..3 {
                    let mut v = 0u64;
                    for y in y0..y1 {
                        for x in x0..x1 {
                            v += u64::from(src[(y * sw + x) * 4 + c]);
                        }
                    }
                    out.push(((v + n / 2) / n) as u8);
                }
            }
        }
        out
    }

    #[test]
    fn downscale_is_the_exact_area_mean_for_short_and_tall_blocks() {
        // Busy pixels; sizes with uneven blocks (1 or 2, 2 or 3, 3 or 4 columns wide, and
        // 3 wide throughout), blocks taller than `u16` sums allow (600 rows into 2), and
        // blocks too large for the reciprocal table.
        for (sw, sh, tw, th) in [
            (1080, 60, 461, 26),
            (50, 20, 30, 10),
            (100, 30, 30, 10),
            (90, 31, 30, 10),
            (97, 600, 13, 2),
            (300, 700, 1, 1),
            (5, 5, 5, 5),
        ] {
            let src: Vec<u8> = (0..sw * sh * 4)
                .map(|i| ((i * 7919) ^ (i >> 5)) as u8)
                .collect();
            let out =
                downscale_rgba_to_rgb(&src, sw as u32, sh as u32, tw as u32, th as u32).unwrap();
            assert_eq!(
                out.as_raw(),
                &reference_area_mean(&src, sw, sh, tw, th),
                "{sw}x{sh} -> {tw}x{th}"
            );
        }
        // The largest sums, at the edge of the narrow blocks (256 pixels) and past it:
        // half a block added to a white block must not carry into the next channel.
        for (sw, sh, tw, th) in [
            (16, 16, 1, 1),
            (32, 32, 2, 2),
            (257, 1, 1, 1),
            (17, 16, 1, 1),
        ] {
            let white = vec![255u8; sw * sh * 4];
            let out =
                downscale_rgba_to_rgb(&white, sw as u32, sh as u32, tw as u32, th as u32).unwrap();
            assert!(
                out.as_raw().iter().all(|&b| b == 255),
                "{sw}x{sh} -> {tw}x{th}"
            );
            let odd: Vec<u8> = (0..sw * sh * 4)
                .map(|i| if i % 7 == 0 { 254 } else { 255 })
                .collect();
            let out =
                downscale_rgba_to_rgb(&odd, sw as u32, sh as u32, tw as u32, th as u32).unwrap();
            assert_eq!(out.as_raw(), &reference_area_mean(&odd, sw, sh, tw, th));
        }
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
            let source = Source::open(&capture, &opts).unwrap();
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

    #[test]
    fn sixteen_bit_means_are_exact_for_every_short_block() {
        for n in 2..=SHORT_PIXELS {
            let (half, mul) = (n / 2, (1 << 16) / n + 1);
            for v in 0..=255 * n {
                assert_eq!(((v + half) * mul) >> 16, (v + half) / n, "{v}/{n}");
            }
        }
        // And one more pixel would not be.
        let n = SHORT_PIXELS + 1;
        let (half, mul) = (n / 2, (1 << 16) / n + 1);
        assert!((0..=255 * n).any(|v| ((v + half) * mul) >> 16 != (v + half) / n));
    }

    #[test]
    fn reciprocal_mean_is_exact() {
        let recip: Vec<u64> = (0..=4096u64)
            .map(|n| ((1u64 << 40) / n.max(1)) + 1)
            .collect();
        for n in (1..=4096u32)
            .step_by(7)
            .chain([1, 2, 3, 4, 6, 9, 4095, 4096])
        {
            for v in (0..=255 * n)
                .step_by((n as usize / 3).max(1))
                .chain([255 * n])
            {
                let (v, n) = (u64::from(v), u64::from(n));
                assert_eq!(mean(v, n, &recip), ((v + n / 2) / n) as u8, "{v}/{n}");
                assert_eq!(mean(v, n, &[]), ((v + n / 2) / n) as u8);
            }
        }
    }
}
