//! A vectorized pre-scan that skips the parts of a long text that cannot hold a match.
//!
//! **Why.** The encoder's automaton takes one table step per byte, each depending on the last,
//! so it is slow next to a vectorized scan; no SIMD prefilter helps it because ASCII
//! case-insensitive patterns with common first letters (`a`, `d`, `t`, `m`) defeat
//! `aho-corasick`'s own. Most text the server sends holds no term at all, and it should cost
//! next to nothing.
//!
//! **What.** Every pattern (each term spelling and the token prefix) contains at least one
//! *fingerprint*: a rare letter, bigram or trigram compared after folding ASCII case with
//! `| 0x20`, or any non-ASCII byte (the Chinese terms, `ſ`, `K`). The text is cut into
//! 16-byte blocks, and a block is *hot* when a fingerprint starts in it (the last one may run
//! two bytes into the next block). Only around hot blocks does the automaton run, over the
//! block widened by the longest pattern on both sides, with overlapping windows merged. Every
//! match contains a fingerprint and is no longer than the widening, so it lies wholly inside
//! one window, and windows are separated by text where no match can be: the automaton finds
//! exactly the matches it would have found on the whole text.
//!
//! **How.** The block test is one SIMD compare per fingerprint byte and position, and the hot
//! blocks come out of a `movemask`. Three implementations compute the same hot blocks, so the
//! same windows: AVX2 (two blocks per step, chosen at run time when the CPU has it, detected
//! once per process), SSE2 (one block per step; part of the x86-64 baseline) and plain code
//! (other architectures, and the reference the others are tested against). Tests check that
//! every pattern holds a fingerprint, that every implementation finds the reference's hot
//! blocks and windows, and that the windowed search equals the whole search.

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

/// Bytes per block: the unit the windows are made of.
const BLOCK: usize = 16;
/// Bytes a block test reads past its block: a bigram or trigram may start on its last byte.
const LOOKAHEAD: usize = 2;
/// Fills the bytes past the end of the text in a block test: `.` is in no fingerprint.
const PAD: u8 = b'.';

/// One implementation of the block test, each one finding exactly the same hot blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scanner {
    /// Plain code, one block at a time.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    Portable,
    /// SSE2, one block per step.
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// AVX2, two blocks per step. Only ever constructed after `is_x86_feature_detected!`
    /// confirmed the CPU has AVX2 (in [`Scanner::detect`], or from its cached answer in
    /// [`Scanner::best`]); `scan` relies on this.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Scanner {
    /// The fastest implementation this CPU runs, detected once per process: every later call
    /// is one relaxed atomic load (this runs for every string of a JSON value).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn best() -> Scanner {
        use std::sync::atomic::{AtomicU8, Ordering};
        /// 0 until detected, then 1 for SSE2 and 2 for AVX2. Racing first calls store the
        /// same value.
        static BEST: AtomicU8 = AtomicU8::new(0);
        match BEST.load(Ordering::Relaxed) {
            1 => Scanner::Sse2,
            // Stored only after `detect` found AVX2.
            2 => Scanner::Avx2,
            _ => {
                let best = Scanner::detect();
                BEST.store(if best == Scanner::Avx2 { 2 } else { 1 }, Ordering::Relaxed);
                best
            }
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    fn best() -> Scanner {
        Scanner::detect()
    }

    #[cfg(target_arch = "x86_64")]
    fn detect() -> Scanner {
        if is_x86_feature_detected!("avx2") {
            Scanner::Avx2
        } else {
            Scanner::Sse2
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect() -> Scanner {
        Scanner::Portable
    }

    /// Every implementation the running CPU supports (for tests).
    #[cfg(test)]
    fn available() -> Vec<Scanner> {
        #[cfg(target_arch = "x86_64")]
        {
            let mut all = vec![Scanner::Portable, Scanner::Sse2];
            if Scanner::detect() == Scanner::Avx2 {
                all.push(Scanner::Avx2);
            }
            all
        }
        #[cfg(not(target_arch = "x86_64"))]
        vec![Scanner::Portable]
    }

    /// The first stretch of hot blocks at or after `from` (a multiple of [`BLOCK`]): the
    /// offset of a block-aligned chunk of `text` and the hot blocks in it (bit `k` for the
    /// block at `offset + k * BLOCK`, never zero). Every block in between is cold. `None` when
    /// no block at or after `from` is hot.
    #[inline]
    fn scan(self, text: &[u8], from: usize) -> Option<(usize, u32)> {
        match self {
            Scanner::Portable => scan_chunks::<{ BLOCK + LOOKAHEAD }>(text, from, |w| {
                u32::from(has_fingerprint_in_block(w))
            }),
            #[cfg(target_arch = "x86_64")]
            Scanner::Sse2 => scan_chunks(text, from, sse2::hot_blocks),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Scanner::Avx2` exists only when the CPU has AVX2 (see the variant).
            Scanner::Avx2 => unsafe { avx2::scan(text, from) },
        }
    }
}

/// The scan loop shared by every implementation: `hot_blocks` tests one chunk of
/// `W - LOOKAHEAD` bytes (a whole number of blocks) plus its look-ahead. The last chunk is
/// padded with [`PAD`]; blocks past the end of the text are all padding, so never hot.
#[inline(always)]
fn scan_chunks<const W: usize>(
    text: &[u8],
    from: usize,
    mut hot_blocks: impl FnMut(&[u8; W]) -> u32,
) -> Option<(usize, u32)> {
    let step = W - LOOKAHEAD;
    let len = text.len();
    let mut i = from;
    while let Some(w) = text.get(i..i + W) {
        let hot = hot_blocks(w.try_into().expect("the slice is W bytes"));
        if hot != 0 {
            return Some((i, hot));
        }
        i += step;
    }
    // Fewer than `W` bytes are left: at most two more steps, each padded.
    while i < len {
        let mut w = [PAD; W];
        copy_short(&mut w, &text[i..]);
        let hot = hot_blocks(&w);
        if hot != 0 {
            return Some((i, hot));
        }
        i += step;
    }
    None
}

/// Copies `src` (shorter than `W`) to the start of `dst` with two overlapping fixed-size
/// copies instead of a `memcpy` call: most strings of a JSON value are this short.
#[inline(always)]
pub(crate) fn copy_short<const W: usize>(dst: &mut [u8; W], src: &[u8]) {
    let n = src.len();
    debug_assert!(n < W);
    if n >= 32 {
        dst[..32].copy_from_slice(&src[..32]);
        dst[n - 32..n].copy_from_slice(&src[n - 32..]);
    } else if n >= 16 {
        dst[..16].copy_from_slice(&src[..16]);
        dst[n - 16..n].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..n].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..n].copy_from_slice(&src[n - 4..]);
    } else {
        dst[..n].iter_mut().zip(src).for_each(|(d, s)| *d = *s);
    }
}

/// The block test with SSE2 (every x86-64 CPU has it): three unaligned loads, one compare per
/// letter and position, and one `movemask` per block.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    use super::{BIGRAMS, BLOCK, LOOKAHEAD, TRIGRAMS};

    const W: usize = BLOCK + LOOKAHEAD;

    #[inline(always)]
    fn load(w: &[u8; W], at: usize) -> __m128i {
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

    /// Bit 0 set when the block starting at `w[0]` is hot.
    #[inline(always)]
    pub(super) fn hot_blocks(w: &[u8; W]) -> u32 {
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
            u32::from(_mm_movemask_epi8(m) != 0)
        }
    }
}

/// The block test with AVX2: the SSE2 test on 32-byte registers, so two blocks per step, and
/// the scan loop compiled for AVX2 as a whole. Only called once AVX2 has been detected.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };

    use super::{BIGRAMS, BLOCK, LOOKAHEAD, TRIGRAMS, scan_chunks};

    /// Bytes per step: two blocks.
    const STEP: usize = 2 * BLOCK;
    const W: usize = STEP + LOOKAHEAD;

    /// [`super::Scanner::scan`] with AVX2.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scan(text: &[u8], from: usize) -> Option<(usize, u32)> {
        // SAFETY: the caller guarantees AVX2, which is all `hot_blocks` needs.
        scan_chunks(text, from, |w| unsafe { hot_blocks(w) })
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(w: &[u8; W], at: usize) -> __m256i {
        let chunk: &[u8; STEP] = w[at..at + STEP].try_into().expect("32 bytes in the window");
        // SAFETY: `chunk` is 32 readable bytes and `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn eq(v: __m256i, c: u8) -> __m256i {
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))
    }

    /// Bit 0 set when the block starting at `w[0]` is hot, bit 1 for the one at `w[BLOCK]`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn hot_blocks(w: &[u8; W]) -> u32 {
        let case = _mm256_set1_epi8(0x20);
        let raw = load(w, 0);
        let (l0, l1, l2) = (
            _mm256_or_si256(raw, case),
            _mm256_or_si256(load(w, 1), case),
            _mm256_or_si256(load(w, 2), case),
        );
        // The sign bit of every lane: set for a non-ASCII byte and for every hit.
        let mut m = raw;
        for [x, y] in BIGRAMS {
            m = _mm256_or_si256(m, _mm256_and_si256(eq(l0, x), eq(l1, y)));
        }
        for [x, y, z] in TRIGRAMS {
            let xy = _mm256_and_si256(eq(l0, x), eq(l1, y));
            m = _mm256_or_si256(m, _mm256_and_si256(xy, eq(l2, z)));
        }
        // One bit per byte; the low 16 are the first block. (`as` reinterprets the sign.)
        let lanes = _mm256_movemask_epi8(m) as u32;
        u32::from(lanes & 0xffff != 0) | (u32::from(lanes >> 16 != 0) << 1)
    }
}

/// The block test in plain code: the reference the SIMD ones are tested against, and the
/// implementation on other architectures.
fn has_fingerprint_in_block(w: &[u8; BLOCK + LOOKAHEAD]) -> bool {
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

/// The byte ranges of `text` the automaton must search, in order and disjoint, or `None` when
/// there are none (the common case, answered by the first scan). `widen` is the byte length
/// of the longest pattern.
#[inline]
pub(crate) fn windows(text: &[u8], widen: usize) -> Option<Windows<'_>> {
    Windows::start(text, widen, Scanner::best())
}

/// The iterator [`windows`] returns. It scans lazily, so a caller that stops early allocates
/// nothing and scans no further than it needs.
pub(crate) struct Windows<'t> {
    text: &'t [u8],
    widen: usize,
    scanner: Scanner,
    /// Where scanning resumes once `hot` is used up; a multiple of `BLOCK`, or past the end.
    next: usize,
    /// The start of the chunk `hot` describes.
    base: usize,
    /// Hot blocks of the last chunk not yet turned into windows (bit `k`: `base + k * BLOCK`).
    hot: u32,
    /// The window being grown: it absorbs following windows that overlap it.
    pending: Option<(usize, usize)>,
}

impl<'t> Windows<'t> {
    /// Scans up to the first hot block; `None` when there is none.
    #[inline]
    fn start(text: &'t [u8], widen: usize, scanner: Scanner) -> Option<Self> {
        let (base, hot) = scanner.scan(text, 0)?;
        Some(Windows {
            text,
            widen,
            scanner,
            next: resume_after(base, hot),
            base,
            hot,
            pending: None,
        })
    }

    /// The start of the next hot block.
    #[inline]
    fn next_hot_block(&mut self) -> Option<usize> {
        if self.hot == 0 {
            if self.next >= self.text.len() {
                return None;
            }
            let Some((base, hot)) = self.scanner.scan(self.text, self.next) else {
                self.next = self.text.len();
                return None;
            };
            self.next = resume_after(base, hot);
            self.base = base;
            self.hot = hot;
        }
        let k = self.hot.trailing_zeros() as usize;
        self.hot &= self.hot - 1;
        Some(self.base + k * BLOCK)
    }
}

/// Where to scan on from a chunk at `base` with these `hot` blocks: after the last hot one
/// (the chunk's blocks after it are cold, and scanning them again is harmless).
#[inline]
fn resume_after(base: usize, hot: u32) -> usize {
    base + BLOCK * (32 - hot.leading_zeros() as usize)
}

impl Iterator for Windows<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        let len = self.text.len();
        loop {
            if self.pending.is_some_and(|(_, end)| end == len) {
                // Every later hot block would merge into a window that reaches the end, so
                // the rest of the text need not be scanned (most strings that encode are short
                // enough for their first window to cover them whole).
                self.hot = 0;
                self.next = len;
                return self.pending.take();
            }
            let Some(block) = self.next_hot_block() else {
                return self.pending.take();
            };
            let (s, e) = (
                block.saturating_sub(self.widen),
                ((block + BLOCK).min(len) + self.widen).min(len),
            );
            match &mut self.pending {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                Some(last) => return Some(std::mem::replace(last, (s, e))),
                None => self.pending = Some((s, e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hot blocks as the original one-block-at-a-time scan finds them: each block with
    /// its look-ahead, padded with `PAD` past the end, through the plain block test.
    fn reference_hot_blocks(text: &[u8]) -> Vec<usize> {
        (0..text.len())
            .step_by(BLOCK)
            .filter(|&i| {
                let mut w = [PAD; BLOCK + LOOKAHEAD];
                let n = (text.len() - i).min(BLOCK + LOOKAHEAD);
                w[..n].copy_from_slice(&text[i..i + n]);
                has_fingerprint_in_block(&w)
            })
            .collect()
    }

    /// The windows the original scan built from those blocks.
    fn reference_windows(text: &[u8], widen: usize) -> Vec<(usize, usize)> {
        let len = text.len();
        let mut out: Vec<(usize, usize)> = Vec::new();
        for i in reference_hot_blocks(text) {
            let (s, e) = (
                i.saturating_sub(widen),
                ((i + BLOCK).min(len) + widen).min(len),
            );
            match out.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => out.push((s, e)),
            }
        }
        out
    }

    /// The hot blocks `scanner` finds, one `scan` after another.
    fn hot_blocks_with(scanner: Scanner, text: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some((base, hot)) = scanner.scan(text, from) {
            assert_eq!(base % BLOCK, 0);
            assert!(base >= from && hot != 0);
            out.extend(
                (0..32)
                    .filter(|k| hot & (1 << k) != 0)
                    .map(|k| base + k * BLOCK),
            );
            from = resume_after(base, hot);
        }
        out.dedup();
        out
    }

    /// Every implementation finds the reference's hot blocks and windows in `text`.
    fn check_every_scanner(text: &[u8]) {
        let blocks = reference_hot_blocks(text);
        let windows = reference_windows(text, 10);
        for scanner in Scanner::available() {
            assert_eq!(
                hot_blocks_with(scanner, text),
                blocks,
                "{scanner:?} {text:?}"
            );
            let got: Vec<_> = Windows::start(text, 10, scanner)
                .into_iter()
                .flatten()
                .collect();
            assert_eq!(got, windows, "{scanner:?} {text:?}");
        }
    }

    #[test]
    fn the_best_scanner_is_detected_and_tested() {
        let best = Scanner::best();
        assert!(Scanner::available().contains(&best));
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            best == Scanner::Avx2,
            is_x86_feature_detected!("avx2"),
            "{best:?}"
        );
    }

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
            let w: &[u8; BLOCK + LOOKAHEAD] = padded[..].try_into().unwrap();
            assert_eq!(
                has_fingerprint_in_block(w),
                has_fingerprint(&padded),
                "{t:?}"
            );
            check_every_scanner(&padded);
            check_every_scanner(t.as_bytes());
        }
        // A trigram that starts on the block's last byte is seen through the look-ahead.
        let mut edge = [b' '; BLOCK + LOOKAHEAD];
        edge[BLOCK - 1..].copy_from_slice(b"BAB");
        assert!(has_fingerprint_in_block(&edge));
        for scanner in Scanner::available() {
            assert_eq!(hot_blocks_with(scanner, &edge), [0], "{scanner:?}");
        }
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
                    let mut w = vec![PAD; BLOCK + LOOKAHEAD];
                    let n = variant.len().min(BLOCK + LOOKAHEAD - at);
                    w[at..at + n].copy_from_slice(&variant[..n]);
                    cases.push(w);
                }
            }
        }
        for high in [0x80u8, 0xe4, 0xff] {
            for at in 0..BLOCK + LOOKAHEAD {
                let mut w = vec![b'a'; BLOCK + LOOKAHEAD];
                w[at] = high;
                cases.push(w);
            }
        }
        let mut hot = 0;
        for w in &cases {
            let block: &[u8; BLOCK + LOOKAHEAD] = w[..].try_into().unwrap();
            let expected = has_fingerprint_in_block(block);
            hot += usize::from(expected);
            // The case as the first, second and third block of a text, so that it falls in
            // either half of an AVX2 step, with and without the end of the text right after
            // its look-ahead.
            for before in [0, BLOCK, 2 * BLOCK] {
                for after in [0, BLOCK, 3 * BLOCK] {
                    let mut text = vec![PAD; before];
                    text.extend_from_slice(w);
                    text.resize(text.len() + after, PAD);
                    check_every_scanner(&text);
                    for scanner in Scanner::available() {
                        let found = hot_blocks_with(scanner, &text).contains(&before);
                        assert_eq!(found, expected, "{scanner:?} {text:?}");
                    }
                }
            }
        }
        assert!(
            hot > cases.len() / 3 && hot < cases.len(),
            "{hot} of {}",
            cases.len()
        );
    }

    #[test]
    fn every_scanner_finds_the_reference_windows_at_every_length_and_position() {
        // Each kind of fingerprint (the test above tries every one at every offset of a
        // block): a bigram, a trigram, one with `_`, one with a space, a non-ASCII byte.
        let fingerprints: [&[u8]; 5] = [b"qW", b"bab", b"__", b"t g", "阿".as_bytes()];
        for len in 0..=3 * 2 * BLOCK + LOOKAHEAD + 1 {
            check_every_scanner(&vec![PAD; len]);
            for fp in &fingerprints {
                for at in 0..len {
                    let mut text = vec![PAD; len];
                    let n = fp.len().min(len - at);
                    text[at..at + n].copy_from_slice(&fp[..n]);
                    check_every_scanner(&text);
                }
            }
        }
    }

    #[test]
    fn every_scanner_finds_the_reference_windows_in_mixed_text() {
        // Deterministic pseudo-random texts over letters that make fingerprints, filler
        // and a non-ASCII byte, at several densities.
        let alphabet = b"qwtgbaoudiscmnxylkf-_ .,e\xe4";
        let mut state = 7u64;
        for round in 0..200 {
            let len = 1 + round * 7 % 700;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let r = usize::try_from(state >> 33).unwrap_or(0);
                    if r % (1 + round % 5) == 0 {
                        alphabet[r / 7 % alphabet.len()]
                    } else {
                        PAD
                    }
                })
                .collect();
            check_every_scanner(&text);
        }
    }

    #[test]
    fn a_window_that_reaches_the_end_ends_the_scan() {
        // Hot blocks in every chunk of a short text: the first window covers it all, and the
        // iterator stops there rather than scanning on and merging the rest into it.
        for scanner in Scanner::available() {
            let text = b"qwen............qwen............qwen..qwen";
            let mut w = Windows::start(text, 20, scanner).expect("hot");
            assert_eq!(w.next(), Some((0, text.len())), "{scanner:?}");
            assert_eq!((w.hot, w.next), (0, text.len()), "{scanner:?}");
            assert_eq!(w.next(), None, "{scanner:?}");
            assert_eq!(w.next(), None, "{scanner:?}");
        }
    }

    #[test]
    fn windows_cover_every_hot_block_and_merge() {
        let mut text = vec![b'.'; 1000];
        assert!(windows(&text, 10).is_none());
        text[500..504].copy_from_slice(b"qwen");
        text[520..524].copy_from_slice(b"qwen");
        let w: Vec<_> = windows(&text, 10).into_iter().flatten().collect();
        assert!(w.iter().any(|&(s, e)| s <= 500 && e >= 524), "{w:?}");
        assert!(
            w.windows(2).all(|p| p[0].1 < p[1].0),
            "disjoint and ordered: {w:?}"
        );
    }
}
