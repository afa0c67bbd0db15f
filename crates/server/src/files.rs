//! Where tools may read and write files on this machine.
//!
//! Screenshots, recordings, logs and pulled files are written, and installed or pushed
//! files are read, only under the allowed roots (by default the working directory and
//! the temp directory; `--files-root` replaces them). Paths are resolved through
//! symlinks before the check, so a link cannot lead outside a root.

use std::path::{Component, Path, PathBuf};

/// The allowed roots, canonicalized.
#[derive(Debug, Clone)]
pub struct FileRoots {
    roots: Vec<PathBuf>,
}

impl FileRoots {
    /// The working directory and the temp directory.
    pub fn defaults() -> Self {
        let mut roots = Vec::new();
        if let Ok(cwd) = std::env::current_dir() {
            roots.push(cwd);
        }
        roots.push(std::env::temp_dir());
        Self::new(roots)
    }

    /// These folders, canonicalized; one that does not exist is left out.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>) -> Self {
        let roots = roots
            .into_iter()
            .filter_map(|r| std::fs::canonicalize(&r).ok())
            .collect();
        FileRoots { roots }
    }

    fn describe(&self) -> String {
        self.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn absolute(path: &str) -> Result<PathBuf, String> {
        if path.trim().is_empty() {
            return Err("the path is empty".to_string());
        }
        if path.contains('\0') {
            return Err("the path contains a NUL byte".to_string());
        }
        let p = Path::new(path);
        Ok(if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(|e| format!("the working directory is unreadable: {e}"))?
                .join(p)
        })
    }

    fn check_ext(p: &Path, exts: &[&str]) -> Result<(), String> {
        if exts.is_empty() {
            return Ok(());
        }
        let ext = p
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase());
        match ext {
            Some(e) if exts.contains(&e.as_str()) => Ok(()),
            _ => Err(format!(
                "{} must end in {}",
                p.display(),
                exts.iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    fn under_root(&self, real: &Path, shown: &Path) -> Result<(), String> {
        if self.roots.iter().any(|r| real.starts_with(r)) {
            Ok(())
        } else {
            Err(format!(
                "{} is outside the allowed folders ({}); choose a path inside one, or start the server with --files-root",
                shown.display(),
                self.describe()
            ))
        }
    }

    /// Checks a path to be written; returns the real path to write.
    pub(crate) fn check_write(&self, path: &str, exts: &[&str]) -> Result<PathBuf, String> {
        let p = Self::absolute(path)?;
        Self::check_ext(&p, exts)?;
        let name = match p.components().next_back() {
            Some(Component::Normal(n)) => n.to_os_string(),
            _ => return Err(format!("{} does not name a file", p.display())),
        };
        let parent = p
            .parent()
            .ok_or_else(|| format!("{} has no parent folder", p.display()))?;
        let real_parent = std::fs::canonicalize(parent)
            .map_err(|_| format!("the folder {} does not exist", parent.display()))?;
        let mut real = real_parent.join(name);
        if let Ok(meta) = std::fs::symlink_metadata(&real) {
            if meta.is_dir() {
                return Err(format!("{} is a folder", p.display()));
            }
            if meta.file_type().is_symlink() {
                real = std::fs::canonicalize(&real)
                    .map_err(|_| format!("{} is a broken link", p.display()))?;
            }
        }
        self.under_root(&real, &p)?;
        Ok(real)
    }

    /// Checks a path to be read; returns its real path.
    pub(crate) fn check_read(&self, path: &str, exts: &[&str]) -> Result<PathBuf, String> {
        let p = Self::absolute(path)?;
        Self::check_ext(&p, exts)?;
        let real =
            std::fs::canonicalize(&p).map_err(|_| format!("{} does not exist", p.display()))?;
        self.under_root(&real, &p)?;
        Ok(real)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_under_roots_with_the_right_extension() {
        let root = std::env::temp_dir().join(format!("mm-files-{}", std::process::id()));
        let outside = std::env::temp_dir().join(format!("mm-out-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let roots = FileRoots::new([root.clone()]);
        let ok = roots
            .check_write(root.join("a.PNG").to_str().unwrap(), &["png"])
            .unwrap();
        assert!(ok.starts_with(std::fs::canonicalize(&root).unwrap()));
        let e = roots
            .check_write(root.join("a.gif").to_str().unwrap(), &["png", "jpg"])
            .unwrap_err();
        assert!(e.contains(".png, .jpg"), "{e}");
        let e = roots
            .check_write(root.join("../x.png").to_str().unwrap(), &["png"])
            .unwrap_err();
        assert!(e.contains("outside the allowed folders"), "{e}");
        let e = roots
            .check_write(root.join("missing/x.png").to_str().unwrap(), &["png"])
            .unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
        #[cfg(unix)]
        {
            let link = root.join("link.png");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(outside.join("t.png"), &link).unwrap();
            std::fs::write(outside.join("t.png"), b"x").unwrap();
            let e = roots
                .check_write(link.to_str().unwrap(), &["png"])
                .unwrap_err();
            assert!(e.contains("outside"), "{e}");
            let e = roots.check_read(link.to_str().unwrap(), &[]).unwrap_err();
            assert!(e.contains("outside"), "{e}");
        }
        let e = roots.check_read("", &[]).unwrap_err();
        assert!(e.contains("empty"));
        std::fs::remove_dir_all(&root).ok();
        std::fs::remove_dir_all(&outside).ok();
    }
}
