//! [`Button`]: the hardware and navigation buttons, in one table that their names,
//! parsing and the tools' descriptions of them derive from.

use std::fmt;

/// A hardware or navigation button. Parsed from the names agents already use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// The home button or gesture.
    Home,
    /// Back (Android).
    Back,
    /// The menu key.
    Menu,
    /// Enter on the keyboard.
    Enter,
    /// Volume up.
    VolumeUp,
    /// Volume down.
    VolumeDown,
    /// Power (sleep/wake).
    Power,
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
    /// Android and iOS (as far as the platform has it).
    Any,
    /// Android only.
    Android,
    /// Android TV remotes.
    AndroidTv,
    /// iOS only.
    Ios,
}

impl ButtonScope {
    /// How a description names the scope after its buttons (`None`: said of none).
    pub fn label(self) -> Option<&'static str> {
        match self {
            ButtonScope::Any => None,
            ButtonScope::Android => Some("Android"),
            ButtonScope::AndroidTv => Some("Android TV"),
            ButtonScope::Ios => Some("iOS"),
        }
    }
}

/// How many buttons there are.
const BUTTON_COUNT: usize = 16;

impl Button {
    /// The one table of buttons: each one's name and where it exists, in the order the
    /// tools list them. [`Button::NAMES`], [`Button::parse`], [`Button::name`] and the
    /// server's descriptions of the buttons derive from it.
    pub const TABLE: [(Button, &'static str, ButtonScope); BUTTON_COUNT] = [
        (Button::Home, "HOME", ButtonScope::Any),
        (Button::Back, "BACK", ButtonScope::Android),
        (Button::Menu, "MENU", ButtonScope::Any),
        (Button::Enter, "ENTER", ButtonScope::Any),
        (Button::VolumeUp, "VOLUME_UP", ButtonScope::Any),
        (Button::VolumeDown, "VOLUME_DOWN", ButtonScope::Any),
        (Button::Power, "POWER", ButtonScope::Any),
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
        Self::TABLE
            .iter()
            .find(|(b, _, _)| *b == self)
            .map_or("", |(_, n, _)| n)
    }

    /// The buttons for a description, grouped by where they exist: `HOME, BACK (Android),
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
            out.push_str(&match scope.label() {
                Some(label) => format!("{} ({label})", join_group(&names)),
                None => names.join(", "),
            });
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

impl fmt::Display for Button {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "HOME, BACK (Android), MENU, ENTER, VOLUME_UP, VOLUME_DOWN, POWER, \
             DPAD_UP/DOWN/LEFT/RIGHT/CENTER (Android TV); LOCK, SIDE_BUTTON, SIRI, APPLE_PAY (iOS)"
        );
    }
}
