//! `uiautomator dump` XML, in the format of AOSP's `AccessibilityNodeInfoDumper`
//! (see `fixtures/android/uiautomator-dump.xml`): one line, `<?xml … standalone='yes' ?>`,
//! `<hierarchy rotation="N">`, nested `<node>` elements with the 17 attributes in fixed order.

use crate::layout::{Node, NodeRole};

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // KXmlSerializer.writeEscaped: in an attribute, tab, newline and carriage
            // return are written as character references, so a reader keeps them.
            '\t' | '\n' | '\r' => out.push_str(&format!("&#{};", c as u32)),
            c if (c as u32) < 0x20 => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

fn node(out: &mut String, n: &Node, index: usize) {
    let b = n.bounds;
    out.push_str(&format!(
        "<node index=\"{index}\" text=\"{}\" resource-id=\"{}\" class=\"{}\" package=\"{}\" content-desc=\"{}\" checkable=\"{}\" checked=\"{}\" clickable=\"{}\" enabled=\"{}\" focusable=\"{}\" focused=\"{}\" scrollable=\"{}\" long-clickable=\"false\" password=\"{}\" selected=\"false\" bounds=\"[{},{}][{},{}]\"",
        esc(&n.text),
        esc(&n.resource_id),
        esc(&n.class),
        esc(&n.package),
        esc(&n.content_desc),
        n.checkable,
        n.checked,
        n.clickable,
        n.enabled,
        n.focusable,
        n.focused,
        n.scrollable,
        n.password,
        b[0],
        b[1],
        b[2],
        b[3],
    ));
    if n.children.is_empty() {
        out.push_str(" />");
    } else {
        out.push('>');
        for (i, c) in n.children.iter().enumerate() {
            node(out, c, i);
        }
        out.push_str("</node>");
    }
}

/// The dump for a laid-out tree at `rotation`: the active window's nodes, which is the
/// dialog's window while one shows (`DumpCommand` dumps `getRootInActiveWindow()`).
pub(crate) fn dump(root: &Node, rotation: u32) -> String {
    let mut out = String::from("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>");
    out.push_str(&format!("<hierarchy rotation=\"{rotation}\">"));
    let active = root
        .children
        .iter()
        .rev()
        .find(|n| n.role == NodeRole::Dialog)
        .unwrap_or(root);
    node(&mut out, active, 0);
    out.push_str("</hierarchy>");
    out
}
