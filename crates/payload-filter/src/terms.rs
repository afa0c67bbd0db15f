//! The filtered vocabulary and the pattern set the encoder's automaton is built from.
//!
//! The lists are data, not logic: the filter's specification fixes them, and the tests check
//! them against an independent copy. The pattern set adds what the automaton cannot express on
//! its own: the separator forms and the two non-ASCII characters whose Unicode simple case
//! folding is an ASCII letter.

/// The ASCII terms, lowercase. Matched case-insensitively under Unicode simple case folding.
pub const ASCII_TERMS: [&str; 22] = [
    "qwen",
    "dashscope",
    "alibaba",
    "aliyun",
    "aliyuncs",
    "alicloud",
    "tongyi",
    "qianwen",
    "antgroup",
    "bailian",
    "modelscope",
    "damo",
    "lingma",
    "wanx",
    "alipay",
    "antfin",
    "yuque",
    "dingtalk",
    "taobao",
    "tmall",
    "qoder",
    "maxcompute",
];

/// The Chinese terms. Matched exactly (Han characters have no case).
pub const CHINESE_TERMS: [&str; 14] = [
    "通义",
    "千问",
    "阿里",
    "百炼",
    "魔搭",
    "达摩",
    "灵码",
    "万相",
    "支付宝",
    "蚂蚁",
    "语雀",
    "钉钉",
    "淘宝",
    "天猫",
];

/// Multi-part names that are also matched with one separator between their parts
/// (`Q-Wen`, `Dash_Scope`, `Ant Group`). Joined without a separator each is one of
/// [`ASCII_TERMS`].
pub const SEPARATED_TERMS: [(&str, &str); 9] = [
    ("q", "wen"),
    ("dash", "scope"),
    ("ali", "baba"),
    ("ali", "yun"),
    ("ali", "yuncs"),
    ("ali", "cloud"),
    ("tong", "yi"),
    ("qian", "wen"),
    ("ant", "group"),
];

/// The separators allowed between the parts of a [`SEPARATED_TERMS`] entry: exactly one of these.
pub const SEPARATORS: [char; 3] = ['-', '_', ' '];

/// Non-ASCII characters whose Unicode simple case folding (CaseFolding.txt, status C/S) is an
/// ASCII letter. Only these two exist; a test in this module checks the claim against the
/// standard library's case tables. The automaton matches ASCII case-insensitively, so each
/// pattern is additionally expanded with these characters in place of their ASCII letter.
const NON_ASCII_FOLDS: [(char, char); 2] = [('s', '\u{017F}'), ('k', '\u{212A}')];

/// Every ASCII-term spelling the automaton must know, lowercase: the plain terms, the separator
/// forms, and each of those with every combination of `ſ` for `s` and `K` for `k`.
/// ASCII case variants are left to the automaton's ASCII case-insensitivity.
pub(crate) fn ascii_patterns() -> Vec<String> {
    let mut spellings: Vec<String> = ASCII_TERMS.iter().map(|t| (*t).to_owned()).collect();
    for (head, tail) in SEPARATED_TERMS {
        for sep in SEPARATORS {
            spellings.push(format!("{head}{sep}{tail}"));
        }
    }
    let mut out: Vec<String> = Vec::new();
    for spelling in spellings {
        out.extend(fold_variants(&spelling));
    }
    out.sort();
    out.dedup();
    out
}

/// All spellings of `lower` with any subset of its foldable letters replaced by the non-ASCII
/// character that folds to it.
fn fold_variants(lower: &str) -> Vec<String> {
    let mut variants = vec![String::with_capacity(lower.len() + 4)];
    for c in lower.chars() {
        match NON_ASCII_FOLDS.iter().find(|(ascii, _)| *ascii == c) {
            Some((_, other)) => {
                let mut with_other = variants.clone();
                variants.iter_mut().for_each(|v| v.push(c));
                with_other.iter_mut().for_each(|v| v.push(*other));
                variants.extend(with_other);
            }
            None => variants.iter_mut().for_each(|v| v.push(c)),
        }
    }
    variants
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separated_terms_joined_are_ascii_terms() {
        for (head, tail) in SEPARATED_TERMS {
            let joined = format!("{head}{tail}");
            assert!(ASCII_TERMS.contains(&joined.as_str()), "{joined}");
        }
    }

    #[test]
    fn fold_variants_cover_every_combination() {
        let mut v = fold_variants("dashscope");
        v.sort();
        assert_eq!(
            v,
            ["dashscope", "dashſcope", "daſhscope", "daſhſcope"].map(String::from)
        );
        assert_eq!(fold_variants("dingtalk"), ["dingtalk", "dingtal\u{212A}"]);
        assert_eq!(fold_variants("qwen"), ["qwen"]);
    }

    #[test]
    fn pattern_count_is_what_the_lists_imply() {
        // 22 terms + 27 separator forms; `s`/`k` occurrences multiply:
        // dashscope 4, modelscope 2, aliyuncs 2, dingtalk 2; dash·scope 4 and ali·yuncs 2 per separator.
        let expected = (22 - 4 + 4 + 2 + 2 + 2) + (27 - 6 + 3 * 4 + 3 * 2);
        assert_eq!(ascii_patterns().len(), expected);
    }

    /// The standard library has no case folding table, so approximate "folds to an ASCII letter"
    /// by "lowercases or uppercases to a single ASCII letter". That admits exactly one extra
    /// character, dotless ı (U+0131): it uppercases to `I`, but CaseFolding.txt gives it no
    /// mapping, so under simple case folding it stays distinct from `i` (as in the originals'
    /// `(?iu)` / `/iu` matching).
    #[test]
    fn only_long_s_and_kelvin_fold_to_ascii_letters() {
        fn single_ascii_letter(mut it: impl Iterator<Item = char>) -> bool {
            matches!(it.next(), Some(a) if a.is_ascii_alphabetic()) && it.next().is_none()
        }
        let found: Vec<char> = (0x80u32..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|c| {
                single_ascii_letter(c.to_lowercase()) || single_ascii_letter(c.to_uppercase())
            })
            .collect();
        assert_eq!(found, ['\u{0131}', '\u{017F}', '\u{212A}']);
        let folds: Vec<char> = NON_ASCII_FOLDS.iter().map(|(_, c)| *c).collect();
        assert_eq!(folds, ['\u{017F}', '\u{212A}']);
    }
}
