//! What `input draganddrop` does to the screen: a drag that starts on a list row and ends on
//! another row of the same list moves the first row to the second's place (a reorderable
//! list), the rows between shifting by one.
//!
//! The gesture is AOSP's `sendDragAndDrop` (`cmds/input/src/com/android/commands/input/
//! Input.java`, later `InputShellCommand.java`): a press held for the long-press timeout,
//! then moves to the target, then a release. A list that lets rows be reordered starts the
//! drag on that long press and drops the row where the finger is released, as AndroidX
//! `ItemTouchHelper` does with `isLongPressDragEnabled()` (the row moves to the position of
//! the row it is dropped on, `onMove(from, to)`). Rows here are the `ListItem` elements.

use super::*;

/// A drag from `(x1, y1)` to `(x2, y2)` on the current screen.
pub(crate) fn drag(s: &mut PhoneState, x1: f64, y1: f64, x2: f64, y2: f64) {
    let root = layout::layout(s);
    let key_at = |x: f64, y: f64| layout::hit_test(&root, x, y).and_then(|n| n.element.clone());
    let (Some(from), Some(to)) = (key_at(x1, y1), key_at(x2, y2)) else {
        return;
    };
    let Some(screen) = s.current_screen_mut() else {
        return;
    };
    let index = |key: &str| (0..screen.elements.len()).find(|i| element_key(screen, *i) == key);
    let (Some(i), Some(j)) = (index(&from), index(&to)) else {
        return;
    };
    let row = |k: usize| screen.elements[k].kind == ElementKind::ListItem;
    if i == j || !row(i) || !row(j) {
        return;
    }
    let moved = screen.elements.remove(i);
    screen.elements.insert(j, moved);
}
