//! Huffman tables fitted to an image after its bands were encoded with the standard ones.
//!
//! `jpeg-encoder` fits tables only in a pass over the whole image, which bands encoded
//! apart cannot share. So each band's scan data is read back into its symbols (the
//! quantized coefficients are untouched: only their codes change), the symbol counts of
//! all bands give one set of tables fitted to the image (ITU-T T.81 Annex K.2, the
//! procedure behind libjpeg's `-optimize`), and the symbols are written again with them.
//! On a flat UI screenshot the standard tables cost about a quarter more bytes
//! (docs/performance.md); reading and writing the symbols again touches only the
//! compressed data, a few tens of kilobytes.

use mobile_device::{DeviceError, Result};

/// The table slots of a scan: `2 × table id + class` (class 0 DC, 1 AC), so luma DC,
/// luma AC, chroma DC, chroma AC for what `jpeg-encoder` writes.
pub(super) const SLOTS: usize = 4;

/// A Huffman table as a `DHT` segment holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Table {
    /// How many codes have each length, 1 to 16 bits.
    counts: [u8; 16],
    /// The symbols, shortest code first.
    values: Vec<u8>,
}

/// What the scan of a band is made of, read from its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    pub(super) tables: [Option<Table>; SLOTS],
    /// Per component, in scan order: blocks across and down in one MCU, and its DC and
    /// AC table slots.
    components: Vec<Component>,
    /// Pixels an MCU covers across and down.
    mcu: (usize, usize),
    width: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Component {
    id: u8,
    h: usize,
    v: usize,
    dc: usize,
    ac: usize,
}

/// A symbol as read from the scan: slot in bits 24–25, the symbol in bits 16–23, and the
/// extra bits that follow its code (as many as its low four bits say) in bits 0–15.
pub(super) type Symbol = u32;

impl Layout {
    /// Reads the tables, frame and scan headers of a baseline JPEG's header (`SOI` up to
    /// and including `SOS`).
    pub(super) fn parse(header: &[u8]) -> Result<Layout> {
        let bad = |what: &str| DeviceError::backend(format!("the JPEG encoder wrote {what}"));
        let mut tables: [Option<Table>; SLOTS] = Default::default();
        let mut frame: Vec<(u8, usize, usize)> = Vec::new();
        let mut width = 0;
        for (_, marker, body) in super::segments(header) {
            match marker {
                0xC4 => {
                    let mut rest = body;
                    while let [class_id, tail @ ..] = rest {
                        let (class, id) = (usize::from(class_id >> 4), usize::from(class_id & 15));
                        let counts: [u8; 16] = tail
                            .get(..16)
                            .and_then(|c| c.try_into().ok())
                            .ok_or_else(|| bad("a cut Huffman table"))?;
                        let n: usize = counts.iter().map(|&c| usize::from(c)).sum();
                        let values = tail
                            .get(16..16 + n)
                            .ok_or_else(|| bad("a cut Huffman table"))?;
                        let slot = (2 * id + class).min(SLOTS);
                        *tables
                            .get_mut(slot)
                            .ok_or_else(|| bad("a fifth Huffman table"))? = Some(Table {
                            counts,
                            values: values.to_vec(),
                        });
                        rest = &tail[16 + n..];
                    }
                }
                0xC0 => {
                    let [_, _, _, w0, w1, nf, comps @ ..] = body else {
                        return Err(bad("a cut frame header"));
                    };
                    width = usize::from(u16::from_be_bytes([*w0, *w1]));
                    for c in comps.chunks_exact(3).take(usize::from(*nf)) {
                        frame.push((c[0], usize::from(c[1] >> 4), usize::from(c[1] & 15)));
                    }
                }
                0xDA => {
                    let [ns, comps @ ..] = body else {
                        return Err(bad("a cut scan header"));
                    };
                    let mut components = Vec::new();
                    for c in comps.chunks_exact(2).take(usize::from(*ns)) {
                        let &(id, h, v) = frame
                            .iter()
                            .find(|f| f.0 == c[0])
                            .ok_or_else(|| bad("a scan of a component the frame lacks"))?;
                        let (dc, ac) = (2 * usize::from(c[1] >> 4), 2 * usize::from(c[1] & 15) + 1);
                        if tables.get(dc).is_none_or(Option::is_none)
                            || tables.get(ac).is_none_or(Option::is_none)
                            || !(1..=2).contains(&h)
                            || !(1..=2).contains(&v)
                        {
                            return Err(bad("a scan this reader does not know"));
                        }
                        components.push(Component { id, h, v, dc, ac });
                    }
                    let hmax = components.iter().map(|c| c.h).max().unwrap_or(1);
                    let vmax = components.iter().map(|c| c.v).max().unwrap_or(1);
                    // One component alone is coded block by block (one-block MCUs).
                    let lone_subsampled = components.len() == 1 && (hmax, vmax) != (1, 1);
                    if components.is_empty() || width == 0 || lone_subsampled {
                        return Err(bad("an empty scan"));
                    }
                    return Ok(Layout {
                        tables,
                        components,
                        mcu: (8 * hmax, 8 * vmax),
                        width,
                    });
                }
                _ => {}
            }
        }
        Err(bad("a header without a scan"))
    }

    /// The symbols of a scan of `rows` rows (between restart markers: no marker inside).
    pub(super) fn read_symbols(
        &self,
        data: &[u8],
        rows: usize,
        out: &mut Vec<Symbol>,
    ) -> Result<()> {
        let decoders: Vec<Option<Decoder>> = self
            .tables
            .iter()
            .map(|t| t.as_ref().map(Decoder::new))
            .collect();
        let decoder = |slot: usize| decoders[slot].as_ref();
        let mcus = self.width.div_ceil(self.mcu.0) * rows.div_ceil(self.mcu.1);
        let mut bits = BitReader::new(data);
        let corrupt =
            || DeviceError::backend("the JPEG encoder wrote scan data this reader cannot follow");
        for _ in 0..mcus {
            for c in &self.components {
                let (Some(dc), Some(ac)) = (decoder(c.dc), decoder(c.ac)) else {
                    return Err(corrupt());
                };
                for _ in 0..c.h * c.v {
                    let s = dc.decode(&mut bits).ok_or_else(corrupt)?;
                    let extra = bits.read(u32::from(s & 15)).ok_or_else(corrupt)?;
                    out.push(symbol(c.dc, s, extra));
                    let mut k = 1;
                    while k < 64 {
                        let rs = ac.decode(&mut bits).ok_or_else(corrupt)?;
                        let extra = bits.read(u32::from(rs & 15)).ok_or_else(corrupt)?;
                        out.push(symbol(c.ac, rs, extra));
                        match (rs >> 4, rs & 15) {
                            (0, 0) => break,
                            (15, 0) => k += 16,
                            (r, _) => k += usize::from(r) + 1,
                        }
                    }
                    if k > 64 {
                        return Err(corrupt());
                    }
                }
            }
        }
        Ok(())
    }
}

fn symbol(slot: usize, s: u8, extra: u16) -> Symbol {
    (slot as u32) << 24 | u32::from(s) << 16 | u32::from(extra)
}

/// Tables fitted to how often each symbol occurs (slots with no symbols keep `standard`'s).
pub(super) fn fit(
    symbols: &[&[Symbol]],
    standard: &[Option<Table>; SLOTS],
) -> [Option<Table>; SLOTS] {
    let mut freq = [[0u32; 256]; SLOTS];
    for list in symbols {
        for &s in *list {
            freq[(s >> 24) as usize & 3][(s >> 16) as usize & 255] += 1;
        }
    }
    std::array::from_fn(|slot| {
        let standard = standard[slot].clone()?;
        if freq[slot].iter().all(|&f| f == 0) {
            return Some(standard);
        }
        Some(Table::fitted(&freq[slot]))
    })
}

/// Writes `symbols` with `tables`, then pads the last byte with 1 bits (what ends a scan
/// or comes before a restart marker).
pub(super) fn write_symbols(
    symbols: &[Symbol],
    tables: &[Option<Table>; SLOTS],
    out: &mut Vec<u8>,
) -> Result<()> {
    let codes: Vec<Option<Codes>> = tables
        .iter()
        .map(|t| t.as_ref().map(Table::codes))
        .collect();
    let mut w = BitWriter { out, acc: 0, n: 0 };
    for &s in symbols {
        let (slot, sym, extra) = ((s >> 24) as usize & 3, (s >> 16) as usize & 255, s & 0xFFFF);
        let Some(codes) = &codes[slot] else {
            return Err(DeviceError::backend("a JPEG symbol has no table"));
        };
        let len = u32::from(codes.len[sym]);
        if len == 0 {
            return Err(DeviceError::backend("a JPEG symbol has no code"));
        }
        w.put(u32::from(codes.code[sym]), len);
        let nbits = (sym & 15) as u32;
        if nbits > 0 {
            w.put(extra, nbits);
        }
    }
    w.finish();
    Ok(())
}

/// One `DHT` segment holding every table of `tables`.
pub(super) fn dht_segment(tables: &[Option<Table>; SLOTS]) -> Vec<u8> {
    let mut body = Vec::new();
    for (slot, t) in tables.iter().enumerate() {
        if let Some(t) = t {
            let (id, class) = (slot / 2, slot % 2);
            body.push((class << 4 | id) as u8);
            body.extend_from_slice(&t.counts);
            body.extend_from_slice(&t.values);
        }
    }
    let mut seg = vec![0xFF, 0xC4];
    seg.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    seg.extend_from_slice(&body);
    seg
}

/// Each symbol's code and code length (0: no code).
struct Codes {
    code: [u16; 256],
    len: [u8; 256],
}

impl Table {
    /// Canonical codes (T.81 Annex C): by length, then in the order of `values`.
    fn codes(&self) -> Codes {
        let mut codes = Codes {
            code: [0; 256],
            len: [0; 256],
        };
        let mut code = 0u32;
        let mut values = self.values.iter();
        for (l, &n) in self.counts.iter().enumerate() {
            for &v in values.by_ref().take(usize::from(n)) {
                codes.code[usize::from(v)] = code as u16;
                codes.len[usize::from(v)] = l as u8 + 1;
                code += 1;
            }
            code <<= 1;
        }
        codes
    }

    /// Code lengths from symbol frequencies, limited to 16 bits, with no code of all 1
    /// bits (T.81 Annex K.2: K.2.1 code sizes, K.2.2 adjusting the counts per length,
    /// K.2.3 sorting the symbols by code size).
    fn fitted(freq: &[u32; 256]) -> Table {
        // A reserved symbol 256 with count 1 takes the all-ones code, dropped at the end.
        let mut f = [0u64; 257];
        for (d, &s) in f.iter_mut().zip(freq) {
            *d = u64::from(s);
        }
        f[256] = 1;
        // Only symbols that occur take part (at most 163 of the 257 in a JPEG table).
        let live: Vec<usize> = (0..257).filter(|&i| f[i] > 0).collect();
        let mut size = [0usize; 257];
        let mut others = [usize::MAX; 257];
        loop {
            // The two least frequent, the later symbol first among equals.
            let (mut c1, mut c2) = (usize::MAX, usize::MAX);
            for &i in &live {
                if f[i] == 0 {
                    continue;
                }
                if c1 == usize::MAX || f[i] <= f[c1] {
                    c2 = c1;
                    c1 = i;
                } else if c2 == usize::MAX || f[i] <= f[c2] {
                    c2 = i;
                }
            }
            if c2 == usize::MAX {
                break;
            }
            f[c1] += f[c2];
            f[c2] = 0;
            size[c1] += 1;
            while others[c1] != usize::MAX {
                c1 = others[c1];
                size[c1] += 1;
            }
            others[c1] = c2;
            size[c2] += 1;
            while others[c2] != usize::MAX {
                c2 = others[c2];
                size[c2] += 1;
            }
        }
        let mut bits = [0u32; 33];
        for &s in &size {
            if s > 0 {
                bits[s.min(32)] += 1;
            }
        }
        for i in (17..=32).rev() {
            while bits[i] > 0 {
                let mut j = i - 2;
                while bits[j] == 0 {
                    j -= 1;
                }
                bits[i] -= 2;
                bits[i - 1] += 1;
                bits[j + 1] += 2;
                bits[j] -= 1;
            }
        }
        // Drop the reserved symbol's code: the longest.
        if let Some(i) = (1..=16).rev().find(|&i| bits[i] > 0) {
            bits[i] -= 1;
        }
        let mut counts = [0u8; 16];
        for (c, &b) in counts.iter_mut().zip(&bits[1..=16]) {
            *c = b as u8;
        }
        let mut values = Vec::new();
        for len in 1..=32 {
            for (sym, &s) in size[..256].iter().enumerate() {
                if s == len {
                    values.push(sym as u8);
                }
            }
        }
        Table { counts, values }
    }
}

/// Bits of a code looked up in one step; longer codes are searched length by length.
const LOOKUP_BITS: u32 = 9;

/// Decoding with one table: codes of up to [`LOOKUP_BITS`] from a table indexed by the
/// next bits, longer ones by T.81 F.2.2.3 (the codes of each length are consecutive).
struct Decoder<'t> {
    /// Per prefix of `LOOKUP_BITS` bits: code length in the high byte (0: longer), symbol
    /// in the low byte.
    lookup: Vec<u16>,
    /// Per length 1–16: the largest code (−1: none), the first code, and the index of
    /// its symbol in `values`.
    max: [i32; 17],
    min: [i32; 17],
    first: [usize; 17],
    values: &'t [u8],
}

impl<'t> Decoder<'t> {
    fn new(t: &'t Table) -> Decoder<'t> {
        let mut d = Decoder {
            lookup: vec![0; 1 << LOOKUP_BITS],
            max: [-1; 17],
            min: [0; 17],
            first: [0; 17],
            values: &t.values,
        };
        let (mut code, mut k) = (0i32, 0usize);
        for l in 1..=16 {
            let n = usize::from(t.counts[l - 1]);
            if n > 0 {
                d.first[l] = k;
                d.min[l] = code;
                d.max[l] = code + n as i32 - 1;
                if l as u32 <= LOOKUP_BITS {
                    let spare = LOOKUP_BITS - l as u32;
                    for (i, &v) in t.values.iter().skip(k).take(n).enumerate() {
                        let prefix = (code as usize + i) << spare;
                        let entry = (l as u16) << 8 | u16::from(v);
                        d.lookup[prefix..prefix + (1 << spare)].fill(entry);
                    }
                }
                code += n as i32;
                k += n;
            }
            code <<= 1;
        }
        d
    }

    fn decode(&self, bits: &mut BitReader<'_>) -> Option<u8> {
        let entry = self.lookup[bits.peek(LOOKUP_BITS) as usize];
        if entry >> 8 != 0 {
            bits.consume(u32::from(entry >> 8))?;
            return Some(entry as u8);
        }
        let next = bits.peek(16) as i32;
        for l in LOOKUP_BITS as usize + 1..=16 {
            let code = next >> (16 - l);
            if code <= self.max[l] {
                bits.consume(l as u32)?;
                return self
                    .values
                    .get(self.first[l] + (code - self.min[l]) as usize)
                    .copied();
            }
        }
        None
    }
}

/// Bits of entropy-coded data, most significant first, with stuffed zero bytes skipped.
/// Past the end (or at a marker) it reads 1 bits, and taking any of them is an error.
struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    acc: u64,
    /// Bits held in `acc` (its low bits), and how many of those are padding.
    n: u32,
    padding: u32,
}

impl<'a> BitReader<'a> {
    fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            pos: 0,
            acc: 0,
            n: 0,
            padding: 0,
        }
    }

    fn refill(&mut self) {
        while self.n <= 56 {
            let byte = match self.data.get(self.pos) {
                Some(0xFF) if self.data.get(self.pos + 1) == Some(&0) => {
                    self.pos += 2;
                    0xFF
                }
                Some(0xFF) | None => {
                    self.padding += 8;
                    0xFF
                }
                Some(&b) => {
                    self.pos += 1;
                    b
                }
            };
            self.acc = self.acc << 8 | u64::from(byte);
            self.n += 8;
        }
    }

    /// The next `k` (≤ 16) bits, not taken.
    fn peek(&mut self, k: u32) -> u32 {
        if self.n < k {
            self.refill();
        }
        ((self.acc >> (self.n - k)) & ((1 << k) - 1)) as u32
    }

    /// Takes `k` bits already peeked; `None` if they run into the padding.
    fn consume(&mut self, k: u32) -> Option<()> {
        self.n -= k;
        (self.n >= self.padding).then_some(())
    }

    /// The next `k` (≤ 16) bits; `None` past the end or at a marker.
    fn read(&mut self, k: u32) -> Option<u16> {
        let v = self.peek(k);
        self.consume(k)?;
        Some(v as u16)
    }
}

/// Bits written most significant first, a zero byte stuffed after each `0xFF`.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter<'_> {
    /// Appends the low `len` (≤ 16) bits of `bits`.
    fn put(&mut self, bits: u32, len: u32) {
        self.acc = self.acc << len | u64::from(bits & ((1 << len) - 1));
        self.n += len;
        while self.n >= 8 {
            self.n -= 8;
            let b = (self.acc >> self.n) as u8;
            self.out.push(b);
            if b == 0xFF {
                self.out.push(0);
            }
        }
    }

    /// Pads the last byte with 1 bits.
    fn finish(&mut self) {
        if self.n > 0 {
            let pad = 8 - self.n;
            self.put((1 << pad) - 1, pad);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_tables_are_prefix_codes_within_16_bits() {
        // Skewed counts (a Fibonacci-like spread forces lengths past 16 before the limit),
        // a single symbol, and flat counts.
        let mut skewed = [0u32; 256];
        let (mut a, mut b) = (1u32, 1u32);
        for f in skewed.iter_mut().take(40) {
            *f = a;
            (a, b) = (b, a.saturating_add(b));
        }
        let mut single = [0u32; 256];
        single[7] = 1000;
        for freq in [skewed, single, [3u32; 256]] {
            let t = Table::fitted(&freq);
            let used = freq.iter().filter(|&&f| f > 0).count();
            assert_eq!(t.values.len(), used);
            assert_eq!(
                t.counts.iter().map(|&c| usize::from(c)).sum::<usize>(),
                used
            );
            // Kraft sum below 1: a prefix code with the all-ones code left out.
            let kraft: f64 = t
                .counts
                .iter()
                .enumerate()
                .map(|(l, &c)| f64::from(c) / f64::from(1u32 << (l + 1)))
                .sum();
            assert!(kraft < 1.0, "{kraft}");
            // Codes are at most 16 bits (the skewed counts need the limit); where the limit
            // moved no code, a more frequent symbol never has a longer code.
            let codes = t.codes();
            let longest = codes.len.iter().copied().max().unwrap_or(0);
            assert!(longest <= 16);
            if freq == skewed {
                assert_eq!(longest, 16);
                continue;
            }
            for x in 0..256 {
                for y in 0..256 {
                    if freq[x] > freq[y] && freq[y] > 0 {
                        assert!(codes.len[x] <= codes.len[y], "{x} {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn bits_round_trip_with_stuffing() {
        let mut out = Vec::new();
        let mut w = BitWriter {
            out: &mut out,
            acc: 0,
            n: 0,
        };
        w.put(0xFF, 8);
        w.put(0b101, 3);
        w.put(0xFFFF, 16);
        w.finish();
        assert_eq!(
            out,
            [0xFF, 0x00, 0b1011_1111, 0xFF, 0x00, 0b1111_1111, 0x00]
        );
        let mut r = BitReader::new(&out);
        assert_eq!(r.read(8), Some(0xFF));
        assert_eq!(r.read(3), Some(0b101));
        assert_eq!(r.read(16), Some(0xFFFF));
        // A marker is not data.
        assert_eq!(BitReader::new(&[0xFF, 0xD0]).read(1), None);
    }
}
