//! Where tools may read and write files on this machine, and how.
//!
//! Screenshots, recordings, logs and pulled files are written, and installed or pushed
//! files are read, only under the allowed roots (`--files-root` replaces them). By default
//! they are the working directory and the temp directory; but a working directory that is
//! `/` or the home folder (where some MCP hosts start their servers) would put every file
//! in scope, so then a per-user folder (`$XDG_DATA_HOME/mobile-mcp`, else
//! `~/.local/share/mobile-mcp`) takes its place. The server says at start-up which roots
//! are in force.
//!
//! A path is checked once, when the call starts: it is resolved through symlinks and must
//! lie under a root; then the root is opened and each folder below it down to the
//! target's folder is opened relative to the last one with no-follow semantics
//! ([`dir::open_beneath`]). That folder handle is what the write uses: the temporary file
//! is created in it, a device backend writes into that open file (never a path), and the
//! rename into place is relative to it. A folder of the path swapped for a link after the
//! check therefore cannot redirect the write: the file lands in the folder that was
//! checked, or the walk fails and nothing is written. A pushed file and an app package
//! are opened the same way at check time and the backend reads the open file (an `.app`
//! folder is copied then into a private folder, `package.rs`), so nothing swapped in
//! after the check is read.
//!
//! Every local write goes through one [`WriteTarget`] (`write.rs`): the bytes go to a new
//! temporary file in the target's folder (created exclusively and without following a
//! link at its name) and are moved into place only when complete, so a failed call never
//! destroys or truncates the file that was there. An existing file is replaced only when
//! the caller said `overwrite: true`; without it the final step links rather than
//! renames, which fails if a file appeared meanwhile. The rename replaces a link at the
//! final name instead of writing through it. FIFOs, devices, sockets and files with other
//! hard links are refused as targets and as sources: a FIFO can block a write for ever,
//! and another hard link may be a name for a file outside the roots, so reading it would
//! leak that file and replacing it would leave the other name holding the old bytes.
//!
//! The `*at` calls come from `rustix` (its `fs` part is already built for `tempfile`)
//! rather than `cap-std`: the server needs one walk and five calls (`openat`, `statat`,
//! `linkat`, `renameat`, `unlinkat`) on folder handles it keeps across an await, and
//! rustix gives exactly those as safe functions on `OwnedFd` with no new crate, where
//! `cap-std` would add its own `Dir`/`File` types and a dependency tree for the same
//! system calls.

mod dir;
mod package;
mod write;

use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use rustix::io::Errno;

use dir::Entry;
pub(crate) use write::{Staged, WriteTarget};

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
        let mut out: Vec<PathBuf> = Vec::new();
        for r in roots {
            // The same folder twice (the working folder is the temp folder) is listed once.
            if let Ok(c) = std::fs::canonicalize(&r)
                && !out.contains(&c)
            {
                out.push(c);
            }
        }
        FileRoots { roots: out }
    }

    fn absolute(path: &str) -> Result<PathBuf, String> {
        if path.trim().is_empty() {
            return Err("the path is empty".to_string());
        }
        if path.contains('\0') {
            return Err("the path contains a NUL byte".to_string());
        }
        if path.starts_with('~') {
            return Err(format!(
                "{}: `~` is not expanded here (no shell reads the path); give the full path of the folder instead",
                excerpt(path)
            ));
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

    /// The root `real` lies under (the deepest, if roots nest) and the path below it.
    fn split_root<'a>(
        &'a self,
        real: &'a Path,
        shown: &str,
    ) -> Result<(&'a Path, &'a Path), String> {
        self.under_root(real, shown)?;
        self.roots
            .iter()
            .filter_map(|r| real.strip_prefix(r).ok().map(|rel| (r.as_path(), rel)))
            .max_by_key(|(r, _)| r.as_os_str().len())
            .ok_or_else(|| format!("{shown} is outside the allowed folders"))
    }

    /// Opens the checked folder `real_dir` from its root without following links.
    fn open_folder(&self, real_dir: &Path, shown: &str) -> Result<OwnedFd, String> {
        let (root, rel) = self.split_root(real_dir, shown)?;
        dir::open_beneath(root, rel).map_err(|e| match e {
            Errno::LOOP | Errno::NOTDIR => format!(
                "a folder of {shown} was replaced by a link while it was checked; nothing was done"
            ),
            Errno::NOENT => format!("the folder of {shown} does not exist"),
            e => format!("could not open the folder of {shown}: {e}"),
        })
    }

    /// Checks a path to be written: the right extension, an existing folder inside a
    /// root (opened now, see the module doc), and nothing in the way: no folder, FIFO,
    /// device or file with other hard links, and no file at all unless `overwrite`.
    /// Nothing is written yet.
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
        let (dir_path, name) = match (real.parent(), real.file_name()) {
            (Some(d), Some(n)) => (d.to_path_buf(), n.to_os_string()),
            _ => return Err(format!("{shown} does not name a file")),
        };
        let dir = self.open_folder(&dir_path, &shown)?;
        let target = WriteTarget {
            dir,
            dir_path,
            name,
            shown,
            given: path.to_string(),
            overwrite,
        };
        target.may_replace()?;
        Ok(target)
    }

    /// Resolves a path to be read and checks that it lies under a root.
    fn resolve_read(&self, path: &str, exts: &[&str]) -> Result<(String, PathBuf), String> {
        let shown = excerpt(path);
        let p = Self::absolute(path)?;
        Self::check_ext(&shown, &p, exts)?;
        let real = std::fs::canonicalize(&p).map_err(|_| format!("{shown} does not exist"))?;
        self.under_root(&real, &shown)?;
        Ok((shown, real))
    }

    /// Opens a file to be read (a push) through its checked folder's handle, without
    /// following a link or waiting on a FIFO: a regular file with no other hard links.
    /// Returns the open file and its real path.
    pub(crate) fn open_read(&self, path: &str) -> Result<(File, PathBuf), String> {
        let (shown, real) = self.resolve_read(path, &[])?;
        let (Some(parent), Some(name)) = (real.parent(), real.file_name()) else {
            return Err(format!("{shown} is not a file"));
        };
        let dir = self.open_folder(parent, &shown)?;
        let fd = dir::open_to_read(&dir, name).map_err(|e| match e {
            Errno::LOOP => format!("{shown} was replaced by a link while it was checked"),
            Errno::NOENT => format!("{shown} does not exist"),
            e => format!("could not open {shown}: {e}"),
        })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| format!("could not read {shown}: {e}"))?;
        match dir::kind(&st) {
            Entry::File { links: 1 } => Ok((File::from(fd), real)),
            Entry::File { .. } => Err(write::hard_linked(&shown)),
            _ => Err(format!("{shown} is not a file")),
        }
    }
}

/// A real path to tell the caller: as it is, or, when it is not UTF-8 (a JSON string
/// cannot carry it, and replacement characters would name another file), the path as the
/// caller gave it, which leads to the same file.
pub(crate) fn shown_path(real: &Path, given: &str) -> String {
    match real.to_str() {
        Some(p) => p.to_string(),
        None => given.to_string(),
    }
}

/// The path as the caller gave it, bounded and quoted for an error text.
fn excerpt(path: &str) -> String {
    mobile_device::excerpt(path)
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
mod tests;
