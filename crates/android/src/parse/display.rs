//! `wm size`, `wm density` (run together in one shell call), `settings get system
//! user_rotation` and `dumpsys SurfaceFlinger --display-id`.
//!
//! `wm size` prints `Physical size: WxH` and, when one is set, `Override size: WxH`;
//! `wm density` likewise (AOSP `WindowManagerShellCommand`). The override is what
//! apps and `input` use, so it wins.

use mobile_device::{CoordinateUnit, Orientation, ScreenSize};

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
        unit: CoordinateUnit::Pixels,
        width,
        height,
        scale: density.map(|d| d as f64 / 160.0).unwrap_or(1.0),
        density,
    })
}

/// The display's current logical size from `dumpsys window displays`: the `cur=WxH` of
/// the first display (`DisplayContent.dump` prints `init=… base=… cur=… app=…`; `cur` is
/// the logical size in the current rotation, which `wm size` does not give: it prints the
/// natural size).
pub fn parse_current_size(text: &str) -> Option<(u32, u32)> {
    super::lines(text).find_map(|l| {
        let (_, rest) = l.split_once(" cur=")?;
        dims(rest.split_whitespace().next()?)
    })
}

/// `size` turned to the current orientation of `current` (`cur=` from `dumpsys window
/// displays`): swapped when one is landscape and the other portrait.
pub fn orient(mut size: ScreenSize, current: Option<(u32, u32)>) -> ScreenSize {
    if let Some((w, h)) = current
        && (w > h) != (size.width > size.height)
        && w != h
    {
        std::mem::swap(&mut size.width, &mut size.height);
    }
    size
}

/// `settings get system user_rotation`: 0 and 2 are portrait, 1 and 3 landscape. Only
/// the *locked* rotation on a portrait-natural panel: with auto-rotate on, or an app
/// asking for an orientation, or a landscape-natural tablet, the screen can be otherwise;
/// [`parse_current_size`] reads what it is.
pub fn parse_user_rotation(text: &str) -> Option<Orientation> {
    match text.trim() {
        "0" | "2" | "null" | "" => Some(Orientation::Portrait),
        "1" | "3" => Some(Orientation::Landscape),
        _ => None,
    }
}

/// Display ids from `dumpsys SurfaceFlinger --display-id`, ordered by HWC display
/// index (`(HWC display N)`), so the primary panel (HWC display 0) comes first.
/// SurfaceFlinger does not list them in that order on every build: a captured
/// two-monitor device printed HWC display 1 first. Lines without an HWC index keep
/// their listed order, after the indexed ones.
pub fn parse_display_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<(u32, String)> = super::lines(text)
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("Display ")?;
            let id: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            if id.is_empty() {
                return None;
            }
            let hwc = rest
                .split_once("(HWC display ")
                .and_then(|(_, r)| {
                    let n: String = r.chars().take_while(|c| c.is_ascii_digit()).collect();
                    n.parse().ok()
                })
                .unwrap_or(u32::MAX);
            Some((hwc, id))
        })
        .collect();
    ids.sort_by_key(|(hwc, _)| *hwc);
    ids.into_iter().map(|(_, id)| id).collect()
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
    fn current_size_turns_the_natural_one() {
        let text = include_str!("../../../../fixtures/android/parser-dumpsys-window-focus.txt");
        assert_eq!(parse_current_size(text), Some((1080, 2400)));
        let land = "    init=1080x2400 420dpi base=1080x2400 420dpi cur=2400x1080 app=2400x954\n";
        let natural = parse_wm("Physical size: 1080x2400\n").unwrap();
        let s = orient(natural, parse_current_size(land));
        assert_eq!((s.width, s.height), (2400, 1080));
        let s = orient(parse_wm("Physical size: 1080x2400\n").unwrap(), None);
        assert_eq!((s.width, s.height), (1080, 2400));
        // `DisplayContent.dump`: no `base=` without an override, and with scaling disabled
        // `println(" noscale")` ends the line, so `cur=` starts the next one.
        let plain =
            "    init=1080x2400 420dpi cur=2400x1080 app=2400x954 rng=1080x1017-2400x2337\n";
        assert_eq!(parse_current_size(plain), Some((2400, 1080)));
        let noscale =
            "    init=1080x2400 420dpi base=720x1600 320dpi noscale\n cur=720x1600 app=720x1537\n";
        assert_eq!(parse_current_size(noscale), Some((720, 1600)));
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

    /// Asserts (width, height, density, scale) for a capture, also with CRLF line ends
    /// (what `adb shell` with a pty hands back).
    fn wm(text: &str) -> (u32, u32, Option<u32>, f64) {
        let s = parse_wm(text).unwrap();
        let crlf = parse_wm(&text.replace('\n', "\r\n")).unwrap();
        assert_eq!(
            (s.width, s.height, s.density, s.scale),
            (crlf.width, crlf.height, crlf.density, crlf.scale)
        );
        (s.width, s.height, s.density, s.scale)
    }

    #[test]
    fn real_wm_density_first_with_override_density_only() {
        // Emulator session: `wm density` ran before `wm size`, the shell echoed each
        // command, and only the density is overridden (240 -> 200).
        let text =
            include_str!("../../../../fixtures/android/parser-wm-real-emulator-density-first.txt");
        assert_eq!(wm(text), (1920, 720, Some(200), 1.25));
    }

    #[test]
    fn real_wm_physical_only() {
        let text = include_str!("../../../../fixtures/android/parser-wm-real-mi5s-plus.txt");
        assert_eq!(wm(text), (1080, 1920, Some(480), 3.0));
    }

    #[test]
    fn real_wm_size_after_permission_noise() {
        // Redmi Note 1: two `open: Permission denied` lines ahead of the size, no density.
        let text = include_str!("../../../../fixtures/android/parser-wm-real-redmi-note1.txt");
        assert_eq!(wm(text), (720, 1280, None, 1.0));
    }

    #[test]
    fn real_wm_override_size_wins() {
        // Galaxy S7: panel 1440x2560, resolution lowered to 1080x1920 in settings.
        let text = include_str!("../../../../fixtures/android/parser-wm-real-galaxy-s7.txt");
        assert_eq!(wm(text), (1080, 1920, None, 1.0));
        // Bliss OS in a VM: landscape panel 1024x768 overridden to 960x540.
        let text = include_str!("../../../../fixtures/android/parser-wm-real-bliss-parallels.txt");
        assert_eq!(wm(text), (960, 540, None, 1.0));
    }

    #[test]
    fn real_foldable_display_ids() {
        let expected = vec!["4619827259835644672", "4619827551948147201"];
        let ids = parse_display_ids(include_str!(
            "../../../../fixtures/android/parser-surfaceflinger-real-pixel10-fold.txt"
        ));
        assert_eq!(ids, expected);
        // Newer builds add `screenPartStatus=` before `displayName=`; no trailing newline.
        let ids = parse_display_ids(include_str!(
            "../../../../fixtures/android/parser-surfaceflinger-real-fold-screenpart.txt"
        ));
        assert_eq!(ids, expected);
    }

    #[test]
    fn real_two_monitors_listed_out_of_hwc_order() {
        // SurfaceFlinger printed HWC display 1 first; the primary (HWC 0) must lead.
        let ids = parse_display_ids(include_str!(
            "../../../../fixtures/android/parser-surfaceflinger-real-two-monitors.txt"
        ));
        assert_eq!(ids, vec!["4693505326422272", "4692921138614785"]);
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

    fn fold_ids() -> Vec<String> {
        parse_display_ids(include_str!(
            "../../../../fixtures/android/parser-surfaceflinger-real-pixel10-fold.txt"
        ))
    }

    #[test]
    fn real_fold_lists_only_the_connected_panel() {
        // Pixel 10 Pro Fold AVD: SurfaceFlinger always lists both panels, but
        // `get-displays` lists only the one backing logical display 0.
        let known = fold_ids();
        let open = include_str!(
            "../../../../fixtures/android/parser-display-get-displays-real-fold-open.txt"
        );
        assert_eq!(
            active_display(open, &known).as_deref(),
            Some("4619827259835644672")
        );
        let closed = include_str!(
            "../../../../fixtures/android/parser-display-get-displays-real-fold-closed.txt"
        );
        assert_eq!(
            active_display(closed, &known).as_deref(),
            Some("4619827551948147201")
        );
        // The inner panel is not listed while folded.
        assert_eq!(active_display(closed, &known[..1]), None);
    }

    #[test]
    fn real_overlay_display_is_not_a_panel() {
        // An overlay display (`uniqueId "overlay:1"`, state ON) after the inner panel.
        let text = include_str!(
            "../../../../fixtures/android/parser-display-get-displays-real-overlay.txt"
        );
        let known = fold_ids();
        assert_eq!(
            active_display(text, &known).as_deref(),
            Some("4619827259835644672")
        );
        assert_eq!(active_display(text, &known[1..]), None);
    }
}
