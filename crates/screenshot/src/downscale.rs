//! The area (box) downscaler: source rows in, RGB target rows out, in integer arithmetic.

use std::borrow::Cow;

use image::RgbImage;
use mobile_device::{DeviceError, Result};

use crate::jpeg;

mod narrow;
mod short;

use narrow::{BlockMean, fold_row_narrow};
use short::{Short, fold_row_short};

/// Area-averaging downscale to RGB8, fed one source row at a time (alpha dropped:
/// screenshots are opaque and JPEG has no alpha).
///
/// Target pixel (x, y) is the mean of the source block
/// `[x·sw/tw, (x+1)·sw/tw) × [y·sh/th, (y+1)·sh/th)`: every source pixel counts exactly
/// once, like a box filter, in integer arithmetic. For the 2–3× reductions of phone
/// screenshots it looks like a box filter, needs no float intermediate (`resize_exact`
/// kept 16 bytes per pixel of a 1080-wide frame) and is several times faster (the
/// `screenshot_stage` group of `benches/screenshot.rs`).
///
/// Each source row is only added, byte by byte, into per-column sums (a loop the compiler
/// vectorizes); the sums are folded into target pixels once per target row. When a block
/// has at most [`NARROW_BLOCK`] pixels (every phone-screenshot reduction) the sums are
/// `u16`, half the bytes of `u32` for that loop, and the fold packs each source pixel's
/// channel sums into the 16-bit lanes of one `u64`, keeps a running total along the row,
/// and takes each block as the difference of two totals: no loop per block, whose uneven
/// 2-or-3-column widths cost more than the sums themselves. When blocks are at most
/// [`SHORT_BLOCK`](short::SHORT_BLOCK) columns wide and have at most
/// [`SHORT_PIXELS`](short::SHORT_PIXELS) pixels (a phone
/// screenshot's 2-or-3 × 2-or-3), each block's packed pixels are added directly, with
/// the optional last column masked rather than branched on, and the means take 16-bit
/// multipliers, eight lanes at a time with SSE2 ([`fold_row_short`]): fewer instructions
/// than the running totals (docs/performance.md). Larger blocks use `u32` sums and add each
/// block's pixels.
#[derive(Debug)]
pub(crate) struct AreaDownscaler {
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
    /// Every block is at most [`SHORT_BLOCK`](short::SHORT_BLOCK) columns wide and has 2
    /// to [`SHORT_PIXELS`](short::SHORT_PIXELS) pixels ([`fold_row_short`]).
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
    pub(crate) fn new(sw: u32, sh: u32, tw: u32, th: u32) -> Result<Self> {
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

    /// Makes room for the whole scaled image (by default the rows are handed on in bands).
    pub(crate) fn reserve_whole(&mut self) {
        self.out.reserve_exact(self.tw * self.th * 3);
    }

    /// Adds the next source row, and hands the target rows made so far to `sink` once
    /// they fill a band of [`jpeg::BAND_ROWS`] rows ([`AreaDownscaler::finish_rows`] gives
    /// the rest).
    pub(crate) fn push_row_banded<'a, const BPP: usize>(
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
    pub(crate) fn push_row<const BPP: usize>(&mut self, row: &[u8]) {
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

    pub(crate) fn finish(self) -> Result<Scaled> {
        let (source, (tw, th)) = ((self.sw as u32, self.sh as u32), (self.tw, self.th));
        let scaled = RgbImage::from_raw(tw as u32, th as u32, self.finish_rows()?)
            .ok_or_else(|| DeviceError::backend("the scaled image has the wrong size"))?;
        Ok(Scaled { scaled, source })
    }

    /// The RGB rows made, once every source row they need has arrived.
    pub(crate) fn finish_rows(self) -> Result<Vec<u8>> {
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

/// A scaled frame and the size it was scaled from.
pub(crate) struct Scaled {
    pub(crate) scaled: RgbImage,
    pub(crate) source: (u32, u32),
}

/// A source pixel's channel sums in the 16-bit lanes of a `u64` (four lanes when there
/// are four channels: the compiler makes that one load).
#[inline(always)]
pub(super) fn pack<const BPP: usize>(p: &[u16; BPP]) -> u64 {
    let alpha = if BPP == 4 {
        u64::from(p[BPP - 1]) << 48
    } else {
        0
    };
    u64::from(p[0]) | u64::from(p[1]) << 16 | u64::from(p[2]) << 32 | alpha
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
/// visible cost; with the reciprocal table it is a multiply and a shift, exact because `(v + n/2)·n < 2⁴⁰` (v ≤ 255·n, n ≤ 4096).
#[inline(always)]
pub(super) fn mean(v: u64, n: u64, recip: &[u64]) -> u8 {
    let x = v + n / 2;
    match recip.get(n as usize) {
        Some(&m) => ((x * m) >> 40) as u8,
        None => (x / n) as u8,
    }
}

/// Area-averaging downscale of a whole RGBA8 frame (see [`AreaDownscaler`]).
#[cfg(test)]
pub(crate) fn downscale_rgba_to_rgb(
    src: &[u8],
    sw: u32,
    sh: u32,
    tw: u32,
    th: u32,
) -> Result<RgbImage> {
    let mut s = AreaDownscaler::new(sw, sh, tw, th)?;
    for row in src.chunks_exact(sw as usize * 4) {
        s.push_row::<4>(row);
    }
    Ok(s.finish()?.scaled)
}

#[cfg(test)]
mod tests;
