//! What the soak (issue #26) asks of the phone: a shell that stalls and comes back, and a
//! long list of look-alike rows whose buttons say which one a tap hit.

use std::time::Duration;

use virtual_phone::look_alikes::{CART, checked_rows, delete_row, look_alike_state};
use virtual_phone::{PhoneConfig, VirtualPhone};

#[test]
fn a_stalled_shell_records_at_once_and_runs_when_the_stall_ends() {
    let p = VirtualPhone::start(PhoneConfig::default()).unwrap();
    p.stall(Duration::from_secs(600));
    assert!(p.stalled());
    let (tx, rx) = std::sync::mpsc::channel();
    let p = std::sync::Arc::new(p);
    let p2 = p.clone();
    let t = std::thread::spawn(move || tx.send(p2.shell("echo back")).unwrap());
    // Received (recorded) while stalled ...
    while !p.shell_commands().iter().any(|r| r.command == "echo back") {
        std::thread::sleep(Duration::from_millis(5));
    }
    // ... but not answered: the stall has ten minutes to go.
    assert!(rx.try_recv().is_err(), "answered during the stall");
    p.stall(Duration::ZERO);
    assert!(!p.stalled());
    assert_eq!(rx.recv().unwrap(), "back\n");
    t.join().unwrap();
}

#[test]
fn a_tap_on_a_look_alike_checks_that_rows_button_after_scrolls() {
    let p = VirtualPhone::start(PhoneConfig {
        state: Some(look_alike_state(200)),
        ..PhoneConfig::default()
    })
    .unwrap();
    p.shell(&format!("am start -n {CART}/.MainActivity"));
    let dump = p.ui_dump();
    assert!(dump.contains("Item 1\""), "{dump}");
    assert!(
        !dump.contains("Item 200\""),
        "the list is taller than the screen"
    );
    // Scroll far down: row 1 is gone, later rows show.
    for _ in 0..10 {
        p.shell("input swipe 540 1800 540 600 300");
    }
    let dump = p.ui_dump();
    assert!(!dump.contains("Item 1\""), "{dump}");
    // The first title on screen, and the button after it.
    let first: usize = dump
        .split("text=\"Item ")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(first > 10, "scrolled to row {first}");
    let (x, y) = p.element_center(&format!("Item {first}")).unwrap();
    // A button row sits just under its title: 40 dp title, 8 dp gap, 48 dp button.
    let density = p.state().display.density as i32;
    let below = y + (20 + 8 + 24) * density / 160;
    p.shell(&format!("input tap {x} {below}"));
    assert_eq!(checked_rows(&p.state()), vec![first]);
    // The row is deleted: its title and button go, the rows below move up.
    let mut gone = false;
    p.update_state(|s| gone = delete_row(s, first));
    assert!(gone);
    assert!(checked_rows(&p.state()).is_empty());
    let dump = p.ui_dump();
    assert!(!dump.contains(&format!("Item {first}\"")), "{dump}");
    assert!(dump.contains(&format!("Item {}\"", first + 1)), "{dump}");
}
