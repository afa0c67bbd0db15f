//! Raw `screencap` output (no `-p`): a header of little-endian u32 `width, height,
//! format` (plus a `dataspace` u32 on Android 10 and later), then the pixels.
//!
//! [`RawFrameSink`] reads it as it arrives and scales it row by row
//! ([`StreamScaler`]), so the 10 MB of a 1080×2400 frame are never held at once. The
//! header's length cannot be known before the last byte (the two layouts differ only in
//! length), so the sink is given a guess (16: Android 10 and later) and says, when the byte
//! count shows the other layout, which one to use next time.

use std::io::{self, Write};

use mobile_device::Screenshot;
use mobile_device::ScreenshotOptions;
use mobile_screenshot::StreamScaler;

/// `PIXEL_FORMAT_RGBA_8888`.
const RGBA_8888: u32 = 1;
/// `PIXEL_FORMAT_RGBX_8888`: alpha byte undefined (ignored: the pipeline drops alpha).
const RGBX_8888: u32 = 2;
/// The header of Android 10 and later (with `dataspace`).
pub const HEADER_V2: usize = 16;
/// The header before Android 10.
pub const HEADER_V1: usize = 12;
/// Larger sides are taken for a corrupt header.
const MAX_SIDE: u32 = 16384;

/// What a raw capture turned out to be.
#[derive(Debug)]
pub enum RawOutcome {
    /// The scaled frame.
    Frame(Screenshot),
    /// The byte count fits the other header layout: capture again with this header length.
    OtherHeader(usize),
    /// Not a frame the pipeline reads (another pixel format, an error text, a short frame).
    Unreadable(String),
}

/// A [`Write`] target for raw `screencap` output that scales the frame while it arrives.
#[derive(Debug)]
pub struct RawFrameSink {
    opts: ScreenshotOptions,
    header_len: usize,
    header: Vec<u8>,
    frame: Option<Frame>,
    /// Why the bytes are not a readable frame (the rest is then only counted).
    unreadable: Option<String>,
    /// Bytes after the header.
    body: usize,
}

#[derive(Debug)]
struct Frame {
    width: u32,
    height: u32,
    scaler: StreamScaler,
    row: Vec<u8>,
}

impl RawFrameSink {
    /// A sink expecting a header of `header_len` bytes ([`HEADER_V2`] or [`HEADER_V1`]).
    pub fn new(opts: ScreenshotOptions, header_len: usize) -> Self {
        RawFrameSink {
            opts,
            header_len,
            header: Vec::with_capacity(header_len),
            frame: None,
            unreadable: None,
            body: 0,
        }
    }

    fn start_frame(&mut self) {
        let u = |i: usize| {
            u32::from_le_bytes([
                self.header[i],
                self.header[i + 1],
                self.header[i + 2],
                self.header[i + 3],
            ])
        };
        let (w, h, f) = (u(0), u(4), u(8));
        if !(f == RGBA_8888 || f == RGBX_8888) {
            // Often not a header at all but an error text (`screencap: not found`).
            let start = String::from_utf8_lossy(&self.header).into_owned();
            self.unreadable = Some(format!(
                "pixel format {f} (only RGBA/RGBX 8888 is read); output starts {start:?}"
            ));
            return;
        }
        if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
            self.unreadable = Some(format!("a {w}x{h} frame"));
            return;
        }
        match StreamScaler::new(w, h, &self.opts) {
            Ok(scaler) => {
                self.frame = Some(Frame {
                    width: w,
                    height: h,
                    scaler,
                    row: Vec::with_capacity(w as usize * 4),
                })
            }
            Err(e) => self.unreadable = Some(e.to_string()),
        }
    }

    /// What arrived, once the command has ended.
    pub fn finish(self) -> RawOutcome {
        if self.header.len() < self.header_len {
            let text = String::from_utf8_lossy(&self.header).into_owned();
            return RawOutcome::Unreadable(format!("{} bytes: {text:?}", self.header.len()));
        }
        if let Some(why) = self.unreadable {
            return RawOutcome::Unreadable(why);
        }
        let Some(frame) = self.frame else {
            return RawOutcome::Unreadable("no frame".into());
        };
        let pixels = frame.width as usize * frame.height as usize * 4;
        if self.body == pixels {
            return match frame.scaler.finish() {
                Ok(s) => RawOutcome::Frame(s),
                Err(e) => RawOutcome::Unreadable(e.to_string()),
            };
        }
        let other = if self.header_len == HEADER_V2 {
            HEADER_V1
        } else {
            HEADER_V2
        };
        // Read with the other header, the body would be this much longer.
        if self.body as isize + self.header_len as isize - other as isize == pixels as isize {
            RawOutcome::OtherHeader(other)
        } else {
            RawOutcome::Unreadable(format!(
                "{} bytes of pixels for a {}x{} frame ({pixels} expected)",
                self.body, frame.width, frame.height
            ))
        }
    }
}

impl Write for RawFrameSink {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let n = buf.len();
        if self.header.len() < self.header_len {
            let take = (self.header_len - self.header.len()).min(buf.len());
            self.header.extend_from_slice(&buf[..take]);
            buf = &buf[take..];
            if self.header.len() == self.header_len {
                self.start_frame();
            }
        }
        self.body += buf.len();
        if let Some(frame) = &self.frame {
            let pixels = frame.width as usize * frame.height as usize * 4;
            // The other header layout would leave this many more bytes of pixels; past
            // that the device sends more than its header says, perhaps without end.
            if self.body > pixels + (HEADER_V2 - HEADER_V1) {
                return Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!(
                        "the device sent more than the {}x{} frame its header gives ({pixels} bytes of pixels)",
                        frame.width, frame.height
                    ),
                ));
            }
        }
        if let Some(frame) = &mut self.frame {
            let row_len = frame.width as usize * 4;
            while !buf.is_empty() {
                if frame.row.is_empty() && buf.len() >= row_len {
                    // Whole rows straight from the read buffer.
                    let (row, rest) = buf.split_at(row_len);
                    frame.scaler.push_rgba_row(row);
                    buf = rest;
                } else {
                    let take = (row_len - frame.row.len()).min(buf.len());
                    frame.row.extend_from_slice(&buf[..take]);
                    buf = &buf[take..];
                    if frame.row.len() == row_len {
                        frame.scaler.push_rgba_row(&frame.row);
                        frame.row.clear();
                    }
                }
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use mobile_device::CaptureFormat;
    use mobile_device::OutputFormat;

    use super::*;

    fn raw(w: u32, h: u32, f: u32, dataspace: bool) -> Vec<u8> {
        let mut v = Vec::new();
        for x in [w, h, f] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        if dataspace {
            v.extend_from_slice(&0u32.to_le_bytes());
        }
        for i in 0..w * h {
            v.extend_from_slice(&[(i % 256) as u8, 7, 200, 0]);
        }
        v
    }

    /// Feeds `bytes` in chunks of `chunk` bytes (adb delivers arbitrary splits).
    fn feed(bytes: &[u8], header_len: usize, chunk: usize) -> RawOutcome {
        let opts = ScreenshotOptions {
            max_size: None,
            scale: None,
            format: OutputFormat::Png,
        };
        let mut sink = RawFrameSink::new(opts, header_len);
        for c in bytes.chunks(chunk) {
            sink.write_all(c).unwrap();
        }
        sink.finish()
    }

    #[test]
    fn both_header_layouts_in_any_split() {
        for (dataspace, header) in [(true, HEADER_V2), (false, HEADER_V1)] {
            for chunk in [1, 5, 13, 64, 100_000] {
                let bytes = raw(3, 2, 1, dataspace);
                match feed(&bytes, header, chunk) {
                    RawOutcome::Frame(s) => {
                        assert_eq!(
                            s.format,
                            CaptureFormat::ScaledRgb8 {
                                width: 3,
                                height: 2,
                                source_width: 3,
                                source_height: 2
                            }
                        );
                        // Unscaled: the RGB of each pixel, alpha dropped.
                        assert_eq!(&s.bytes[..6], &[0, 7, 200, 1, 7, 200]);
                        assert_eq!(s.bytes.len(), 18);
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }

    #[test]
    fn the_other_layout_is_recognised_by_its_length() {
        // Android 9 (12-byte header) read with the Android 10 guess, and the reverse.
        assert!(matches!(
            feed(&raw(4, 3, 1, false), HEADER_V2, 7),
            RawOutcome::OtherHeader(HEADER_V1)
        ));
        assert!(matches!(
            feed(&raw(4, 3, 2, true), HEADER_V1, 7),
            RawOutcome::OtherHeader(HEADER_V2)
        ));
    }

    #[test]
    fn a_frame_longer_than_its_header_says_is_refused() {
        let opts = ScreenshotOptions {
            max_size: None,
            scale: None,
            format: OutputFormat::Png,
        };
        let mut sink = RawFrameSink::new(opts, HEADER_V2);
        // A 4x3 frame's header, then pixels without end.
        let mut start = raw(4, 3, 1, true);
        start.truncate(HEADER_V2);
        sink.write_all(&start).unwrap();
        let chunk = [9u8; 10];
        let sent = (0..1_000).find(|_| sink.write_all(&chunk).is_err());
        let e = sink.write_all(&chunk).unwrap_err();
        assert!(e.to_string().contains("more than the 4x3 frame"), "{e}");
        // 48 bytes of pixels and 4 of slack for the other layout: refused in the 6th chunk.
        assert_eq!(sent, Some(5));
    }

    #[test]
    fn unreadable_frames_say_why() {
        let why = |o: RawOutcome| match o {
            RawOutcome::Unreadable(w) => w,
            other => panic!("{other:?}"),
        };
        assert!(why(feed(&raw(1, 1, 5, true), HEADER_V2, 3)).contains("pixel format 5"));
        assert!(
            why(feed(
                b"/system/bin/sh: screencap: not found\n",
                HEADER_V2,
                4
            ))
            .contains("/system/bin/sh")
        );
        assert!(why(feed(b"short", HEADER_V2, 4)).contains("5 bytes"));
        let mut cut = raw(2, 2, 1, true);
        cut.truncate(cut.len() - 6);
        assert!(why(feed(&cut, HEADER_V2, 4)).contains("for a 2x2 frame"));
        let mut huge = raw(1, 1, 1, true);
        huge[..4].copy_from_slice(&100_000u32.to_le_bytes());
        assert!(why(feed(&huge, HEADER_V2, 4)).contains("100000x1"));
    }
}
