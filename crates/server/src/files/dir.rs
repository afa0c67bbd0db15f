//! Folder handles opened without following links: the one walk from an allowed root to a
//! checked folder, and the `*at` calls every read and write then makes relative to it.

use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

/// What an existing name in a folder is, seen without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Nothing has that name.
    Missing,
    /// A regular file with this many names (hard links).
    File { links: u64 },
    /// A folder.
    Folder,
    /// A symlink (not followed).
    Link,
    /// A FIFO, a device, a socket.
    Special,
}

/// Opens `root` and then each folder of `rel` below it, never following a link: a folder
/// replaced by a link after it was checked fails the walk instead of leading elsewhere.
/// `rel` must be relative and plain (the canonical remainder below the root).
pub(crate) fn open_beneath(root: &Path, rel: &Path) -> Result<OwnedFd, Errno> {
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut fd = rustix::fs::open(root, dir_flags, Mode::empty())?;
    for c in rel.components() {
        let Component::Normal(name) = c else {
            return Err(Errno::INVAL);
        };
        fd = rustix::fs::openat(&fd, name, dir_flags, Mode::empty())?;
    }
    Ok(fd)
}

/// What `name` in `dir` is, without following it.
pub(crate) fn entry(dir: impl AsFd, name: &OsStr) -> Result<Entry, Errno> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(kind(&st)),
        Err(Errno::NOENT) => Ok(Entry::Missing),
        Err(e) => Err(e),
    }
}

/// What a stat says the file is.
// `st_nlink`, `st_dev` and `st_ino` have other widths on other systems (macOS).
#[allow(clippy::unnecessary_cast)]
pub(crate) fn kind(st: &Stat) -> Entry {
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Entry::File {
            links: st.st_nlink as u64,
        },
        FileType::Directory => Entry::Folder,
        FileType::Symlink => Entry::Link,
        _ => Entry::Special,
    }
}

/// The identity of a file: its device and inode.
#[allow(clippy::unnecessary_cast)]
pub(crate) fn identity(st: &Stat) -> (u64, u64) {
    (st.st_dev as u64, st.st_ino as u64)
}

/// Opens an existing file `name` in `dir` to read, never following a link and never
/// waiting on a FIFO; the caller checks what it opened with [`rustix::fs::fstat`].
pub(crate) fn open_to_read(dir: impl AsFd, name: &OsStr) -> Result<OwnedFd, Errno> {
    rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Creates `name` in `dir`, failing if anything (a link included) already has the name.
pub(crate) fn create_new(dir: impl AsFd, name: &OsStr) -> Result<OwnedFd, Errno> {
    rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )
}
