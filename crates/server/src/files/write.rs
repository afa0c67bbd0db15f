//! One local write: a checked target (a handle on its folder and a name there), a
//! temporary file created through that handle, and the rename into place through it.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode};
use rustix::io::Errno;

use super::dir::{self, Entry};

/// A checked file to write: a handle on its folder (opened at check time without
/// following links), its name there, and whether an existing file may be replaced. Every
/// local writer goes through [`WriteTarget::write`] or [`WriteTarget::stage`], so a
/// write lands whole or not at all, and in the folder that was checked.
#[derive(Debug)]
pub(crate) struct WriteTarget {
    pub(super) dir: OwnedFd,
    /// The folder's real path when checked, for messages.
    pub(super) dir_path: PathBuf,
    pub(super) name: OsString,
    pub(super) shown: String,
    /// The path as the caller gave it, to name the file when its real path is not UTF-8.
    pub(super) given: String,
    pub(super) overwrite: bool,
}

/// Tells temporary file names of one process apart.
static STAGED: AtomicU64 = AtomicU64::new(0);

impl WriteTarget {
    /// Where the file ends up (the folder's path when it was checked).
    pub(crate) fn path(&self) -> PathBuf {
        self.dir_path.join(&self.name)
    }

    /// The path to tell the caller: the real path, or, when that is not UTF-8 (a JSON
    /// string cannot carry it, and replacement characters would name another file), the
    /// path as the caller gave it, which leads to the same file.
    pub(crate) fn shown_path(&self) -> String {
        super::shown_path(&self.path(), &self.given)
    }

    /// Refuses what is in the way: anything but a regular file, a file with other hard
    /// links (replacing one name of it would leave the other names pointing at the old
    /// bytes, and it may be a name for a file outside the roots), or any file without
    /// `overwrite`.
    pub(super) fn may_replace(&self) -> Result<(), String> {
        match dir::entry(&self.dir, &self.name) {
            Ok(Entry::Missing) => Ok(()),
            Ok(Entry::File { links }) if links > 1 => Err(hard_linked(&self.shown)),
            Ok(Entry::File { .. }) if self.overwrite => Ok(()),
            Ok(Entry::File { .. }) => Err(self.exists_error()),
            Ok(Entry::Folder) => Err(format!("{} is a folder", self.shown)),
            Ok(Entry::Link) => Err(format!(
                "{} became a link while it was checked; nothing was written",
                self.shown
            )),
            Ok(Entry::Special) => Err(format!(
                "{} exists and is not a regular file; choose another path",
                self.shown
            )),
            Err(e) => Err(format!("could not look at {}: {e}", self.shown)),
        }
    }

    fn exists_error(&self) -> String {
        format!(
            "{} already exists; pass overwrite: true to replace it, or choose another path",
            self.shown
        )
    }

    /// Writes `bytes` to a temporary file in the target's folder and moves it into place;
    /// returns [`Self::shown_path`].
    pub(crate) async fn write(self, bytes: Vec<u8>) -> Result<String, String> {
        tokio::task::spawn_blocking(move || {
            let mut staged = self.stage()?;
            let shown = staged.target.shown.clone();
            staged
                .file
                .write_all(&bytes)
                .map_err(|e| format!("could not write {shown}: {e}"))?;
            staged.commit()
        })
        .await
        .map_err(|e| format!("the file writer failed: {e}"))?
    }

    /// Creates an empty temporary file in the target's folder, through the folder's
    /// handle, for a writer that streams (a device backend writes [`Staged::file`]);
    /// [`Staged::commit`] moves it into place, and dropping it uncommitted removes it.
    pub(crate) fn stage(self) -> Result<Staged, String> {
        for _ in 0..8 {
            let tmp = temporary_name(&self.name);
            match dir::create_new(&self.dir, &tmp) {
                Ok(fd) => {
                    let id = rustix::fs::fstat(&fd)
                        .map(|st| dir::identity(&st))
                        .map_err(|e| {
                            format!("could not create a file next to {}: {e}", self.shown)
                        })?;
                    return Ok(Staged {
                        tmp,
                        file: File::from(fd),
                        id,
                        target: self,
                        done: false,
                    });
                }
                Err(Errno::EXIST) => continue,
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

/// The longest extension a temporary name repeats.
const MAX_TEMP_EXT: usize = 8;

/// A new temporary name for a file about to become `name`: under 64 bytes whatever
/// `name` is, so any name the file system takes (up to 255 bytes) can be written. It does
/// not repeat the target's name; it keeps a short extension (`.mp4`), starts with a dot
/// and ends the stem in `.part`.
pub(super) fn temporary_name(name: &OsStr) -> OsString {
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| e.len() <= MAX_TEMP_EXT && e.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(|e| format!(".{e}"))
        .unwrap_or_default();
    let n = STAGED.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    OsString::from(format!(
        ".mcp-{:x}-{n:x}-{nanos:x}.part{ext}",
        std::process::id()
    ))
}

/// The refusal of a file with other hard links.
pub(super) fn hard_linked(shown: &str) -> String {
    format!("{shown} has other hard links (another name for the same file); choose another path")
}

/// A temporary file beside its target, open for writing, moved into place by
/// [`Staged::commit`] and removed if dropped before.
#[derive(Debug)]
pub(crate) struct Staged {
    tmp: OsString,
    file: File,
    /// The temporary file's (device, inode), to know it is still ours at commit.
    id: (u64, u64),
    target: WriteTarget,
    done: bool,
}

impl Staged {
    /// A handle on the temporary file for a writer (a device backend); it writes into the
    /// file created in the checked folder, wherever names point meanwhile.
    pub(crate) fn file(&self) -> Result<File, String> {
        self.file
            .try_clone()
            .map_err(|e| format!("could not open the file for {}: {e}", self.target.shown))
    }

    /// Whether the temporary name still names the file this created.
    fn still_ours(&self) -> bool {
        rustix::fs::statat(&self.target.dir, &self.tmp, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|st| dir::identity(&st) == self.id)
    }

    /// Moves the temporary file into place, by name relative to the checked folder's
    /// handle. Without `overwrite` it is linked under the target name, which fails if a
    /// file appeared meanwhile; with it, a rename replaces the old file in one step (and
    /// replaces a link rather than following it). A file that gained other hard links
    /// since the check is refused.
    /// Returns [`WriteTarget::shown_path`].
    pub(crate) fn commit(mut self) -> Result<String, String> {
        let t = &self.target;
        if !self.still_ours() {
            return Err(format!(
                "the file for {} was replaced while written; nothing was saved",
                t.shown
            ));
        }
        let name: &OsStr = &t.name;
        if t.overwrite {
            match dir::entry(&t.dir, name) {
                Ok(Entry::File { links }) if links > 1 => return Err(hard_linked(&t.shown)),
                Ok(Entry::Folder | Entry::Special) => {
                    return Err(format!(
                        "{} exists and is not a regular file; choose another path",
                        t.shown
                    ));
                }
                _ => {}
            }
            if let Ok(old) = rustix::fs::statat(&t.dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                let _ = rustix::fs::fchmod(&self.file, Mode::from_raw_mode(old.st_mode & 0o7777));
            }
            rustix::fs::renameat(&t.dir, &self.tmp, &t.dir, name)
                .map_err(|e| format!("could not write {}: {e}", t.shown))?;
        } else {
            match rustix::fs::linkat(&t.dir, &self.tmp, &t.dir, name, AtFlags::empty()) {
                Ok(()) => {
                    let _ = rustix::fs::unlinkat(&t.dir, &self.tmp, AtFlags::empty());
                }
                Err(Errno::EXIST) => return Err(t.exists_error()),
                // A file system without hard links: check, then rename.
                Err(_) => {
                    if !matches!(dir::entry(&t.dir, name), Ok(Entry::Missing)) {
                        return Err(t.exists_error());
                    }
                    rustix::fs::renameat(&t.dir, &self.tmp, &t.dir, name)
                        .map_err(|e| format!("could not write {}: {e}", t.shown))?;
                }
            }
        }
        self.done = true;
        Ok(self.target.shown_path())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done && self.still_ours() {
            let _ = rustix::fs::unlinkat(&self.target.dir, &self.tmp, AtFlags::empty());
        }
    }
}
