//! Writing an OpenStep (NeXTSTEP) ASCII plist the way `-[NSDictionary description]`
//! does, which is what `simctl listapps` prints: keys sorted, four-space indent, plain
//! alphanumeric strings unquoted, everything else quoted, non-ASCII as `\Uxxxx`, nested
//! containers opened after ` =         `.

/// A plist value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum P {
    Str(String),
    Dict(Vec<(String, P)>),
    Arr(Vec<P>),
}

fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return s.to_string();
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\U{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

fn go(out: &mut String, v: &P, depth: usize) {
    let pad = "    ".repeat(depth + 1);
    let close = "    ".repeat(depth);
    match v {
        P::Str(s) => out.push_str(&quote(s)),
        P::Dict(pairs) => {
            let mut sorted: Vec<&(String, P)> = pairs.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            out.push_str("{\n");
            for (k, it) in sorted {
                out.push_str(&pad);
                out.push_str(&quote(k));
                out.push_str(" = ");
                if !matches!(it, P::Str(_)) {
                    out.push_str(&pad);
                }
                go(out, it, depth + 1);
                out.push_str(";\n");
            }
            out.push_str(&close);
            out.push('}');
        }
        P::Arr(items) => {
            out.push_str("(\n");
            for (i, it) in items.iter().enumerate() {
                out.push_str(&pad);
                go(out, it, depth + 1);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&close);
            out.push(')');
        }
    }
}

/// The description text of a top-level dictionary, with a final newline.
pub(crate) fn description(v: &P) -> String {
    let mut out = String::new();
    go(&mut out, v, 0);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_simctl() {
        let v = P::Dict(vec![(
            "com.apple.Bridge".into(),
            P::Dict(vec![
                ("CFBundleName".into(), P::Str("Watch".into())),
                ("ApplicationType".into(), P::Str("System".into())),
                ("CFBundleVersion".into(), P::Str("1.0".into())),
                ("GroupContainers".into(), P::Dict(vec![])),
                (
                    "SBAppTags".into(),
                    P::Arr(vec![P::Str("watch-companion".into())]),
                ),
                ("X".into(), P::Str("a \"b\" 示".into())),
            ]),
        )]);
        assert_eq!(
            description(&v),
            "{\n    \"com.apple.Bridge\" =     {\n        ApplicationType = System;\n        CFBundleName = Watch;\n        CFBundleVersion = \"1.0\";\n        GroupContainers =         {\n        };\n        SBAppTags =         (\n            \"watch-companion\"\n        );\n        X = \"a \\\"b\\\" \\U793a\";\n    };\n}\n"
        );
    }
}
