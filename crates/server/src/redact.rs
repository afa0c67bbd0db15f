//! What tool arguments look like in the logs: sensitive values replaced, long strings cut.
//!
//! Keys are matched case-insensitively with `-`/`_` ignored, so `apiKey`, `api_key`,
//! `API-KEY` and `apikey` are all caught, at any depth. Strings longer than
//! [`MAX_LOGGED_CHARS`] keep their first characters and a `…N more` marker, so a
//! base64 image or a 10 000-character text never fills a log.

use serde_json::{Map, Value};

/// Longest string kept whole in a log line.
pub(crate) const MAX_LOGGED_CHARS: usize = 300;

const SENSITIVE: &[&str] = &[
    "authorization",
    "token",
    "accesstoken",
    "apikey",
    "password",
    "secret",
    "cookie",
    "refreshtoken",
    "clientsecret",
    "privatekey",
];

fn is_sensitive(key: &str) -> bool {
    let norm: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    SENSITIVE.contains(&norm.as_str())
}

/// A copy of `v` fit for a log line.
pub(crate) fn for_log(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(cut(s)),
        Value::Array(a) => Value::Array(a.iter().map(for_log).collect()),
        Value::Object(o) => {
            let media = matches!(
                o.get("type").and_then(Value::as_str),
                Some("image" | "audio")
            );
            let mut out = Map::with_capacity(o.len());
            for (k, x) in o {
                let shown = if is_sensitive(k) {
                    Value::String("[redacted]".into())
                } else if media && k == "data" {
                    Value::String(format!(
                        "[{} bytes of base64]",
                        x.as_str().map(str::len).unwrap_or(0)
                    ))
                } else {
                    for_log(x)
                };
                out.insert(k.clone(), shown);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn cut(s: &str) -> String {
    let n = s.chars().count();
    if n <= MAX_LOGGED_CHARS {
        return s.to_string();
    }
    let head: String = s.chars().take(MAX_LOGGED_CHARS).collect();
    format!("{head}…{} more", n - MAX_LOGGED_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redacts_every_listed_key_at_any_depth() {
        let keys = [
            "authorization",
            "Authorization",
            "token",
            "TOKEN",
            "access_token",
            "accessToken",
            "apiKey",
            "api_key",
            "apikey",
            "API-KEY",
            "password",
            "Password",
            "secret",
            "SECRET",
        ];
        for k in keys {
            let v = json!({"device": "d", "nested": [{"deeper": {k: "hunter2"}}], k: "hunter2"});
            let logged = for_log(&v).to_string();
            assert!(!logged.contains("hunter2"), "{k}: {logged}");
            assert!(logged.contains("[redacted]"), "{k}");
            assert!(logged.contains("\"device\":\"d\""));
        }
        // Keys that merely contain a word stay (a `tokens` count, `secretary`).
        let v = json!({"tokens": 5, "secretary": "x"});
        assert_eq!(for_log(&v), v);
    }

    #[test]
    fn cuts_long_strings_and_never_logs_image_bytes() {
        let long = "a".repeat(1000);
        let v = json!({"text": long, "content": [{"type": "image", "data": "QUJD".repeat(100), "mimeType": "image/jpeg"}]});
        let logged = for_log(&v);
        let t = logged["text"].as_str().unwrap();
        assert!(t.ends_with("…700 more"), "{t}");
        assert_eq!(t.chars().count(), 300 + "…700 more".chars().count());
        assert_eq!(logged["content"][0]["data"], "[400 bytes of base64]");
        assert_eq!(logged["content"][0]["mimeType"], "image/jpeg");
    }
}
