//! What a launch asks of the app's state, validated: [`LaunchOptions`] (stop first, clear
//! the app's data, set its permissions, launch arguments, a deep link to open in it, a
//! locale), and what the backend reports it did ([`LaunchReport`]).
//!
//! The shape follows Maestro's `launchApp` command (mobile-dev-inc/maestro,
//! `maestro-orchestra/src/main/java/maestro/orchestra/yaml/YamlLaunchApp.kt`:
//! `clearState`, `stopApp`, `permissions: Map<String, String>`, `arguments: Map<String,
//! Any>`), so a flow's `launchApp` maps onto it field by field. Maestro's defaults differ
//! from [`LaunchOptions::default`], which keeps a plain launch what it always was: Maestro
//! stops the app first unless `stopApp: false` (`Maestro.launchApp(stopIfRunning = true)`
//! in `maestro-client/src/main/java/maestro/Maestro.kt`) and, with no `permissions`, sets
//! `all: allow` (`Orchestra.launchAppCommand`); a caller that replays a flow says so.
//!
//! Not for: how a platform does each step (the backends), or MCP wording (the server).

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::input::{DeviceUrl, Locales, ValidationError, excerpt};

/// Most permission entries or launch arguments one launch takes.
pub const MAX_LAUNCH_ENTRIES: usize = 64;
/// Longest text value of a launch argument, in bytes.
pub const MAX_ARGUMENT_TEXT: usize = 4096;

/// How one launch treats the app. The default is a plain launch: nothing stopped,
/// cleared or granted, no arguments, no link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchOptions {
    /// Launch in these locales.
    pub locales: Option<Locales>,
    /// Stop the app first, so it starts afresh and receives the launch arguments (a
    /// running app is only brought to the front, and keeps the intent it started with).
    pub stop_first: bool,
    /// Clear the app's data (and so its state) before launching.
    pub clear_state: bool,
    /// Grant, deny or reset runtime permissions before launching.
    pub permissions: Option<Permissions>,
    /// Launch arguments: intent extras on Android, process arguments on iOS.
    pub arguments: LaunchArguments,
    /// Open this URL in the app instead of its launcher screen.
    pub url: Option<DeviceUrl>,
}

impl LaunchOptions {
    /// A plain launch in `locales` (what a launch was before the other options).
    pub fn in_locales(locales: Option<Locales>) -> Self {
        LaunchOptions {
            locales,
            ..Default::default()
        }
    }
}

/// What to do with a permission: Maestro's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionValue {
    /// Grant it.
    Allow,
    /// Revoke it.
    Deny,
    /// Back to "not decided" (the app asks again): a revoke on Android, `reset` on iOS.
    Unset,
}

impl PermissionValue {
    /// `allow`, `deny` or `unset`.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionValue::Allow => "allow",
            PermissionValue::Deny => "deny",
            PermissionValue::Unset => "unset",
        }
    }
}

/// A permission's name as a launch takes it: a Maestro group (`camera`, `location`,
/// `notifications`, …), an iOS privacy service (`photos-add`, `location-always`), or a
/// full Android permission (`android.permission.CAMERA`). The backend maps it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PermissionName(String);

impl PermissionName {
    /// Checks the name: ASCII letters, digits, `_`, `.` and `-`, starting with a letter,
    /// at most 200 bytes; `all` is not a name but the map's own key.
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        let ok = !s.is_empty()
            && s.len() <= 200
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if ok && s != "all" {
            Ok(PermissionName(s.to_string()))
        } else {
            Err(ValidationError(format!(
                "{} is not a permission name: use a group such as camera, location or notifications, or a full Android name such as android.permission.CAMERA",
                excerpt(s)
            )))
        }
    }

    /// The name as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PermissionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Runtime permissions to set before a launch: `all` first (every runtime permission the
/// app asks for), then each named one over it, as Maestro applies them
/// (`AndroidDriver.setPermissions`: `all` removed and applied, then the rest).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Permissions {
    /// What `all` asks, if given.
    pub all: Option<PermissionValue>,
    /// Each named permission, in the order given.
    pub each: Vec<(PermissionName, PermissionValue)>,
}

impl Permissions {
    /// Every permission allowed: Maestro's default for a flow's `launchApp`.
    pub fn allow_all() -> Self {
        Permissions {
            all: Some(PermissionValue::Allow),
            each: Vec::new(),
        }
    }
}

impl<'de> Deserialize<'de> for Permissions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Permissions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of permission names to allow, deny or unset, e.g. {\"all\": \"deny\", \"camera\": \"allow\"}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Permissions, A::Error> {
                let mut out = Permissions::default();
                let mut count = 0;
                while let Some(key) = map.next_key::<String>()? {
                    let raw: serde_json::Value = map.next_value()?;
                    let value: PermissionValue =
                        serde_json::from_value(raw.clone()).map_err(|_| {
                            de::Error::custom(format!(
                                "the permission {} must be \"allow\", \"deny\" or \"unset\", not {}",
                                excerpt(&key),
                                excerpt(&raw.to_string())
                            ))
                        })?;
                    count += 1;
                    if count > MAX_LAUNCH_ENTRIES {
                        return Err(de::Error::custom(format!(
                            "at most {MAX_LAUNCH_ENTRIES} permissions may be set at once"
                        )));
                    }
                    if key == "all" {
                        out.all = Some(value);
                        continue;
                    }
                    let name = PermissionName::parse(&key).map_err(de::Error::custom)?;
                    if out.each.iter().any(|(n, _)| *n == name) {
                        return Err(de::Error::custom(format!(
                            "the permission {name} is given twice"
                        )));
                    }
                    out.each.push((name, value));
                }
                if out.all.is_none() && out.each.is_empty() {
                    return Err(de::Error::custom(
                        "no permission given: name at least one, or `all`",
                    ));
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for Permissions {
    /// The map Maestro's YAML and the tool take: `all` first, then each name.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.each.len() + usize::from(self.all.is_some())))?;
        if let Some(all) = self.all {
            m.serialize_entry("all", &all)?;
        }
        for (name, value) in &self.each {
            m.serialize_entry(name.as_str(), value)?;
        }
        m.end()
    }
}

impl JsonSchema for Permissions {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Permissions")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "Runtime permissions to set before launching, as Maestro's launchApp takes them: `all`, then groups (camera, location, contacts, microphone, notifications, …) or full Android names (android.permission.CAMERA) over it, e.g. {\"all\": \"deny\", \"camera\": \"allow\"}",
            "additionalProperties": {"type": "string", "enum": ["allow", "deny", "unset"]},
            "maxProperties": MAX_LAUNCH_ENTRIES,
        })
    }
}

/// A launch argument's key: ASCII letters, digits, `_`, `.` and `-`, at most 128 bytes,
/// optionally after one leading `-` (the iOS form, which Maestro passes through).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArgumentKey(String);

impl ArgumentKey {
    /// Checks the key.
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        let body = s.strip_prefix('-').unwrap_or(s);
        let ok = !body.is_empty()
            && s.len() <= 128
            && body.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && body
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if ok {
            Ok(ArgumentKey(s.to_string()))
        } else {
            Err(ValidationError(format!(
                "{} is not a launch argument key: use ASCII letters, digits, `_`, `.` and `-` (e.g. isLoggedIn or com.example.USER), at most 128 characters",
                excerpt(s)
            )))
        }
    }

    /// The key as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ArgumentKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A launch argument's value, typed as the JSON gave it.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentValue {
    /// A string (no control characters, at most [`MAX_ARGUMENT_TEXT`] bytes).
    Text(String),
    /// A whole number.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A finite number with a fraction.
    Float(f64),
}

impl fmt::Display for ArgumentValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentValue::Text(s) => f.write_str(s),
            ArgumentValue::Int(i) => write!(f, "{i}"),
            ArgumentValue::Bool(b) => write!(f, "{b}"),
            ArgumentValue::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// Launch arguments in the order given; keys are unique.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaunchArguments(Vec<(ArgumentKey, ArgumentValue)>);

impl LaunchArguments {
    /// Builds the list; refuses a repeated key or more than [`MAX_LAUNCH_ENTRIES`].
    pub fn new(
        entries: Vec<(ArgumentKey, ArgumentValue)>,
    ) -> Result<LaunchArguments, ValidationError> {
        if entries.len() > MAX_LAUNCH_ENTRIES {
            return Err(ValidationError(format!(
                "at most {MAX_LAUNCH_ENTRIES} launch arguments may be given"
            )));
        }
        for (i, (k, v)) in entries.iter().enumerate() {
            if entries[..i].iter().any(|(o, _)| o == k) {
                return Err(ValidationError(format!(
                    "the launch argument {k} is given twice"
                )));
            }
            check_value(k, v)?;
        }
        Ok(LaunchArguments(entries))
    }

    /// The arguments in order.
    pub fn iter(&self) -> impl Iterator<Item = &(ArgumentKey, ArgumentValue)> {
        self.0.iter()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn check_value(k: &ArgumentKey, v: &ArgumentValue) -> Result<(), ValidationError> {
    match v {
        ArgumentValue::Text(s) if s.len() > MAX_ARGUMENT_TEXT => Err(ValidationError(format!(
            "the launch argument {k} is longer than {MAX_ARGUMENT_TEXT} bytes"
        ))),
        ArgumentValue::Text(s) if s.chars().any(char::is_control) => Err(ValidationError(format!(
            "the launch argument {k} contains control characters (newline, NUL, …)"
        ))),
        ArgumentValue::Float(x) if !x.is_finite() => Err(ValidationError(format!(
            "the launch argument {k} is not a finite number"
        ))),
        _ => Ok(()),
    }
}

impl<'de> Deserialize<'de> for LaunchArguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LaunchArguments;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of launch argument names to strings, numbers or booleans, e.g. {\"isLoggedIn\": true, \"user\": \"ada\"}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LaunchArguments, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let key = ArgumentKey::parse(&key).map_err(de::Error::custom)?;
                    let raw: serde_json::Value = map.next_value()?;
                    let value = match raw {
                        serde_json::Value::String(s) => ArgumentValue::Text(s),
                        serde_json::Value::Bool(b) => ArgumentValue::Bool(b),
                        serde_json::Value::Number(n) => match n.as_i64() {
                            Some(i) => ArgumentValue::Int(i),
                            None => ArgumentValue::Float(n.as_f64().ok_or_else(|| {
                                de::Error::custom(format!(
                                    "the launch argument {key} is out of range"
                                ))
                            })?),
                        },
                        _ => {
                            return Err(de::Error::custom(format!(
                                "the launch argument {key} must be a string, a number or a boolean"
                            )));
                        }
                    };
                    entries.push((key, value));
                    if entries.len() > MAX_LAUNCH_ENTRIES {
                        break;
                    }
                }
                LaunchArguments::new(entries).map_err(de::Error::custom)
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for LaunchArguments {
    /// The map the tool takes, values with their JSON types.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            match v {
                ArgumentValue::Text(t) => m.serialize_entry(k.as_str(), t)?,
                ArgumentValue::Int(i) => m.serialize_entry(k.as_str(), i)?,
                ArgumentValue::Bool(b) => m.serialize_entry(k.as_str(), b)?,
                ArgumentValue::Float(x) => m.serialize_entry(k.as_str(), x)?,
            }
        }
        m.end()
    }
}

impl JsonSchema for LaunchArguments {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("LaunchArguments")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "Launch arguments: intent extras on Android (strings, whole numbers, booleans and decimals as --es/--ei/--el/--ez/--ef), process arguments on iOS (-key value, as Maestro passes them), e.g. {\"isLoggedIn\": true, \"user\": \"ada\"}",
            "additionalProperties": {"type": ["string", "integer", "number", "boolean"]},
            "maxProperties": MAX_LAUNCH_ENTRIES,
        })
    }
}

/// What one permission entry changed on the device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PermissionChange {
    /// The platform's name (`android.permission.CAMERA`, the simctl service `photos`).
    pub name: String,
    /// What was asked.
    pub value: PermissionValue,
}

/// What a launch did, for the result the caller reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LaunchReport {
    /// The app was stopped first.
    pub stopped: bool,
    /// Its data was cleared.
    pub cleared: bool,
    /// The permissions set, each with the platform's name.
    pub permissions: Vec<PermissionChange>,
    /// How many launch arguments it was given.
    pub arguments: usize,
    /// The URL it was opened with.
    pub url: Option<String>,
    /// Anything the caller should know (the app the OS chose for a URL, …).
    pub notes: Vec<String>,
}

impl LaunchReport {
    /// What was done before the launch, e.g. "cleared its data, granted 3 permissions,
    /// passed 2 launch arguments" (the URL and the notes are the caller's to word); empty
    /// for a plain launch.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.stopped && !self.cleared {
            parts.push("stopped it first".to_string());
        }
        if self.cleared {
            parts.push("cleared its data".to_string());
        }
        for (value, verb) in [
            (PermissionValue::Allow, "granted"),
            (PermissionValue::Deny, "denied"),
            (PermissionValue::Unset, "reset"),
        ] {
            let n = self.permissions.iter().filter(|p| p.value == value).count();
            if n > 0 {
                parts.push(format!("{verb} {n} permission{}", plural(n)));
            }
        }
        if self.arguments > 0 {
            parts.push(format!(
                "passed {} launch argument{}",
                self.arguments,
                plural(self.arguments)
            ));
        }
        parts.join(", ")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_take_maestros_shape() {
        let p: Permissions = serde_json::from_str(
            r#"{"all": "deny", "camera": "allow", "android.permission.READ_SMS": "unset"}"#,
        )
        .unwrap();
        assert_eq!(p.all, Some(PermissionValue::Deny));
        assert_eq!(p.each.len(), 2);
        assert_eq!(p.each[0].0.as_str(), "camera");
        assert_eq!(p.each[1].1, PermissionValue::Unset);
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"all":"deny","camera":"allow","android.permission.READ_SMS":"unset"}"#
        );
        for bad in [
            r#"{"camera": "yes"}"#,
            r#"{"cam era": "allow"}"#,
            r#"{"a;reboot": "allow"}"#,
            r#"{}"#,
            r#"{"camera": "allow", "camera": "deny"}"#,
        ] {
            assert!(serde_json::from_str::<Permissions>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn arguments_keep_their_types_and_order() {
        let a: LaunchArguments = serde_json::from_str(
            r#"{"user": "ada", "count": 3, "on": true, "ratio": 0.5, "big": 4000000000}"#,
        )
        .unwrap();
        let got: Vec<_> = a.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        assert_eq!(
            got,
            vec![
                ("user", ArgumentValue::Text("ada".into())),
                ("count", ArgumentValue::Int(3)),
                ("on", ArgumentValue::Bool(true)),
                ("ratio", ArgumentValue::Float(0.5)),
                ("big", ArgumentValue::Int(4_000_000_000)),
            ]
        );
        assert!(serde_json::from_str::<LaunchArguments>(r#"{"-cartValue": 3}"#).is_ok());
        // Written back as read, order kept.
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"user":"ada","count":3,"on":true,"ratio":0.5,"big":4000000000}"#
        );
        for bad in [
            r#"{"a b": 1}"#,
            r#"{"x": null}"#,
            r#"{"x": [1]}"#,
            r#"{"x": "a\nb"}"#,
            r#"{"--x": 1}"#,
            r#"{"x": 1, "x": 2}"#,
        ] {
            assert!(
                serde_json::from_str::<LaunchArguments>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_summary_says_what_was_done() {
        let r = LaunchReport {
            cleared: true,
            permissions: vec![
                PermissionChange {
                    name: "a".into(),
                    value: PermissionValue::Allow,
                },
                PermissionChange {
                    name: "b".into(),
                    value: PermissionValue::Allow,
                },
                PermissionChange {
                    name: "c".into(),
                    value: PermissionValue::Deny,
                },
            ],
            arguments: 2,
            ..Default::default()
        };
        assert_eq!(
            r.summary(),
            "cleared its data, granted 2 permissions, denied 1 permission, passed 2 launch arguments"
        );
        assert_eq!(LaunchReport::default().summary(), "");
    }
}
