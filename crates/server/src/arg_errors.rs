//! Argument errors in plain words. A tool's arguments are decoded by serde, whose errors
//! are written for programmers ("invalid type: floating point `1e308`, expected u32",
//! "unknown variant", backticks, no argument name) and print floats in full (309 digits
//! for 1e308). [`plain`] rewords a decoding error for the model: which argument, what it
//! must be (from the tool's input schema), and what was given; [`short_numbers`] writes
//! any number of more than [`MAX_DIGITS`] digits in an error text in exponent form.
//!
//! Not for: checking arguments (serde and the parameter types do that, once); unknown
//! argument names (the tools dispatch refuses those before decoding).

use rmcp::model::Tool;
use serde_json::{Map, Value};

/// The most digits a number keeps in an error text.
const MAX_DIGITS: usize = 20;

/// A decoding error of `tool`'s `args` (serde's text, without rmcp's prefix) in plain
/// words, ending with "Nothing was done."
pub(crate) fn plain(tool: &Tool, args: &Map<String, Value>, serde: &str) -> String {
    let props = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let what = if let Some(field) = between(serde, "missing field `", "`") {
        let about = props
            .get(field)
            .and_then(|p| p.get("description"))
            .and_then(Value::as_str)
            .map(|d| format!(" ({})", d.trim_end_matches('.')))
            .unwrap_or_default();
        format!("{} needs {field}{about}", tool.name)
    } else if let Some((name, want)) = first_mismatch(&props, args) {
        let given = args.get(name).map(shown_value).unwrap_or_default();
        format!("{name} must be {want}; got {given}")
    } else {
        // Our own parameter types' messages are already worded; serde's generic ones
        // lose their backticks.
        serde.replace('`', "")
    };
    let what = what.trim_end_matches('.');
    short_numbers(&format!("Invalid arguments: {what}. Nothing was done."))
}

/// The text between `start` and the next `end` in `s`.
fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = s.find(start)? + start.len();
    let len = s[from..].find(end)?;
    Some(&s[from..from + len])
}

/// The first argument (in the schema's order) whose value is not of its schema's type,
/// or not one of its allowed values, with what it must be in words.
fn first_mismatch<'a>(
    props: &'a Map<String, Value>,
    args: &Map<String, Value>,
) -> Option<(&'a str, String)> {
    props.iter().find_map(|(name, schema)| {
        let v = args.get(name)?;
        mismatch(schema, v).map(|want| (name.as_str(), want))
    })
}

/// What `v` must be for `schema`, when it is not.
fn mismatch(schema: &Value, v: &Value) -> Option<String> {
    let allowed: Vec<&str> = schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|e| e.iter().filter_map(Value::as_str).collect())
        .or_else(|| {
            schema.get("oneOf").and_then(Value::as_array).map(|o| {
                o.iter()
                    .filter_map(|b| b.get("const").and_then(Value::as_str))
                    .collect()
            })
        })
        .unwrap_or_default();
    if !allowed.is_empty() {
        let ok = v.as_str().is_some_and(|s| allowed.contains(&s));
        return (!ok).then(|| format!("one of {}", allowed.join(", ")));
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or(""),
        _ => "",
    };
    let range = |lo: Option<f64>, hi: Option<f64>| match (lo, hi) {
        (Some(lo), Some(hi)) => format!(" from {lo} to {hi}"),
        (Some(lo), None) => format!(" of at least {lo}"),
        (None, Some(hi)) => format!(" of at most {hi}"),
        (None, None) => String::new(),
    };
    let lo = schema.get("minimum").and_then(Value::as_f64);
    let hi = schema.get("maximum").and_then(Value::as_f64);
    let in_range = |n: f64| lo.is_none_or(|lo| n >= lo) && hi.is_none_or(|hi| n <= hi);
    match ty {
        "integer" => {
            let whole = v
                .as_i64()
                .map(|n| n as f64)
                .or(v.as_u64().map(|n| n as f64));
            match whole {
                Some(n) if in_range(n) && n <= u32::MAX as f64 => None,
                _ => Some(format!("a whole number{}", range(lo, hi))),
            }
        }
        // Numbers may come as numeric strings (some models quote them).
        "number" => {
            let n = v
                .as_f64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()));
            match n {
                Some(n) if n.is_finite() => None,
                _ => Some(format!("a number{}", range(lo, hi))),
            }
        }
        "string" => (!v.is_string()).then(|| "text (a JSON string)".to_string()),
        "boolean" => (!v.is_boolean()).then(|| "true or false".to_string()),
        "array" => (!v.is_array()).then(|| "a list (a JSON array)".to_string()),
        "object" => (!v.is_object()).then(|| "an object (a JSON object)".to_string()),
        _ => None,
    }
}

/// A given value for an error text: short, numbers in exponent form when long.
fn shown_value(v: &Value) -> String {
    let s = match v {
        Value::Number(n) => n.as_f64().map(number_text).unwrap_or_else(|| n.to_string()),
        Value::String(s) => mobile_device::excerpt(s),
        Value::Null => "null".to_string(),
        other => {
            let t = other.to_string();
            if t.chars().count() > 60 {
                format!("{}…", t.chars().take(60).collect::<String>())
            } else {
                t
            }
        }
    };
    short_numbers(&s)
}

/// A number as an error text shows it: as written when short, else in exponent form
/// (`1e308`, not its 309 digits).
pub(crate) fn number_text(v: f64) -> String {
    let plain = v.to_string();
    if plain.chars().filter(char::is_ascii_digit).count() > MAX_DIGITS {
        format!("{v:e}")
    } else {
        plain
    }
}

/// `text` with every run of more than [`MAX_DIGITS`] digits (with its fraction, if any)
/// written in exponent form.
pub(crate) fn short_numbers(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        let run = &text[start..i];
        let digits = run.bytes().filter(u8::is_ascii_digit).count();
        match run.parse::<f64>() {
            Ok(v) if digits > MAX_DIGITS => out.push_str(&format!("{v:e}")),
            _ => out.push_str(run),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_numbers_are_written_in_exponent_form() {
        let big = 1e308f64.to_string();
        assert_eq!(big.len(), 309);
        assert_eq!(
            short_numbers(&format!("got `{big}`, expected u32")),
            "got `1e308`, expected u32"
        );
        assert_eq!(short_numbers(&format!("x {}", 1e-300f64)), "x 1e-300");
        assert_eq!(
            short_numbers("tap at 1080, 2400 for 0.5 s"),
            "tap at 1080, 2400 for 0.5 s"
        );
        assert_eq!(number_text(1e308), "1e308");
        assert_eq!(number_text(20000.0), "20000");
    }
}
