//! The fold for other narrow blocks (at most [`NARROW_BLOCK`](super::NARROW_BLOCK)
//! pixels): running packed totals along the row, a block as the difference of two.

use super::pack;

/// Folds `u16` column sums of `rows` source rows into one target row of RGB means, for
/// blocks of at most [`NARROW_BLOCK`](super::NARROW_BLOCK) pixels.
///
/// Each source pixel's channel sums are packed into the 16-bit lanes of a `u64` and
/// `totals` gets their running total along the row, so a block's packed sum is
/// `totals[x1] − totals[x0]`. That is exact in the three colour lanes even though the
/// totals wrap: the arithmetic is modulo 2⁶⁴, a block's true packed sum has each lane
/// below 2¹⁶, and carries only move upwards (into the ignored alpha lane and beyond).
#[inline(always)]
pub(super) fn fold_row_narrow<const BPP: usize>(
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
/// rounded to nearest, as in [`mean`](super::mean), with `n/2` in the three colour lanes of `halves`.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlockMean {
    halves: u64,
    recip: u64,
}

impl BlockMean {
    pub(super) fn new(n: usize) -> Self {
        let (n, half) = (n as u64, n as u64 / 2);
        BlockMean {
            halves: half | half << 16 | half << 32,
            recip: (1 << 40) / n.max(1) + 1,
        }
    }
}
