//! `dumpsys SurfaceFlinger --frametimeline -all` through the phone's shell: the composed
//! display frames on Android 12 and later (unchanged while the screen rests, new ones while
//! it moves), the full dump before (different at every call), and its hash pipeline.

use std::time::{Duration, Instant};

use virtual_phone::living::scenario::{SHOP, living_state};
use virtual_phone::profile::{Profile, apply};
use virtual_phone::{PhoneConfig, VirtualPhone};

fn phone(sdk: u32) -> virtual_phone::PhoneHandle {
    let mut s = living_state();
    apply(&mut s, Profile::android(sdk));
    VirtualPhone::start(PhoneConfig {
        state: Some(s),
        ..PhoneConfig::default()
    })
    .unwrap()
}

const DUMP: &str = "dumpsys SurfaceFlinger --frametimeline -all";

#[test]
fn the_frame_list_moves_with_a_transition_and_rests_with_the_screen() {
    let p = phone(34);
    let rest = p.shell(DUMP);
    assert!(
        rest.starts_with("Number of display frames : "),
        "{}",
        &rest[..rest.len().min(200)]
    );
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(p.shell(DUMP), rest, "a still screen composes nothing");
    p.shell(&format!("am start -n {SHOP}/.MainActivity"));
    std::thread::sleep(Duration::from_millis(40));
    let during = p.shell(DUMP);
    assert!(during.contains(&format!("Layer - {SHOP}/{SHOP}.MainActivity#0")));
    // The slide (300 ms) and the late rows (500 ms) compose frames until they are over.
    let start = Instant::now();
    let mut last = during.clone();
    let mut changes = 0;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = p.shell(DUMP);
        if now == last {
            if start.elapsed() > Duration::from_millis(700) {
                break;
            }
        } else {
            changes += 1;
        }
        last = now;
        assert!(start.elapsed() < Duration::from_secs(10), "never rested");
    }
    assert!(changes >= 3, "{changes} changes during the launch");
    let h = p.shell(&format!("{DUMP} | sha1sum"));
    assert_eq!(h.len(), 40 + 4, "{h:?}");
    assert_eq!(p.shell(&format!("{DUMP} | sha1sum")), h);
    assert!(p.injections().is_empty(), "{:?}", p.injections());
}

#[test]
fn before_android_12_the_argument_falls_through_to_the_full_dump() {
    let p = phone(30);
    let a = p.shell(DUMP);
    assert!(a.starts_with("Build configuration:"), "{a}");
    assert!(!a.contains("Number of display frames"));
    std::thread::sleep(Duration::from_millis(5));
    assert_ne!(p.shell(DUMP), a, "the full dump differs at every call");
}
