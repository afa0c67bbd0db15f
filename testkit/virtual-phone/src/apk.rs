//! Fake APKs: how the phone decides which package an installed file contains.
//!
//! The phone does not parse real APKs. An APK made by [`fake_apk`] carries its package name and
//! label in plain text; any file containing `package="NAME"` is treated the same way (so a test
//! may also write a plain manifest snippet). Other files install under a name derived from the
//! file name (`/data/local/tmp/com.example.foo.apk` → `com.example.foo`) or, for a streamed
//! install with no name, from a hash of the bytes (`com.example.app<hex>`).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Bytes of an APK the phone will install as `package` with launcher label `label`.
pub fn fake_apk(package: &str, label: &str) -> Vec<u8> {
    let mut out = b"PK\x03\x04".to_vec();
    out.extend_from_slice(
        format!("\nvirtual-device apk\npackage=\"{package}\"\nlabel=\"{label}\"\n").as_bytes(),
    );
    // Some padding so it looks like a file, not a string.
    out.extend((0..2048u32).map(|i| (i.wrapping_mul(31) % 251) as u8));
    out
}

fn attr(data: &[u8], name: &str) -> Option<String> {
    let pat = format!("{name}=\"");
    let pat = pat.as_bytes();
    let start = data.windows(pat.len()).position(|w| w == pat)? + pat.len();
    let end = data[start..].iter().position(|&b| b == b'"')? + start;
    let v = std::str::from_utf8(&data[start..end]).ok()?;
    (!v.is_empty() && v.len() < 256).then(|| v.to_string())
}

fn valid_package(name: &str) -> bool {
    name.contains('.')
        && name.split('.').all(|p| {
            !p.is_empty()
                && p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Package name and label for the APK bytes (see the module doc).
pub(crate) fn identify(data: &[u8], file_name: Option<&str>) -> (String, String) {
    if let Some(pkg) = attr(data, "package").filter(|p| valid_package(p)) {
        let label = attr(data, "label").unwrap_or_else(|| label_from(&pkg));
        return (pkg, label);
    }
    if let Some(stem) = file_name
        .and_then(|f| f.rsplit('/').next())
        .and_then(|f| f.strip_suffix(".apk"))
        .filter(|s| valid_package(s))
    {
        return (stem.to_string(), label_from(stem));
    }
    let mut h = DefaultHasher::new();
    data.hash(&mut h);
    let pkg = format!("com.example.app{:08x}", h.finish() as u32);
    let label = label_from(&pkg);
    (pkg, label)
}

fn label_from(pkg: &str) -> String {
    let last = pkg.rsplit('.').next().unwrap_or(pkg);
    let mut c = last.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => pkg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifies_fake_apks_and_names() {
        assert_eq!(
            identify(&fake_apk("com.foo.bar", "Bar App"), None),
            ("com.foo.bar".into(), "Bar App".into())
        );
        assert_eq!(
            identify(b"xx", Some("/data/local/tmp/com.x.y.apk")).0,
            "com.x.y"
        );
        assert!(
            identify(b"xx", Some("/data/local/tmp/app.apk"))
                .0
                .starts_with("com.example.app")
        );
    }
}
