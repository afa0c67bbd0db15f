//! Where tools may read and write files on this machine.
//!
//! Screenshots, recordings, logs and pulled files are written, and installed or pushed
//! files are read, only under the allowed roots (`--files-root` replaces them). By default
//! they are the working directory and the temp directory; but a working directory that is
//! `/` or the home folder (where some MCP hosts start their servers) would put every file
//! in scope, so then a per-user folder (`$XDG_DATA_HOME/mobile-mcp`, else
//! `~/.local/share/mobile-mcp`) takes its place. The server says at start-up which roots
//! are in force. Paths are resolved through symlinks before the check, so a link cannot
//! lead outside a root.
//!
//! Every local write goes through one [`WriteTarget`]: the bytes go to a new temporary
//! file in the target's folder (created exclusively, so a link planted at its name is
//! not followed) and are moved into place only when complete, so a failed call never
//! destroys or truncates the file that was there. An existing file is replaced only
//! when the caller said `overwrite: true`; without it the final step links rather than
//! renames, which fails if a file appeared meanwhile. The rename replaces a link at the
//! final name instead of writing through it.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The allowed roots, canonicalized.
#[derive(Debug, Clone)]
pub struct FileRoots {
    roots: Vec<PathBuf>,
}

impl FileRoots {
    /// The default roots for this process (see the module doc); the per-user folder is
    /// created when it is used.
    pub fn defaults() -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let data = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from);
        let roots = default_roots(
            std::env::current_dir().ok(),
            home,
            data,
            std::env::temp_dir(),
        );
        if let Some(own) = roots.iter().find(|r| r.ends_with("mobile-mcp")) {
            let _ = std::fs::create_dir_all(own);
        }
        Self::new(roots)
    }

    /// The roots in force, for the start-up line.
    pub fn describe(&self) -> String {
        if self.roots.is_empty() {
            return "none (no allowed folder exists)".to_string();
        }
        self.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// These folders, canonicalized; one that does not exist is left out.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>) -> Self {
        let roots = roots
            .into_iter()
            .filter_map(|r| std::fs::canonicalize(&r).ok())
            .collect();
        FileRoots { roots }
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

    fn check_ext(shown: &str, p: &Path, exts: &[&str]) -> Result<(), String> {
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
                "{shown} must end in {}",
                exts.iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Refuses a path outside every root, naming the path as the caller gave it and
    /// never the roots themselves (they are the host's folders).
    fn under_root(&self, real: &Path, shown: &str) -> Result<(), String> {
        if self.roots.iter().any(|r| real.starts_with(r)) {
            Ok(())
        } else {
            Err(format!(
                "{shown} is outside the allowed folders (by default the server's working directory and the temp directory); choose a path inside one, or start the server with --files-root"
            ))
        }
    }

    /// Checks a path to be written: the right extension, an existing folder inside a
    /// root, and no existing file in the way unless `overwrite`. Nothing is written yet.
    pub(crate) fn check_write(
        &self,
        path: &str,
        exts: &[&str],
        overwrite: bool,
    ) -> Result<WriteTarget, String> {
        let shown = excerpt(path);
        let p = Self::absolute(path)?;
        Self::check_ext(&shown, &p, exts)?;
        let name = match p.components().next_back() {
            Some(Component::Normal(n)) => n.to_os_string(),
            _ => return Err(format!("{shown} does not name a file")),
        };
        let parent = p
            .parent()
            .ok_or_else(|| format!("{shown} has no parent folder"))?;
        let real_parent = std::fs::canonicalize(parent)
            .map_err(|_| format!("the folder of {shown} does not exist"))?;
        let mut real = real_parent.join(name);
        if let Ok(meta) = std::fs::symlink_metadata(&real) {
            if meta.is_dir() {
                return Err(format!("{shown} is a folder"));
            }
            if meta.file_type().is_symlink() {
                real = std::fs::canonicalize(&real)
                    .map_err(|_| format!("{shown} is a broken link"))?;
            }
        }
        self.under_root(&real, &shown)?;
        let target = WriteTarget {
            dir: real.parent().map(Path::to_path_buf).unwrap_or(real_parent),
            name: real
                .file_name()
                .map(|n| n.to_os_string())
                .ok_or_else(|| format!("{shown} does not name a file"))?,
            shown,
            overwrite,
        };
        target.may_replace()?;
        Ok(target)
    }

    /// Checks a path to be read; returns its real path.
    pub(crate) fn check_read(&self, path: &str, exts: &[&str]) -> Result<PathBuf, String> {
        let shown = excerpt(path);
        let p = Self::absolute(path)?;
        Self::check_ext(&shown, &p, exts)?;
        let real = std::fs::canonicalize(&p).map_err(|_| format!("{shown} does not exist"))?;
        self.under_root(&real, &shown)?;
        Ok(real)
    }
}

/// The path as the caller gave it, bounded and quoted for an error text.
fn excerpt(path: &str) -> String {
    mobile_device::excerpt(path)
}

/// A checked file to write: its real folder, its name there, and whether an existing
/// file may be replaced. Every local writer goes through [`WriteTarget::write`] or
/// [`WriteTarget::stage`], so a write lands whole or not at all.
#[derive(Debug)]
pub(crate) struct WriteTarget {
    dir: PathBuf,
    name: OsString,
    shown: String,
    overwrite: bool,
}

/// Tells temporary file names of one process apart.
static STAGED: AtomicU64 = AtomicU64::new(0);

impl WriteTarget {
    /// Where the file ends up.
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.join(&self.name)
    }

    /// Refuses a file in the way: anything but a regular file, or any file without
    /// `overwrite`.
    fn may_replace(&self) -> Result<(), String> {
        let Ok(meta) = std::fs::symlink_metadata(self.path()) else {
            return Ok(());
        };
        if !meta.is_file() {
            return Err(format!(
                "{} exists and is not a regular file; choose another path",
                self.shown
            ));
        }
        if !self.overwrite {
            return Err(self.exists_error());
        }
        Ok(())
    }

    fn exists_error(&self) -> String {
        format!(
            "{} already exists; pass overwrite: true to replace it, or choose another path",
            self.shown
        )
    }

    /// Writes `bytes` to a temporary file in the target's folder and moves it into place.
    pub(crate) async fn write(self, bytes: Vec<u8>) -> Result<PathBuf, String> {
        tokio::task::spawn_blocking(move || {
            let staged = self.stage()?;
            std::fs::write(staged.path(), &bytes)
                .map_err(|e| format!("could not write {}: {e}", staged.target.shown))?;
            staged.commit()
        })
        .await
        .map_err(|e| format!("the file writer failed: {e}"))?
    }

    /// Creates an empty temporary file in the target's folder, for a writer that needs
    /// a path (a device backend); [`Staged::commit`] moves it into place, and dropping
    /// it uncommitted removes it.
    pub(crate) fn stage(self) -> Result<Staged, String> {
        let ext = Path::new(&self.name)
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        for _ in 0..8 {
            let n = STAGED.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default();
            let tmp = self.dir.join(format!(
                ".{}.{}-{n}-{nanos:x}.part{ext}",
                self.name.to_string_lossy(),
                std::process::id()
            ));
            // create_new never follows a link planted at the temporary name.
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(_) => {
                    return Ok(Staged {
                        tmp,
                        target: self,
                        done: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(format!(
                        "could not create a file next to {}: {e}",
                        self.shown
                    ));
                }
            }
        }
        Err(format!(
            "could not create a temporary file next to {}",
            self.shown
        ))
    }
}

/// A temporary file beside its target, moved into place by [`Staged::commit`] and
/// removed if dropped before.
#[derive(Debug)]
pub(crate) struct Staged {
    tmp: PathBuf,
    target: WriteTarget,
    done: bool,
}

impl Staged {
    /// The temporary file to write.
    pub(crate) fn path(&self) -> &Path {
        &self.tmp
    }

    /// Moves the temporary file into place. Without `overwrite` it is linked under the
    /// target name, which fails if a file appeared there meanwhile; with it, a rename
    /// replaces the old file in one step (and replaces a link rather than following it).
    pub(crate) fn commit(mut self) -> Result<PathBuf, String> {
        let dest = self.target.path();
        let meta = std::fs::symlink_metadata(&self.tmp).map_err(|_| {
            format!(
                "the file for {} disappeared while written",
                self.target.shown
            )
        })?;
        if !meta.is_file() {
            return Err(format!(
                "the file for {} was replaced while written; nothing was saved",
                self.target.shown
            ));
        }
        if self.target.overwrite {
            if let Ok(old) = std::fs::metadata(&dest) {
                let _ = std::fs::set_permissions(&self.tmp, old.permissions());
            }
            std::fs::rename(&self.tmp, &dest)
                .map_err(|e| format!("could not write {}: {e}", self.target.shown))?;
        } else {
            match std::fs::hard_link(&self.tmp, &dest) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&self.tmp);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return Err(self.target.exists_error());
                }
                // A file system without hard links: check, then rename.
                Err(_) => {
                    if std::fs::symlink_metadata(&dest).is_ok() {
                        return Err(self.target.exists_error());
                    }
                    std::fs::rename(&self.tmp, &dest)
                        .map_err(|e| format!("could not write {}: {e}", self.target.shown))?;
                }
            }
        }
        self.done = true;
        Ok(dest)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The default roots: the working directory unless it is `/` or the home folder, then a
/// per-user folder instead; and the temp directory.
fn default_roots(
    cwd: Option<PathBuf>,
    home: Option<PathBuf>,
    xdg_data: Option<PathBuf>,
    tmp: PathBuf,
) -> Vec<PathBuf> {
    let same = |a: &Path, b: &Path| {
        let c = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        c(a) == c(b)
    };
    let too_wide = |d: &Path| d.parent().is_none() || home.as_deref().is_some_and(|h| same(d, h));
    let mut roots = Vec::new();
    match cwd {
        Some(d) if !too_wide(&d) => roots.push(d),
        _ => {
            let data = xdg_data
                .filter(|p| p.is_absolute())
                .or_else(|| home.as_ref().map(|h| h.join(".local/share")));
            if let Some(data) = data {
                roots.push(data.join("mobile-mcp"));
            }
        }
    }
    roots.push(tmp);
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_working_directory_of_slash_or_home_is_not_a_root() {
        let tmp = PathBuf::from("/tmp");
        let home = Some(PathBuf::from("/home/u"));
        let roots = |cwd: &str, data: Option<&str>| {
            default_roots(
                Some(PathBuf::from(cwd)),
                home.clone(),
                data.map(PathBuf::from),
                tmp.clone(),
            )
        };
        assert_eq!(
            roots("/work/proj", None),
            vec![PathBuf::from("/work/proj"), tmp.clone()]
        );
        assert_eq!(
            roots("/", None),
            vec![
                PathBuf::from("/home/u/.local/share/mobile-mcp"),
                tmp.clone()
            ]
        );
        assert_eq!(
            roots("/home/u", Some("/data")),
            vec![PathBuf::from("/data/mobile-mcp"), tmp.clone()]
        );
        // A relative XDG_DATA_HOME is ignored, as the spec says.
        assert_eq!(
            roots("/home/u", Some("rel")),
            vec![
                PathBuf::from("/home/u/.local/share/mobile-mcp"),
                tmp.clone()
            ]
        );
    }

    #[test]
    fn writes_only_under_roots_with_the_right_extension() {
        let root = std::env::temp_dir().join(format!("mm-files-{}", std::process::id()));
        let outside = std::env::temp_dir().join(format!("mm-out-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let roots = FileRoots::new([root.clone()]);
        let ok = roots
            .check_write(root.join("a.PNG").to_str().unwrap(), &["png"], false)
            .unwrap();
        assert!(ok.path().starts_with(std::fs::canonicalize(&root).unwrap()));
        let e = roots
            .check_write(root.join("a.gif").to_str().unwrap(), &["png", "jpg"], false)
            .unwrap_err();
        assert!(e.contains(".png, .jpg"), "{e}");
        let e = roots
            .check_write(root.join("../x.png").to_str().unwrap(), &["png"], false)
            .unwrap_err();
        assert!(e.contains("outside the allowed folders"), "{e}");
        let e = roots
            .check_write(
                root.join("missing/x.png").to_str().unwrap(),
                &["png"],
                false,
            )
            .unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
        #[cfg(unix)]
        {
            let link = root.join("link.png");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(outside.join("t.png"), &link).unwrap();
            std::fs::write(outside.join("t.png"), b"x").unwrap();
            let e = roots
                .check_write(link.to_str().unwrap(), &["png"], true)
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

    #[test]
    fn a_staged_write_lands_whole_or_not_at_all() {
        let root = tempfile_dir("stage");
        let roots = FileRoots::new([root.clone()]);
        let at = root.join("a.txt");
        let shown = at.to_str().unwrap();
        // Dropped before commit: nothing appears.
        let staged = roots
            .check_write(shown, &[], false)
            .unwrap()
            .stage()
            .unwrap();
        std::fs::write(staged.path(), b"half").unwrap();
        drop(staged);
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);
        // A file that appears meanwhile is not replaced without overwrite.
        let staged = roots
            .check_write(shown, &[], false)
            .unwrap()
            .stage()
            .unwrap();
        std::fs::write(&at, b"theirs").unwrap();
        let e = staged.commit().unwrap_err();
        assert!(e.contains("overwrite: true"), "{e}");
        assert_eq!(std::fs::read(&at).unwrap(), b"theirs");
        #[cfg(unix)]
        {
            // A link planted at the name after the check is replaced, not written through.
            let outside = tempfile_dir("stage-out");
            std::fs::write(outside.join("t.txt"), b"keep").unwrap();
            let staged = roots
                .check_write(shown, &[], true)
                .unwrap()
                .stage()
                .unwrap();
            std::fs::write(staged.path(), b"mine").unwrap();
            std::fs::remove_file(&at).unwrap();
            std::os::unix::fs::symlink(outside.join("t.txt"), &at).unwrap();
            staged.commit().unwrap();
            assert_eq!(std::fs::read(outside.join("t.txt")).unwrap(), b"keep");
            assert_eq!(std::fs::read(&at).unwrap(), b"mine");
            std::fs::remove_dir_all(&outside).ok();
        }
        std::fs::remove_dir_all(&root).ok();
    }

    fn tempfile_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("mm-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
