//! Device leases: a device in use by one MCP session is that session's until the session
//! ends, so two agents never interleave taps on one phone.
//!
//! - **In this process** a [`LeaseBook`] maps a device id to the session holding it and
//!   since when. A session takes the lease on its first call that resolves the device
//!   (`MobileServer::device`, the one place tools resolve one); listing devices takes none,
//!   and says which devices other sessions of this process hold
//!   ([`SessionLeases::in_use_by_others`]).
//!   Each session holds a [`SessionLeases`]; when the session's last handle is dropped
//!   (HTTP DELETE, idle expiry, the stdio client's EOF, the process stopping) its leases
//!   are given back.
//! - **Across processes** (two servers using one adb server) the lease is also an
//!   exclusive `flock` on a file per device in the lease folder (`--lease-dir`; default
//!   `$XDG_RUNTIME_DIR/mobile-mcp/leases`, else `/tmp/mobile-mcp-UID/leases`), named by the
//!   device's [`lease_key`](mobile_device::Device::lease_key) (the adb server and serial).
//!   The operating system drops the lock when the process ends, however it ends, so a lease
//!   never outlives its process. The file holds the holder's pid and start time, for the
//!   refusal's wording. A device whose backend gives no key (iOS simulators) is leased
//!   within the process only.
//! - With sharing on (`--share-devices`) nothing is leased.
//!
//! Not for: queueing or waiting for a device (a refused session tries again), or farms'
//! own leases (see `crate::farm`).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mobile_device::Device;

/// How devices are leased: the `--share-devices` and `--lease-dir` settings.
#[derive(Debug, Clone, Default)]
pub struct LeasePolicy {
    /// Sessions share devices: no lease is taken.
    pub share: bool,
    /// The folder of the per-device lock files other processes see; `None` leases within
    /// this process only.
    pub dir: Option<PathBuf>,
}

impl LeasePolicy {
    /// The default lease folder: `$XDG_RUNTIME_DIR/mobile-mcp/leases`, else
    /// `/tmp/mobile-mcp-UID/leases`.
    pub fn default_dir() -> PathBuf {
        match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
            Some(run) => PathBuf::from(run).join("mobile-mcp").join("leases"),
            None => std::env::temp_dir()
                .join(format!("mobile-mcp-{}", uid()))
                .join("leases"),
        }
    }

    /// Creates the lease folder (private to this user) and checks that this user owns it.
    ///
    /// # Errors
    ///
    /// A folder that cannot be created, or that another user owns (its locks could be
    /// held or faked by them).
    pub fn prepare_dir(dir: &Path) -> Result<(), String> {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir)
            .map_err(|e| format!("cannot create the lease folder {}: {e}", dir.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let meta = std::fs::metadata(dir)
                .map_err(|e| format!("cannot read the lease folder {}: {e}", dir.display()))?;
            if meta.uid() != uid() {
                return Err(format!(
                    "the lease folder {} belongs to another user; pass --lease-dir with a folder of yours",
                    dir.display()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

#[cfg(not(unix))]
fn uid() -> u32 {
    0
}

/// Who holds a device in this process.
struct Held {
    session: u64,
    since: SystemTime,
    /// The open, locked lease file; closing it drops the lock.
    _lock: Option<File>,
}

/// The leases of this process, shared by every session.
pub(crate) struct LeaseBook {
    policy: LeasePolicy,
    held: Mutex<HashMap<String, Held>>,
    next_session: AtomicU64,
}

impl LeaseBook {
    pub(crate) fn new(policy: LeasePolicy) -> Arc<Self> {
        Arc::new(LeaseBook {
            policy,
            held: Mutex::default(),
            next_session: AtomicU64::new(1),
        })
    }

    /// A new session's leases (none yet).
    pub(crate) fn session(self: &Arc<Self>) -> SessionLeases {
        SessionLeases {
            id: self.next_session.fetch_add(1, Ordering::Relaxed),
            book: self.clone(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Held>> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take(&self, session: u64, device: &dyn Device) -> Result<(), String> {
        if self.policy.share {
            return Ok(());
        }
        let id = device.id();
        let mut held = self.lock();
        if let Some(h) = held.get(id) {
            if h.session == session {
                return Ok(());
            }
            return Err(refusal(id, "another session of this server", h.since));
        }
        let lock = match (&self.policy.dir, device.lease_key()) {
            (Some(dir), Some(key)) => Some(lock_file(dir, &key).map_err(|e| match e {
                LockError::Held { pid, since } => {
                    refusal(id, &format!("another mobile-mcp process (pid {pid})"), since)
                }
                LockError::Io(why) => format!(
                    "Could not lease device {id}: {why}. Start the server with --lease-dir pointing at a writable folder of yours, or with --share-devices to use devices without leases."
                ),
            })?),
            _ => None,
        };
        tracing::info!(device = %id, session, "device leased");
        held.insert(
            id.to_string(),
            Held {
                session,
                since: SystemTime::now(),
                _lock: lock,
            },
        );
        Ok(())
    }

    /// The devices sessions other than `session` hold in this process, and since when.
    fn others(&self, session: u64) -> HashMap<String, SystemTime> {
        self.lock()
            .iter()
            .filter(|(_, h)| h.session != session)
            .map(|(id, h)| (id.clone(), h.since))
            .collect()
    }

    fn release(&self, session: u64, id: &str) {
        let mut held = self.lock();
        if held.get(id).is_some_and(|h| h.session == session) {
            held.remove(id);
            tracing::info!(device = %id, session, "device lease released");
        }
    }

    fn release_session(&self, session: u64) {
        let mut held = self.lock();
        held.retain(|id, h| {
            let keep = h.session != session;
            if !keep {
                tracing::info!(device = %id, session, "device lease released (session ended)");
            }
            keep
        });
    }
}

/// One session's leases: given back when the session's last handle is dropped.
pub(crate) struct SessionLeases {
    id: u64,
    book: Arc<LeaseBook>,
}

impl SessionLeases {
    /// Leases `device` to this session, or says who holds it and since when.
    pub(crate) fn take(&self, device: &dyn Device) -> Result<(), String> {
        self.book.take(self.id, device)
    }

    /// What the device listing says of each device another session of this process holds:
    /// `in use by another session of this server since HH:MM:SS UTC`, by device id. A
    /// snapshot of this process's book (one lookup under its lock). Leases of other
    /// processes are not shown: whether a lease file is locked can only be learnt by
    /// locking it, which would refuse that process's own taker meanwhile.
    pub(crate) fn in_use_by_others(&self) -> HashMap<String, String> {
        self.book
            .others(self.id)
            .into_iter()
            .map(|(id, since)| {
                let note = format!(
                    "in use by another session of this server since {}; use another device",
                    clock(since)
                );
                (id, note)
            })
            .collect()
    }

    /// Gives back this session's lease of the device `id`, if it holds one.
    pub(crate) fn release(&self, id: &str) {
        self.book.release(self.id, id);
    }

    /// This session's number (unique in the process).
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// This session's leases, for a new session that shares the book.
    pub(crate) fn fresh(&self) -> SessionLeases {
        self.book.session()
    }
}

impl Drop for SessionLeases {
    fn drop(&mut self) {
        self.book.release_session(self.id);
    }
}

/// The refusal of a device another holder has.
fn refusal(id: &str, holder: &str, since: SystemTime) -> String {
    let ago = SystemTime::now()
        .duration_since(since)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    format!(
        "Device {id} is in use by {holder} since {} ({ago} s ago); nothing was done. It is leased to that session until the session ends (its client closes it, it stays idle past the server's --session-idle, or its server stops). Use another device (mobile_list_available_devices), try again later, or start the servers with --share-devices to let sessions share devices.",
        clock(since)
    )
}

/// `HH:MM:SS UTC` of a time.
fn clock(t: SystemTime) -> String {
    let s = t
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
        % 86_400;
    format!("{:02}:{:02}:{:02} UTC", s / 3600, s / 60 % 60, s % 60)
}

enum LockError {
    Held { pid: String, since: SystemTime },
    Io(String),
}

/// The lease file's name for a key: letters, digits, `.`, `-`, `_` kept, the rest `_`.
fn file_name(key: &str) -> String {
    let safe: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.lock")
}

/// Opens and locks the lease file of `key`, writing our pid and the time into it.
#[cfg(unix)]
fn lock_file(dir: &Path, key: &str) -> Result<File, LockError> {
    use rustix::fs::{FlockOperation, flock};
    let path = dir.join(file_name(key));
    let io = |e: std::io::Error| LockError::Io(format!("{}: {e}", path.display()));
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    if let Err(e) = flock(&file, FlockOperation::NonBlockingLockExclusive) {
        if e == rustix::io::Errno::WOULDBLOCK {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let mut words = text.split_whitespace();
            let pid = words.next().unwrap_or("unknown").to_string();
            let since = words
                .next()
                .and_then(|s| s.parse::<u64>().ok())
                .map_or(SystemTime::now(), |s| UNIX_EPOCH + Duration::from_secs(s));
            return Err(LockError::Held { pid, since });
        }
        return Err(io(e.into()));
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    file.set_len(0).map_err(io)?;
    file.rewind().map_err(io)?;
    writeln!(file, "{} {now}", std::process::id()).map_err(io)?;
    Ok(file)
}

#[cfg(not(unix))]
fn lock_file(_dir: &Path, _key: &str) -> Result<File, LockError> {
    Err(LockError::Io(
        "leases across processes need flock (Unix)".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mobile_device::{CoordinateUnit, Platform};

    struct Phone(&'static str);

    #[async_trait::async_trait]
    impl Device for Phone {
        fn id(&self) -> &str {
            self.0
        }
        fn platform(&self) -> Platform {
            Platform::Android
        }
        fn coordinate_unit(&self) -> CoordinateUnit {
            CoordinateUnit::Pixels
        }
        fn lease_key(&self) -> Option<String> {
            Some(format!("adb-127.0.0.1:5037-{}", self.0))
        }
    }

    #[test]
    fn a_second_session_is_refused_until_the_first_ends() {
        let book = LeaseBook::new(LeasePolicy::default());
        let a = book.session();
        let b = book.session();
        a.take(&Phone("p1")).unwrap();
        a.take(&Phone("p1")).unwrap();
        let why = b.take(&Phone("p1")).unwrap_err();
        assert!(why.contains("in use by another session"), "{why}");
        b.take(&Phone("p2")).unwrap();
        // Each sees what the other holds, never its own.
        let seen = b.in_use_by_others();
        assert_eq!(seen.keys().collect::<Vec<_>>(), ["p1"]);
        assert!(
            seen["p1"].starts_with("in use by another session of this server since ")
                && seen["p1"].contains(" UTC"),
            "{seen:?}"
        );
        assert_eq!(a.in_use_by_others().keys().collect::<Vec<_>>(), ["p2"]);
        drop(a);
        assert!(b.in_use_by_others().is_empty());
        b.take(&Phone("p1")).unwrap();
    }

    #[test]
    fn sharing_takes_no_lease() {
        let book = LeaseBook::new(LeasePolicy {
            share: true,
            dir: None,
        });
        book.session().take(&Phone("p1")).unwrap();
        let (a, b) = (book.session(), book.session());
        a.take(&Phone("p1")).unwrap();
        b.take(&Phone("p1")).unwrap();
    }

    #[test]
    fn two_books_on_one_folder_exclude_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let policy = LeasePolicy {
            share: false,
            dir: Some(dir.path().to_path_buf()),
        };
        let (one, two) = (LeaseBook::new(policy.clone()), LeaseBook::new(policy));
        let a = one.session();
        a.take(&Phone("p1")).unwrap();
        let b = two.session();
        let why = b.take(&Phone("p1")).unwrap_err();
        assert!(
            why.contains(&format!("process (pid {})", std::process::id())),
            "{why}"
        );
        a.release("p1");
        b.take(&Phone("p1")).unwrap();
    }
}
