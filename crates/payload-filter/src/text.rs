//! Encoding and decoding of one string: the token format and the prefix escape.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem;

use aho_corasick::automaton::{Automaton, FindIter};
use aho_corasick::{Anchored, Input, PatternID, dfa::DFA};

use crate::{Filter, TOKEN_PREFIX, prescan};

/// Closes a token. Hex digits never contain `_`, so the first non-hex byte after the body
/// must be the start of this.
const TOKEN_END: &str = "__";

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

impl Filter {
    /// Replaces every filtered term, and every literal token prefix, by a token of its bytes.
    ///
    /// Returns `Cow::Borrowed` when there is nothing to replace.
    #[must_use]
    #[inline]
    pub fn encode_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        // Most strings of a JSON value have no hot block at all: that answer is one block test
        // for a short string, and the search below stays out of line.
        match prescan::windows(text.as_bytes(), self.widen) {
            None => Cow::Borrowed(text),
            Some(windows) => self.encode_windows(text, windows),
        }
    }

    /// [`Filter::encode_str`] once the pre-scan found windows. The matches are gathered
    /// first (a handful per string, so on the stack), so that the output is allocated once and
    /// at its exact size.
    #[inline(never)]
    fn encode_windows<'a>(&self, text: &'a str, windows: prescan::Windows<'_>) -> Cow<'a, str> {
        /// Matches gathered before they are written out.
        const BATCH: usize = 16;
        let mut found = [(0usize, 0usize); BATCH];
        let mut n = 0;
        let mut out: Option<String> = None;
        let mut copied = 0;
        for (s, e) in windows {
            self.each_match(text.as_bytes(), s, e, |start, end| {
                if n == BATCH {
                    // More matches than fit: write these and size the rest by estimate.
                    write_tokens(&mut out, text, &mut copied, &found, text.len() / 2 + 64);
                    n = 0;
                }
                found[n] = (start, end);
                n += 1;
            });
        }
        if out.is_none() && n == 0 {
            return Cow::Borrowed(text);
        }
        write_tokens(&mut out, text, &mut copied, &found[..n], 0);
        let mut out = out.expect("written above");
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }

    /// Calls `on_match(start, end)` for every match of the encoder in `text[from..to]`, in
    /// order: the matches [`Filter::search`] finds there, in one loop over the encoder's DFA
    /// instead of one search call per match (most strings that encode are short and hold a
    /// term or two, so the per-search setup weighed as much as the bytes).
    #[inline(always)]
    fn each_match(
        &self,
        text: &[u8],
        from: usize,
        to: usize,
        mut on_match: impl FnMut(usize, usize),
    ) {
        let dfa = &self.encoder;
        let window = &text[from..to];
        let mut at = 0;
        while at < window.len() {
            // A leftmost-longest search from `at`, as `aho-corasick` runs it: the DFA enters a
            // match state at the last byte of a match, and once it has seen one it goes dead
            // when no longer match can follow, so the last match seen is the one to report.
            let mut sid = self.start;
            let mut last: Option<(PatternID, usize)> = None;
            for (i, &byte) in window[at..].iter().enumerate() {
                sid = dfa.next_state(Anchored::No, sid, byte);
                if dfa.is_special(sid) {
                    if dfa.is_dead(sid) {
                        break;
                    }
                    if dfa.is_match(sid) {
                        last = Some((dfa.match_pattern(sid, 0), at + i + 1));
                    }
                    // Otherwise a start state, which only a prefilter makes special.
                }
            }
            let Some((pattern, end)) = last else {
                return;
            };
            // Patterns are not empty, so `end` moves on and the loop ends.
            on_match(from + end - dfa.pattern_len(pattern), from + end);
            at = end;
        }
    }

    /// The encoder's matches in `text`, searched only inside the pre-scan's windows (see
    /// [`prescan`]).
    fn find_in<'a>(&'a self, text: &'a str) -> impl Iterator<Item = aho_corasick::Match> + 'a {
        prescan::windows(text.as_bytes(), self.widen)
            .into_iter()
            .flatten()
            .flat_map(move |(s, e)| self.search(text, s, e))
    }

    /// The encoder's matches in `text[start..end]` (leftmost-longest, non-overlapping).
    #[inline]
    fn search<'a>(&'a self, text: &'a str, start: usize, end: usize) -> FindIter<'a, 'a, DFA> {
        // The DFA is built for unanchored leftmost searches, the only kind this asks for, so
        // the search cannot fail.
        self.encoder
            .try_find_iter(Input::new(text).span(start..end))
            .expect("an unanchored search is supported")
    }

    /// Replaces every valid token (prefix and hex in any ASCII case) by the text it spells.
    ///
    /// A prefix that does not begin a valid token is kept literally, and the search resumes one
    /// byte after its start, so a token that begins inside it is still found. Returns
    /// `Cow::Borrowed` when no token was decoded.
    #[must_use]
    pub fn decode_str<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out: Option<String> = None;
        let mut copied = 0;
        let mut from = 0;
        let mut bytes_buf: Vec<u8> = Vec::new();
        while let Some(start) = find_prefix(text.as_bytes(), from) {
            let m = start..start + TOKEN_PREFIX.len();
            match parse_token(text.as_bytes(), m.end, &mut bytes_buf) {
                Some((decoded, end)) => {
                    let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                    // `m.start()` is the start of the ASCII prefix and `end` follows the
                    // ASCII terminator: both are char boundaries.
                    out.push_str(&text[copied..m.start]);
                    out.push_str(decoded);
                    copied = end;
                    from = end;
                }
                // The prefix's first byte is `_`, so `m.start() + 1` is a char boundary.
                None => from = m.start + 1,
            }
        }
        match out {
            Some(mut out) => {
                out.push_str(&text[copied..]);
                Cow::Owned(out)
            }
            None => Cow::Borrowed(text),
        }
    }

    /// Whether [`Filter::encode_str`] would change `text`: a term or a literal token prefix
    /// occurs in it. On the serialized form of a JSON value this is a cheap test of whether
    /// the value needs the walk at all (JSON escapes never occur inside a term or the prefix,
    /// so a term in any string or key shows in the serialized text).
    #[must_use]
    pub fn encodes(&self, text: &str) -> bool {
        self.find_in(text).next().is_some()
    }

    /// Whether `text` holds a token prefix in any case: when it does not,
    /// [`Filter::decode_str`] returns it unchanged.
    #[must_use]
    pub fn may_decode(&self, text: &str) -> bool {
        find_prefix(text.as_bytes(), 0).is_some()
    }

    /// Whether `text` contains a filtered term (a literal token prefix does not count).
    #[must_use]
    pub fn contains_term(&self, text: &str) -> bool {
        // Leftmost-longest matches never overlap, and no term can overlap a token prefix
        // (no term starts or ends with `_`), so skipping prefix matches loses no term.
        self.find_in(text).any(|m| m.pattern() != self.prefix_id)
    }
}

/// The offset of the first token prefix (in any ASCII case) at or after `from`.
///
/// The prefix begins with `__`, which has no case: a SIMD substring search for it
/// (`memchr::memmem`) finds the candidates, and only those are compared case-insensitively.
fn find_prefix(text: &[u8], from: usize) -> Option<usize> {
    static UNDERSCORES: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"__"));
    let prefix = TOKEN_PREFIX.as_bytes();
    let mut at = from;
    while let Some(i) = UNDERSCORES.find(text.get(at..)?) {
        let start = at + i;
        if text
            .get(start..start + prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// Appends `text` up to each of the `matches` (`start..end`, in order, at or after
/// `copied`) and the match's token to `out`, creating it at the size the output will have when
/// these are the last matches, plus `headroom`.
fn write_tokens(
    out: &mut Option<String>,
    text: &str,
    copied: &mut usize,
    matches: &[(usize, usize)],
    headroom: usize,
) {
    let out = out.get_or_insert_with(|| {
        // A token is 2n + 12 bytes for n matched bytes: n + 12 more than the match.
        let growth: usize = matches
            .iter()
            .map(|(s, e)| e - s + TOKEN_PREFIX.len() + TOKEN_END.len())
            .sum();
        String::with_capacity(text.len() + growth + headroom)
    });
    for &(start, end) in matches {
        // Patterns are valid UTF-8 and so is `text`, and UTF-8 is self-synchronizing, so a
        // match always starts and ends on a char boundary: these slices cannot panic.
        out.push_str(&text[*copied..start]);
        push_token(out, &text.as_bytes()[start..end]);
        *copied = end;
    }
}

/// The two lowercase hex digits of every byte value.
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        pairs[b] = [HEX_DIGITS[b >> 4], HEX_DIGITS[b & 0x0f]];
        b += 1;
    }
    pairs
};

/// Appends the token of `bytes` to `out`.
///
/// The token is spelled in a buffer on the stack and appended in one copy: per hex pair, a
/// store into the buffer instead of an append with its own capacity check.
fn push_token(out: &mut String, bytes: &[u8]) {
    /// Matched bytes spelled per round; every term fits in one.
    const ROUND: usize = 32;
    let mut buf = [0u8; TOKEN_PREFIX.len() + 2 * ROUND + TOKEN_END.len()];
    buf[..TOKEN_PREFIX.len()].copy_from_slice(TOKEN_PREFIX.as_bytes());
    let mut len = TOKEN_PREFIX.len();
    let mut rest = bytes;
    loop {
        let (now, later) = rest.split_at(rest.len().min(ROUND));
        for (pair, &b) in buf[len..].chunks_exact_mut(2).zip(now) {
            pair.copy_from_slice(&HEX_PAIRS[usize::from(b)]);
        }
        len += 2 * now.len();
        if later.is_empty() {
            buf[len..len + TOKEN_END.len()].copy_from_slice(TOKEN_END.as_bytes());
            len += TOKEN_END.len();
        }
        // SAFETY: `buf[..len]` holds only the ASCII prefix, ASCII hex digits and the ASCII
        // terminator, so `out` stays valid UTF-8. (`push_str` of the buffer would need a
        // `str::from_utf8` check per token on the encoder's hot path.)
        unsafe { out.as_mut_vec() }.extend_from_slice(&buf[..len]);
        if later.is_empty() {
            return;
        }
        rest = later;
        len = 0;
    }
}

/// Parses the body and terminator of a token whose prefix ends at `body_start`. Returns the
/// decoded text (borrowed from `buf`) and the offset just past the terminator, or `None` when the
/// body is empty, of odd length, not followed by `__`, or not UTF-8.
fn parse_token<'b>(
    text: &[u8],
    body_start: usize,
    buf: &'b mut Vec<u8>,
) -> Option<(&'b str, usize)> {
    let rest = text.get(body_start..)?;
    let hex_len = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if hex_len == 0 || hex_len % 2 != 0 || !rest[hex_len..].starts_with(TOKEN_END.as_bytes()) {
        return None;
    }
    buf.clear();
    buf.extend(
        rest[..hex_len]
            .chunks_exact(2)
            .map(|pair| (hex_value(pair[0]) << 4) | hex_value(pair[1])),
    );
    let decoded = std::str::from_utf8(buf).ok()?;
    Some((decoded, body_start + hex_len + TOKEN_END.len()))
}

/// The value of an ASCII hex digit; only called on bytes that passed `is_ascii_hexdigit`.
fn hex_value(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        b'A'..=b'F' => digit - b'A' + 10,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with every match replaced by its token; borrowed when there is none.
    fn encode_matches(
        text: &str,
        matches: impl Iterator<Item = aho_corasick::Match>,
    ) -> Cow<'_, str> {
        let mut matches = matches.peekable();
        if matches.peek().is_none() {
            return Cow::Borrowed(text);
        }
        // A token is 2n + 12 bytes for n matched bytes; a little headroom avoids regrowing in
        // the common case of a few short terms.
        let mut out = String::with_capacity(text.len() + text.len() / 2 + 64);
        let mut copied = 0;
        for m in matches {
            // Patterns are valid UTF-8 and so is `text`, and UTF-8 is self-synchronizing, so a
            // match always starts and ends on a char boundary: these slices cannot panic.
            out.push_str(&text[copied..m.start()]);
            push_token(&mut out, &text.as_bytes()[m.start()..m.end()]);
            copied = m.end();
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }

    #[test]
    fn token_spells_bytes_in_lowercase_hex() {
        let mut out = String::new();
        push_token(&mut out, "阿里".as_bytes());
        assert_eq!(out, "__mcp_ref_e998bfe9878c__");
        // One round of the buffer exactly, one byte more, and more than two rounds.
        for n in [0, 1, 31, 32, 33, 64, 65, 70] {
            let long = "a".repeat(n);
            out.clear();
            out.push_str("before ");
            push_token(&mut out, long.as_bytes());
            assert_eq!(out, format!("before __mcp_ref_{}__", "61".repeat(n)));
        }
    }

    #[test]
    fn many_matches_in_one_string_encode_like_the_whole_search() {
        // More matches than one batch of `encode_windows` holds, in one window and in many.
        let f = Filter::global();
        for text in [
            "qwen ".repeat(40),
            format!("{}{}", "Alibaba-".repeat(17), "x".repeat(3)),
            format!("{}通义", "filler text without terms, ".repeat(3)).repeat(30),
        ] {
            let whole = encode_matches(&text, f.search(&text, 0, text.len()));
            assert!(matches!(whole, Cow::Owned(_)));
            assert_eq!(f.encode_str(&text), whole, "{text}");
            assert_eq!(f.decode_str(&f.encode_str(&text)), text);
        }
    }

    #[test]
    fn each_match_finds_what_the_library_search_finds() {
        let f = Filter::global();
        for text in [
            "",
            "no terms here",
            "qwen",
            "aliyuncs ali-yuncs ALI_YUN alibabacloud Qwenqwen",
            "dashſcope dingtal\u{212A} 通义千问阿里云 __MCP_REF___mcp_ref_",
            "xqwenx important group IQ went damodaran",
        ] {
            for (from, to) in [
                (0, text.len()),
                (1.min(text.len()), text.len()),
                (0, text.len() / 2),
            ] {
                if !text.is_char_boundary(to) {
                    continue;
                }
                let mut ours = Vec::new();
                f.each_match(text.as_bytes(), from, to, |s, e| ours.push((s, e)));
                let theirs: Vec<_> = f
                    .search(text, from, to)
                    .map(|m| (m.start(), m.end()))
                    .collect();
                assert_eq!(ours, theirs, "{text:?} {from}..{to}");
            }
        }
    }

    #[test]
    fn parse_token_rejects_malformed_bodies() {
        let mut buf = Vec::new();
        for body in ["__", "0__", "zz__", "ff__", "7177656e_", "7177656e", ""] {
            assert!(
                parse_token(body.as_bytes(), 0, &mut buf).is_none(),
                "{body:?}"
            );
        }
        let (decoded, end) = parse_token(b"7177656E__tail", 0, &mut buf).expect("valid token");
        assert_eq!((decoded, end), ("qwen", 10));
    }

    #[test]
    fn encodes_and_may_decode_tell_when_the_walk_is_needed() {
        let f = Filter::global();
        for (text, encodes) in [
            (
                r#"{"result":{"content":[{"type":"text","text":"Tapped at 10,20"}]}}"#,
                false,
            ),
            (r#"{"result":{"apps":["com.alibaba.qwen"]}}"#, true),
            (r#"{"qwen":1}"#, true),
            (r#"{"a":"通义"}"#, true),
            // A literal prefix is escaped on the way out, so it needs the walk too.
            (r#"{"a":"__MCP_REF_ literal"}"#, true),
        ] {
            assert_eq!(f.encodes(text), encodes, "{text}");
            assert_eq!(f.encodes(text), f.encode_str(text) != text, "{text}");
        }
        assert!(!f.may_decode(r#"{"params":{"arguments":{"x":"a_b__c"}}}"#));
        assert!(f.may_decode(r#"{"arguments":{"app":"__Mcp_Ref_7177656e__"}}"#));
    }

    #[test]
    fn hex_value_covers_all_digits() {
        for (i, c) in "0123456789abcdef".bytes().enumerate() {
            assert_eq!(usize::from(hex_value(c)), i);
            assert_eq!(usize::from(hex_value(c.to_ascii_uppercase())), i);
        }
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// The pre-scan's windows never change what is found: long texts of term fragments,
        /// case changes, separators, non-ASCII and filler encode exactly as a search over the
        /// whole text does.
        #[test]
        fn prescan_windows_find_what_the_whole_search_finds(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "qwen", "Q-Wen", "dash scope", "ALIBABA", "ali_yuncs", "alicloud",
                        "tongyi", "qian-wen", "ant group", "bailian", "ModelScope", "damo",
                        "lingma", "wanx", "alipay", "antfin", "yuque", "dingtal\u{212A}",
                        "taobao", "tmall", "qoder", "maxcompute", "通义", "支付宝", "__mcp_ref_",
                        "__MCP_REF_71__", "ali", "yun", "baba", "scope", "group", "q", "wen",
                    ]).prop_map(String::from),
                    "[a-zA-Z _.,:/-]{0,40}",
                    "[ -~]{0,12}",
                    proptest::sample::select(vec!["é", "示例", "ſ", " ", "-", "_"]).prop_map(String::from),
                ],
                0..80,
            )
        ) {
            let text: String = parts.concat();
            let f = Filter::global();
            let whole = encode_matches(&text, f.search(&text, 0, text.len()));
            proptest::prop_assert_eq!(f.encode_str(&text), whole.clone());
            proptest::prop_assert_eq!(
                f.contains_term(&text),
                f.search(&text, 0, text.len()).any(|m| m.pattern() != f.prefix_id)
            );
        }
    }
}
