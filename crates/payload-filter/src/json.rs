//! The in-place walk over `serde_json::Value`s and JSON-RPC messages.
//!
//! Encoding and decoding share one walk, parameterized by a [`Direction`]; only decoding can
//! fail (encoding is injective because decoding inverts it, so it cannot merge two keys).

use std::borrow::Cow;
use std::collections::HashSet;
use std::convert::Infallible;

use serde_json::{Map, Value};

use crate::{Filter, prescan};

/// Why a value could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Two keys of one object decode to the same string (for example `device` next to the token
    /// for `device`). Rejected rather than resolved, because keeping either member would
    /// silently drop the other.
    #[error("decoded keys collide: {key:?}")]
    KeyCollision {
        /// The key, after decoding, that occurs twice.
        key: String,
    },
}

trait Direction {
    type Error;
    /// State one walk keeps from string to string.
    type Memo: Default;
    fn text<'a>(filter: &Filter, text: &'a str) -> Cow<'a, str>;
    /// [`Direction::text`] for an object key, which may consult the walk's memo.
    fn key<'a>(filter: &Filter, _memo: &mut Self::Memo, key: &'a str) -> Cow<'a, str> {
        Self::text(filter, key)
    }
    /// Called with the final keys of an object in which at least one key changed.
    fn check_keys<'k>(keys: impl Iterator<Item = &'k str>) -> Result<(), Self::Error>;
}

struct Encode;
struct Decode;

impl Direction for Encode {
    type Error = Infallible;
    type Memo = CleanKeys;
    fn text<'a>(filter: &Filter, text: &'a str) -> Cow<'a, str> {
        filter.encode_str(text)
    }
    #[inline]
    fn key<'a>(filter: &Filter, memo: &mut CleanKeys, key: &'a str) -> Cow<'a, str> {
        let Some(slot) = CleanKeys::slot(key) else {
            return filter.encode_str(key);
        };
        if memo.contains(&slot) {
            return Cow::Borrowed(key);
        }
        let encoded = filter.encode_str(key);
        if matches!(encoded, Cow::Borrowed(_)) {
            memo.remember(slot);
        }
        encoded
    }
    fn check_keys<'k>(_keys: impl Iterator<Item = &'k str>) -> Result<(), Infallible> {
        // Distinct keys encode to distinct keys: `decode(encode(k)) == k` for every `k`.
        Ok(())
    }
}

impl Direction for Decode {
    type Error = DecodeError;
    // Telling that a key holds no token prefix is already one SIMD search.
    type Memo = ();
    fn text<'a>(filter: &Filter, text: &'a str) -> Cow<'a, str> {
        filter.decode_str(text)
    }
    fn check_keys<'k>(keys: impl Iterator<Item = &'k str>) -> Result<(), DecodeError> {
        let mut seen = HashSet::new();
        for key in keys {
            if !seen.insert(key) {
                return Err(DecodeError::KeyCollision {
                    key: key.to_owned(),
                });
            }
        }
        Ok(())
    }
}

/// Short keys an encoding walk has already found free of terms, so that the keys every element
/// of an array repeats are tested once rather than once per element (the pre-scan of a short
/// string costs about as much as the rest of its walk).
///
/// A two-way set-associative table of [`KEY_SETS`] sets. A slot holds a key of fewer than
/// [`KEY_SLOT`] bytes, zero-padded, with its length in the last byte, so one fixed-size
/// comparison tells whether a key is the one a slot remembers. Whether a key encodes depends on
/// its bytes alone, so a remembered key is clean wherever it recurs. An all-zero slot spells the
/// empty key, which is clean too, so the table starts out valid.
///
/// Two ways rather than one slot per hash: an array element's dozen keys often hash two to a
/// set (the benchmark's `type` and `height` do), and a direct-mapped table then evicted one with
/// the other on every element, so both were scanned every time.
struct CleanKeys {
    sets: [[[u8; KEY_SLOT]; 2]; KEY_SETS],
}

/// Bytes per slot: keys up to one less are remembered.
const KEY_SLOT: usize = 32;
/// Sets in the table (a power of two), of two slots each.
const KEY_SETS: usize = 64;

impl Default for CleanKeys {
    fn default() -> Self {
        CleanKeys {
            sets: [[[0; KEY_SLOT]; 2]; KEY_SETS],
        }
    }
}

impl CleanKeys {
    /// The slot contents that stand for `key`, or `None` when it is too long to remember.
    #[inline]
    fn slot(key: &str) -> Option<[u8; KEY_SLOT]> {
        let bytes = key.as_bytes();
        let len = u8::try_from(bytes.len())
            .ok()
            .filter(|&n| usize::from(n) < KEY_SLOT)?;
        let mut slot = [0u8; KEY_SLOT];
        prescan::copy_short(&mut slot, bytes);
        slot[KEY_SLOT - 1] = len;
        Some(slot)
    }

    /// Whether the key these slot contents stand for is remembered as clean.
    #[inline]
    fn contains(&self, slot: &[u8; KEY_SLOT]) -> bool {
        let [a, b] = &self.sets[CleanKeys::index(slot)];
        a == slot || b == slot
    }

    /// Remembers a clean key in its set: it takes the first way, and the key there moves to
    /// the second, evicting the one remembered longest ago.
    #[inline]
    fn remember(&mut self, slot: [u8; KEY_SLOT]) {
        let set = &mut self.sets[CleanKeys::index(&slot)];
        set[1] = set[0];
        set[0] = slot;
    }

    /// The set index for a slot's contents: a multiplicative hash of all of it.
    #[inline]
    fn index(slot: &[u8; KEY_SLOT]) -> usize {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&slot[i..i + 8]);
            u64::from_le_bytes(w)
        };
        let mixed = word(0) ^ word(8).rotate_left(17) ^ word(16).rotate_left(34) ^ word(24);
        let hash = mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // The top bits of the product depend on every input bit.
        (hash >> (64 - KEY_SETS.trailing_zeros())) as usize
    }
}

/// Object members whose values the walk copies verbatim, by their original key.
#[derive(Clone, Copy, Default)]
struct Keep {
    /// Keys at this level whose values are correlation values.
    keys: &'static [&'static str],
    /// Whether `_meta` at this level is a request's `_meta`, whose `progressToken` is kept.
    request_meta: bool,
}

const PROGRESS_TOKEN: &str = "progressToken";

impl Filter {
    /// Encodes every string, key and value of `value` in place (see the crate docs for the
    /// members left verbatim). Strings and keys without terms are not touched.
    pub fn encode_value(&self, value: &mut Value) {
        let Ok(()) = self.walk::<Encode>(value, &mut CleanKeys::default());
    }

    /// Decodes every string, key and value of `value` in place.
    ///
    /// # Errors
    ///
    /// [`DecodeError::KeyCollision`] if two keys of one object decode to the same key. The value
    /// is then partly decoded; the caller is expected to reject it as a whole.
    pub fn decode_value(&self, value: &mut Value) -> Result<(), DecodeError> {
        self.walk::<Decode>(value, &mut ())
    }

    /// Encodes a JSON-RPC message, or each message of a batch: only its `params`, `result` and
    /// `error`, and never the correlation values inside `params` (`_meta.progressToken`, the
    /// `progressToken` of `notifications/progress`, the `requestId` of
    /// `notifications/cancelled`). `jsonrpc`, `id` and `method` are never touched.
    ///
    /// A batch element that is not an object is not a JSON-RPC message; it is encoded as a
    /// whole, so that nothing outgoing escapes the filter.
    pub fn encode_message(&self, message: &mut Value) {
        let Ok(()) = self.walk_message::<Encode>(message);
    }

    /// Decodes a JSON-RPC message or batch; the counterpart of [`Filter::encode_message`].
    ///
    /// # Errors
    ///
    /// [`DecodeError::KeyCollision`] as for [`Filter::decode_value`]. For a batch, the first
    /// failing element stops the walk; the caller is expected to reject the message.
    pub fn decode_message(&self, message: &mut Value) -> Result<(), DecodeError> {
        self.walk_message::<Decode>(message)
    }

    fn walk_message<D: Direction>(&self, message: &mut Value) -> Result<(), D::Error> {
        let memo = &mut D::Memo::default();
        match message {
            Value::Array(batch) => {
                for element in batch {
                    self.walk_one_message::<D>(element, memo)?;
                }
                Ok(())
            }
            other => self.walk_one_message::<D>(other, memo),
        }
    }

    fn walk_one_message<D: Direction>(
        &self,
        message: &mut Value,
        memo: &mut D::Memo,
    ) -> Result<(), D::Error> {
        let Value::Object(map) = message else {
            return self.walk::<D>(message, memo);
        };
        let params_keep = Keep {
            keys: match map.get("method").and_then(Value::as_str) {
                Some("notifications/progress") => &[PROGRESS_TOKEN],
                Some("notifications/cancelled") => &["requestId"],
                _ => &[],
            },
            request_meta: true,
        };
        for (key, value) in map.iter_mut() {
            match (key.as_str(), value) {
                ("params", Value::Object(params)) => {
                    self.walk_object::<D>(params, params_keep, memo)?;
                }
                ("params" | "result" | "error", value) => self.walk::<D>(value, memo)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn walk<D: Direction>(&self, value: &mut Value, memo: &mut D::Memo) -> Result<(), D::Error> {
        match value {
            Value::String(s) => {
                if let Cow::Owned(changed) = D::text(self, s) {
                    *s = changed;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.walk::<D>(item, memo)?;
                }
            }
            Value::Object(map) => self.walk_object::<D>(map, Keep::default(), memo)?,
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        Ok(())
    }

    fn walk_object<D: Direction>(
        &self,
        map: &mut Map<String, Value>,
        keep: Keep,
        memo: &mut D::Memo,
    ) -> Result<(), D::Error> {
        // Decided from the members as they arrived, before anything is rewritten. One pass over
        // the members (keys are unique) costs less than two lookups, for either map type.
        let (mut media, mut resource) = (false, false);
        for (key, value) in map.iter() {
            match (key.as_str(), value) {
                ("type", Value::String(t)) => media = t == "image" || t == "audio",
                ("uri", Value::String(_)) => resource = true,
                _ => {}
            }
        }
        // Keys that change, by position; filled in the same pass as the values are walked.
        let mut renamed: Vec<(usize, String)> = Vec::new();
        for (i, (key, value)) in map.iter_mut().enumerate() {
            let key = key.as_str();
            if let Cow::Owned(changed) = D::key(self, memo, key) {
                renamed.push((i, changed));
            }
            let verbatim =
                (media && key == "data") || (resource && key == "blob") || keep.keys.contains(&key);
            if verbatim {
                continue;
            }
            match value {
                Value::Object(meta) if keep.request_meta && key == "_meta" => {
                    let meta_keep = Keep {
                        keys: &[PROGRESS_TOKEN],
                        request_meta: false,
                    };
                    self.walk_object::<D>(meta, meta_keep, memo)?;
                }
                value => self.walk::<D>(value, memo)?,
            }
        }
        if renamed.is_empty() {
            return Ok(());
        }
        Self::rewrite_keys::<D>(map, renamed)
    }

    /// Rewrites the keys that change (`renamed`: position and new key, in order), keeping
    /// member order (which matters when `serde_json` preserves insertion order). The map is
    /// rebuilt, so this is only called when some key changes.
    fn rewrite_keys<D: Direction>(
        map: &mut Map<String, Value>,
        renamed: Vec<(usize, String)>,
    ) -> Result<(), D::Error> {
        // Check before taking the map apart, so that an error leaves every member in place.
        let mut pending = renamed.iter().peekable();
        D::check_keys(map.keys().enumerate().map(
            |(i, key)| match pending.next_if(|(j, _)| *j == i) {
                Some((_, changed)) => changed.as_str(),
                None => key.as_str(),
            },
        ))?;
        let old = std::mem::replace(map, Map::with_capacity(map.len()));
        let mut pending = renamed.into_iter().peekable();
        for (i, (key, value)) in old.into_iter().enumerate() {
            let key = match pending.next_if(|(j, _)| *j == i) {
                Some((_, changed)) => changed,
                None => key,
            };
            map.insert(key, value);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collision_leaves_the_object_whole() {
        let filter = Filter::new();
        let mut v = json!({"device": "first", "__mcp_ref_646576696365__": "second"});
        let before = v.clone();
        let err = filter.decode_value(&mut v).expect_err("keys collide");
        assert_eq!(
            err,
            DecodeError::KeyCollision {
                key: "device".into()
            }
        );
        assert_eq!(v, before);
        assert_eq!(err.to_string(), r#"decoded keys collide: "device""#);
    }

    #[test]
    fn remembered_keys_encode_like_fresh_ones() {
        // Many objects with the same keys: clean ones the memo remembers, ones with terms it
        // must not remember, ones too long to remember, the empty key, and enough distinct
        // keys that some share a slot and evict each other.
        let filter = Filter::new();
        let long = "a_key_that_is_far_too_long_to_remember_qwen";
        let mut keys: Vec<String> = [
            "",
            "text",
            "label",
            "Qwen",
            "x.taobao",
            long,
            "clean_but_exactly_thirty_one_b",
        ]
        .map(String::from)
        .to_vec();
        keys.extend((0..200).map(|i| format!("k{i}")));
        keys.extend((0..50).map(|i| format!("alibaba{i}")));
        let object: Map<String, Value> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), Value::from(i)))
            .collect();
        let mut v = Value::Array(vec![Value::Object(object); 4]);
        filter.encode_value(&mut v);
        let expected: Map<String, Value> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (filter.encode_str(k).into_owned(), Value::from(i)))
            .collect();
        assert_eq!(v, Value::Array(vec![Value::Object(expected); 4]));
        assert_eq!(filter.decode_value(&mut v), Ok(()));
        assert!(v.as_array().is_some_and(|a| {
            a.iter()
                .all(|o| o.as_object().map(Map::len) == Some(keys.len()))
        }));
    }

    #[test]
    fn clean_key_slots_tell_keys_apart() {
        assert_eq!(CleanKeys::slot(""), Some([0; KEY_SLOT]));
        let a = CleanKeys::slot("ab").expect("short");
        let b = CleanKeys::slot("ab\0").expect("short");
        assert_ne!(a, b, "a trailing NUL is not padding");
        assert!(CleanKeys::slot(&"x".repeat(KEY_SLOT - 1)).is_some());
        assert!(CleanKeys::slot(&"x".repeat(KEY_SLOT)).is_none());
        for key in [
            "",
            "type",
            "text",
            "label",
            "identifier",
            &"y".repeat(KEY_SLOT - 1),
        ] {
            let slot = CleanKeys::slot(key).expect("short");
            assert!(CleanKeys::index(&slot) < KEY_SETS);
        }
        // A remembered key is answered from its slot, and only that key is.
        let filter = Filter::new();
        let mut memo = CleanKeys::default();
        assert!(matches!(
            Encode::key(&filter, &mut memo, "label"),
            Cow::Borrowed("label")
        ));
        let slot = CleanKeys::slot("label").expect("short");
        assert!(memo.contains(&slot));
        assert!(matches!(
            Encode::key(&filter, &mut memo, "label"),
            Cow::Borrowed("label")
        ));
        assert_eq!(
            Encode::key(&filter, &mut memo, "qwen"),
            "__mcp_ref_7177656e__"
        );
        let qwen = CleanKeys::slot("qwen").expect("short");
        assert!(!memo.contains(&qwen), "keys with terms are not remembered");
    }

    #[test]
    fn two_keys_of_one_set_are_both_remembered() {
        // `type` and `height` share a set (as do `text` and `width`): both stay remembered
        // while they alternate, and a third key of the set evicts the older of the two.
        let filter = Filter::new();
        let slot = |k: &str| CleanKeys::slot(k).expect("short");
        let (a, b) = (slot("type"), slot("height"));
        assert_eq!(CleanKeys::index(&a), CleanKeys::index(&b));
        let third = (0..10_000)
            .map(|i| format!("k{i}"))
            .find(|k| CleanKeys::index(&slot(k)) == CleanKeys::index(&a))
            .expect("some short key shares the set");
        let mut memo = CleanKeys::default();
        for _ in 0..3 {
            for key in ["type", "height"] {
                assert!(matches!(
                    Encode::key(&filter, &mut memo, key),
                    Cow::Borrowed(k) if k == key
                ));
            }
        }
        assert!(memo.contains(&a) && memo.contains(&b));
        assert!(matches!(
            Encode::key(&filter, &mut memo, &third),
            Cow::Borrowed(_)
        ));
        assert!(memo.contains(&slot(&third)) && memo.contains(&b) && !memo.contains(&a));
    }

    #[test]
    fn renamed_keys_keep_values() {
        let filter = Filter::new();
        let mut v = json!({"a": 1, "qwen": 2, "z": 3, "Taobao": {"tmall": 4}});
        filter.encode_value(&mut v);
        assert_eq!(
            v,
            json!({"a": 1, "__mcp_ref_7177656e__": 2, "z": 3,
                   "__mcp_ref_54616f62616f__": {"__mcp_ref_746d616c6c__": 4}})
        );
    }
}
