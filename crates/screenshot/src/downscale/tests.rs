//! The downscaler against the definition of the area mean, and the exactness of its
//! integer means.

use super::short::SHORT_PIXELS;
use super::{downscale_rgba_to_rgb, mean};

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
        let out = downscale_rgba_to_rgb(&src, sw as u32, sh as u32, tw as u32, th as u32).unwrap();
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
        let out = downscale_rgba_to_rgb(&odd, sw as u32, sh as u32, tw as u32, th as u32).unwrap();
        assert_eq!(out.as_raw(), &reference_area_mean(&odd, sw, sh, tw, th));
    }
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
