//! `wm size`, `wm density` (run together in one shell call), `settings get system
//! user_rotation` and `dumpsys SurfaceFlinger --display-id`.
//!
//! `wm size` prints `Physical size: WxH` and, when one is set, `Override size: WxH`;
//! `wm density` likewise (AOSP `WindowManagerShellCommand`). The override is what
//! apps and `input` use, so it wins.

use mobile_device::{Orientation, ScreenSize};

fn dims(v: &str) -> Option<(u32, u32)> {
    let (w, h) = v.trim().split_once('x')?;
    Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
}

/// Parses the combined output of `wm size; wm density`.
pub fn parse_wm(text: &str) -> Option<ScreenSize> {
    let (mut physical, mut overridden) = (None, None);
    let (mut pd, mut od) = (None, None);
    for line in super::lines(text) {
        let line = line.trim();
        if let Some(v) = line.strip_prefix("Physical size:") {
            physical = dims(v);
        } else if let Some(v) = line.strip_prefix("Override size:") {
            overridden = dims(v);
        } else if let Some(v) = line.strip_prefix("Physical density:") {
            pd = v.trim().parse::<u32>().ok();
        } else if let Some(v) = line.strip_prefix("Override density:") {
            od = v.trim().parse::<u32>().ok();
        }
    }
    let (width, height) = overridden.or(physical)?;
    let density = od.or(pd);
    Some(ScreenSize {
        width,
        height,
        scale: density.map(|d| d as f64 / 160.0).unwrap_or(1.0),
        density,
    })
}

/// `settings get system user_rotation`: 0 and 2 are portrait, 1 and 3 landscape.
pub fn parse_user_rotation(text: &str) -> Option<Orientation> {
    match text.trim() {
        "0" | "2" | "null" | "" => Some(Orientation::Portrait),
        "1" | "3" => Some(Orientation::Landscape),
        _ => None,
    }
}

/// Display ids from `dumpsys SurfaceFlinger --display-id`, in the order listed.
pub fn parse_display_ids(text: &str) -> Vec<String> {
    super::lines(text)
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("Display ")?;
            let id: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            (!id.is_empty()).then_some(id)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_wins() {
        let s = parse_wm(include_str!(
            "../../../../fixtures/android/parser-wm-size-density-override.txt"
        ))
        .unwrap();
        assert_eq!((s.width, s.height, s.density), (720, 1600, Some(320)));
        assert_eq!(s.scale, 2.0);
        let s = parse_wm(include_str!(
            "../../../../fixtures/android/parser-wm-size-density.txt"
        ))
        .unwrap();
        assert_eq!((s.width, s.height, s.density), (1080, 2400, Some(420)));
        assert_eq!(s.scale, 2.625);
        assert!(parse_wm("cmd: Can't find service: window").is_none());
        let s = parse_wm("Physical size: 100x200\r\n").unwrap();
        assert_eq!((s.scale, s.density), (1.0, None));
    }

    #[test]
    fn rotations() {
        assert_eq!(parse_user_rotation("0\n"), Some(Orientation::Portrait));
        assert_eq!(parse_user_rotation("3"), Some(Orientation::Landscape));
        assert_eq!(parse_user_rotation("2"), Some(Orientation::Portrait));
        assert_eq!(parse_user_rotation("garbage"), None);
    }

    #[test]
    fn display_ids() {
        let ids = parse_display_ids(include_str!(
            "../../../../fixtures/android/parser-surfaceflinger-display-id.txt"
        ));
        assert_eq!(ids, vec!["4619827259835644672", "4619827551948147201"]);
        assert!(parse_display_ids("").is_empty());
    }

    #[test]
    fn real_display_without_identification_data() {
        // A device whose panel reports no EDID: SurfaceFlinger names it by its HWC id.
        let ids = parse_display_ids(include_str!(
            "../../../../fixtures/android/parser-surfaceflinger-real-no-identification.txt"
        ));
        assert_eq!(ids, vec!["0"]);
    }
}

/// The SurfaceFlinger id of the first display that is on, from `cmd display
/// get-displays` (one `DisplayInfo{…}` per line with `uniqueId "local:ID"` and
/// `state ON|OFF`), restricted to `known` ids.
pub fn active_display(text: &str, known: &[String]) -> Option<String> {
    super::lines(text).find_map(|l| {
        let (_, rest) = l.split_once("uniqueId \"local:")?;
        let id: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let on = l.contains("state ON");
        (on && known.contains(&id)).then_some(id)
    })
}

#[cfg(test)]
mod active_tests {
    use super::*;

    #[test]
    fn first_display_that_is_on() {
        let text = include_str!("../../../../fixtures/android/parser-display-get-displays.txt");
        let known = parse_display_ids(include_str!(
            "../../../../fixtures/android/parser-surfaceflinger-display-id.txt"
        ));
        assert_eq!(
            active_display(text, &known).as_deref(),
            Some("4619827551948147201")
        );
        assert_eq!(active_display("", &known), None);
    }
}
