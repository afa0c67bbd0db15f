//! `mcp-payload-filter`: reversibly hides a fixed vocabulary of vendor terms in the JSON payloads
//! an MCP server exchanges with a model.
//!
//! **What it is for.** When the filter is switched on (environment variable [`ENV_VAR`] set to
//! exactly `"1"`, see [`enabled_from_env_value`]), the server passes every outgoing JSON-RPC
//! message through [`Filter::encode_message`] and every incoming one through
//! [`Filter::decode_message`]. Encoding replaces each occurrence of a filtered term (for example
//! `Qwen`, `Dash-Scope`, `阿里`) by a token that spells out its UTF-8 bytes in hex,
//! `__mcp_ref_<hex>__`; decoding turns tokens back into the original text, byte for byte. A
//! model therefore never reads the terms, yet package names, paths and tool arguments it echoes
//! back arrive at the tools unchanged.
//!
//! **What it is not for.** It is not a security boundary or a content filter: each string is
//! filtered on its own (a term split across two strings, percent-encoded, written with
//! full-width letters or shown inside a screenshot passes through), and the decoder accepts any
//! well-formed token, so a client can inject any text it likes. It knows nothing about MCP
//! beyond the JSON-RPC envelope, does no I/O, has no global switch and never reads the
//! environment itself; the server decides when to call it.
//!
//! ```
//! use mcp_payload_filter::Filter;
//! use std::borrow::Cow;
//!
//! let filter = Filter::global();
//! let encoded = filter.encode_str("open com.alibaba.qwen");
//! assert_eq!(encoded, "open com.__mcp_ref_616c6962616261__.__mcp_ref_7177656e__");
//! assert_eq!(filter.decode_str(&encoded), "open com.alibaba.qwen");
//! // Text without terms is returned as it is, without a copy.
//! assert!(matches!(filter.encode_str("com.example.app"), Cow::Borrowed(_)));
//!
//! let mut message = serde_json::json!({
//!     "jsonrpc": "2.0", "id": "qwen-1",
//!     "result": {"content": [{"type": "text", "text": "Qwen is running"}]}
//! });
//! filter.encode_message(&mut message);
//! assert_eq!(message["id"], "qwen-1"); // the envelope is never touched
//! assert_eq!(message["result"]["content"][0]["text"], "__mcp_ref_5177656e__ is running");
//! filter.decode_message(&mut message).unwrap();
//! assert_eq!(message["result"]["content"][0]["text"], "Qwen is running");
//! ```
//!
//! # Matching
//!
//! The vocabulary is [`ASCII_TERMS`], [`CHINESE_TERMS`] and the [`SEPARATED_TERMS`] with one of
//! [`SEPARATORS`] between their parts. Matches are leftmost-longest and non-overlapping
//! (`aliyuncs` and `ali-yuncs` are one match each, not `aliyun` + `cs`), ignore word boundaries
//! (`important group` contains `ant group`), fold case for the ASCII terms under Unicode simple
//! case folding (so `dashſcope` with U+017F and `dingtal\u{212A}` with the Kelvin sign match)
//! and match the Chinese terms exactly. All of this is one pass of an `aho-corasick`
//! automaton, chosen over hand-written scanning because multi-pattern leftmost-longest search is
//! exactly what that crate does well; it is built once per [`Filter`] (see [`Filter::global`]).
//! The automaton matches ASCII case-insensitively, and the two non-ASCII characters that fold
//! to ASCII letters (`ſ` → s, `K` → k) are spelled out as extra patterns.
//!
//! # Tokens and the escape of a literal prefix
//!
//! A token is [`TOKEN_PREFIX`] (`__mcp_ref_`), the lowercase hex of the matched bytes, and `__`.
//! The decoder accepts the prefix and the hex in any ASCII case; a token whose body is empty,
//! of odd length, not hex, or not UTF-8 is left as literal text.
//!
//! So that `decode(encode(s)) == s` for every string, the encoder treats the prefix itself, in
//! any case, as one more term: a literal `__mcp_ref_` in the input becomes the token of its own
//! bytes, `__mcp_ref_5f5f6d63705f7265665f__`, in the same pass as the terms; the decoder restores
//! it like any other token, in a single pass. In encoded text, then, every occurrence of the
//! prefix either starts a token the encoder wrote, starts inside such a token (which the decoder
//! has already consumed), or is a literal `__mcp_ref` directly followed by a token, as in
//! `__mcp_refQwen` → `__mcp_ref__mcp_ref_5177656e__`. In the last case the would-be body starts
//! with `_`, so it is not a token; the decoder then resumes one byte after that false prefix
//! rather than after all of it, and finds the real token that begins inside it. Tokens consist
//! of `_`, `mcp`, `ref` and hex digits, none of which can complete a term, and no term starts or
//! ends with `_`, so encoded text contains no term.
//!
//! # JSON
//!
//! [`Filter::encode_value`] and [`Filter::decode_value`] rewrite a `serde_json::Value` in place:
//! strings, object keys and values at any depth; numbers, booleans and null are left alone. Two
//! kinds of member are binary data and are copied verbatim: `data` of an object whose `type` is
//! the string `"image"` or `"audio"`, and `blob` of a resource (an object with a string `uri`).
//! Only changed strings and keys are rewritten. If decoding makes two keys of one object equal,
//! decoding fails with [`DecodeError::KeyCollision`] instead of dropping one of them.
//! [`Filter::encode_message`] and [`Filter::decode_message`] apply this to the `params`, `result`
//! and `error` of a JSON-RPC message or batch and leave the correlation values the client must
//! match (`progressToken`, a cancelled `requestId`) exactly as they are.

#![warn(missing_docs)]

mod json;
mod prescan;
mod terms;
mod text;

use std::sync::LazyLock;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::{Anchored, MatchKind, PatternID, dfa::DFA};

pub use json::DecodeError;
pub use terms::{ASCII_TERMS, CHINESE_TERMS, SEPARATED_TERMS, SEPARATORS};

/// The environment variable that switches the filter on in the server.
pub const ENV_VAR: &str = "MCP_MODEL_PAYLOAD_FILTER";

/// The start of every token. Matched in any ASCII case when decoding.
pub const TOKEN_PREFIX: &str = "__mcp_ref_";

/// Whether the value of [`ENV_VAR`] switches the filter on: only exactly `"1"` does.
///
/// Anything else (unset, `""`, `"0"`, `"01"`, `"true"`, `" 1"`, ...) is off, so a typo never
/// silently changes what the model sees.
#[must_use]
pub fn enabled_from_env_value(value: Option<&str>) -> bool {
    value == Some("1")
}

/// The compiled matchers. Building one compiles an automaton of about a hundred patterns, so
/// share one ([`Filter::global`]) rather than building one per message.
#[derive(Debug, Clone)]
pub struct Filter {
    /// Every term spelling plus the token prefix, leftmost-longest, ASCII case-insensitive.
    /// The DFA itself rather than an `AhoCorasick` wrapping it: searches are then compiled for
    /// it (no dynamic dispatch per search, which matters for short strings).
    encoder: DFA,
    /// The encoder's unanchored start state, where every search of the encoder begins.
    start: StateID,
    /// The pattern id of the token prefix in `encoder`; every other pattern is a term.
    prefix_id: PatternID,
    /// Byte length of the longest pattern: how far the pre-scan widens its windows.
    widen: usize,
}

static GLOBAL: LazyLock<Filter> = LazyLock::new(Filter::new);

impl Filter {
    /// Builds the matchers for the fixed vocabulary.
    #[must_use]
    pub fn new() -> Self {
        let mut patterns = terms::ascii_patterns();
        patterns.extend(CHINESE_TERMS.iter().map(|t| (*t).to_owned()));
        let prefix_index = patterns.len();
        patterns.push(TOKEN_PREFIX.to_owned());
        let widen = patterns.iter().map(String::len).max().unwrap_or(0);
        // The pattern set is a compile-time constant of about a hundred short strings, far
        // below any automaton size limit, so building cannot fail at run time; the tests
        // build it on every run.
        let encoder = aho_corasick::dfa::Builder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .ascii_case_insensitive(true)
            .build(&patterns)
            .expect("the fixed term patterns always compile");
        // The builder's default start kind is unanchored, so this start state exists.
        let start = encoder
            .start_state(Anchored::No)
            .expect("the encoder supports unanchored searches");
        Filter {
            encoder,
            start,
            prefix_id: PatternID::must(prefix_index),
            widen,
        }
    }

    /// The process-wide filter, built on first use.
    #[must_use]
    pub fn global() -> &'static Filter {
        &GLOBAL
    }
}

impl Default for Filter {
    fn default() -> Self {
        Filter::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exactly_one_enables() {
        assert!(enabled_from_env_value(Some("1")));
        for off in [
            None,
            Some(""),
            Some("0"),
            Some("01"),
            Some("true"),
            Some("TRUE"),
            Some("yes"),
            Some(" 1"),
            Some("1 "),
        ] {
            assert!(!enabled_from_env_value(off), "{off:?}");
        }
        assert_eq!(ENV_VAR, "MCP_MODEL_PAYLOAD_FILTER");
    }

    #[test]
    fn every_pattern_holds_a_prescan_fingerprint() {
        // The pre-scan's correctness rests on this: a pattern without a fingerprint could
        // match in a block the scan skips.
        let mut patterns = terms::ascii_patterns();
        patterns.extend(CHINESE_TERMS.iter().map(|t| (*t).to_owned()));
        patterns.push(TOKEN_PREFIX.to_owned());
        for p in &patterns {
            for variant in [p.clone(), p.to_ascii_uppercase()] {
                assert!(prescan::has_fingerprint(variant.as_bytes()), "{variant:?}");
            }
        }
    }

    #[test]
    fn global_is_shared() {
        assert!(std::ptr::eq(Filter::global(), Filter::global()));
    }
}
