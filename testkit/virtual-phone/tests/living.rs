//! The living phone through its shell: the frame hash pipeline and the latency profile.

use virtual_phone::living::scenario::living_state;
use virtual_phone::{PhoneConfig, VirtualPhone};

fn phone() -> virtual_phone::PhoneHandle {
    VirtualPhone::start(PhoneConfig {
        state: Some(living_state()),
        ..PhoneConfig::default()
    })
    .unwrap()
}

#[test]
fn the_frame_hash_runs_on_the_phone_and_changes_with_the_screen() {
    let p = phone();
    let home = p.shell("screencap | md5sum");
    assert_eq!(home.len(), 32 + 4, "{home:?}");
    assert!(home.ends_with("  -\n"));
    assert_eq!(
        p.shell("screencap | md5sum"),
        home,
        "a still screen hashes the same"
    );
    let sha = p.shell("screencap -p | sha1sum");
    assert_eq!(sha.len(), 40 + 4, "{sha:?}");
    p.shell("am start -n com.example.notes/.MainActivity");
    assert_ne!(p.shell("screencap | md5sum"), home);
    assert!(p.injections().is_empty(), "{:?}", p.injections());
}

#[test]
fn other_pipelines_stay_refused() {
    let p = phone();
    for line in [
        "ls | md5sum",
        "screencap | md5sum > /sdcard/h",
        "screencap | cat",
        "screencap /sdcard/x | md5sum",
    ] {
        p.shell(line);
    }
    assert_eq!(p.injections().len(), 4);
}

#[test]
fn md5sum_of_a_file_prints_its_name() {
    let p = phone();
    p.shell("touch /sdcard/empty");
    assert_eq!(
        p.shell("md5sum /sdcard/empty"),
        "d41d8cd98f00b204e9800998ecf8427e  /sdcard/empty\n"
    );
}
