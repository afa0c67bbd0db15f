//! Where `xcrun` and `idb` are, and how long a device listing waits for `simctl`.
//!
//! Not for: the deadline of a device call (the server's; the child is killed when the
//! call is dropped).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Environment variable naming the `xcrun` to run (a path).
pub const XCRUN_ENV: &str = "MOBILE_MCP_XCRUN";
/// Environment variable naming the `idb` to run (a path).
pub const IDB_ENV: &str = "MOBILE_MCP_IDB";
/// How long a device listing waits for `xcrun simctl list` when nothing else is set.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How the iOS simulator backend finds its tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IosConfig {
    /// `xcrun`; `None` means it was not found, and discovery says so.
    pub xcrun: Option<PathBuf>,
    /// `idb` (the fb-idb client); `None` means element, tap, swipe, type and button
    /// tools answer with how to install it.
    pub idb: Option<PathBuf>,
    /// How long the listing waits for `xcrun simctl list`. A device's calls are bounded by
    /// their caller (the server's deadline), which kills the child when it gives up.
    pub timeout: Duration,
    /// Where `xcrun` was looked for, for the discovery note when it is missing.
    pub searched: String,
    /// Extra environment for every `xcrun`/`idb` child, e.g. `DEVELOPER_DIR` to pick
    /// an Xcode, or a fake toolchain's state file in tests.
    pub env: Vec<(OsString, OsString)>,
}

impl Default for IosConfig {
    fn default() -> Self {
        IosConfig {
            xcrun: None,
            idb: None,
            timeout: DEFAULT_TIMEOUT,
            searched: String::new(),
            env: Vec::new(),
        }
    }
}

impl IosConfig {
    /// Uses `MOBILE_MCP_XCRUN` / `MOBILE_MCP_IDB` when set, else `xcrun` / `idb` on `PATH`.
    pub fn from_env() -> Self {
        let path = std::env::var_os("PATH").unwrap_or_default();
        Self::from_vars(
            std::env::var_os(XCRUN_ENV),
            std::env::var_os(IDB_ENV),
            &path,
        )
    }

    /// [`IosConfig::from_env`] with the environment passed in (for tests).
    pub fn from_vars(xcrun: Option<OsString>, idb: Option<OsString>, path: &OsString) -> Self {
        let (xcrun, searched) = match xcrun.filter(|v| !v.is_empty()) {
            Some(p) => (
                resolve(&p, path),
                format!("{XCRUN_ENV}={}", PathBuf::from(&p).display()),
            ),
            // Say where it was looked for, not the host's whole PATH (a device listing is
            // read by a model and may be shown to anyone).
            None => (find_on_path("xcrun", path), "PATH".to_string()),
        };
        let idb = match idb.filter(|v| !v.is_empty()) {
            Some(p) => resolve(&p, path),
            None => find_on_path("idb", path),
        };
        IosConfig {
            xcrun,
            idb,
            timeout: DEFAULT_TIMEOUT,
            searched,
            env: Vec::new(),
        }
    }

    /// A config with explicit tool paths.
    pub fn with_tools(xcrun: impl Into<PathBuf>, idb: Option<PathBuf>) -> Self {
        let xcrun = xcrun.into();
        IosConfig {
            searched: xcrun.display().to_string(),
            xcrun: Some(xcrun),
            idb,
            timeout: DEFAULT_TIMEOUT,
            env: Vec::new(),
        }
    }

    /// How long the listing waits for `xcrun simctl list`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Adds an environment variable for the children.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// An override: a path, or a bare name looked up on `PATH`.
fn resolve(value: &OsString, path: &OsString) -> Option<PathBuf> {
    let p = PathBuf::from(value);
    if p.components().count() == 1 && !p.is_absolute() {
        return find_on_path(&value.to_string_lossy(), path);
    }
    is_executable(&p).then_some(p)
}

fn find_on_path(name: &str, path: &OsString) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_searched_does_not_print_the_path() {
        let path = OsString::from("/home/someone/secret-project/bin:/usr/bin");
        let c = IosConfig::from_vars(None, None, &path);
        assert_eq!(c.searched, "PATH");
        assert!(!c.searched.contains("secret"), "{}", c.searched);
    }

    #[test]
    fn env_overrides_and_path_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("xcrun");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = OsString::from(format!("/nonexistent:{}", dir.path().display()));
        let c = IosConfig::from_vars(None, None, &path);
        assert_eq!(c.xcrun.as_deref(), Some(tool.as_path()));
        assert_eq!(c.idb, None);
        // What was looked in, not the host's PATH itself (#18: no host details).
        assert_eq!(c.searched, "PATH");
        let c = IosConfig::from_vars(Some("/no/such/xcrun".into()), None, &path);
        assert_eq!(c.xcrun, None);
        assert!(c.searched.contains("MOBILE_MCP_XCRUN=/no/such/xcrun"));
        let c = IosConfig::from_vars(None, Some(tool.clone().into()), &OsString::new());
        assert_eq!(c.idb.as_deref(), Some(tool.as_path()));
        // A bare name is looked up on PATH.
        let c = IosConfig::from_vars(Some("xcrun".into()), Some("xcrun".into()), &path);
        assert_eq!(c.xcrun.as_deref(), Some(tool.as_path()));
        assert_eq!(c.idb.as_deref(), Some(tool.as_path()));
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
    }
}
