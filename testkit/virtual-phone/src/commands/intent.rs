//! The intent of an `am start` command line, read as AOSP's `Intent.parseCommandArgs`
//! reads it (`core/java/android/content/Intent.java`): `-a`, `-d`, `-c`, `-n`, typed
//! extras (`--es`, `--ei`, `--el`, `--ez`, `--ef`, `--eu`, `--esn`), and a last bare
//! argument that is a URI when it holds `:`, a component when it holds `/`, else the
//! package the intent is limited to (`setPackage`).

use super::*;
use crate::state::Extra;

/// One `am start`'s intent and its own options.
#[derive(Debug, Default)]
pub(super) struct AmIntent {
    pub component: Option<String>,
    pub action: Option<String>,
    pub data: Option<String>,
    pub categories: Vec<String>,
    pub package: Option<String>,
    pub extras: BTreeMap<String, Extra>,
}

impl AmIntent {
    /// Reads `args`; `Err` with the exception line `am` would print for a bad value.
    pub(super) fn parse(args: &[String]) -> Result<AmIntent, String> {
        let mut i = AmIntent::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut next = || it.next().cloned().unwrap_or_default();
            match a.as_str() {
                "-n" => i.component = Some(next()),
                "-a" => i.action = Some(next()),
                "-d" => i.data = Some(next()),
                "-c" => i.categories.push(next()),
                "-p" => i.package = Some(next()),
                "--es" | "--eu" => {
                    let (k, v) = (next(), next());
                    i.extras.insert(k, Extra::String(v));
                }
                "--esn" => {
                    i.extras.insert(next(), Extra::String(String::new()));
                }
                "--ei" => {
                    let (k, v) = (next(), next());
                    i.extras
                        .insert(k, Extra::Int(v.parse().map_err(|_| number_error(&v))?));
                }
                "--el" => {
                    let (k, v) = (next(), next());
                    i.extras
                        .insert(k, Extra::Long(v.parse().map_err(|_| number_error(&v))?));
                }
                "--ef" => {
                    let (k, v) = (next(), next());
                    i.extras
                        .insert(k, Extra::Float(v.parse().map_err(|_| number_error(&v))?));
                }
                "--ez" => {
                    // "true"/"t" and "false"/"f" (any case), else a number: non-zero is true.
                    let (k, v) = (next(), next());
                    let b =
                        match v.to_ascii_lowercase().as_str() {
                            "true" | "t" => true,
                            "false" | "f" => false,
                            other => other.parse::<i64>().map_err(|_| {
                                format!(
                                    "java.lang.IllegalArgumentException: Invalid boolean value: {v}"
                                )
                            })? != 0,
                        };
                    i.extras.insert(k, Extra::Bool(b));
                }
                "-t" | "-f" | "--ecn" | "--display" | "--windowingMode" | "-P"
                | "--start-profiler" | "-R" | "--user" => {
                    next();
                }
                s if s.starts_with('-') => {}
                s if s.contains(':') => i.data = Some(s.to_string()),
                s if s.contains('/') => i.component = Some(s.to_string()),
                s => i.package = Some(s.to_string()),
            }
        }
        Ok(i)
    }

    /// `Intent.toShortString` as `am start` prints it after `Starting: `.
    pub(super) fn describe(&self) -> String {
        let mut desc = Vec::new();
        if let Some(a) = &self.action {
            desc.push(format!("act={a}"));
        }
        if !self.categories.is_empty() {
            desc.push(format!("cat=[{}]", self.categories.join(",")));
        }
        if let Some(d) = &self.data {
            // Only the scheme and authority are shown (`Uri.toSafeString`).
            let redacted = match d.find("://") {
                Some(i) => match d[i + 3..].find('/') {
                    Some(j) => format!("{}/...", &d[..i + 3 + j]),
                    None => d.clone(),
                },
                None => d.clone(),
            };
            desc.push(format!("dat={redacted}"));
        }
        if let Some(p) = &self.package {
            desc.push(format!("pkg={p}"));
        }
        if let Some(c) = &self.component {
            desc.push(format!("cmp={c}"));
        }
        if !self.extras.is_empty() {
            desc.push("(has extras)".into());
        }
        format!("Intent {{ {} }}", desc.join(" "))
    }

    /// What the started activity receives.
    pub(super) fn started(&self) -> StartedIntent {
        StartedIntent {
            action: self.action.clone(),
            data: self.data.clone(),
            extras: self.extras.clone(),
        }
    }
}

fn number_error(v: &str) -> String {
    format!("java.lang.NumberFormatException: For input string: \"{v}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn extras_are_typed_and_a_bare_last_word_is_the_package() {
        let i = AmIntent::parse(&args(&[
            "-a",
            "android.intent.action.VIEW",
            "-d",
            "notes://new/x",
            "--es",
            "user",
            "ada lovelace",
            "--ei",
            "n",
            "3",
            "--el",
            "big",
            "5000000000",
            "--ez",
            "on",
            "false",
            "--ef",
            "r",
            "0.25",
            "com.example.notes",
        ]))
        .unwrap();
        assert_eq!(i.package.as_deref(), Some("com.example.notes"));
        assert_eq!(i.extras["user"], Extra::String("ada lovelace".into()));
        assert_eq!(i.extras["n"], Extra::Int(3));
        assert_eq!(i.extras["big"], Extra::Long(5_000_000_000));
        assert_eq!(i.extras["on"], Extra::Bool(false));
        assert_eq!(i.extras["r"], Extra::Float(0.25));
        assert_eq!(
            i.describe(),
            "Intent { act=android.intent.action.VIEW dat=notes://new/... pkg=com.example.notes (has extras) }"
        );
        let e = AmIntent::parse(&args(&["--ei", "n", "x"])).unwrap_err();
        assert!(e.contains("NumberFormatException"), "{e}");
    }
}
