//! The one shell quoter. Everything this crate sends to a device's `sh` is a
//! [`ShellLine`], and only this module can build one: from an argv ([`command`]) or from a
//! pipeline of argvs ([`pipeline`]), so no value from an agent can become shell syntax.
//!
//! Invariant: every argument becomes exactly one literal word for a POSIX shell. A
//! word made only of `[A-Za-z0-9_@%+=:,./-]` is left bare (it cannot contain syntax);
//! anything else is wrapped in single quotes, with each `'` written as `'\''`. NUL
//! cannot travel through a shell command line, so both constructors refuse it.
//!
//! The only operator a line can hold is the `|` a [`pipeline`] puts between its stages
//! (the settle fingerprint hashes a command's output on the phone); commands are never
//! chained with `;` or `&&` (several commands are several shell sessions), so any other
//! unquoted operator on a device is a bug or an attack.
//!
//! Not for: arguments of `adb_client` calls that are not shell text (file paths of a
//! push or pull travel in the sync protocol, not through `sh`).

use std::borrow::Cow;
use std::fmt;

use mobile_device::{DeviceError, Result};

/// One line for a device's `sh`: a simple command of quoted words, or a pipeline of such
/// commands. Built only by [`command`] and [`pipeline`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellLine(String);

impl ShellLine {
    /// The line as the device's shell receives it.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ShellLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<&str> for ShellLine {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

fn is_safe(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, '_' | '@' | '%' | '+' | '=' | ':' | ',' | '.' | '/' | '-')
}

/// Quotes one argument for the device shell.
pub(crate) fn quote(arg: &str) -> Cow<'_, str> {
    if !arg.is_empty() && arg.chars().all(is_safe) {
        return Cow::Borrowed(arg);
    }
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('\'');
    for c in arg.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    Cow::Owned(out)
}

/// Appends an argv, each word quoted, to `out`.
fn push_argv<S: AsRef<str>>(out: &mut String, argv: &[S]) -> Result<()> {
    for (i, a) in argv.iter().enumerate() {
        let a = a.as_ref();
        if a.contains('\0') {
            return Err(DeviceError::invalid(
                "the value contains a NUL character, which cannot be sent to the device",
            ));
        }
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&quote(a));
    }
    Ok(())
}

/// Joins an argv into one shell command line.
pub(crate) fn command<S: AsRef<str>>(argv: &[S]) -> Result<ShellLine> {
    let mut out = String::new();
    push_argv(&mut out, argv)?;
    Ok(ShellLine(out))
}

/// Joins argvs into one pipeline, each stage's output the next one's input
/// (`a b | c`). An empty stage is refused: it would leave a bare `|`.
pub(crate) fn pipeline<S: AsRef<str>>(stages: &[&[S]]) -> Result<ShellLine> {
    let mut out = String::new();
    for (i, argv) in stages.iter().enumerate() {
        if argv.is_empty() {
            return Err(DeviceError::invalid("a pipeline stage has no command"));
        }
        if i > 0 {
            out.push_str(" | ");
        }
        push_argv(&mut out, argv)?;
    }
    Ok(ShellLine(out))
}

/// A test-only POSIX word splitter: it accepts bare words, single quotes, double
/// quotes and backslashes, and fails on any unquoted shell syntax (`;|&<>()$` and
/// backticks, newline, glob characters), so a test can prove a quoted line is literal.
#[cfg(test)]
pub(crate) fn split_words(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => cur.push(c),
                    None => return Err("trailing backslash".into()),
                }
            }
            '"' => return Err("double quotes are never produced by the quoter".into()),
            ';' | '|' | '&' | '<' | '>' | '(' | ')' | '$' | '`' | '\n' | '*' | '?' | '[' | ']'
            | '{' | '}' | '~' | '#' | '!' => {
                return Err(format!("unquoted shell syntax {c:?}"));
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_words_stay_bare_and_others_are_quoted() {
        assert_eq!(quote("am"), "am");
        assert_eq!(quote("com.example/.Main"), "com.example/.Main");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("$(reboot)"), "'$(reboot)'");
        assert_eq!(
            command(&["am", "force-stop", "com.x;reboot"]).unwrap(),
            "am force-stop 'com.x;reboot'"
        );
        assert!(command(&["a\0b"]).is_err());
    }

    #[test]
    fn a_pipeline_is_quoted_stages_joined_by_one_bar() {
        assert_eq!(
            pipeline(&[
                &["dumpsys", "SurfaceFlinger", "--frametimeline", "-all"][..],
                &["sha1sum"]
            ])
            .unwrap(),
            "dumpsys SurfaceFlinger --frametimeline -all | sha1sum"
        );
        assert_eq!(
            pipeline(&[&["echo", "a|b;c"][..], &["cat"]]).unwrap(),
            "echo 'a|b;c' | cat"
        );
        let empty: &[&str] = &[];
        assert!(pipeline(&[&["screencap"][..], empty]).is_err());
        assert!(pipeline(&[&["echo", "a\0"][..], &["cat"]]).is_err());
        assert_eq!(
            pipeline(&[&["echo", "$(id); x | y"][..], &["sha1sum"]]).unwrap(),
            "echo '$(id); x | y' | sha1sum"
        );
    }

    #[test]
    fn hostile_inputs_round_trip() {
        let long = "x'; $(id) `id` \n".repeat(700);
        for s in [
            ";",
            "$(reboot)",
            "`id`",
            "'",
            "\"",
            "a\nb",
            "a b",
            "%s",
            "ünï €",
            "\\",
            "'\\''",
            "-n",
            "*",
            "~",
            "#x",
            "!!",
            "a\tb",
            &long,
        ] {
            let line = command(&["echo", s]).unwrap();
            assert_eq!(
                split_words(line.as_str()).unwrap(),
                vec!["echo".to_string(), s.to_string()],
                "{s:?}"
            );
        }
    }

    fn hostile() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            ";", "$(", ")", "`", "'", "\"", "\n", " ", "%s", "%", "é", "日本", "\\", "|", "&&",
            "<", ">", "*", "$HOME", "${x}", "\t", "!", "#", "~", "-",
        ]);
        prop::collection::vec(
            prop_oneof![pieces.prop_map(String::from), "[^\\x00]{0,8}"],
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn any_argument_is_one_literal_word(arg in hostile(), other in "[^\\x00]{0,20}") {
            let line = command(&["input", "text", &arg, &other]).unwrap();
            let words = split_words(line.as_str()).unwrap();
            prop_assert_eq!(words, vec!["input".to_string(), "text".to_string(), arg, other]);
        }

        #[test]
        fn ten_thousand_characters(arg in "[^\\x00]{10000}") {
            let line = command(&[&arg]).unwrap();
            prop_assert_eq!(split_words(line.as_str()).unwrap(), vec![arg]);
        }
    }
}
