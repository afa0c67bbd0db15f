//! A vectorizable pre-scan that skips the parts of a long text that cannot hold a match.
//!
//! The encoder's automaton takes one table step per byte; no SIMD prefilter helps it because
//! ASCII case-insensitive patterns with common first letters (`a`, `d`, `t`, `m`) defeat
//! `aho-corasick`'s own. Instead, every pattern (each term spelling and the token prefix)
//! contains at least one *fingerprint*: a rare letter, bigram or trigram compared after
//! folding ASCII case with `| 0x20`, or any non-ASCII byte (the Chinese terms, `ſ`, `K`). The
//! scan tests 32-byte blocks for a fingerprint with plain array code the compiler turns into
//! SIMD compares; only around blocks that have one does the automaton run, over the block
//! widened by the longest pattern on both sides. Every match contains a fingerprint and is no
//! longer than the widening, so it lies wholly inside one merged window, and windows are
//! separated by text where no match can be: the automaton finds exactly the matches it would
//! have found on the whole text. Tests check that every pattern holds a fingerprint and that
//! the windowed search equals the whole search.

/// Letter pairs (lowercase after `| 0x20`, which makes `_` `0x7f` and keeps `-` and space).
const BIGRAMS: [[u8; 2]; 16] = [
    *b"qw",
    *b"q-",
    [b'q', 0x7f],
    *b"q ",
    *b"qi",
    *b"qo",
    *b"nx",
    *b"xc",
    *b"lk",
    *b"yu",
    *b"yi",
    *b"gm",
    *b"tf",
    *b"ao",
    *b"tm",
    [0x7f, 0x7f],
];
/// Letter triples (lowercase, as above).
const TRIGRAMS: [[u8; 3]; 10] = [
    *b"bab",
    *b"oud",
    *b"ipa",
    *b"sco",
    *b"bai",
    *b"dam",
    *b"tgr",
    *b"t-g",
    [b't', 0x7f, b'g'],
    *b"t g",
];

/// Bytes per block: one SSE2 register.
const BLOCK: usize = 16;

/// Whether the block of `BLOCK` bytes starting at `w[0]` holds a fingerprint (a bigram or
/// trigram may end in the two bytes after it). `w` is `BLOCK + 2` bytes long.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block_is_hot(w: &[u8; BLOCK + 2]) -> bool {
    sse2::block_is_hot(w)
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn block_is_hot(w: &[u8; BLOCK + 2]) -> bool {
    has_fingerprint_in_block(w)
}

/// The block test with SSE2 (every x86-64 CPU has it): three unaligned loads, one compare per
/// letter and position, and one `movemask` per block; about 1 GB/s more than the automaton.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    use super::{BIGRAMS, BLOCK, TRIGRAMS};

    #[inline(always)]
    fn load(w: &[u8; BLOCK + 2], at: usize) -> __m128i {
        let chunk: &[u8; 16] = w[at..at + 16].try_into().expect("16 bytes in the window");
        // SAFETY: `chunk` is 16 readable bytes and `loadu` has no alignment requirement.
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) }
    }

    #[inline(always)]
    fn eq(v: __m128i, c: u8) -> __m128i {
        // SAFETY (this and the other SSE2 calls): SSE2 is part of the x86-64 baseline, so
        // these instructions exist on every CPU this code is compiled for.
        unsafe { _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)) }
    }

    #[inline(always)]
    pub(super) fn block_is_hot(w: &[u8; BLOCK + 2]) -> bool {
        // SAFETY: SSE2 is part of the x86-64 baseline (see `eq`).
        unsafe {
            let case = _mm_set1_epi8(0x20);
            let raw = load(w, 0);
            let (l0, l1, l2) = (
                _mm_or_si128(raw, case),
                _mm_or_si128(load(w, 1), case),
                _mm_or_si128(load(w, 2), case),
            );
            // The sign bit of every lane: set for a non-ASCII byte and for every hit.
            let mut m = raw;
            for [x, y] in BIGRAMS {
                m = _mm_or_si128(m, _mm_and_si128(eq(l0, x), eq(l1, y)));
            }
            for [x, y, z] in TRIGRAMS {
                let xy = _mm_and_si128(eq(l0, x), eq(l1, y));
                m = _mm_or_si128(m, _mm_and_si128(xy, eq(l2, z)));
            }
            _mm_movemask_epi8(m) != 0
        }
    }
}

/// The block test in plain code: the reference the SIMD one is tested against, and the
/// implementation on other architectures.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn has_fingerprint_in_block(w: &[u8; BLOCK + 2]) -> bool {
    w[..BLOCK].iter().any(|&b| b >= 0x80)
        || (0..BLOCK).any(|j| {
            let (a, b, c) = (w[j] | 0x20, w[j + 1] | 0x20, w[j + 2] | 0x20);
            BIGRAMS.contains(&[a, b]) || TRIGRAMS.contains(&[a, b, c])
        })
}

/// Whether `text` holds a fingerprint anywhere (the scalar reference of the block test).
#[cfg(test)]
pub(crate) fn has_fingerprint(text: &[u8]) -> bool {
    let lower: Vec<u8> = text.iter().map(|b| b | 0x20).collect();
    text.iter().any(|&b| b >= 0x80)
        || lower.windows(2).any(|w| BIGRAMS.contains(&[w[0], w[1]]))
        || lower
            .windows(3)
            .any(|w| TRIGRAMS.contains(&[w[0], w[1], w[2]]))
}

/// The byte ranges of `text` the automaton must search, in order and disjoint. `widen` is the
/// byte length of the longest pattern.
pub(crate) fn windows(text: &[u8], widen: usize) -> Vec<(usize, usize)> {
    let len = text.len();
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut push = |start: usize, end: usize| {
        let (s, e) = (start.saturating_sub(widen), (end + widen).min(len));
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    };
    let mut i = 0;
    while i < len {
        let hot = match text.get(i..i + BLOCK + 2) {
            Some(w) => block_is_hot(w.try_into().expect("the slice is BLOCK + 2 bytes")),
            None => {
                // The last bytes, padded with `.`, which is in no fingerprint.
                let mut w = [b'.'; BLOCK + 2];
                w[..len - i].copy_from_slice(&text[i..]);
                block_is_hot(&w)
            }
        };
        if hot {
            push(i, (i + BLOCK).min(len));
        }
        i += BLOCK;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_test_agrees_with_the_reference() {
        let texts = [
            "Settings Search Open Cancel OK Next Back Home Profile Messages",
            "android.widget.FrameLayout android.view.ViewGroup content-desc",
            "a qwen b",
            "plain words only here, nothing to see, move along now please",
            "__ double underscore",
            "non-ASCII é here",
            "ends with tm",
        ];
        for t in texts {
            // The block's own bytes, then two spaces of look-ahead (never a fingerprint).
            let mut padded = t.as_bytes().to_vec();
            padded.resize(BLOCK, b' ');
            padded.extend_from_slice(b"  ");
            let w: &[u8; BLOCK + 2] = padded[..].try_into().unwrap();
            let block = &padded[..BLOCK + 2];
            assert_eq!(block_is_hot(w), has_fingerprint(block), "{t:?}");
        }
        // A trigram that starts on the block's last byte is seen through the look-ahead.
        let mut edge = [b' '; BLOCK + 2];
        edge[BLOCK - 1..].copy_from_slice(b"BAB");
        assert!(block_is_hot(&edge));
    }

    #[test]
    fn block_test_agrees_with_the_plain_one_on_every_fingerprint_position() {
        // Each fingerprint, in both cases, at every offset of the block (and hanging into
        // the look-ahead), and blocks of near misses.
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for fp in BIGRAMS
            .iter()
            .map(|b| b.to_vec())
            .chain(TRIGRAMS.iter().map(|t| t.to_vec()))
        {
            let fp: Vec<u8> = fp
                .iter()
                .map(|&b| if b == 0x7f { b'_' } else { b })
                .collect();
            for variant in [fp.clone(), fp.to_ascii_uppercase(), fp[1..].to_vec()] {
                for at in 0..BLOCK {
                    let mut w = vec![b'.'; BLOCK + 2];
                    let n = variant.len().min(BLOCK + 2 - at);
                    w[at..at + n].copy_from_slice(&variant[..n]);
                    cases.push(w);
                }
            }
        }
        for high in [0x80u8, 0xe4, 0xff] {
            for at in 0..BLOCK + 2 {
                let mut w = vec![b'a'; BLOCK + 2];
                w[at] = high;
                cases.push(w);
            }
        }
        let mut hot = 0;
        for w in &cases {
            let w: &[u8; BLOCK + 2] = w[..].try_into().unwrap();
            assert_eq!(block_is_hot(w), has_fingerprint_in_block(w), "{w:?}");
            hot += usize::from(block_is_hot(w));
        }
        assert!(
            hot > cases.len() / 3 && hot < cases.len(),
            "{hot} of {}",
            cases.len()
        );
    }

    #[test]
    fn windows_cover_every_hot_block_and_merge() {
        let mut text = vec![b'.'; 1000];
        assert!(
            windows(&text, 10)
                .iter()
                .all(|&(s, _)| s >= 1000 - BLOCK - 12)
        );
        text[500..504].copy_from_slice(b"qwen");
        text[520..524].copy_from_slice(b"qwen");
        let w = windows(&text, 10);
        assert!(w.iter().any(|&(s, e)| s <= 500 && e >= 524), "{w:?}");
        assert!(
            w.windows(2).all(|p| p[0].1 < p[1].0),
            "disjoint and ordered: {w:?}"
        );
    }
}
