//! Makes generated JSON Schemas acceptable to strict MCP clients.
//!
//! schemars emits draft 2020-12 with a top-level `$schema`, shared definitions under
//! `$defs` referenced by `$ref`, `anyOf: [T, null]` for options, and Rust-specific
//! `format`s (`uint32`, `double`). Several clients reject one or another of these (some
//! resolve no `$ref`, some refuse a draft they do not know, some choke on a `null`
//! branch or an unknown format), so every tool schema passes through
//! [`sanitize`]: refs inlined, `$schema`/`$defs` dropped, nullable unions collapsed to
//! their non-null branch (the field is optional by not being `required`), and only
//! standard formats kept.

use serde_json::{Map, Value};

const MAX_DEPTH: usize = 32;
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uuid",
    "regex",
];

/// Rewrites a schema object in place.
pub(crate) fn sanitize(schema: &mut Map<String, Value>) {
    let defs = schema
        .remove("$defs")
        .or_else(|| schema.remove("definitions"))
        .and_then(|d| match d {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default();
    schema.remove("$schema");
    let mut root = Value::Object(std::mem::take(schema));
    rewrite(&mut root, &defs, 0);
    if let Value::Object(m) = root {
        *schema = m;
    }
}

fn rewrite(v: &mut Value, defs: &Map<String, Value>, depth: usize) {
    match v {
        Value::Object(obj) => {
            collapse_nullable(obj);
            if depth < MAX_DEPTH
                && let Some(Value::String(r)) = obj.get("$ref")
            {
                let name = r
                    .strip_prefix("#/$defs/")
                    .or_else(|| r.strip_prefix("#/definitions/"));
                if let Some(def) = name.and_then(|n| defs.get(n)) {
                    let mut inlined = def.clone();
                    obj.remove("$ref");
                    // Sibling keywords of the $ref (a field's description) win.
                    if let Value::Object(d) = &mut inlined {
                        for (k, val) in std::mem::take(obj) {
                            d.insert(k, val);
                        }
                    }
                    *v = inlined;
                    rewrite(v, defs, depth + 1);
                    return;
                }
            }
            if let Some(Value::String(f)) = obj.get("format")
                && !STANDARD_FORMATS.contains(&f.as_str())
            {
                obj.remove("format");
            }
            for (_, child) in obj.iter_mut() {
                rewrite(child, defs, depth + 1);
            }
        }
        Value::Array(items) => {
            for child in items {
                rewrite(child, defs, depth + 1);
            }
        }
        _ => {}
    }
}

/// `anyOf: [X, {type: null}]` → X; `type: [T, "null"]` → T.
fn collapse_nullable(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get("type") {
        let non_null: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if non_null.len() == 1 {
            obj.insert("type".into(), non_null[0].clone());
        } else if non_null.len() != types.len() {
            obj.insert("type".into(), Value::Array(non_null));
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = obj.get(key) else {
            continue;
        };
        let is_null = |b: &Value| b.get("type").and_then(Value::as_str) == Some("null");
        if branches.len() == 2 && branches.iter().any(is_null) {
            let Some(Value::Object(keep)) = branches.iter().find(|b| !is_null(b)).cloned() else {
                continue;
            };
            obj.remove(key);
            for (k, val) in keep {
                obj.entry(k).or_insert(val);
            }
        }
    }
    // A `default` of null says nothing a client can use, and some reject it.
    if obj.get("default") == Some(&Value::Null) {
        obj.remove("default");
    }
}

/// Problems a strict client would have with a schema; empty when it is clean.
pub fn strictness_problems(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, "", &mut out, true);
    out
}

fn check(v: &Value, path: &str, out: &mut Vec<String>, top: bool) {
    match v {
        Value::Object(obj) => {
            for k in ["$ref", "$defs", "definitions"] {
                if obj.contains_key(k) {
                    out.push(format!("{path}: has {k}"));
                }
            }
            if top && obj.contains_key("$schema") {
                out.push("top-level $schema".to_string());
            }
            if obj.contains_key("anyOf") && obj.contains_key("default") {
                out.push(format!("{path}: anyOf with a default"));
            }
            for (k, child) in obj {
                check(child, &format!("{path}/{k}"), out, false);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                check(child, &format!("{path}/{i}"), out, false);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inlines_refs_and_collapses_nullables() {
        let mut s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "format": {"anyOf": [{"$ref": "#/$defs/Fmt"}, {"type": "null"}], "default": null, "description": "how"},
                "n": {"type": ["integer", "null"], "format": "uint32"},
                "when": {"type": "string", "format": "date-time"}
            },
            "$defs": {"Fmt": {"type": "string", "enum": ["text", "json"]}}
        })
        .as_object()
        .cloned()
        .unwrap();
        sanitize(&mut s);
        let v = Value::Object(s);
        assert_eq!(
            v,
            json!({
                "type": "object",
                "properties": {
                    "format": {"type": "string", "enum": ["text", "json"], "description": "how"},
                    "n": {"type": "integer"},
                    "when": {"type": "string", "format": "date-time"}
                }
            })
        );
        assert!(strictness_problems(&v).is_empty());
    }

    #[test]
    fn finds_problems() {
        let v = json!({"$schema": "x", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"anyOf": [], "default": 1}}});
        assert_eq!(strictness_problems(&v).len(), 3);
    }
}
