//! The reference test list of the filter's specification (its §7, numbered below), adapted to
//! this crate's token format, plus the cases the earlier implementations got wrong or left open
//! (its §8) and the project's own decisions.
//!
//! Expected values are written out or computed by the small independent helpers below, never
//! taken from the code under test.

use std::borrow::Cow;

use mcp_payload_filter::{DecodeError, Filter, enabled_from_env_value};
use serde_json::{Value, json};

fn f() -> &'static Filter {
    Filter::global()
}

/// The token for `text`, computed independently of the crate.
fn token(text: &str) -> String {
    let hex: String = text.bytes().map(|b| format!("{b:02x}")).collect();
    format!("__mcp_ref_{hex}__")
}

fn roundtrip(text: &str) -> String {
    let encoded = f().encode_str(text).into_owned();
    assert_eq!(
        f().decode_str(&encoded),
        text,
        "round trip of {text:?} via {encoded:?}"
    );
    encoded
}

/// No term is found starting at any char offset of `text`.
fn assert_no_term_anywhere(text: &str) {
    for (i, _) in text.char_indices() {
        assert!(!f().contains_term(&text[i..]), "term at {i} in {text:?}");
    }
}

/// Every token-shaped substring is `__mcp_ref_` + lowercase hex + `__` (checked by hand).
fn has_lowercase_token(text: &str) -> bool {
    text.match_indices("__mcp_ref_").any(|(i, p)| {
        let body = &text[i + p.len()..];
        let n = body
            .bytes()
            .take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
            .count();
        n > 0 && body[n..].starts_with("__")
    })
}

mod common;
use common::{ASCII, CHINESE, PAIRS};

// §7.1 — filter_opt_in_requires_exact_one
#[test]
fn opt_in_requires_exactly_one() {
    assert!(enabled_from_env_value(Some("1")));
    for v in ["", "0", "01", "true", "TRUE", "yes", " 1"] {
        assert!(!enabled_from_env_value(Some(v)), "{v:?}");
    }
    assert!(!enabled_from_env_value(None));
    assert_eq!(mcp_payload_filter::ENV_VAR, "MCP_MODEL_PAYLOAD_FILTER");
}

// §7.2 — filters_every_canonical_term_case_insensitively
#[test]
fn every_term_in_every_case_is_one_token() {
    let title = |t: &str| {
        let mut c = t.chars();
        c.next()
            .map(|h| h.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    for term in ASCII {
        for variant in [term.to_owned(), term.to_uppercase(), title(term)] {
            let encoded = roundtrip(&variant);
            assert_eq!(encoded, token(&variant), "whole term is one token");
            assert_no_term_anywhere(&encoded);
        }
    }
    for term in CHINESE {
        let encoded = roundtrip(term);
        assert_eq!(encoded, token(term));
        assert_no_term_anywhere(&encoded);
    }
}

#[test]
fn all_terms_are_detected() {
    for term in ASCII.iter().chain(CHINESE.iter()) {
        assert!(f().contains_term(term), "{term}");
        assert!(f().contains_term(&format!("x{term}y")), "{term}");
    }
    assert!(!f().contains_term("ordinary text, com.example.app"));
}

// §7.3 — filters_supported_separator_variants
#[test]
fn separator_variants() {
    for (a, b) in PAIRS {
        for sep in ["", "-", "_", " "] {
            for s in [
                format!("{a}{sep}{b}"),
                format!("{a}{sep}{b}").to_uppercase(),
            ] {
                let encoded = roundtrip(&s);
                assert_eq!(encoded, token(&s), "{s:?} is one token");
                assert_no_term_anywhere(&encoded);
            }
        }
    }
    for s in ["DaSh_ScOpE", "QIAN-WEN", "Ant Group"] {
        assert_eq!(roundtrip(s), token(s));
    }
}

#[test]
fn separators_are_exactly_one_of_three() {
    for s in [
        "q--wen",
        "q\twen",
        "q\u{a0}wen",
        "q.wen",
        "q/wen",
        "dash  scope",
        "ali-_baba",
    ] {
        assert!(!f().contains_term(s), "{s:?}");
        assert!(matches!(f().encode_str(s), Cow::Borrowed(_)), "{s:?}");
    }
}

// §7.4 — preserves_surrounding_text_and_multiple_matches
#[test]
fn surrounding_text_and_multiple_matches() {
    let input = "Open Q-Wen in 阿里 Cloud, then inspect Dash_Scope.";
    let encoded = roundtrip(input);
    assert!(encoded.starts_with("Open "));
    assert!(encoded.contains(" in "));
    assert!(encoded.ends_with('.'));
    assert_no_term_anywhere(&encoded);
    assert_eq!(
        encoded,
        format!(
            "Open {} in {} Cloud, then inspect {}.",
            token("Q-Wen"),
            token("阿里"),
            token("Dash_Scope")
        )
    );
}

// §7.5 / §7.17 — a literal token prefix survives
#[test]
fn literal_prefix_is_escaped() {
    let input = "literal __mcp_ref_7177656e__ text";
    let encoded = roundtrip(input);
    assert_ne!(encoded, input);
    assert_eq!(
        encoded,
        format!("literal {}7177656e__ text", token("__mcp_ref_"))
    );

    let input = "literal __mcp_ref_7177656e__ and __MCP_REF_zz__";
    let encoded = roundtrip(input);
    assert_eq!(
        encoded,
        format!(
            "literal {}7177656e__ and {}zz__",
            token("__mcp_ref_"),
            token("__MCP_REF_")
        )
    );
}

// §7.6 / §7.16 — leaves_invalid_tokens_literal
#[test]
fn invalid_tokens_stay_literal() {
    for s in [
        "__mcp_ref___",
        "__mcp_ref_0__",
        "__mcp_ref_ZZ__",
        "__mcp_ref_FF__",
        "__mcp_ref_7__",
        "__mcp_ref_zz__",
        "__mcp_ref_ff__",
        "__mcp_ref_7177656e_",
        "__mcp_ref_7177656e",
        "__mcp_ref_c3__",
        "__mcp_ref_7177656g__",
        "__mcp_ref_",
        "__mcp_ref",
    ] {
        assert!(
            matches!(f().decode_str(s), Cow::Borrowed(t) if t == s),
            "{s:?}"
        );
    }
}

#[test]
fn decoding_accepts_any_case_and_any_valid_token() {
    assert_eq!(f().decode_str("__MCP_REF_5177656E__"), "Qwen");
    assert_eq!(f().decode_str("__Mcp_Ref_5177656e__"), "Qwen");
    assert_eq!(f().decode_str("__mcp_ref_646576696365__"), "device");
    assert_eq!(f().decode_str("a__mcp_ref_00__b"), "a\0b");
    assert_eq!(f().decode_str("__mcp_ref_E998BFe9878c__"), "阿里");
}

// §7.7 — recursively_transforms_keys_and_values_but_not_media_data
#[test]
fn keys_and_values_recursively_but_not_media_data() {
    let original = json!({
        "QwenKey": {"path": "/Applications/Alibaba Cloud/Qwen.app", "nested": ["通义", {"Dash Scope": "百炼"}]},
        "content": [
            {"type": "image", "data": "Qwen-DashScope-Alibaba", "annotations": {"label": "Ali Cloud"}},
            {"type": "audio", "data": "Qwen-DashScope-Alibaba"}
        ]
    });
    let mut v = original.clone();
    f().encode_value(&mut v);
    assert!(v.get("QwenKey").is_none());
    assert_eq!(v["content"][0]["data"], "Qwen-DashScope-Alibaba");
    assert_eq!(v["content"][1]["data"], "Qwen-DashScope-Alibaba");
    assert_eq!(v["content"][0]["annotations"]["label"], token("Ali Cloud"));
    let key = format!("{}Key", token("Qwen"));
    assert_eq!(
        v[&key]["path"],
        format!(
            "/Applications/{} Cloud/{}.app",
            token("Alibaba"),
            token("Qwen")
        )
    );
    assert_eq!(v[&key]["nested"][1][token("Dash Scope")], token("百炼"));
    f().decode_value(&mut v).expect("no collision");
    assert_eq!(v, original);
}

// §7.8 / §7.21 — decoding_rejects_object_key_collisions
#[test]
fn decoding_rejects_key_collisions() {
    let mut v = json!({"Qwen": 1, token("Qwen"): 2});
    assert_eq!(
        f().decode_value(&mut v),
        Err(DecodeError::KeyCollision { key: "Qwen".into() })
    );

    let mut msg = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "probe", "arguments": {"device": "first", "__mcp_ref_646576696365__": "second"}}
    });
    let err = f().decode_message(&mut msg).expect_err("collision");
    assert_eq!(err.to_string(), r#"decoded keys collide: "device""#);

    // Two tokens of the same text in different case collide too.
    let mut v = json!({"__mcp_ref_7177656e__": 1, "__MCP_REF_7177656E__": 2});
    assert!(f().decode_value(&mut v).is_err());
    // Nested objects are checked as well.
    let mut v = json!({"a": [{"b": {"x": 1, "__mcp_ref_78__": 2}}]});
    assert_eq!(
        f().decode_value(&mut v),
        Err(DecodeError::KeyCollision { key: "x".into() })
    );
}

// §7.9 — filters_driver_identity_from_observed_windows_apps_and_tree_shapes
#[test]
fn identity_in_observed_shapes() {
    let name = "qwen-cua-driver.exe";
    let original = json!({
        "content": [{"type": "text", "text": serde_json::to_string(&json!([{"app_name": name}])).unwrap()}],
        "structuredContent": {
            "windows": [{"app_name": name}],
            "apps": [{"name": name}],
            "processes": [{"name": name, "pid": 7756}]
        }
    });
    let mut v = original.clone();
    f().encode_value(&mut v);
    let wire = serde_json::to_string(&v).unwrap().to_lowercase();
    assert!(!wire.contains("qwen"), "{wire}");
    assert_eq!(v["structuredContent"]["processes"][0]["pid"], 7756);
    f().decode_value(&mut v).unwrap();
    assert_eq!(v, original);
}

// §7.10 — safe_text_is_borrowed_and_unchanged
#[test]
fn safe_text_is_borrowed() {
    for s in [
        "ordinary mobile-mcp payload",
        "",
        "com.example.app",
        "__mcp",
        "mcp_ref_",
        "一些中文",
    ] {
        assert!(
            matches!(f().encode_str(s), Cow::Borrowed(t) if t == s),
            "{s:?}"
        );
        assert!(
            matches!(f().decode_str(s), Cow::Borrowed(t) if t == s),
            "{s:?}"
        );
    }
}

#[test]
fn values_without_terms_are_not_copied() {
    let mut v = json!({"text": "plain", "list": ["a", {"k": "v"}], "n": 1});
    let text_ptr = v["text"].as_str().unwrap().as_ptr();
    let inner_ptr = v["list"][1]["k"].as_str().unwrap().as_ptr();
    let key_ptr = v.as_object().unwrap().keys().next().unwrap().as_ptr();
    f().encode_value(&mut v);
    f().decode_value(&mut v).unwrap();
    assert_eq!(v["text"].as_str().unwrap().as_ptr(), text_ptr);
    assert_eq!(v["list"][1]["k"].as_str().unwrap().as_ptr(), inner_ptr);
    assert_eq!(
        v.as_object().unwrap().keys().next().unwrap().as_ptr(),
        key_ptr
    );

    // In an object where one key changes, the other members are moved, not copied.
    let mut v = json!({"plain": "value", "qwen": "x"});
    let value_ptr = v["plain"].as_str().unwrap().as_ptr();
    f().encode_value(&mut v);
    assert_eq!(v["plain"].as_str().unwrap().as_ptr(), value_ptr);
}

// §7.11 — the off switch is the server's; tokens are only decoded when asked to.
#[test]
fn encoding_does_not_decode_tokens() {
    let encoded = f().encode_str("Qwen_tool").into_owned();
    assert_eq!(encoded, format!("{}_tool", token("Qwen")));
    // Decoding is a separate, explicit step: an encoded value stays encoded until then.
    let mut v = json!({"name": encoded.clone()});
    f().encode_value(&mut v);
    assert_ne!(v["name"], "Qwen_tool");
    // Encoding an already-encoded text escapes its tokens instead of decoding them.
    let twice = f().encode_str(&encoded).into_owned();
    assert_ne!(twice, "Qwen_tool");
    assert_eq!(f().decode_str(&twice), encoded);
}

// §7.12 — filter_enabled_encodes_success_and_error_responses
#[test]
fn success_and_error_responses() {
    let mut ok = json!({
        "jsonrpc": "2.0", "id": "Qwen-client-id",
        "result": {
            "content": [{"type": "text", "text": "Qwen ready"}, {"type": "image", "data": "UXdlbg==qwen", "mimeType": "image/png"}],
            "structuredContent": {"QwenKey": "value"}
        }
    });
    f().encode_message(&mut ok);
    assert_eq!(ok["id"], "Qwen-client-id");
    assert_eq!(ok["jsonrpc"], "2.0");
    assert_eq!(
        ok["result"]["content"][0]["text"],
        format!("{} ready", token("Qwen"))
    );
    assert_eq!(ok["result"]["content"][1]["data"], "UXdlbg==qwen");
    assert!(ok["result"]["structuredContent"].get("QwenKey").is_none());

    let msg = "Qwen daemon failed under /Applications/Alibaba Cloud";
    let mut err = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": msg, "data": {"detail": "Tongyi"}}});
    f().encode_message(&mut err);
    let encoded = err["error"]["message"].as_str().unwrap().to_owned();
    let lower = encoded.to_lowercase();
    assert!(!lower.contains("qwen") && !lower.contains("alibaba"));
    assert_eq!(f().decode_str(&encoded), msg);
    assert_eq!(err["error"]["code"], -32603);
    assert_eq!(err["error"]["data"]["detail"], token("Tongyi"));
}

// §7.13 — filter_enabled_round_trips_tool_name_argument_keys_and_values
#[test]
fn tool_call_name_keys_and_values_decode() {
    let mut call = json!({
        "jsonrpc": "2.0", "id": token("Qwen"), "method": token("Qwen"),
        "params": {
            "name": token("Qwen") + "_tool",
            "arguments": {token("Alibaba") + "Key": format!("/Applications/{}.app", token("Qwen"))}
        }
    });
    f().decode_message(&mut call).unwrap();
    assert_eq!(call["params"]["name"], "Qwen_tool");
    assert_eq!(
        call["params"]["arguments"]["AlibabaKey"],
        "/Applications/Qwen.app"
    );
    assert_eq!(call["id"], token("Qwen"));
    assert_eq!(call["method"], token("Qwen"));
}

// §7.14 — filtered terms use deterministic exact round-trip references
#[test]
fn deterministic_references_for_every_sample() {
    let mut samples: Vec<String> = Vec::new();
    for term in ASCII {
        samples.push(term.to_owned());
    }
    for (a, b) in PAIRS {
        for sep in ["-", "_", " "] {
            samples.push(format!("{a}{sep}{b}"));
        }
    }
    samples.extend(
        ["Q-WEN", "Dash-Scope", "ali_yun", "Ant-Group"]
            .iter()
            .map(|s| (*s).to_owned()),
    );
    let upper: Vec<String> = samples.iter().map(|s| s.to_uppercase()).collect();
    samples.extend(upper);
    samples.extend(CHINESE.iter().map(|s| (*s).to_owned()));
    for sample in samples {
        let input = format!("before/{sample}/after");
        let encoded = roundtrip(&input);
        assert_ne!(encoded, input);
        assert!(has_lowercase_token(&encoded), "{encoded}");
        assert_eq!(f().encode_str(&input), encoded, "deterministic");
        assert_eq!(encoded, format!("before/{}/after", token(&sample)));
    }
}

// §7.15 — multiple filtered terms preserve mixed case and separators
#[test]
fn mixed_case_and_separators_preserved() {
    let input = "Q-Wen talks to DASH_scope and 阿里";
    let encoded = roundtrip(input);
    for original in ["Q-Wen", "DASH_scope", "阿里"] {
        assert!(!encoded.contains(original));
    }
}

// §7.18 — message transformation preserves envelopes and binary data
#[test]
fn message_envelope_and_binary_data() {
    let original = json!({
        "jsonrpc": "2.0", "id": "qwen-id", "method": "qwen-method",
        "params": {
            "qwen-key": "qwen text",
            "content": [
                {"type": "image", "data": "qwen", "mimeType": "image/qwen"},
                {"type": "audio", "data": "alibaba", "mimeType": "audio/qwen"}
            ]
        }
    });
    let mut m = original.clone();
    f().encode_message(&mut m);
    assert_eq!(m["id"], "qwen-id");
    assert_eq!(m["method"], "qwen-method");
    assert_eq!(m["jsonrpc"], "2.0");
    assert!(m["params"].get("qwen-key").is_none());
    assert_eq!(m["params"][token("qwen") + "-key"], token("qwen") + " text");
    assert_eq!(m["params"]["content"][0]["data"], "qwen");
    assert_eq!(m["params"]["content"][1]["data"], "alibaba");
    assert_eq!(
        m["params"]["content"][0]["mimeType"],
        format!("image/{}", token("qwen"))
    );
    assert_eq!(
        m["params"]["content"][1]["mimeType"],
        format!("audio/{}", token("qwen"))
    );
    f().decode_message(&mut m).unwrap();
    assert_eq!(m, original);
}

#[test]
fn media_rule_is_exact_and_at_any_depth() {
    let mut v = json!({
        "deep": {"x": [{"type": "image", "data": {"qwen": ["qwen"]}, "label": "qwen"}]},
        "not_media": {"type": "Image", "data": "qwen"},
        "type_not_string": {"type": ["image"], "data": "qwen"},
        "resource_type": {"type": "resource", "data": "qwen"}
    });
    f().encode_value(&mut v);
    assert_eq!(v["deep"]["x"][0]["data"], json!({"qwen": ["qwen"]}));
    assert_eq!(v["deep"]["x"][0]["label"], token("qwen"));
    assert_eq!(v["not_media"]["data"], token("qwen"));
    assert_eq!(v["type_not_string"]["data"], token("qwen"));
    assert_eq!(v["resource_type"]["data"], token("qwen"));
}

// §7.19 — message transformation preserves special object keys
#[test]
fn proto_key_survives() {
    let original = json!({"jsonrpc": "2.0", "id": 1, "result": {"__proto__": {"name": "Qwen"}}});
    let mut m = original.clone();
    f().encode_message(&mut m);
    assert_eq!(m["result"]["__proto__"]["name"], token("Qwen"));
    f().decode_message(&mut m).unwrap();
    assert_eq!(m, original);
}

// §7.23 (f), (g), (d) — substring encoding equals whole-string encoding
#[test]
fn package_names_encode_by_substring() {
    assert_eq!(
        f().encode_str("com.alibaba.qwen"),
        "com.__mcp_ref_616c6962616261__.__mcp_ref_7177656e__"
    );
    let text = "Apps: Q-Wen Dashboard (com.alibaba.qwen)";
    let encoded = f().encode_str(text);
    assert!(encoded.contains(f().encode_str("com.alibaba.qwen").as_ref()));
    assert_eq!(
        f().decode_str(&f().encode_str("com.alibaba.failure")),
        "com.alibaba.failure"
    );
    assert_eq!(f().decode_str(&f().encode_str("Q-Wen")), "Q-Wen");
}

// §3 — no word boundaries, leftmost-longest
#[test]
fn no_word_boundaries_and_leftmost_longest() {
    let cases: [(&str, &str, &str, &str); 9] = [
        ("qwenlm", "", "qwen", "lm"),
        ("damodaran", "", "damo", "daran"),
        ("Adamo", "A", "damo", ""),
        ("important group", "import", "ant group", ""),
        ("IQ went", "I", "Q wen", "t"),
        ("Bali cloud", "B", "ali cloud", ""),
        ("alibabacloud", "", "alibaba", "cloud"),
        ("aliyuncs.com", "", "aliyuncs", ".com"),
        ("ali-yuncs.com", "", "ali-yuncs", ".com"),
    ];
    for (input, before, matched, after) in cases {
        assert_eq!(
            f().encode_str(input),
            format!("{before}{}{after}", token(matched)),
            "{input:?}"
        );
        roundtrip(input);
    }
    // Longest wins over a shorter term that starts at the same place.
    assert_eq!(f().encode_str("qianwen"), token("qianwen"));
    assert_eq!(f().encode_str("antgroup"), token("antgroup"));
    assert_eq!(
        f().encode_str("支付宝钉钉"),
        token("支付宝") + &token("钉钉")
    );
}

// Unicode simple case folding for ASCII terms, exact match for Chinese ones.
#[test]
fn unicode_case_folding() {
    for s in [
        "dashſcope",
        "daſhſcope",
        "DAſH-SCOPE",
        "dingtal\u{212A}",
        "DINGTAL\u{212A}",
        "modelſcope",
        "aliyuncſ",
        "ali yuncſ",
    ] {
        assert!(f().contains_term(s), "{s:?}");
        let encoded = roundtrip(s);
        assert_eq!(encoded, token(s), "{s:?} is one token");
        assert_no_term_anywhere(&encoded);
    }
    // Characters that merely look alike, or fold only under full/Turkic folding, do not match.
    for s in [
        "tongy\u{0131}",
        "tongy\u{0130}",
        "ｑｗｅｎ",
        "qw\u{0435}n",
        "q\u{200b}wen",
    ] {
        assert!(!f().contains_term(s), "{s:?}");
    }
    // Chinese terms match exactly: the traditional forms are different characters.
    assert!(!f().contains_term("阿裡 通義"));
}

// §8 E1 — a false prefix never hides a real token that begins inside it.
#[test]
fn false_prefixes_do_not_hide_tokens() {
    for s in [
        "__mcp_refQwen",
        "__MCP_REFqwen",
        "___mcp_ref_",
        "___mcp_ref_Qwen",
        "__mcp_ref__mcp_ref_",
        "__mcp_ref__mcp_ref_7177656e__",
        "__mcp_re__mcp_ref_qwen",
        "__mcp__mcp_ref_",
        "_qwen__mcp_ref_",
        "qwen__mcp_ref_qwen__",
        "__mcp_ref_qwen__",
        "__mcp_ref_71__mcp_ref_",
        "__mcp_ref_7177656e__mcp_ref_",
        "__mcp_ref",
        "x__mcp_ref",
        "__mcp_ref阿里",
        "__mcp_ref_ 阿里 __",
    ] {
        let encoded = roundtrip(s);
        assert_no_term_anywhere(&encoded);
    }
    assert_eq!(
        f().encode_str("__mcp_refQwen"),
        format!("__mcp_ref{}", token("Qwen"))
    );
    // Decoding alone: a false prefix right before a real token.
    assert_eq!(
        f().decode_str("__mcp_ref__mcp_ref_7177656e__"),
        "__mcp_refqwen"
    );
    assert_eq!(f().decode_str("___mcp_ref_7177656e__"), "_qwen");
    assert_eq!(
        f().decode_str("__mcp_ref_zz__mcp_ref_71__"),
        "__mcp_ref_zzq"
    );
}

// Resource blobs are binary and left alone; their other members are not.
#[test]
fn resource_blob_is_preserved() {
    let blob = "UXdlbmRhbW90bWFsbHdhbng=qwen+damo/wanx";
    let original = json!({
        "contents": [{"uri": "file:///qwen.bin", "mimeType": "application/qwen", "blob": blob}],
        "embedded": {"type": "resource", "resource": {"uri": "qwen://x", "blob": blob, "text": "qwen"}}
    });
    let mut v = original.clone();
    f().encode_value(&mut v);
    assert_eq!(v["contents"][0]["blob"], blob);
    assert_eq!(v["embedded"]["resource"]["blob"], blob);
    assert_eq!(
        v["contents"][0]["uri"],
        format!("file:///{}.bin", token("qwen"))
    );
    assert_eq!(
        v["contents"][0]["mimeType"],
        format!("application/{}", token("qwen"))
    );
    assert_eq!(v["embedded"]["resource"]["text"], token("qwen"));
    f().decode_value(&mut v).unwrap();
    assert_eq!(v, original);

    // Without a `uri`, `blob` is ordinary text.
    let mut v = json!({"blob": "qwen"});
    f().encode_value(&mut v);
    assert_eq!(v["blob"], token("qwen"));
}

// Correlation values the client must match stay exactly as they are.
#[test]
fn correlation_values_are_preserved() {
    let original = json!({
        "jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": "qwen-token", "progress": 1, "message": "qwen step"}
    });
    let mut m = original.clone();
    f().encode_message(&mut m);
    assert_eq!(m["params"]["progressToken"], "qwen-token");
    assert_eq!(m["params"]["message"], token("qwen") + " step");
    f().decode_message(&mut m).unwrap();
    assert_eq!(m, original);

    let mut m = json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "qwen-7", "reason": "qwen gave up"}
    });
    f().encode_message(&mut m);
    assert_eq!(m["params"]["requestId"], "qwen-7");
    assert_eq!(m["params"]["reason"], token("qwen") + " gave up");

    // A request's `_meta.progressToken` is kept; the rest of `_meta` is filtered.
    let tok = token("qwen");
    let mut m = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "x", "_meta": {"progressToken": tok, "qwen": "qwen"}, "arguments": {"progressToken": tok, "requestId": tok}}
    });
    f().decode_message(&mut m).unwrap();
    assert_eq!(m["params"]["_meta"]["progressToken"], tok);
    assert_eq!(m["params"]["_meta"]["qwen"], "qwen");
    // Same names elsewhere are ordinary data.
    assert_eq!(m["params"]["arguments"]["progressToken"], "qwen");
    assert_eq!(m["params"]["arguments"]["requestId"], "qwen");

    // `requestId` is kept only for cancellations, `params.progressToken` only for progress.
    let mut m = json!({"jsonrpc": "2.0", "method": "other", "params": {"requestId": "qwen", "progressToken": "qwen"}});
    f().encode_message(&mut m);
    assert_eq!(m["params"]["requestId"], tok);
    assert_eq!(m["params"]["progressToken"], tok);
}

#[test]
fn only_params_result_and_error_are_transformed() {
    let mut m = json!({
        "jsonrpc": "2.0", "id": "qwen", "method": "qwen/x",
        "params": ["qwen"], "result": "qwen", "error": {"message": "qwen"}, "extra": "qwen"
    });
    f().encode_message(&mut m);
    assert_eq!(m["id"], "qwen");
    assert_eq!(m["method"], "qwen/x");
    assert_eq!(m["extra"], "qwen");
    assert_eq!(m["params"][0], token("qwen"));
    assert_eq!(m["result"], token("qwen"));
    assert_eq!(m["error"]["message"], token("qwen"));
}

#[test]
fn batches_are_handled_element_wise() {
    let original = json!([
        {"jsonrpc": "2.0", "id": "qwen-1", "result": {"text": "qwen"}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "qwen", "message": "qwen"}},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": 1, "message": "阿里"}}
    ]);
    let mut b = original.clone();
    f().encode_message(&mut b);
    assert_eq!(b[0]["id"], "qwen-1");
    assert_eq!(b[0]["result"]["text"], token("qwen"));
    assert_eq!(b[1]["params"]["progressToken"], "qwen");
    assert_eq!(b[1]["params"]["message"], token("qwen"));
    assert_eq!(b[2]["error"]["message"], token("阿里"));
    f().decode_message(&mut b).unwrap();
    assert_eq!(b, original);

    let mut bad = json!([{"jsonrpc": "2.0", "id": 1, "params": {"__mcp_ref_61__": 1, "a": 2}}]);
    assert!(f().decode_message(&mut bad).is_err());
}

#[test]
fn scalars_are_untouched() {
    let original = json!({"n": 1.5, "b": true, "z": null, "i": -3, "s": "qwen"});
    let mut v = original.clone();
    f().encode_value(&mut v);
    assert_eq!(v["n"], 1.5);
    assert_eq!(v["b"], true);
    assert_eq!(v["z"], Value::Null);
    assert_eq!(v["i"], -3);
    f().decode_value(&mut v).unwrap();
    assert_eq!(v, original);
}

#[test]
fn batch_elements_that_are_not_objects_are_encoded_whole() {
    let mut b = json!(["qwen", 1, null, {"jsonrpc": "2.0", "id": "qwen", "result": "qwen"}]);
    f().encode_message(&mut b);
    assert_eq!(
        b,
        json!([token("qwen"), 1, null, {"jsonrpc": "2.0", "id": "qwen", "result": token("qwen")}])
    );
    f().decode_message(&mut b).unwrap();
    assert_eq!(b[0], "qwen");
}

#[test]
fn new_default_and_global_agree() {
    let input = "Qwen on 阿里 via __MCP_REF_ and dashſcope";
    let expected = f().encode_str(input).into_owned();
    assert_eq!(Filter::new().encode_str(input), expected);
    assert_eq!(Filter::default().encode_str(input), expected);
}
