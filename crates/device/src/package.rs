//! [`AppPackage`]: an app to install, as the server opened it when it checked the path.
//!
//! The server opens the file (or copies the folder) once, at check time, so what a
//! backend installs is what was checked: a path swapped for a link or a FIFO afterwards
//! changes nothing. A backend reads the open file, or installs from the private copy of
//! a folder; it never opens the caller's path.
//!
//! Not for: checking paths (the server's `files` module does) or telling what is inside
//! a package (the device does).

use std::fs::File;
use std::path::{Path, PathBuf};

/// An app to install.
#[derive(Debug)]
pub struct AppPackage {
    /// The file or folder name the caller gave (e.g. `app-debug.apk`, `Demo.app`): it
    /// says what kind of package this is, and names it in messages.
    pub name: String,
    /// What to install.
    pub content: PackageContent,
}

/// What an [`AppPackage`] holds.
#[derive(Debug)]
pub enum PackageContent {
    /// A regular file (an `.apk`, a `.zip`, an `.ipa`), open for reading.
    File(File),
    /// A folder (an iOS simulator's `.app`) at a path only this process writes: a
    /// private copy, which the caller removes when the call is over.
    Folder(PathBuf),
}

impl AppPackage {
    /// The name's extension, lower-cased (`""` without one).
    pub fn extension(&self) -> String {
        Path::new(&self.name)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_is_the_names_extension() {
        let p = |name: &str| AppPackage {
            name: name.into(),
            content: PackageContent::Folder(PathBuf::from("/nowhere")),
        };
        assert_eq!(p("Demo.APP").extension(), "app");
        assert_eq!(p("app-debug.apk").extension(), "apk");
        assert_eq!(p("README").extension(), "");
    }
}
