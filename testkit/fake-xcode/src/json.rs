//! An ordered JSON value and the three ways the real tools print it:
//! simctl's pretty form (`"key" : value`, two-space indent, `\/`), idb companion's
//! compact form, and Python's `json.dumps` (`", "` and `": "`, ASCII-only).

use std::fmt::Write;

/// JSON with keys kept in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum J {
    Null,
    Bool(bool),
    Num(f64),
    Int(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    pub(crate) fn s(v: impl Into<String>) -> J {
        J::Str(v.into())
    }

    pub(crate) fn opt(v: Option<impl Into<String>>) -> J {
        v.map(|s| J::Str(s.into())).unwrap_or(J::Null)
    }

    pub(crate) fn obj(pairs: Vec<(&str, J)>) -> J {
        J::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

fn num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[derive(Clone, Copy)]
enum Style {
    Simctl,
    Compact,
    Python,
}

fn string(out: &mut String, s: &str, style: Style) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if matches!(style, Style::Simctl) => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if !c.is_ascii() && matches!(style, Style::Python) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn flat(out: &mut String, v: &J, style: Style) {
    let (comma, colon) = match style {
        Style::Python => (", ", ": "),
        _ => (",", ":"),
    };
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => out.push_str(&num(*n)),
        J::Int(i) => out.push_str(&i.to_string()),
        J::Str(s) => string(out, s, style),
        J::Arr(items) => {
            out.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                flat(out, it, style);
            }
            out.push(']');
        }
        J::Obj(pairs) => {
            out.push('{');
            for (i, (k, it)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                string(out, k, style);
                out.push_str(colon);
                flat(out, it, style);
            }
            out.push('}');
        }
    }
}

/// idb companion's one-line compact JSON.
pub(crate) fn compact(v: &J) -> String {
    let mut out = String::new();
    flat(&mut out, v, Style::Compact);
    out
}

/// Python `json.dumps` with default separators and `ensure_ascii`.
pub(crate) fn python(v: &J) -> String {
    let mut out = String::new();
    flat(&mut out, v, Style::Python);
    out
}

/// simctl's pretty JSON (NSJSONSerialization): `"key" : value`, two-space indent,
/// `/` escaped, and an empty array printed as `[\n\n<indent>]`.
pub(crate) fn simctl(v: &J) -> String {
    fn go(out: &mut String, v: &J, depth: usize) {
        let pad = "  ".repeat(depth + 1);
        let close = "  ".repeat(depth);
        match v {
            J::Arr(items) if items.is_empty() => {
                out.push_str("[\n\n");
                out.push_str(&close);
                out.push(']');
            }
            J::Arr(items) => {
                out.push_str("[\n");
                for (i, it) in items.iter().enumerate() {
                    out.push_str(&pad);
                    go(out, it, depth + 1);
                    if i + 1 < items.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                out.push_str(&close);
                out.push(']');
            }
            J::Obj(pairs) if pairs.is_empty() => out.push_str("{\n\n}"),
            J::Obj(pairs) => {
                out.push_str("{\n");
                for (i, (k, it)) in pairs.iter().enumerate() {
                    out.push_str(&pad);
                    string(out, k, Style::Simctl);
                    out.push_str(" : ");
                    go(out, it, depth + 1);
                    if i + 1 < pairs.len() {
                        out.push(',');
                    }
                    out.push('\n');
                }
                out.push_str(&close);
                out.push('}');
            }
            other => flat(out, other, Style::Simctl),
        }
    }
    let mut out = String::new();
    go(&mut out, v, 0);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_styles() {
        let v = J::obj(vec![
            ("path", J::s("/a/b")),
            ("n", J::Num(120.66)),
            ("i", J::Num(264.0)),
            ("name", J::s("示例")),
            ("e", J::Arr(vec![])),
        ]);
        assert_eq!(
            compact(&v),
            r#"{"path":"/a/b","n":120.66,"i":264,"name":"示例","e":[]}"#
        );
        assert_eq!(
            python(&v),
            r#"{"path": "/a/b", "n": 120.66, "i": 264, "name": "\u793a\u4f8b", "e": []}"#
        );
        assert_eq!(
            simctl(&v),
            "{\n  \"path\" : \"\\/a\\/b\",\n  \"n\" : 120.66,\n  \"i\" : 264,\n  \"name\" : \"示例\",\n  \"e\" : [\n\n  ]\n}\n"
        );
    }
}
