//! Baseline JPEG encoded in bands on two threads, while the rows are still being made.
//!
//! `jpeg-encoder` encodes a whole image on one thread, and the encode was half of a
//! screenshot's work (docs/performance.md). Here the image is cut into bands of
//! [`BAND_ROWS`] rows (whole 4:2:0 MCU rows); each band is encoded on its own as a small
//! JPEG as soon as its rows exist, by whichever of two threads is free, and the bands'
//! entropy-coded data are joined under one header with restart markers (`RSTn`) between
//! them and a `DRI` segment saying how many MCUs a band holds. A restart resets the DC
//! predictors, which is what a fresh encoder starts from, so the file is byte for byte
//! what `jpeg-encoder` writes for the whole image with that restart interval (tested).
//!
//! A scan has one set of Huffman tables, and `jpeg-encoder` fits tables only to a whole
//! image, so the bands are encoded with the standard tables and then written again with
//! tables fitted to all of them ([`huffman`]): what a whole-image encode with fitted
//! tables would weigh, without its pass over the whole image.
//!
//! The second thread is a worker of `rayon-core`'s global pool, which lives as long as
//! the process: spawning and joining a thread per screenshot was a visible share of its
//! time, and a screenshot needed two (the bands, then the second half of the rewrite).

use std::borrow::Cow;
use std::sync::{Mutex, PoisonError, mpsc};

use mobile_device::{DeviceError, Result};

mod huffman;

/// Which Huffman tables the file is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tables {
    /// The standard tables of T.81 Annex K.3, as the bands were encoded: the file is then
    /// `jpeg-encoder`'s own, which is what the tests compare against.
    #[cfg_attr(not(test), allow(dead_code))]
    Standard,
    /// Tables fitted to the image's symbols.
    Fitted,
}

/// Rows per band: two 4:2:0 MCU rows. Smaller bands let the encode follow the scaling
/// more closely and leave less to encode once the last row is made; each band costs one
/// small encoder set-up and a 2-byte marker. 32 rather than 64 rows cost a little more
/// work in all and left less of it after the last row (docs/performance.md).
pub(crate) const BAND_ROWS: usize = 32;

/// Rows of one MCU with 4:2:0 sampling; every band but the last is a multiple of it.
const MCU_ROWS: usize = 16;

/// Encodes a `width`×`height` RGB8 image whose rows `produce` hands over in bands of
/// [`BAND_ROWS`] rows (the last band may be shorter). Bands are encoded while `produce` is
/// still running, on a second thread, and on this one once `produce` returns.
///
/// # Errors
/// Sizes a JPEG cannot have, bands of the wrong size, or `produce`'s own error.
pub(crate) fn encode<'a>(
    width: u32,
    height: u32,
    quality: u8,
    tables: Tables,
    produce: impl FnOnce(&mut dyn FnMut(Cow<'a, [u8]>)) -> Result<()>,
) -> Result<Vec<u8>> {
    let (Ok(w16), Ok(h16)) = (u16::try_from(width), u16::try_from(height)) else {
        return Err(DeviceError::invalid(format!(
            "a JPEG can be at most 65535 pixels on a side; this one would be {width}x{height} (use maxSize)"
        )));
    };
    if w16 == 0 || h16 == 0 {
        return Err(DeviceError::backend(format!(
            "cannot encode a {width}x{height} image"
        )));
    }
    let quality = quality.clamp(1, 100);
    let (tx, rx) = mpsc::channel::<(usize, Cow<'a, [u8]>)>();
    let queue = Mutex::new(rx);
    // Takes bands off the queue until it is closed and empty.
    let drain = || -> Result<Vec<(usize, Band)>> {
        let mut done = Vec::new();
        loop {
            let next = match queue.lock() {
                Ok(rx) => rx.recv(),
                Err(_) => return Err(DeviceError::backend("a JPEG band worker failed")),
            };
            let Ok((index, rows)) = next else {
                return Ok(done);
            };
            done.push((index, Band::encode(&rows, w16, quality, tables)?));
        }
    };
    let mut count = 0;
    // Dropping it closes the queue.
    let mut send = move |rows: Cow<'a, [u8]>| {
        // The queue lives until both threads stop taking from it, so this cannot fail.
        let _ = tx.send((count, rows));
        count += 1;
    };
    let (produced, mine, theirs) = if usize::from(h16) > BAND_ROWS {
        let theirs = Mutex::new(Ok(Vec::new()));
        let (produced, mine) = rayon_core::in_place_scope(|s| {
            s.spawn(|_| {
                let done = drain();
                *theirs.lock().unwrap_or_else(PoisonError::into_inner) = done;
            });
            // Moved in, so that a panic in `produce` closes the queue too (the helper
            // would otherwise wait for bands forever, and the scope for the helper).
            let mut send = send;
            let produced = produce(&mut send);
            drop(send);
            (produced, drain())
        });
        let theirs = theirs.into_inner().unwrap_or_else(PoisonError::into_inner);
        (produced, mine, theirs)
    } else {
        let produced = produce(&mut send);
        drop(send);
        (produced, drain(), Ok(Vec::new()))
    };
    produced?;
    let mut bands = mine?;
    bands.extend(theirs?);
    bands.sort_unstable_by_key(|(index, _)| *index);
    assemble(
        bands.into_iter().map(|(_, band)| band).collect(),
        w16,
        h16,
        tables,
    )
}

/// One band encoded as a small JPEG of its own, and where its parts are.
#[derive(Debug)]
struct Band {
    bytes: Vec<u8>,
    rows: usize,
    /// Offsets of the `SOF0` and `SOS` markers, and of the entropy-coded data after `SOS`.
    sof: usize,
    sos: usize,
    data: usize,
    /// The scan's layout and its symbols, read back when the tables are to be fitted.
    symbols: Option<(huffman::Layout, Vec<huffman::Symbol>)>,
}

impl Band {
    fn encode(rows: &[u8], width: u16, quality: u8, tables: Tables) -> Result<Band> {
        let row_len = usize::from(width) * 3;
        let n = rows.len() / row_len;
        if n == 0 || !rows.len().is_multiple_of(row_len) || n > BAND_ROWS {
            return Err(DeviceError::backend(format!(
                "a JPEG band of {} bytes is not 1 to {BAND_ROWS} rows of {width} RGB pixels",
                rows.len()
            )));
        }
        let mut bytes = Vec::with_capacity(rows.len() / 16 + 1024);
        let mut enc = jpeg_encoder::Encoder::new(&mut bytes, quality);
        enc.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
        enc.encode(rows, width, n as u16, jpeg_encoder::ColorType::Rgb)
            .map_err(|e| DeviceError::backend(format!("JPEG encoding failed: {e}")))?;
        let (sof, sos, data) = locate(&bytes)
            .ok_or_else(|| DeviceError::backend("the JPEG encoder wrote an unexpected layout"))?;
        let symbols = match tables {
            Tables::Standard => None,
            Tables::Fitted => {
                let layout = huffman::Layout::parse(&bytes[..data])?;
                let mut symbols = Vec::with_capacity(bytes.len() * 2);
                layout.read_symbols(&bytes[data..bytes.len() - 2], n, &mut symbols)?;
                Some((layout, symbols))
            }
        };
        Ok(Band {
            bytes,
            rows: n,
            sof,
            sos,
            data,
            symbols,
        })
    }

    /// The entropy-coded data, without the closing `EOI`.
    fn data(&self) -> &[u8] {
        &self.bytes[self.data..self.bytes.len() - 2]
    }
}

/// Finds the `SOF0` and `SOS` markers of a baseline JPEG and the start of its scan data;
/// `None` unless the file starts with `SOI`, ends with `EOI`, and has both markers.
fn locate(bytes: &[u8]) -> Option<(usize, usize, usize)> {
    if !bytes.ends_with(&[0xFF, 0xD9]) {
        return None;
    }
    let mut sof = None;
    for (at, marker, body) in segments(bytes) {
        match marker {
            0xC0 => sof = Some(at),
            0xDA => {
                let end = at + 4 + body.len();
                return (end <= bytes.len() - 2).then_some((sof?, at, end));
            }
            _ => {}
        }
    }
    None
}

/// The marker segments of a JPEG header, from after `SOI` up to and including `SOS`: each
/// one's offset, marker and body (what follows its length). Ends early at anything that
/// is not a whole segment, or when the file does not start with `SOI`.
pub(super) fn segments(bytes: &[u8]) -> impl Iterator<Item = (usize, u8, &[u8])> {
    let mut at = if bytes.starts_with(&[0xFF, 0xD8]) {
        2
    } else {
        usize::MAX
    };
    std::iter::from_fn(move || {
        let &[0xFF, marker, hi, lo] = bytes.get(at..at.checked_add(4)?)? else {
            return None;
        };
        let end = at + 2 + usize::from(u16::from_be_bytes([hi, lo]));
        let body = bytes.get(at + 4..end)?;
        let here = at;
        // Scan data follows `SOS`: nothing after it is a segment.
        at = if marker == 0xDA { usize::MAX } else { end };
        Some((here, marker, body))
    })
}

/// Joins the bands under the first band's header: its `SOF0` height becomes the
/// image's, a `DRI` segment goes before `SOS`, and `RST0`…`RST7` (cycling) between bands.
/// With fitted tables, one `DHT` segment of them replaces the standard ones and every
/// band's symbols are written again.
fn assemble(bands: Vec<Band>, width: u16, height: u16, tables: Tables) -> Result<Vec<u8>> {
    let rows: usize = bands.iter().map(|b| b.rows).sum();
    let uneven = bands
        .iter()
        .rev()
        .skip(1)
        .any(|b| b.rows != BAND_ROWS || !b.rows.is_multiple_of(MCU_ROWS));
    let Some(first) = bands
        .first()
        .filter(|_| rows == usize::from(height) && !uneven)
    else {
        return Err(DeviceError::backend(format!(
            "the JPEG bands hold {rows} rows of a {width}x{height} image"
        )));
    };
    let fitted = match tables {
        Tables::Standard => None,
        Tables::Fitted => {
            let mut lists = Vec::with_capacity(bands.len());
            for band in &bands {
                let Some((_, symbols)) = &band.symbols else {
                    return Err(DeviceError::backend("a JPEG band was not read back"));
                };
                lists.push(symbols.as_slice());
            }
            let Some((layout, _)) = &first.symbols else {
                return Err(DeviceError::backend("a JPEG band was not read back"));
            };
            Some(huffman::fit(&lists, &layout.tables))
        }
    };
    let size = first.data + bands.iter().map(|b| b.data().len() + 2).sum::<usize>() + 6;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&first.bytes[..2]);
    for (at, marker, body) in segments(&first.bytes).take_while(|s| s.0 < first.sos) {
        if !(fitted.is_some() && marker == 0xC4) {
            let start = out.len();
            out.extend_from_slice(&first.bytes[at..at + 4 + body.len()]);
            if at == first.sof {
                out[start + 5..start + 7].copy_from_slice(&height.to_be_bytes());
            }
        }
    }
    if let Some(fitted) = &fitted {
        out.extend_from_slice(&huffman::dht_segment(fitted));
    }
    if bands.len() > 1 {
        // MCUs per band: 16×16-pixel MCUs across, BAND_ROWS / 16 of them down.
        let interval = (usize::from(width).div_ceil(MCU_ROWS) * (BAND_ROWS / MCU_ROWS)) as u16;
        out.extend_from_slice(&[0xFF, 0xDD, 0x00, 0x04]);
        out.extend_from_slice(&interval.to_be_bytes());
    }
    out.extend_from_slice(&first.bytes[first.sos..first.data]);
    match &fitted {
        None => write_bands(&bands, 0, None, &mut out)?,
        Some(fitted) => {
            // Writing the symbols again is a pass over all of them: the later bands go on a
            // second thread when there are enough to pay for it.
            let count = |bands: &[Band]| -> usize {
                bands
                    .iter()
                    .map(|b| b.symbols.as_ref().map_or(0, |(_, s)| s.len()))
                    .sum()
            };
            let total = count(&bands);
            let mid = (1..bands.len())
                .find(|&i| 2 * count(&bands[..i]) >= total)
                .unwrap_or(bands.len());
            if total < PARALLEL_SYMBOLS || mid == bands.len() {
                write_bands(&bands, 0, Some(fitted), &mut out)?;
            } else {
                let (head, tail_bands) = bands.split_at(mid);
                let tail = Mutex::new(Ok(Vec::new()));
                let head = rayon_core::in_place_scope(|s| {
                    s.spawn(|_| {
                        let mut tail_out = Vec::with_capacity(size / 2);
                        let done = write_bands(tail_bands, mid, Some(fitted), &mut tail_out)
                            .map(|()| tail_out);
                        *tail.lock().unwrap_or_else(PoisonError::into_inner) = done;
                    });
                    write_bands(head, 0, Some(fitted), &mut out)
                });
                head?;
                out.extend_from_slice(&tail.into_inner().unwrap_or_else(PoisonError::into_inner)?);
            }
        }
    }
    out.extend_from_slice(&[0xFF, 0xD9]);
    Ok(out)
}

/// Symbols from which writing them again is split between two threads (handing work to
/// the pool's thread and waiting for it costs microseconds; a symbol about 5 ns).
const PARALLEL_SYMBOLS: usize = 20_000;

/// Writes `bands`, the first being band number `first` of the image, each after the
/// restart marker that precedes it: their own data, or their symbols with `fitted`.
fn write_bands(
    bands: &[Band],
    first: usize,
    fitted: Option<&[Option<huffman::Table>; huffman::SLOTS]>,
    out: &mut Vec<u8>,
) -> Result<()> {
    for (i, band) in (first..).zip(bands) {
        if i > 0 {
            out.extend_from_slice(&[0xFF, 0xD0 + ((i - 1) % 8) as u8]);
        }
        match (fitted, &band.symbols) {
            (Some(fitted), Some((_, symbols))) => huffman::write_symbols(symbols, fitted, out)?,
            (Some(_), None) => return Err(DeviceError::backend("a JPEG band was not read back")),
            (None, _) => out.extend_from_slice(band.data()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: usize, h: usize) -> Vec<u8> {
        (0..w * h * 3)
            .map(|i| {
                let (p, c) = (i / 3, i % 3);
                let (x, y) = (p % w, p / w);
                match c {
                    0 => (x * 3 + y) as u8,
                    1 => ((x ^ y) * 5) as u8,
                    _ => ((x * y) >> 4) as u8,
                }
            })
            .collect()
    }

    fn whole(rgb: &[u8], w: u16, h: u16, quality: u8, restart: Option<u16>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = jpeg_encoder::Encoder::new(&mut out, quality);
        enc.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
        if let Some(r) = restart {
            enc.set_restart_interval(r);
        }
        enc.encode(rgb, w, h, jpeg_encoder::ColorType::Rgb).unwrap();
        out
    }

    fn banded(rgb: &[u8], w: usize, h: usize, quality: u8, tables: Tables) -> Vec<u8> {
        encode(w as u32, h as u32, quality, tables, |sink| {
            for band in rgb.chunks(BAND_ROWS * w * 3) {
                sink(Cow::Borrowed(band));
            }
            Ok(())
        })
        .unwrap()
    }

    #[test]
    fn bands_make_the_whole_image_encode_with_restarts_byte_for_byte() {
        // Sizes: the screenshot's, widths that are not a multiple of 16, a last band that
        // is short, exactly one band, one row, and more than eight bands (RST7 wraps).
        for (w, h) in [
            (461, 1024),
            (17, 65),
            (100, 64),
            (33, 1),
            (8, 700),
            (1024, 461),
        ] {
            let rgb = image(w, h);
            let ours = banded(&rgb, w, h, 75, Tables::Standard);
            let interval = (w.div_ceil(16) * BAND_ROWS / 16) as u16;
            let restart = (h > BAND_ROWS).then_some(interval);
            assert_eq!(
                ours,
                whole(&rgb, w as u16, h as u16, 75, restart),
                "{w}x{h}"
            );
            let back = image::load_from_memory(&ours).unwrap().to_rgb8();
            assert_eq!(back.dimensions(), (w as u32, h as u32));
            // Fitted tables change the codes, not the pixels.
            let fitted = banded(&rgb, w, h, 75, Tables::Fitted);
            let again = image::load_from_memory(&fitted).unwrap().to_rgb8();
            assert!(again == back, "{w}x{h}");
        }
    }

    /// A flat screen with a few bars of text-like detail, like a phone UI.
    fn ui(w: usize, h: usize) -> Vec<u8> {
        (0..w * h * 3)
            .map(|i| {
                let (x, y) = ((i / 3) % w, (i / 3) / w);
                if y % 80 < 20 && x % 9 < 4 && (x / 9 + y) % 3 == 0 {
                    30
                } else if y < 60 {
                    [40u8, 90, 200][i % 3]
                } else {
                    250
                }
            })
            .collect()
    }

    #[test]
    fn fitted_tables_make_a_smaller_file_than_the_standard_ones() {
        let (w, h) = (461, 1024);
        let rgb = ui(w, h);
        let standard = banded(&rgb, w, h, 75, Tables::Standard);
        let fitted = banded(&rgb, w, h, 75, Tables::Fitted);
        assert!(
            fitted.len() * 20 < standard.len() * 19,
            "{} vs {}",
            fitted.len(),
            standard.len()
        );
        // One DHT segment of four tables, the restart interval, one scan.
        let count = |m: u8| fitted.windows(2).filter(|p| *p == [0xFF, m]).count();
        assert_eq!((count(0xC4), count(0xDD), count(0xDA)), (1, 1, 1));
        let decoded = |b: &[u8]| image::load_from_memory(b).unwrap().to_rgb8();
        assert!(decoded(&fitted) == decoded(&standard));
    }

    #[test]
    fn symbols_written_again_with_the_same_tables_are_the_same_bytes() {
        for (w, h) in [(461, BAND_ROWS), (17, 13), (100, BAND_ROWS)] {
            for rgb in [image(w, h), ui(w, h)] {
                let band = Band::encode(&rgb, w as u16, 75, Tables::Fitted).unwrap();
                let (layout, symbols) = band.symbols.as_ref().unwrap();
                let mut again = Vec::new();
                huffman::write_symbols(symbols, &layout.tables, &mut again).unwrap();
                assert!(again == band.data(), "{w}x{h}");
                // A cut scan is an error, not a short image.
                let cut = &band.data()[..band.data().len() / 2];
                assert!(layout.read_symbols(cut, h, &mut Vec::new()).is_err());
            }
        }
    }

    #[test]
    fn decodes_to_the_same_pixels_as_one_plain_encode() {
        let (w, h) = (200, 300);
        let rgb = image(w, h);
        let ours = image::load_from_memory(&banded(&rgb, w, h, 80, Tables::Fitted)).unwrap();
        let plain = image::load_from_memory(&whole(&rgb, w as u16, h as u16, 80, None)).unwrap();
        assert_eq!(ours.to_rgb8(), plain.to_rgb8());
    }

    #[test]
    fn bands_of_the_wrong_size_and_producer_errors_are_reported() {
        let rgb = image(40, 200);
        // A middle band that is not BAND_ROWS rows.
        let e = encode(40, 200, 75, Tables::Fitted, |sink| {
            let (first, rest) = rgb.split_at((BAND_ROWS - 8) * 40 * 3);
            sink(Cow::Borrowed(first));
            for band in rest.chunks(BAND_ROWS * 40 * 3) {
                sink(Cow::Borrowed(band));
            }
            Ok(())
        })
        .unwrap_err();
        assert!(e.to_string().contains("JPEG bands hold 200 rows"), "{e}");
        // Too few rows in all.
        let e = encode(40, 200, 75, Tables::Fitted, |sink| {
            sink(Cow::Borrowed(&rgb[..BAND_ROWS * 40 * 3]));
            Ok(())
        })
        .unwrap_err();
        let want = format!("{BAND_ROWS} rows of a 40x200 image");
        assert!(e.to_string().contains(&want), "{e}");
        // A band that is not whole rows.
        let e = encode(40, 200, 75, Tables::Fitted, |sink| {
            sink(Cow::Borrowed(&rgb[..100]));
            Ok(())
        })
        .unwrap_err();
        let want = format!("not 1 to {BAND_ROWS} rows");
        assert!(e.to_string().contains(&want), "{e}");
        // The producer's own error wins, after the worker has stopped.
        let e = encode(40, 200, 75, Tables::Fitted, |sink| {
            sink(Cow::Borrowed(&rgb[..BAND_ROWS * 40 * 3]));
            Err(DeviceError::backend("the image ended early"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("ended early"), "{e}");
        assert!(encode(70_000, 10, 75, Tables::Fitted, |_| Ok(())).is_err());
        assert!(encode(0, 10, 75, Tables::Fitted, |_| Ok(())).is_err());
    }

    #[test]
    fn locate_rejects_what_is_not_a_baseline_jpeg() {
        assert_eq!(locate(b""), None);
        assert_eq!(locate(&[0xFF, 0xD8, 0xFF, 0xD9]), None);
        // A segment length running past the end.
        assert_eq!(
            locate(&[0xFF, 0xD8, 0xFF, 0xC0, 0x40, 0x00, 0xFF, 0xD9]),
            None
        );
        // SOS without SOF0.
        assert_eq!(
            locate(&[0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]),
            None
        );
    }
}
