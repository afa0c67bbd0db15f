//! Validated input types. Each deserializes from a JSON string, checks its rule, and
//! fails deserialization with a message that names the rule, so a bad value never gets
//! near a device shell. Each also describes itself to schemars (inline, with a pattern).

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why an input value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ValidationError(pub String);

/// A user-supplied value quoted for an error message, cut to 60 characters so a huge
/// argument cannot flood the model's context.
pub fn excerpt(s: &str) -> String {
    shown(s)
}

fn shown(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut:?}…")
    } else {
        format!("{s:?}")
    }
}

macro_rules! string_newtype {
    ($name:ident, $schema_desc:expr, $pattern:expr) => {
        impl $name {
            /// The value as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
        impl std::str::FromStr for $name {
            type Err = ValidationError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $name::parse(s)
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                $name::parse(&s).map_err(serde::de::Error::custom)
            }
        }
        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "description": $schema_desc,
                    "pattern": $pattern,
                })
            }
        }
    };
}

const PACKAGE_RULE: &str = "an Android package name is dot-separated segments of ASCII letters, digits and `_`, each segment starting with a letter (e.g. com.example.app)";
const BUNDLE_RULE: &str = "an iOS bundle id is ASCII letters, digits, `-` and `.`, not starting or ending with `.` and without empty segments (e.g. com.apple.Preferences)";
const MAX_APP_ID: usize = 255;

/// An Android package name (`com.example.app`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PackageName(String);

impl PackageName {
    /// Checks `s` against the package name rules.
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        if is_package_name(s) {
            Ok(PackageName(s.to_string()))
        } else {
            Err(ValidationError(format!(
                "{} is not a valid package name: {PACKAGE_RULE}",
                shown(s)
            )))
        }
    }
}
string_newtype!(
    PackageName,
    "Android package name, e.g. com.example.app",
    "^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)*$"
);

fn is_package_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_APP_ID
        && s.split('.').all(|seg| {
            let mut chars = seg.chars();
            matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// An iOS bundle id (`com.apple.Preferences`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BundleId(String);

impl BundleId {
    /// Checks `s` against the bundle id rules.
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        if is_bundle_id(s) {
            Ok(BundleId(s.to_string()))
        } else {
            Err(ValidationError(format!(
                "{} is not a valid bundle id: {BUNDLE_RULE}",
                shown(s)
            )))
        }
    }
}
string_newtype!(
    BundleId,
    "iOS bundle id, e.g. com.apple.Preferences",
    "^[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*$"
);

fn is_bundle_id(s: &str) -> bool {
    // A leading `-` would read as an option to simctl or idb.
    !s.is_empty()
        && !s.starts_with('-')
        && s.len() <= MAX_APP_ID
        && s.split('.').all(|seg| {
            !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// An app identifier as the tools take it: an Android package name or an iOS bundle id.
/// The backend narrows it with [`AppId::package_name`] or [`AppId::bundle_id`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AppId(String);

impl AppId {
    /// Accepts a package name or a bundle id.
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        if is_package_name(s) || is_bundle_id(s) {
            Ok(AppId(s.to_string()))
        } else {
            Err(ValidationError(format!(
                "{} is not a valid app id: {PACKAGE_RULE}; {BUNDLE_RULE}. Call mobile_list_apps to see the installed apps",
                shown(s)
            )))
        }
    }

    /// The id as an Android package name.
    pub fn package_name(&self) -> Result<PackageName, ValidationError> {
        PackageName::parse(&self.0)
    }

    /// The id as an iOS bundle id.
    pub fn bundle_id(&self) -> Result<BundleId, ValidationError> {
        BundleId::parse(&self.0)
    }
}
string_newtype!(
    AppId,
    "Android package name (com.example.app) or iOS bundle id (com.apple.Preferences)",
    "^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$"
);

/// A comma-separated list of BCP 47 locales (`en-US,fr`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Locales(String);

impl Locales {
    /// Checks and normalizes a locale list (tags trimmed, joined by `,`).
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        let ok = !s.is_empty()
            && s.len() <= 200
            && s.split(',').all(|tag| {
                let tag = tag.trim();
                !tag.is_empty()
                    && tag.split('-').all(|sub| {
                        (1..=8).contains(&sub.len())
                            && sub.chars().all(|c| c.is_ascii_alphanumeric())
                    })
            });
        if ok {
            Ok(Locales(
                s.split(',').map(str::trim).collect::<Vec<_>>().join(","),
            ))
        } else {
            Err(ValidationError(format!(
                "{} is not a valid locale list: use comma-separated BCP 47 tags such as en-US or fr,de-CH",
                shown(s)
            )))
        }
    }

    /// The locale tags, in order.
    pub fn tags(&self) -> impl Iterator<Item = &str> {
        self.0.split(',')
    }
}
string_newtype!(
    Locales,
    "Comma-separated BCP 47 locales, e.g. en-US or fr,de-CH",
    "^[A-Za-z0-9-]+( *, *[A-Za-z0-9-]+)*$"
);

/// Schemes no configuration can allow: they reach local files, run script, or carry
/// arbitrary intents.
pub(crate) const FORBIDDEN_SCHEMES: &[&str] = &[
    "file",
    "javascript",
    "data",
    "intent",
    "content",
    "vbscript",
];

/// A URL to open on the device. Deserialization checks its shape and refuses the
/// `FORBIDDEN_SCHEMES`; [`UrlPolicy::check`] then applies the configured scheme list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DeviceUrl {
    url: String,
    scheme_len: usize,
}

impl DeviceUrl {
    /// Splits a URL into its scheme and the rest; refuses one without a scheme.
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        let Some(colon) = s.find(':') else {
            return Err(ValidationError(format!(
                "{} is not a URL: it needs a scheme such as https://",
                shown(s)
            )));
        };
        let scheme = &s[..colon];
        let scheme_ok = scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !scheme_ok {
            return Err(ValidationError(format!(
                "{} is not a URL: the scheme must be letters, digits, `+`, `-` or `.`, starting with a letter",
                shown(s)
            )));
        }
        if s.len() > 8192 {
            return Err(ValidationError(
                "the URL is longer than 8192 bytes".to_string(),
            ));
        }
        if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ValidationError(format!(
                "{} contains spaces or control characters: percent-encode them (a space is %20)",
                shown(s)
            )));
        }
        let lower = scheme.to_ascii_lowercase();
        if FORBIDDEN_SCHEMES.contains(&lower.as_str()) {
            return Err(ValidationError(format!(
                "the `{lower}:` scheme is never allowed (it can read local files or run code)"
            )));
        }
        if (lower == "http" || lower == "https") && !s[colon..].starts_with("://") {
            return Err(ValidationError(format!(
                "{} is not a valid {lower} URL: it must start with {lower}://",
                shown(s)
            )));
        }
        Ok(DeviceUrl {
            url: s.to_string(),
            scheme_len: colon,
        })
    }

    /// The scheme, lowercased as URL schemes compare.
    pub fn scheme(&self) -> String {
        self.url[..self.scheme_len].to_ascii_lowercase()
    }

    /// The URL as given.
    pub fn as_str(&self) -> &str {
        &self.url
    }
}

impl fmt::Display for DeviceUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

impl Serialize for DeviceUrl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.url)
    }
}

impl<'de> Deserialize<'de> for DeviceUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        DeviceUrl::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for DeviceUrl {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("DeviceUrl")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "URL to open, e.g. https://example.com (other schemes only when the server allows them)",
        })
    }
}

/// Which URL schemes `mobile_open_url` may open: `http` and `https`, plus what the user
/// configured (deep links such as `myapp`). The forbidden schemes can never be added.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UrlPolicy {
    extra: Vec<String>,
}

impl UrlPolicy {
    /// A policy allowing `http`, `https` and the given extra schemes.
    pub fn with_schemes<I, S>(schemes: I) -> Result<Self, ValidationError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut extra = Vec::new();
        for s in schemes {
            let s = s.as_ref().trim().trim_end_matches(':').to_ascii_lowercase();
            if FORBIDDEN_SCHEMES.contains(&s.as_str()) {
                return Err(ValidationError(format!(
                    "the `{s}:` scheme can never be allowed"
                )));
            }
            if s.is_empty()
                || !s
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            {
                return Err(ValidationError(format!("`{s}` is not a URL scheme")));
            }
            extra.push(s);
        }
        Ok(UrlPolicy { extra })
    }

    /// Whether `url`'s scheme may be opened.
    pub fn check(&self, url: &DeviceUrl) -> Result<(), ValidationError> {
        let scheme = url.scheme();
        if scheme.len() > 40 {
            return Err(ValidationError(format!(
                "the URL scheme {} is not allowed; only {} are",
                excerpt(&scheme),
                self.allowed().join(", ")
            )));
        }
        if scheme == "http" || scheme == "https" || self.extra.contains(&scheme) {
            Ok(())
        } else {
            Err(ValidationError(format!(
                "the `{scheme}:` scheme is not allowed; only {} are. Start the server with --allow-url-scheme {scheme} to allow deep links of this app",
                self.allowed().join(", ")
            )))
        }
    }

    /// The schemes this policy allows.
    pub fn allowed(&self) -> Vec<String> {
        let mut v = vec!["http".to_string(), "https".to_string()];
        v.extend(self.extra.iter().cloned());
        v
    }
}

/// An absolute path on the device (POSIX), normalized; `..` may not climb above `/`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DevicePath(String);

impl DevicePath {
    /// Normalizes an absolute path; refuses one that climbs above `/`.
    pub fn parse(s: &str) -> Result<Self, ValidationError> {
        if s.is_empty() || s.len() > 4096 {
            return Err(ValidationError(
                "a device path must be 1 to 4096 bytes".to_string(),
            ));
        }
        if s.chars().any(|c| c.is_control()) {
            return Err(ValidationError(format!(
                "{} contains control characters (newline, NUL, ...), which no device path may contain",
                shown(s)
            )));
        }
        if !s.starts_with('/') {
            return Err(ValidationError(format!(
                "{} is not an absolute device path: start it with / (e.g. /sdcard/Download/file.txt)",
                shown(s)
            )));
        }
        let mut parts: Vec<&str> = Vec::new();
        for seg in s.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err(ValidationError(format!(
                            "{} climbs above / with `..`",
                            shown(s)
                        )));
                    }
                }
                seg => parts.push(seg),
            }
        }
        Ok(DevicePath(format!("/{}", parts.join("/"))))
    }

    /// Whether this path is `root` or below it.
    pub fn is_under(&self, root: &str) -> bool {
        let root = root.trim_end_matches('/');
        self.0 == root || self.0.starts_with(&format!("{root}/"))
    }
}

string_newtype!(
    DevicePath,
    "Absolute path on the device, e.g. /sdcard/Download/file.txt",
    "^/"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names() {
        for ok in ["com.example.app", "android", "com.alibaba.qwen", "a_b.c1"] {
            assert!(PackageName::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "com.x;reboot",
            "../x",
            "com..x",
            ".com",
            "com.1x",
            "com.x y",
            "com.x\n",
            "com-x",
        ] {
            let e = PackageName::parse(bad).unwrap_err();
            assert!(e.0.contains("package name"), "{e}");
        }
    }

    #[test]
    fn app_ids_accept_either_rule() {
        assert!(AppId::parse("com.apple.mobile-safari").is_ok());
        assert!(AppId::parse("com.example.app").is_ok());
        let e = AppId::parse("com.x;reboot").unwrap_err();
        assert!(e.0.contains("not a valid app id"));
        assert!(e.0.contains("mobile_list_apps"));
        assert!(AppId::parse("").is_err());
        assert!(AppId::parse("../x").is_err());
        assert!(AppId::parse("-rf").is_err());
        assert!(BundleId::parse("-com.x").is_err());
        assert!(
            AppId::parse("com.apple.mobile-safari")
                .unwrap()
                .package_name()
                .is_err()
        );
    }

    #[test]
    fn deserialization_names_the_rule() {
        let e = serde_json::from_str::<AppId>("\"$(reboot)\"").unwrap_err();
        assert!(e.to_string().contains("not a valid app id"), "{e}");
    }

    #[test]
    fn urls() {
        let p = UrlPolicy::default();
        let u = DeviceUrl::parse("https://example.com/a?b=1&c=$(id)").unwrap();
        assert!(p.check(&u).is_ok());
        for bad in [
            "javascript:alert(1)",
            "FILE:///etc/passwd",
            "data:text/html,hi",
            "intent://x#Intent;end",
            "https://a b",
            "noscheme",
            "http:/x",
            "1http://x",
        ] {
            assert!(DeviceUrl::parse(bad).is_err(), "{bad}");
        }
        let deep = DeviceUrl::parse("myapp://open/item").unwrap();
        let e = p.check(&deep).unwrap_err();
        assert!(e.0.contains("--allow-url-scheme myapp"), "{e}");
        let p = UrlPolicy::with_schemes(["myapp"]).unwrap();
        assert!(p.check(&deep).is_ok());
        assert!(UrlPolicy::with_schemes(["javascript"]).is_err());
    }

    #[test]
    fn locales() {
        assert_eq!(Locales::parse("en-US, fr").unwrap().as_str(), "en-US,fr");
        assert!(Locales::parse("en;reboot").is_err());
        assert!(Locales::parse("").is_err());
    }

    #[test]
    fn device_paths() {
        assert_eq!(
            DevicePath::parse("/sdcard/./a//b/../c").unwrap().as_str(),
            "/sdcard/a/c"
        );
        assert!(DevicePath::parse("/sdcard/../../etc").is_err());
        assert!(DevicePath::parse("sdcard/x").is_err());
        assert!(DevicePath::parse("/sdcard/x\ny").is_err());
        let p = DevicePath::parse("/sdcard/../data/x").unwrap();
        assert!(!p.is_under("/sdcard"));
        assert!(DevicePath::parse("/sdcard/x").unwrap().is_under("/sdcard/"));
        assert!(!DevicePath::parse("/sdcardx").unwrap().is_under("/sdcard"));
    }
}
