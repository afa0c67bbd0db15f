//! [`Button`]: the hardware and navigation buttons, in one table that their names,
//! parsing, the tools' descriptions of them and each platform's list derive from.
//!
//! Each name is what both platforms' tools already call the button: on Android the key
//! event is `KEYCODE_` + the name (`android.view.KeyEvent`'s constants, which `input
//! keyevent` takes), on an iOS simulator the name is idb's (`idb ui button`, fb-idb's
//! `HIDButtonType`: APPLE_PAY, HOME, LOCK, SIDE_BUTTON, SIRI), and the keyboard's ENTER
//! and DEL are keys there (`idb ui key` with their HID usages). A backend presses a button
//! only where [`Button::exists_on`] says it exists, and names the others with
//! [`Button::names_on`].
//!
//! Not for: how a backend sends a button (its input module does).

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

use crate::types::Platform;

/// A hardware or navigation button. Parsed from the names agents already use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// The home button or gesture.
    Home,
    /// Back (Android).
    Back,
    /// The menu key.
    Menu,
    /// Enter on the keyboard (iOS: the Return key, HID usage 40).
    Enter,
    /// Volume up.
    VolumeUp,
    /// Volume down.
    VolumeDown,
    /// Power (sleep/wake).
    Power,
    /// Delete the character before the cursor (Android's `KEYCODE_DEL`, the backspace key;
    /// iOS: the keyboard's Delete, HID usage 42).
    Delete,
    /// D-pad up (Android TV).
    DpadUp,
    /// D-pad down (Android TV).
    DpadDown,
    /// D-pad left (Android TV).
    DpadLeft,
    /// D-pad right (Android TV).
    DpadRight,
    /// D-pad centre (Android TV).
    DpadCenter,
    /// Lock the screen (iOS).
    Lock,
    /// The side button (iOS).
    SideButton,
    /// Siri (iOS).
    Siri,
    /// Apple Pay (iOS).
    ApplePay,
}

/// Where a [`Button`] exists, as the tool descriptions group them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ButtonScope {
    /// Android and iOS.
    Any,
    /// Android only.
    Android,
    /// Android TV remotes.
    AndroidTv,
    /// iOS only.
    Ios,
}

impl ButtonScope {
    /// How a description names the scope after its buttons.
    pub fn label(self) -> &'static str {
        match self {
            ButtonScope::Any => "Android, iOS",
            ButtonScope::Android => "Android",
            ButtonScope::AndroidTv => "Android TV",
            ButtonScope::Ios => "iOS",
        }
    }

    /// Whether a button of this scope exists on `platform`.
    pub fn includes(self, platform: Platform) -> bool {
        match self {
            ButtonScope::Any => true,
            ButtonScope::Android | ButtonScope::AndroidTv => platform == Platform::Android,
            ButtonScope::Ios => platform == Platform::Ios,
        }
    }
}

/// How many buttons there are.
const BUTTON_COUNT: usize = 17;

impl Button {
    /// The one table of buttons: each one's name and where it exists, in the order the
    /// tools list them. [`Button::NAMES`], [`Button::parse`], [`Button::name`],
    /// [`Button::exists_on`], [`Button::names_on`] and the server's descriptions of the
    /// buttons derive from it.
    pub const TABLE: [(Button, &'static str, ButtonScope); BUTTON_COUNT] = [
        (Button::Home, "HOME", ButtonScope::Any),
        (Button::Enter, "ENTER", ButtonScope::Any),
        (Button::Delete, "DEL", ButtonScope::Any),
        (Button::Back, "BACK", ButtonScope::Android),
        (Button::Menu, "MENU", ButtonScope::Android),
        (Button::VolumeUp, "VOLUME_UP", ButtonScope::Android),
        (Button::VolumeDown, "VOLUME_DOWN", ButtonScope::Android),
        (Button::Power, "POWER", ButtonScope::Android),
        (Button::DpadUp, "DPAD_UP", ButtonScope::AndroidTv),
        (Button::DpadDown, "DPAD_DOWN", ButtonScope::AndroidTv),
        (Button::DpadLeft, "DPAD_LEFT", ButtonScope::AndroidTv),
        (Button::DpadRight, "DPAD_RIGHT", ButtonScope::AndroidTv),
        (Button::DpadCenter, "DPAD_CENTER", ButtonScope::AndroidTv),
        (Button::Lock, "LOCK", ButtonScope::Ios),
        (Button::SideButton, "SIDE_BUTTON", ButtonScope::Ios),
        (Button::Siri, "SIRI", ButtonScope::Ios),
        (Button::ApplePay, "APPLE_PAY", ButtonScope::Ios),
    ];

    /// Every name accepted by [`Button::parse`], for error messages and descriptions.
    pub const NAMES: &'static [&'static str] = &Self::names();

    const fn names() -> [&'static str; BUTTON_COUNT] {
        let mut out = [""; BUTTON_COUNT];
        let mut i = 0;
        while i < BUTTON_COUNT {
            out[i] = Self::TABLE[i].1;
            i += 1;
        }
        out
    }

    /// Parses a button name, case-insensitively; `-` and spaces count as `_`.
    pub fn parse(name: &str) -> Option<Button> {
        let norm: String = name
            .trim()
            .chars()
            .map(|c| match c {
                '-' | ' ' => '_',
                c => c.to_ascii_uppercase(),
            })
            .collect();
        let norm = norm.strip_prefix("KEYCODE_").unwrap_or(&norm);
        Self::TABLE
            .iter()
            .find(|(_, n, _)| *n == norm)
            .map(|(b, _, _)| *b)
    }

    /// The button's name, as [`Button::NAMES`] spells it.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// Where the button exists.
    pub fn scope(self) -> ButtonScope {
        self.row().2
    }

    /// Whether `platform` has this button.
    pub fn exists_on(self, platform: Platform) -> bool {
        self.scope().includes(platform)
    }

    /// The names of the buttons `platform` has, in table order, comma-separated (for an
    /// error that says which buttons there are).
    pub fn names_on(platform: Platform) -> String {
        let names: Vec<&str> = Self::TABLE
            .iter()
            .filter(|(_, _, scope)| scope.includes(platform))
            .map(|(_, n, _)| *n)
            .collect();
        names.join(", ")
    }

    fn row(self) -> &'static (Button, &'static str, ButtonScope) {
        // Every button has exactly one row (a test checks it).
        Self::TABLE
            .iter()
            .find(|(b, _, _)| *b == self)
            .unwrap_or(&Self::TABLE[0])
    }

    /// The buttons for a description, grouped by where they exist: `HOME, ENTER, DEL (Android, iOS), BACK (Android),
    /// …, DPAD_UP/DOWN/… (Android TV); LOCK, … (iOS)`. Names of one scoped group that
    /// share a `PREFIX_` are written `PREFIX_A/B`; `family_sep` separates the Android
    /// buttons from the iOS ones.
    pub fn describe_all(family_sep: &str) -> String {
        let mut out = String::new();
        let mut rows = Self::TABLE.iter().peekable();
        let mut previous: Option<ButtonScope> = None;
        while let Some(&(_, first, scope)) = rows.next() {
            let mut names = vec![first];
            while let Some(&&(_, n, s)) = rows.peek() {
                if s != scope {
                    break;
                }
                names.push(n);
                rows.next();
            }
            if let Some(p) = previous {
                let crosses = (p == ButtonScope::Ios) != (scope == ButtonScope::Ios);
                out.push_str(if crosses { family_sep } else { ", " });
            }
            out.push_str(&format!("{} ({})", join_group(&names), scope.label()));
            previous = Some(scope);
        }
        out
    }
}

/// `DPAD_UP/DOWN/LEFT` for names that all share a `PREFIX_`; else the names, comma-joined.
fn join_group(names: &[&str]) -> String {
    let prefix = names[0].split_once('_').map(|(p, _)| p);
    match prefix {
        Some(p) if names.len() > 1 && names.iter().all(|n| n.starts_with(&format!("{p}_"))) => {
            let rest: Vec<&str> = names.iter().map(|n| &n[p.len() + 1..]).collect();
            format!("{p}_{}", rest.join("/"))
        }
        _ => names.join(", "),
    }
}

/// A button is read from its name as [`Button::parse`] reads it, so a tool's parameters
/// hold a [`Button`] that exists in the table; an unknown name is refused when the
/// arguments are read, with the names there are.
impl<'de> Deserialize<'de> for Button {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Button::parse(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "Unknown button {}. Use one of: {}",
                crate::input::excerpt(&name),
                Button::NAMES.join(", ")
            ))
        })
    }
}

/// A string: the names are listed in the tool's description (loosely spelled names such as
/// `home` or `KEYCODE_BACK` are accepted too, so the schema does not enumerate them).
impl JsonSchema for Button {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Button")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string" })
    }
}

impl fmt::Display for Button {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_button_parameter_is_read_by_name_or_refused_with_the_names() {
        let b: Button = serde_json::from_value(serde_json::json!("volume up")).unwrap();
        assert_eq!(b, Button::VolumeUp);
        let err = serde_json::from_value::<Button>(serde_json::json!("REBOOT"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("Unknown button \"REBOOT\". Use one of: HOME, ENTER, DEL, BACK"),
            "{err}"
        );
        assert!(serde_json::from_value::<Button>(serde_json::json!(3)).is_err());
    }

    #[test]
    fn buttons_parse_loosely_and_print_canonically() {
        assert_eq!(Button::parse("home"), Some(Button::Home));
        assert_eq!(Button::parse("volume-up"), Some(Button::VolumeUp));
        assert_eq!(Button::parse("KEYCODE_BACK"), Some(Button::Back));
        assert_eq!(Button::parse("side button"), Some(Button::SideButton));
        assert_eq!(Button::parse("REBOOT"), None);
        for n in Button::NAMES {
            assert_eq!(Button::parse(n).unwrap().name(), *n);
        }
    }

    #[test]
    fn descriptions_group_the_buttons_by_platform() {
        assert_eq!(
            Button::describe_all("; "),
            "HOME, ENTER, DEL (Android, iOS), BACK, MENU, VOLUME_UP, VOLUME_DOWN, POWER (Android), \
             DPAD_UP/DOWN/LEFT/RIGHT/CENTER (Android TV); LOCK, SIDE_BUTTON, SIRI, APPLE_PAY (iOS)"
        );
    }

    #[test]
    fn each_platform_list_derives_from_the_table() {
        for (b, n, _) in Button::TABLE {
            assert_eq!(
                Button::TABLE.iter().filter(|(o, _, _)| *o == b).count(),
                1,
                "{n}"
            );
            assert_eq!(b.name(), n);
        }
        assert_eq!(
            Button::names_on(Platform::Android),
            "HOME, ENTER, DEL, BACK, MENU, VOLUME_UP, VOLUME_DOWN, POWER, \
             DPAD_UP, DPAD_DOWN, DPAD_LEFT, DPAD_RIGHT, DPAD_CENTER"
        );
        // fb-idb's HIDButtonType and the keyboard's two keys, in table order.
        assert_eq!(
            Button::names_on(Platform::Ios),
            "HOME, ENTER, DEL, LOCK, SIDE_BUTTON, SIRI, APPLE_PAY"
        );
        assert!(Button::Home.exists_on(Platform::Ios));
        assert!(Button::Enter.exists_on(Platform::Ios));
        assert!(!Button::Back.exists_on(Platform::Ios));
        assert!(!Button::Siri.exists_on(Platform::Android));
    }
}
