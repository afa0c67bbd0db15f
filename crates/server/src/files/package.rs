//! Opening an app package to install, once, at check time: a file is opened through its
//! checked folder's handle (never following a link, never waiting on a FIFO) and the
//! backend reads that open file; a folder (an iOS simulator's `.app`) is copied, walked
//! with no-follow opens from that handle, into a private folder this process creates, and
//! the backend installs the copy. So a path swapped for a link or a FIFO after the check
//! changes nothing: what is installed is what was checked.
//!
//! An `.app` folder holding a link, a FIFO, a device, a socket or a file with other hard
//! links is refused: the copy takes regular files and folders only (simulator builds
//! hold nothing else; a link could name a file outside the allowed folders).
//!
//! Not for: installing (the backends do) or reading files to push (`open_read`).

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use mobile_device::{AppPackage, PackageContent};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use super::dir::{self, Entry};
use super::{FileRoots, write};

/// How deep a copied `.app` folder may nest.
const MAX_DEPTH: usize = 32;

/// A package opened for an install, and the private copy of a folder, removed when this
/// is dropped (after the install).
#[derive(Debug)]
pub(crate) struct OpenedPackage {
    /// What the backend installs.
    pub package: AppPackage,
    /// The checked path, resolved, for the result text.
    pub real: PathBuf,
    /// The private folder the copy of an `.app` lives in.
    _copy: Option<tempfile::TempDir>,
}

impl FileRoots {
    /// Checks and opens an app package: a path under a root with one of `exts`, naming a
    /// regular file with no other hard links (opened now) or a folder (copied now).
    pub(crate) fn open_package(&self, path: &str, exts: &[&str]) -> Result<OpenedPackage, String> {
        let (shown, real) = self.resolve_read(path, exts)?;
        let (Some(parent), Some(name)) = (real.parent(), real.file_name()) else {
            return Err(format!("{shown} does not name a file"));
        };
        let dir = self.open_folder(parent, &shown)?;
        let fd = dir::open_to_read(&dir, name).map_err(|e| match e {
            Errno::LOOP => format!("{shown} was replaced by a link while it was checked"),
            Errno::NOENT => format!("{shown} does not exist"),
            e => format!("could not open {shown}: {e}"),
        })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| format!("could not read {shown}: {e}"))?;
        let name_text = name.to_string_lossy().into_owned();
        match dir::kind(&st) {
            Entry::File { links: 1 } => Ok(OpenedPackage {
                package: AppPackage {
                    name: name_text,
                    content: PackageContent::File(File::from(fd)),
                },
                real,
                _copy: None,
            }),
            Entry::File { .. } => Err(write::hard_linked(&shown)),
            Entry::Folder => {
                let copy = tempfile::Builder::new()
                    .prefix("mobile-mcp-install")
                    .tempdir()
                    .map_err(|e| format!("could not make a private folder for {shown}: {e}"))?;
                let into = copy.path().join(name);
                copy_folder(fd, &into, &shown, Path::new(""), 0)?;
                Ok(OpenedPackage {
                    package: AppPackage {
                        name: name_text,
                        content: PackageContent::Folder(into),
                    },
                    real,
                    _copy: Some(copy),
                })
            }
            _ => Err(format!("{shown} is not a regular file")),
        }
    }
}

/// Copies the folder open at `from` into a new folder `into`: regular files (with their
/// permission bits) and folders, each opened relative to its folder without following a
/// link. `rel` is where this folder is in the package, for messages.
fn copy_folder(
    from: OwnedFd,
    into: &Path,
    shown: &str,
    rel: &Path,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{shown} nests folders more than {MAX_DEPTH} deep; it is not an app folder"
        ));
    }
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        format!("could not copy {shown} to install it ({what}): {e}")
    };
    std::fs::create_dir(into).map_err(|e| failed("a private folder", &e))?;
    let entries = rustix::fs::Dir::read_from(&from).map_err(|e| failed("reading a folder", &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| failed("reading a folder", &e))?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let inner = rel.join(name);
        let refuse = |what: &str| {
            format!(
                "{shown} holds {what} at {}; an app folder to install may hold only regular files and folders",
                mobile_device::excerpt(&inner.to_string_lossy())
            )
        };
        match dir::entry(&from, name).map_err(|e| failed("reading a folder", &e))? {
            Entry::Folder => {
                let sub = rustix::fs::openat(
                    &from,
                    name,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| failed("opening a folder", &e))?;
                copy_folder(sub, &into.join(name), shown, &inner, depth + 1)?;
            }
            Entry::File { links: 1 } => {
                let fd =
                    dir::open_to_read(&from, name).map_err(|e| failed("opening a file", &e))?;
                // What was opened is checked again: the name may have changed since.
                let st = rustix::fs::fstat(&fd).map_err(|e| failed("opening a file", &e))?;
                match dir::kind(&st) {
                    Entry::File { links: 1 } => {}
                    Entry::File { .. } => return Err(refuse("a file with other hard links")),
                    _ => return Err(refuse("something that is not a regular file")),
                }
                let mut src = File::from(fd);
                let mut dst = File::create_new(into.join(name))
                    .map_err(|e| failed("writing the copy", &e))?;
                std::io::copy(&mut src, &mut dst).map_err(|e| failed("copying a file", &e))?;
                #[allow(clippy::unnecessary_cast)]
                let mode = (st.st_mode as u32) & 0o777;
                dst.set_permissions(std::fs::Permissions::from_mode(mode))
                    .map_err(|e| failed("writing the copy", &e))?;
            }
            Entry::File { .. } => return Err(refuse("a file with other hard links")),
            Entry::Link => return Err(refuse("a link")),
            Entry::Special => return Err(refuse("a FIFO, a device or a socket")),
            Entry::Missing => {}
        }
    }
    Ok(())
}
