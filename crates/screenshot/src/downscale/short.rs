//! The fold for short blocks (a phone screenshot's 2-or-3 × 2-or-3 source pixels): each
//! block's pixels added directly, means with 16-bit multipliers, SSE2 on x86-64.

use super::pack;

/// The widest block, in columns, that [`fold_row_short`] adds directly.
pub(super) const SHORT_BLOCK: usize = 4;

/// The most pixels a block may have for 16-bit multipliers to give exact means
/// ([`Short`]): `(255·n + n/2) · n < 2¹⁶`.
pub(super) const SHORT_PIXELS: usize = 16;

/// What [`fold_row_short`] needs: where each block is, how to take its means, and room
/// for the row's block sums.
#[derive(Debug)]
pub(super) struct Short {
    /// Every block is `width` or `width + 1` columns wide.
    pub(super) width: usize,
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
    /// For the target columns `xs` (as in [`AreaDownscaler`](super::AreaDownscaler)) and target rows of `rows`
    /// or `rows + 1` source rows; `None` when a block is too wide or has too few or too
    /// many pixels.
    pub(super) fn new(xs: &[usize], rows: usize) -> Option<Short> {
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

/// Folds `u16` column sums into one target row of RGB means when every block is `W` or
/// `W + 1` columns wide (`W + 1 <= SHORT_BLOCK`) and has 2 to [`SHORT_PIXELS`] pixels.
/// Each block's packed sum is its pixels added directly, the optional last one masked,
/// without a branch: for the 2-or-3-column blocks of a phone screenshot, fewer
/// instructions than [`fold_row_narrow`](super::narrow::fold_row_narrow)'s running total over every column. The means
/// then take 16-bit multiplies, eight lanes at a time with SSE2 ([`means16`]).
#[inline(always)]
pub(super) fn fold_row_short<const BPP: usize, const W: usize>(
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
