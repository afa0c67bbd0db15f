//! The Notes app's "Delete all notes" alert dialog: what `uiautomator dump` and the
//! screenshot show while it is up, and what its buttons, BACK and a tap outside do to the
//! phone's state.

use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

fn tap(p: &PhoneHandle, label: &str) {
    let (x, y) = p
        .element_center(label)
        .unwrap_or_else(|| panic!("no {label} on screen:\n{}", p.ui_dump()));
    p.shell(&format!("input tap {x} {y}"));
}

/// The Notes settings screen, with the dialog up.
fn dialog_up(p: &PhoneHandle) {
    tap(p, "Delete all notes");
    let s = p.state();
    let d = s.dialog().expect("the dialog shows");
    assert_eq!(d.title, "Delete all notes?");
    assert_eq!(s.foreground().unwrap().screen, "settings");
}

fn pixel(png: &[u8], x: u32, y: u32) -> [u8; 3] {
    let img = image::load_from_memory(png).unwrap().to_rgb8();
    img.get_pixel(x, y).0
}

fn notes_on_main(p: &PhoneHandle) -> usize {
    p.state().packages["com.example.notes"].screens["main"]
        .elements
        .iter()
        .filter(|e| e.resource_id == "com.example.notes:id/note_title")
        .count()
}

#[test]
fn the_dialog_is_the_active_window_and_dims_the_screen() {
    let p = VirtualPhone::start(PhoneConfig::default()).unwrap();
    p.shell("am start -n com.example.notes/.MainActivity");
    tap(&p, "Settings");
    let before = p.screenshot_png();
    let (sx, sy) = p.element_center("Sync notes").unwrap();
    dialog_up(&p);

    let dump = p.ui_dump();
    let doc = roxmltree::Document::parse(&dump).unwrap();
    let by_id = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("resource-id") == Some(id))
            .unwrap_or_else(|| panic!("no {id} in {dump}"))
    };
    let title = by_id("android:id/alertTitle");
    assert_eq!(title.attribute("class"), Some("android.widget.TextView"));
    assert_eq!(title.attribute("text"), Some("Delete all notes?"));
    let message = by_id("android:id/message");
    assert_eq!(message.attribute("class"), Some("android.widget.TextView"));
    assert!(message.attribute("text").unwrap().starts_with("Your notes"));
    for (id, text) in [
        ("android:id/button1", "Delete"),
        ("android:id/button2", "Cancel"),
    ] {
        let b = by_id(id);
        assert_eq!(b.attribute("class"), Some("android.widget.Button"));
        assert_eq!(b.attribute("text"), Some(text));
        assert_eq!(b.attribute("clickable"), Some("true"));
    }
    for id in [
        "android:id/parentPanel",
        "android:id/topPanel",
        "android:id/contentPanel",
        "android:id/buttonPanel",
    ] {
        by_id(id);
    }
    // Only the active window is dumped: the settings screen behind is not.
    assert!(!dump.contains("Sync notes"), "{dump}");

    // The screen behind is dimmed; the dialog's card is light.
    let after = p.screenshot_png();
    let (was, now) = (pixel(&before, 4, 4), pixel(&after, 4, 4));
    assert!(
        now.iter()
            .zip(was)
            .all(|(n, w)| f32::from(*n) <= f32::from(w) * 0.5),
        "status bar {was:?} → {now:?}"
    );
    let (was, now) = (
        pixel(&before, sx as u32, sy as u32 - 40),
        pixel(&after, sx as u32, sy as u32 - 40),
    );
    assert!(now != was, "the row behind is dimmed");
    let card = doc
        .descendants()
        .find(|n| n.attribute("resource-id") == Some("android:id/parentPanel"))
        .and_then(|n| n.attribute("bounds"))
        .unwrap()
        .to_string();
    let nums: Vec<u32> = card
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(
        pixel(&after, nums[0] + 60, nums[3] - 8),
        [255, 255, 255],
        "{card}"
    );
}

#[test]
fn cancel_back_and_outside_dismiss_delete_removes_the_notes() {
    let p = VirtualPhone::start(PhoneConfig::default()).unwrap();
    p.shell("am start -n com.example.notes/.MainActivity");
    tap(&p, "Settings");
    assert_eq!(notes_on_main(&p), 1);

    dialog_up(&p);
    tap(&p, "Cancel");
    assert!(p.state().dialog().is_none());
    assert_eq!(notes_on_main(&p), 1, "Cancel deletes nothing");

    dialog_up(&p);
    p.shell("input keyevent KEYCODE_BACK");
    assert!(p.state().dialog().is_none());
    assert_eq!(
        p.state().foreground().unwrap().screen,
        "settings",
        "BACK only closed the dialog"
    );

    // A tap outside the dialog (on the switch behind it) cancels it and reaches nothing.
    let (x, y) = p.element_center("Sync notes").unwrap();
    dialog_up(&p);
    p.shell(&format!("input tap {x} {y}"));
    let s = p.state();
    assert!(s.dialog().is_none());
    let sync = s.packages["com.example.notes"].screens["settings"]
        .elements
        .iter()
        .find(|e| e.text == "Sync notes")
        .unwrap();
    assert!(!sync.checked, "the tap did not reach the switch behind");

    dialog_up(&p);
    tap(&p, "Delete");
    assert!(p.state().dialog().is_none());
    assert_eq!(notes_on_main(&p), 0, "Delete removed the notes");
    p.shell("input keyevent KEYCODE_BACK");
    assert_eq!(p.state().foreground().unwrap().screen, "main");
    assert!(!p.ui_dump().contains("Shopping list"));
}
