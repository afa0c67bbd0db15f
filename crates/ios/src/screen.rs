//! Screen geometry without an agent app: pixel sizes come from the screenshot's PNG
//! header, points from idb's `Application` frame, and the scale from the two (or,
//! without idb, from the device model).

/// Width and height from a PNG's IHDR (big-endian u32 at byte offsets 16 and 20).
pub fn png_dimensions(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}

/// The display scale of a simulator model (`iPhone 16 Pro`, `iPad Air 2`, …).
///
/// iPads and the @2x iPhones (SE, 8 and earlier non-Plus, XR, 11, 16e-era LCD models
/// aside) are 2; every other iPhone since the X is 3. Used only when idb cannot tell.
pub(crate) fn scale_for_model(model: &str) -> f64 {
    let m = model.to_ascii_lowercase();
    if m.contains("ipad") {
        return 2.0;
    }
    let two_x = [
        "iphone se",
        "iphone 4",
        "iphone 5",
        "iphone xr",
        "iphone 11",
    ];
    let plus = m.contains("plus");
    let old = ["iphone 6", "iphone 7", "iphone 8"]
        .iter()
        .any(|p| m.starts_with(p));
    if two_x.iter().any(|p| m.starts_with(p)) && !m.starts_with("iphone 11 pro") || old && !plus {
        2.0
    } else {
        3.0
    }
}

/// The scale from pixels and points, snapped to the scales iOS uses.
pub(crate) fn scale_from(pixels: u32, points: f64) -> Option<f64> {
    if points <= 0.0 || pixels == 0 {
        return None;
    }
    let raw = pixels as f64 / points;
    [1.0, 2.0, 3.0]
        .into_iter()
        .min_by(|a, b| (a - raw).abs().total_cmp(&(b - raw).abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&1206u32.to_be_bytes());
        png.extend_from_slice(&2622u32.to_be_bytes());
        assert_eq!(png_dimensions(&png), Some((1206, 2622)));
        assert_eq!(png_dimensions(b"GIF89a"), None);
    }

    #[test]
    fn scales() {
        assert_eq!(scale_for_model("iPhone 16 Pro"), 3.0);
        assert_eq!(scale_for_model("iPhone SE (3rd generation)"), 2.0);
        assert_eq!(scale_for_model("iPhone 11"), 2.0);
        assert_eq!(scale_for_model("iPhone 11 Pro"), 3.0);
        assert_eq!(scale_for_model("iPhone 8"), 2.0);
        assert_eq!(scale_for_model("iPhone 8 Plus"), 3.0);
        assert_eq!(scale_for_model("iPad Pro 11-inch (M4)"), 2.0);
        assert_eq!(scale_from(1206, 402.0), Some(3.0));
        assert_eq!(scale_from(750, 375.0), Some(2.0));
        assert_eq!(scale_from(1, 0.0), None);
    }
}
