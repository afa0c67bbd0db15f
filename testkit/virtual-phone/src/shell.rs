//! How the phone's `sh` (mksh) splits a command line, and which lines count as injection.
//!
//! The splitter follows POSIX/mksh quoting: single quotes are literal, double quotes keep
//! `\$`, `` \` ``, `\"`, `\\` escapes and expand `$NAME`, an unquoted backslash quotes the next
//! character, and unquoted `;`, `&`, `&&`, `|`, `||`, newline, `(`, `)`, `<`, `>` are operators.
//! `$( )` and backticks are command substitutions.
//!
//! **Nothing is ever executed from a substitution or after an operator.** A line is flagged as an
//! injection attempt when it contains, unquoted:
//! - any list or pipeline operator (`;`, `&`, `&&`, `||`, `|`, newline) or a subshell `( )` —
//!   except the one form adb itself sends for `adb logcat`:
//!   `export ANDROID_LOG_TAGS="…"; exec logcat …`, and the two hashes a settle check sends,
//!   `screencap [-p] | md5sum` and `dumpsys SurfaceFlinger --frametimeline -all | md5sum`
//!   (or `| sha1sum`), all with no redirection;
//! - a command substitution `$( )`, `$(( ))` or `` ` ` `` (also inside double quotes, where sh
//!   would run it too);
//! - a redirection other than the data-free forms `</dev/null`, `>/dev/null`, `2>/dev/null`,
//!   `>>/dev/null` and the fd duplications `2>&1` / `>&2` (adb install sends `</dev/null`);
//! - a here-document (`<<`).
//!
//! A flagged line is recorded with its split argv and is not run at all, so the phone's state
//! cannot change through it.

use std::collections::BTreeMap;

mod glob;

pub(crate) use glob::glob_match;

/// A redirection attached to a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// The explicit file descriptor (`2` in `2>&1`), if any.
    pub fd: Option<u32>,
    /// The operator: `<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, `<<`.
    pub op: String,
    /// The target word after quote removal.
    pub target: String,
}

/// One simple command: its argv and redirections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SimpleCommand {
    /// The words after splitting and quote removal (before pathname expansion).
    pub argv: Vec<String>,
    /// The command's redirections, in order.
    pub redirects: Vec<Redirect>,
    /// Parallel to `argv`: whether the word had an unquoted `*`, `?` or `[` (a pattern the
    /// shell expands against the file system; it stays literal when nothing matches).
    pub globs: Vec<bool>,
}

/// A whole command line as the shell split it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ParsedLine {
    /// Simple commands in order.
    pub commands: Vec<SimpleCommand>,
    /// Operators between/after commands, in order (`;`, `&&`, `||`, `|`, `&`, `\n`).
    pub operators: Vec<String>,
    /// True when the line must not run (see the module doc).
    pub injection: bool,
    /// Why it was flagged, one entry per finding.
    pub reasons: Vec<String>,
    /// A syntax error (unterminated quote, …): the line is not run.
    pub error: Option<String>,
}

impl ParsedLine {
    /// The argv of every simple command.
    pub(crate) fn argvs(&self) -> Vec<Vec<String>> {
        self.commands.iter().map(|c| c.argv.clone()).collect()
    }
}

/// Variables the splitter expands for `$NAME` / `${NAME}`.
pub(crate) fn default_env() -> BTreeMap<String, String> {
    [
        ("HOME", "/"),
        ("PATH", "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin"),
        ("SHELL", "/bin/sh"),
        ("USER", "shell"),
        ("HOSTNAME", "localhost"),
        ("TMPDIR", "/data/local/tmp"),
        ("EXTERNAL_STORAGE", "/sdcard"),
        ("ANDROID_DATA", "/data"),
        ("ANDROID_ROOT", "/system"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

struct Lexer<'a> {
    chars: Vec<char>,
    pos: usize,
    env: &'a BTreeMap<String, String>,
    line: ParsedLine,
    current: SimpleCommand,
    glob_word: bool,
}

/// Splits `input` the way the device shell would, with the default environment.
#[cfg(test)]
pub(crate) fn parse(input: &str) -> ParsedLine {
    parse_with_env(input, &default_env())
}

/// Splits `input`, expanding variables from `env`.
pub(crate) fn parse_with_env(input: &str, env: &BTreeMap<String, String>) -> ParsedLine {
    let mut lx = Lexer {
        chars: input.chars().collect(),
        pos: 0,
        env,
        line: ParsedLine::default(),
        current: SimpleCommand::default(),
        glob_word: false,
    };
    if let Err(e) = lx.run() {
        lx.line.error = Some(e);
    }
    lx.end_command();
    let mut line = lx.line;
    classify(&mut line);
    nested_shells(&mut line, env);
    line
}

/// Whether `argv` is `sh -c STRING` (the string is run by a nested shell).
pub(crate) fn nested_script(argv: &[String]) -> Option<&str> {
    let shell = matches!(
        argv.first().map(String::as_str),
        Some("sh" | "/system/bin/sh" | "/bin/sh")
    );
    if shell && argv.get(1).map(String::as_str) == Some("-c") {
        argv.get(2).map(String::as_str)
    } else {
        None
    }
}

/// A `sh -c STRING` runs STRING through the shell again: its metacharacters count too.
fn nested_shells(line: &mut ParsedLine, env: &BTreeMap<String, String>) {
    let mut found = Vec::new();
    for cmd in &line.commands {
        if let Some(script) = nested_script(&cmd.argv) {
            let inner = parse_with_env(script, env);
            if inner.injection {
                found.extend(
                    inner
                        .reasons
                        .into_iter()
                        .map(|r| format!("inside sh -c: {r}")),
                );
            }
        }
    }
    if !found.is_empty() {
        line.injection = true;
        line.reasons.extend(found);
    }
}

enum WordEnd {
    Word(String),
    None,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }
    fn flag(&mut self, reason: impl Into<String>) {
        self.line.injection = true;
        self.line.reasons.push(reason.into());
    }

    fn end_command(&mut self) {
        let cmd = std::mem::take(&mut self.current);
        if !cmd.argv.is_empty() || !cmd.redirects.is_empty() {
            self.line.commands.push(cmd);
        }
    }

    fn operator(&mut self, op: &str) {
        self.end_command();
        self.line.operators.push(op.to_string());
    }

    fn run(&mut self) -> Result<(), String> {
        loop {
            // Skip blanks.
            while matches!(self.peek(), Some(' ' | '\t')) {
                self.pos += 1;
            }
            let Some(c) = self.peek() else {
                return Ok(());
            };
            match c {
                '#' => {
                    // Comment to end of line.
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                '\n' => {
                    self.pos += 1;
                    self.operator("\n");
                }
                ';' => {
                    self.pos += 1;
                    self.operator(";");
                }
                '&' => {
                    if self.peek_at(1) == Some('&') {
                        self.pos += 2;
                        self.operator("&&");
                    } else {
                        self.pos += 1;
                        self.operator("&");
                    }
                }
                '|' => {
                    if self.peek_at(1) == Some('|') {
                        self.pos += 2;
                        self.operator("||");
                    } else {
                        self.pos += 1;
                        self.operator("|");
                    }
                }
                '(' | ')' => {
                    self.pos += 1;
                    self.flag(format!("unquoted `{c}` (subshell)"));
                    self.operator(&c.to_string());
                }
                '<' | '>' => self.redirect(None)?,
                _ => {
                    let start = self.pos;
                    match self.word()? {
                        WordEnd::Word(w) => {
                            // An all-digit unquoted word glued to `<`/`>` is a file descriptor.
                            let raw: String = self.chars[start..self.pos].iter().collect();
                            if matches!(self.peek(), Some('<' | '>'))
                                && !raw.is_empty()
                                && raw.chars().all(|c| c.is_ascii_digit())
                            {
                                self.redirect(raw.parse().ok())?;
                            } else {
                                self.current.argv.push(w);
                                self.current.globs.push(self.glob_word);
                            }
                        }
                        WordEnd::None => {}
                    }
                }
            }
        }
    }

    fn redirect(&mut self, fd: Option<u32>) -> Result<(), String> {
        let c = self.peek().unwrap_or('>');
        self.pos += 1;
        let mut op = c.to_string();
        match (c, self.peek()) {
            ('>', Some('>')) | ('>', Some('|')) | ('<', Some('>')) | ('<', Some('<')) => {
                op.push(self.peek().unwrap_or_default());
                self.pos += 1;
            }
            (_, Some('&')) => {
                op.push('&');
                self.pos += 1;
            }
            _ => {}
        }
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
        let target = match self.word()? {
            WordEnd::Word(w) => w,
            WordEnd::None => {
                return Err(format!("syntax error: missing target for `{op}`"));
            }
        };
        self.current.redirects.push(Redirect { fd, op, target });
        Ok(())
    }

    /// Reads one word starting at the cursor, performing quote removal and expansion.
    fn word(&mut self) -> Result<WordEnd, String> {
        let mut out = String::new();
        let mut any = false;
        self.glob_word = false;
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
                '\'' => {
                    any = true;
                    self.pos += 1;
                    loop {
                        match self.peek() {
                            None => return Err("syntax error: unterminated quoted string".into()),
                            Some('\'') => {
                                self.pos += 1;
                                break;
                            }
                            Some(ch) => {
                                out.push(ch);
                                self.pos += 1;
                            }
                        }
                    }
                }
                '"' => {
                    any = true;
                    self.pos += 1;
                    loop {
                        match self.peek() {
                            None => return Err("syntax error: unterminated quoted string".into()),
                            Some('"') => {
                                self.pos += 1;
                                break;
                            }
                            Some('\\') => match self.peek_at(1) {
                                Some(e @ ('$' | '`' | '"' | '\\')) => {
                                    out.push(e);
                                    self.pos += 2;
                                }
                                Some('\n') => self.pos += 2,
                                _ => {
                                    out.push('\\');
                                    self.pos += 1;
                                }
                            },
                            Some('$') => self.dollar(&mut out, true)?,
                            Some('`') => self.backtick(&mut out)?,
                            Some(ch) => {
                                out.push(ch);
                                self.pos += 1;
                            }
                        }
                    }
                }
                '\\' => {
                    any = true;
                    match self.peek_at(1) {
                        Some('\n') => self.pos += 2,
                        Some(e) => {
                            out.push(e);
                            self.pos += 2;
                        }
                        None => {
                            out.push('\\');
                            self.pos += 1;
                        }
                    }
                }
                '$' => {
                    any = true;
                    self.dollar(&mut out, false)?;
                }
                '`' => {
                    any = true;
                    self.backtick(&mut out)?;
                }
                _ => {
                    any = true;
                    if matches!(c, '*' | '?' | '[') {
                        self.glob_word = true;
                    }
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(if any {
            WordEnd::Word(out)
        } else {
            WordEnd::None
        })
    }

    fn backtick(&mut self, out: &mut String) -> Result<(), String> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err("syntax error: unterminated backquote".into()),
                Some('\\') => self.pos += 2,
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => self.pos += 1,
            }
        }
        let text: String = self.chars[start..self.pos.min(self.chars.len())]
            .iter()
            .collect();
        self.flag(format!("command substitution {text}"));
        out.push_str(&text);
        Ok(())
    }

    fn dollar(&mut self, out: &mut String, _quoted: bool) -> Result<(), String> {
        let start = self.pos;
        match self.peek_at(1) {
            Some('(') => {
                // $( … ) or $(( … )): scan to the matching parenthesis, honouring quotes.
                self.pos += 2;
                let mut depth = 1;
                let mut quote: Option<char> = None;
                while depth > 0 {
                    let Some(c) = self.peek() else {
                        return Err("syntax error: unterminated $(".into());
                    };
                    self.pos += 1;
                    match (quote, c) {
                        (Some(q), c) if c == q => quote = None,
                        (Some(_), '\\') => self.pos += 1,
                        (Some(_), _) => {}
                        (None, '\'' | '"') => quote = Some(c),
                        (None, '\\') => self.pos += 1,
                        (None, '(') => depth += 1,
                        (None, ')') => depth -= 1,
                        _ => {}
                    }
                }
                let text: String = self.chars[start..self.pos.min(self.chars.len())]
                    .iter()
                    .collect();
                self.flag(format!("command substitution {text}"));
                out.push_str(&text);
            }
            Some('{') => {
                let close = self.chars[self.pos..].iter().position(|&c| c == '}');
                let Some(close) = close else {
                    return Err("syntax error: missing }".into());
                };
                let name: String = self.chars[self.pos + 2..self.pos + close].iter().collect();
                self.pos += close + 1;
                out.push_str(self.env.get(&name).map(String::as_str).unwrap_or(""));
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                let mut name = String::new();
                while let Some(c) = self.peek() {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        name.push(c);
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                out.push_str(self.env.get(&name).map(String::as_str).unwrap_or(""));
            }
            Some('?') => {
                self.pos += 2;
                out.push('0');
            }
            Some('$') => {
                self.pos += 2;
                out.push_str("4242");
            }
            Some(c) if c.is_ascii_digit() || c == '#' || c == '@' || c == '*' || c == '!' => {
                self.pos += 2;
                if c == '#' {
                    out.push('0');
                }
            }
            _ => {
                out.push('$');
                self.pos += 1;
            }
        }
        Ok(())
    }
}

/// Applies the injection rules to a split line (see the module doc).
fn classify(line: &mut ParsedLine) {
    let logcat_prefix = line.operators.len() == 1
        && line.operators[0] == ";"
        && line.commands.len() == 2
        && line.commands[0].argv.len() == 2
        && line.commands[0].argv[0] == "export"
        && line.commands[0].argv[1].starts_with("ANDROID_LOG_TAGS=")
        && line.commands[0].redirects.is_empty()
        && line.commands[1].argv.first().map(String::as_str) == Some("exec")
        && line.commands[1].argv.get(1).map(String::as_str) == Some("logcat");
    let frame_hash = crate::commands::is_frame_hash(line);
    if !logcat_prefix && !frame_hash {
        let ops: Vec<String> = line
            .operators
            .iter()
            .filter(|o| *o != "(" && *o != ")")
            .cloned()
            .collect();
        for op in ops {
            let shown = if op == "\n" {
                "newline".to_string()
            } else {
                op
            };
            line.injection = true;
            line.reasons.push(format!("unquoted `{shown}`"));
        }
    }
    let mut bad = Vec::new();
    for cmd in &line.commands {
        for r in &cmd.redirects {
            let benign = match r.op.as_str() {
                "<" => matches!(r.fd, None | Some(0)) && r.target == "/dev/null",
                ">" | ">>" | ">|" => {
                    matches!(r.fd, None | Some(1) | Some(2)) && r.target == "/dev/null"
                }
                ">&" => {
                    matches!(r.fd, None | Some(1) | Some(2))
                        && matches!(r.target.as_str(), "1" | "2")
                }
                _ => false,
            };
            if !benign {
                let fd = r.fd.map(|f| f.to_string()).unwrap_or_default();
                bad.push(format!("redirection `{fd}{}{}`", r.op, r.target));
            }
        }
    }
    if !bad.is_empty() {
        line.injection = true;
        line.reasons.extend(bad);
    }
}

/// Quotes one argument for the device shell the way adb's `escape_arg` does: wrap in single
/// quotes, and write an embedded `'` as `'\''`.
#[cfg(test)]
pub(crate) fn quote(arg: &str) -> String {
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<Vec<String>> {
        parse(s).argvs()
    }
    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn plain_words() {
        assert_eq!(argv("echo a  b\tc"), vec![v(&["echo", "a", "b", "c"])]);
        assert!(!parse("echo a b").injection);
    }

    #[test]
    fn single_and_double_quotes() {
        assert_eq!(
            argv("echo 'a b' \"c d\" e'f'g"),
            vec![v(&["echo", "a b", "c d", "efg"])]
        );
        assert_eq!(argv("echo ''"), vec![v(&["echo", ""])]);
        assert_eq!(
            argv(r#"echo "a\"b" 'it'\''s'"#),
            vec![v(&["echo", "a\"b", "it's"])]
        );
        assert_eq!(
            argv("pm 'install' '/data/local/tmp/a b.apk'"),
            vec![v(&["pm", "install", "/data/local/tmp/a b.apk"])]
        );
        assert_eq!(argv(r#"echo "\q""#), vec![v(&["echo", "\\q"])]);
        // Metacharacters inside quotes are plain text.
        let p = parse("am force-stop 'com.x;reboot' \"a && b | c\" '$(id)' '`id`'");
        assert!(!p.injection, "{:?}", p.reasons);
        assert_eq!(
            p.argvs(),
            vec![v(&[
                "am",
                "force-stop",
                "com.x;reboot",
                "a && b | c",
                "$(id)",
                "`id`"
            ])]
        );
    }

    #[test]
    fn backslash_escapes() {
        let p = parse(r"input text hello\ world\;\ \$HOME\&\|\(\)");
        assert!(!p.injection, "{:?}", p.reasons);
        assert_eq!(
            p.argvs(),
            vec![v(&["input", "text", "hello world; $HOME&|()"])]
        );
        assert_eq!(argv(r"echo a\\b"), vec![v(&["echo", r"a\b"])]);
    }

    #[test]
    fn variables_expand() {
        assert_eq!(
            argv("echo $HOME ${TMPDIR} \"$USER\" '$HOME'"),
            vec![v(&["echo", "/", "/data/local/tmp", "shell", "$HOME"])]
        );
        assert!(!parse("echo $HOME").injection);
    }

    #[test]
    fn operators_are_injection() {
        for line in [
            "am force-stop com.x;reboot",
            "echo a && reboot",
            "echo a || reboot",
            "echo a | sh",
            "sleep 1 &",
            "echo a\nreboot",
            "(reboot)",
        ] {
            let p = parse(line);
            assert!(p.injection, "{line} should be flagged");
        }
        let p = parse("am force-stop com.x;reboot");
        assert_eq!(
            p.argvs(),
            vec![v(&["am", "force-stop", "com.x"]), v(&["reboot"])]
        );
    }

    #[test]
    fn substitutions_are_injection() {
        for line in [
            "echo $(id)",
            "echo `id`",
            "echo \"$(id)\"",
            "echo \"`id`\"",
            "am start -d https://e.com/?q=$(reboot)",
            "echo $((1+2))",
        ] {
            assert!(parse(line).injection, "{line} should be flagged");
        }
        let p = parse("echo a$(id)b");
        assert_eq!(p.argvs(), vec![v(&["echo", "a$(id)b"])]);
    }

    #[test]
    fn redirections() {
        let p = parse("rm '/data/local/tmp/x.apk' </dev/null");
        assert!(!p.injection, "{:?}", p.reasons);
        assert_eq!(p.argvs(), vec![v(&["rm", "/data/local/tmp/x.apk"])]);
        assert_eq!(p.commands[0].redirects[0].op, "<");
        for ok in [
            "ls 2>&1",
            "ls 2>/dev/null",
            "ls > /dev/null",
            "ls >/dev/null 2>&1",
        ] {
            assert!(!parse(ok).injection, "{ok}");
        }
        for bad in [
            "echo x > /sdcard/a",
            "cat < /etc/passwd",
            "echo x >>/sdcard/f",
            "cat <<EOF",
            "ls 3>&1",
        ] {
            assert!(parse(bad).injection, "{bad}");
        }
        let p = parse("ls 2>&1");
        assert_eq!(
            p.commands[0].redirects[0],
            Redirect {
                fd: Some(2),
                op: ">&".into(),
                target: "1".into()
            }
        );
    }

    #[test]
    fn adb_logcat_prefix_is_benign() {
        let p = parse("export ANDROID_LOG_TAGS=\"''\"; exec logcat '-d'");
        assert!(!p.injection, "{:?}", p.reasons);
        assert_eq!(
            p.argvs(),
            vec![
                v(&["export", "ANDROID_LOG_TAGS=''"]),
                v(&["exec", "logcat", "-d"])
            ]
        );
        assert!(parse("export ANDROID_LOG_TAGS=\"''\"; reboot").injection);
        assert!(parse("export ANDROID_LOG_TAGS=\"''\"; exec logcat; reboot").injection);
    }

    #[test]
    fn syntax_errors() {
        assert!(parse("echo 'abc").error.is_some());
        assert!(parse("echo \"abc").error.is_some());
        assert!(parse("echo $(abc").error.is_some());
    }

    #[test]
    fn quote_round_trips() {
        for s in [
            "plain",
            "a b",
            "it's",
            "$(id)",
            "`x`;y&&z|w",
            "",
            "ünï €",
            "new\nline",
        ] {
            let p = parse(&format!("echo {}", quote(s)));
            assert!(!p.injection, "{s}");
            assert_eq!(p.argvs(), vec![v(&["echo", s])]);
        }
    }

    #[test]
    fn nested_sh_c_is_checked_too() {
        let p = parse("sh -c 'echo a; reboot'");
        assert!(p.injection);
        assert!(
            p.reasons.iter().any(|r| r.starts_with("inside sh -c")),
            "{:?}",
            p.reasons
        );
        assert!(!parse("sh -c 'echo a b'").injection);
        assert!(parse("sh -c \"sh -c 'id | cat'\"").injection);
    }

    #[test]
    fn globs_are_marked_only_when_unquoted() {
        let p = parse("ls /sdcard/*.png '/sdcard/*.jpg' a\\*b x");
        assert_eq!(p.commands[0].globs, vec![false, true, false, false, false]);
        assert!(!p.injection);
        assert!(glob_match("*.png", "a.png"));
        assert!(!glob_match("*.png", "a.jpg"));
        assert!(glob_match("f?le[0-9]", "file7"));
        assert!(glob_match("[!a]x", "bx"));
        assert!(!glob_match("[!a]x", "ax"));
    }

    #[test]
    fn comments() {
        assert_eq!(argv("echo hi # reboot"), vec![v(&["echo", "hi"])]);
        assert_eq!(argv("echo a#b"), vec![v(&["echo", "a#b"])]);
    }
}
