//! The in-place walk over `serde_json::Value`s and JSON-RPC messages.
//!
//! Encoding and decoding share one walk, parameterized by a [`Direction`]; only decoding can
//! fail (encoding is injective because decoding inverts it, so it cannot merge two keys).

use std::borrow::Cow;
use std::collections::HashSet;
use std::convert::Infallible;

use serde_json::{Map, Value};

use crate::Filter;

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
    fn text<'a>(filter: &Filter, text: &'a str) -> Cow<'a, str>;
    /// Called with the final keys of an object in which at least one key changed.
    fn check_keys<'k>(keys: impl Iterator<Item = &'k str>) -> Result<(), Self::Error>;
}

struct Encode;
struct Decode;

impl Direction for Encode {
    type Error = Infallible;
    fn text<'a>(filter: &Filter, text: &'a str) -> Cow<'a, str> {
        filter.encode_str(text)
    }
    fn check_keys<'k>(_keys: impl Iterator<Item = &'k str>) -> Result<(), Infallible> {
        // Distinct keys encode to distinct keys: `decode(encode(k)) == k` for every `k`.
        Ok(())
    }
}

impl Direction for Decode {
    type Error = DecodeError;
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
        let Ok(()) = self.walk::<Encode>(value);
    }

    /// Decodes every string, key and value of `value` in place.
    ///
    /// # Errors
    ///
    /// [`DecodeError::KeyCollision`] if two keys of one object decode to the same key. The value
    /// is then partly decoded; the caller is expected to reject it as a whole.
    pub fn decode_value(&self, value: &mut Value) -> Result<(), DecodeError> {
        self.walk::<Decode>(value)
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
        match message {
            Value::Array(batch) => {
                for element in batch {
                    self.walk_one_message::<D>(element)?;
                }
                Ok(())
            }
            other => self.walk_one_message::<D>(other),
        }
    }

    fn walk_one_message<D: Direction>(&self, message: &mut Value) -> Result<(), D::Error> {
        let Value::Object(map) = message else {
            return self.walk::<D>(message);
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
                ("params", Value::Object(params)) => self.walk_object::<D>(params, params_keep)?,
                ("params" | "result" | "error", value) => self.walk::<D>(value)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn walk<D: Direction>(&self, value: &mut Value) -> Result<(), D::Error> {
        match value {
            Value::String(s) => {
                if let Cow::Owned(changed) = D::text(self, s) {
                    *s = changed;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.walk::<D>(item)?;
                }
            }
            Value::Object(map) => self.walk_object::<D>(map, Keep::default())?,
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        Ok(())
    }

    fn walk_object<D: Direction>(
        &self,
        map: &mut Map<String, Value>,
        keep: Keep,
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
            if let Cow::Owned(changed) = D::text(self, key) {
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
                    self.walk_object::<D>(meta, meta_keep)?;
                }
                value => self.walk::<D>(value)?,
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
