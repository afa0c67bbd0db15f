//! Raw `screencap` output (no `-p`): a header of little-endian u32 `width, height,
//! format` (plus a `dataspace` u32 on Android 10 and later), then the pixels. The header
//! size is found from the byte count, so both layouts parse.

use mobile_device::{CaptureFormat, Screenshot};

/// `PIXEL_FORMAT_RGBA_8888`.
const RGBA_8888: u32 = 1;
/// `PIXEL_FORMAT_RGBX_8888`: alpha byte undefined.
const RGBX_8888: u32 = 2;

/// Turns raw `screencap` bytes into an RGBA capture; `None` for formats other than
/// RGBA/RGBX 8888 or a size that does not add up (the caller then asks for PNG).
pub fn parse_raw(mut bytes: Vec<u8>) -> Option<Screenshot> {
    if bytes.len() < 12 {
        return None;
    }
    let u = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let (w, h, f) = (u(0), u(4), u(8));
    if !(f == RGBA_8888 || f == RGBX_8888) || w == 0 || h == 0 {
        return None;
    }
    let pixels = (w as usize).checked_mul(h as usize)?.checked_mul(4)?;
    let header = [16usize, 12]
        .into_iter()
        .find(|hd| bytes.len() == hd + pixels)?;
    bytes.drain(..header);
    if f == RGBX_8888 {
        for px in bytes.chunks_exact_mut(4) {
            px[3] = 255;
        }
    }
    Some(Screenshot {
        format: CaptureFormat::Rgba8 {
            width: w,
            height: h,
        },
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(w: u32, h: u32, f: u32, dataspace: bool) -> Vec<u8> {
        let mut v = Vec::new();
        for x in [w, h, f] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        if dataspace {
            v.extend_from_slice(&0u32.to_le_bytes());
        }
        v.extend(std::iter::repeat_n(7u8, (w * h * 4) as usize));
        v
    }

    #[test]
    fn both_header_layouts() {
        for ds in [false, true] {
            let s = parse_raw(raw(3, 2, 1, ds)).unwrap();
            assert_eq!(
                s.format,
                CaptureFormat::Rgba8 {
                    width: 3,
                    height: 2
                }
            );
            assert_eq!(s.bytes.len(), 24);
        }
        let s = parse_raw(raw(1, 1, 2, true)).unwrap();
        assert_eq!(s.bytes, vec![7, 7, 7, 255]);
        assert!(parse_raw(raw(1, 1, 5, true)).is_none());
        assert!(parse_raw(vec![0; 5]).is_none());
        let mut short = raw(2, 2, 1, true);
        short.pop();
        assert!(parse_raw(short).is_none());
    }
}
