//! Property tests: `decode(encode(x)) == x`, and encoded output contains no term, for strings
//! and JSON values built from the pieces most likely to confuse the scanner.
//!
//! The term check is a naive, independent re-implementation: fold each char (ASCII lowercase,
//! `ſ` → s, Kelvin sign → k), then `str::contains` for every spelling.

use mcp_payload_filter::Filter;
use proptest::prelude::*;
use serde_json::{Map, Value};

mod common;
use common::{ASCII, CHINESE, PAIRS};

fn naive_contains_term(text: &str) -> bool {
    let folded: String = text
        .chars()
        .map(|c| match c {
            '\u{017F}' => 's',
            '\u{212A}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    ASCII.iter().any(|t| folded.contains(t))
        || CHINESE.iter().any(|t| folded.contains(t))
        || PAIRS.iter().any(|(a, b)| {
            ["-", "_", " "]
                .iter()
                .any(|sep| folded.contains(&format!("{a}{sep}{b}")))
        })
}

/// Pieces that exercise terms, separators, the token prefix and its fragments, hex, CJK and
/// arbitrary Unicode, with random case applied to ASCII letters.
fn piece() -> impl Strategy<Value = String> {
    let term = prop_oneof![
        proptest::sample::select(ASCII.to_vec()).prop_map(str::to_owned),
        proptest::sample::select(CHINESE.to_vec()).prop_map(str::to_owned),
        (
            proptest::sample::select(PAIRS.to_vec()),
            proptest::sample::select(vec!["", "-", "_", " ", "--", "\t"])
        )
            .prop_map(|((a, b), sep)| format!("{a}{sep}{b}")),
        // Prefixes of terms, so that near-misses and overlaps are common.
        (proptest::sample::select(ASCII.to_vec()), 1usize..8)
            .prop_map(|(t, n)| t[..n.min(t.len())].to_owned()),
    ];
    let fragment = proptest::sample::select(vec![
        "_",
        "__",
        "___",
        "__mcp",
        "__mcp_ref",
        "ref_",
        "_ref_",
        "__mcp_ref_",
        "__MCP_REF_",
        "mcp_ref_",
        "ſ",
        "\u{212A}",
        "ı",
        "İ",
        "-",
        " ",
        ".",
    ])
    .prop_map(str::to_owned);
    let hex = "[0-9a-fA-F]{1,9}";
    let cjk = "[\u{4e00}-\u{9fff}]{1,3}";
    let any = any::<String>().prop_map(|s| s.chars().take(6).collect::<String>());
    prop_oneof![
        4 => term,
        4 => fragment,
        2 => hex.prop_map(String::from),
        1 => cjk.prop_map(String::from),
        1 => any,
    ]
}

fn random_case(s: String, flips: u64) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            if flips >> (i % 64) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

fn text() -> impl Strategy<Value = String> {
    (proptest::collection::vec(piece(), 0..12), any::<u64>())
        .prop_map(|(pieces, flips)| random_case(pieces.concat(), flips))
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::String),
        Just(Value::String("image".into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let key = prop_oneof![
            3 => text(),
            1 => proptest::sample::select(vec!["type", "data", "blob", "uri", "_meta"]).prop_map(str::to_owned),
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key, inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Every string and key, skipping the members the walk deliberately leaves verbatim.
fn assert_no_term_in_value(v: &Value) {
    match v {
        Value::String(s) => assert!(!naive_contains_term(s), "term in {s:?}"),
        Value::Array(a) => a.iter().for_each(assert_no_term_in_value),
        Value::Object(m) => {
            let media =
                matches!(m.get("type"), Some(Value::String(t)) if t == "image" || t == "audio");
            let resource = matches!(m.get("uri"), Some(Value::String(_)));
            for (k, v) in m {
                assert!(!naive_contains_term(k), "term in key {k:?}");
                if (media && k == "data") || (resource && k == "blob") {
                    continue;
                }
                assert_no_term_in_value(v);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

proptest! {
    #[test]
    fn text_round_trips_and_hides_terms(s in text()) {
        let f = Filter::global();
        let encoded = f.encode_str(&s);
        prop_assert!(!naive_contains_term(&encoded), "term in {:?} (from {:?})", encoded, s);
        prop_assert!(!f.contains_term(&encoded));
        prop_assert_eq!(f.decode_str(&encoded), s.as_str());
        // The crate's own detector agrees with the naive one.
        prop_assert_eq!(f.contains_term(&s), naive_contains_term(&s));
    }

    #[test]
    fn arbitrary_unicode_round_trips(s in any::<String>()) {
        let f = Filter::global();
        let encoded = f.encode_str(&s);
        prop_assert!(!naive_contains_term(&encoded));
        prop_assert_eq!(f.decode_str(&encoded), s.as_str());
    }

    #[test]
    fn decoding_never_panics_and_is_identity_without_prefix(s in text()) {
        let decoded = Filter::global().decode_str(&s);
        if !s.to_ascii_lowercase().contains("__mcp_ref_") {
            prop_assert_eq!(decoded, s.as_str());
        }
    }

    #[test]
    fn values_round_trip_and_hide_terms(v in json_value()) {
        let f = Filter::global();
        let mut encoded = v.clone();
        f.encode_value(&mut encoded);
        assert_no_term_in_value(&encoded);
        let mut decoded = encoded.clone();
        prop_assert_eq!(f.decode_value(&mut decoded), Ok(()));
        prop_assert_eq!(decoded, v);
    }

    #[test]
    fn messages_round_trip(id in text(), method in text(), params in json_value(), result in json_value()) {
        let f = Filter::global();
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params, "result": result});
        let mut encoded = msg.clone();
        f.encode_message(&mut encoded);
        prop_assert_eq!(&encoded["id"], &msg["id"]);
        prop_assert_eq!(&encoded["method"], &msg["method"]);
        assert_no_term_in_value(&encoded["result"]);
        let mut batch = Value::Array(vec![encoded.clone(), encoded]);
        prop_assert_eq!(f.decode_message(&mut batch), Ok(()));
        prop_assert_eq!(&batch[0], &msg);
        prop_assert_eq!(&batch[1], &msg);
    }
}
