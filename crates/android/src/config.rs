//! Where the adb servers are and where the `adb` binary is.
//!
//! Not for: deadlines (the server bounds every device call; the backend stops when the
//! call is dropped).

use std::ffi::OsString;
use std::net::{Ipv4Addr, SocketAddrV4, ToSocketAddrs};
use std::path::{Path, PathBuf};

/// The adb server's default address.
pub const DEFAULT_SERVER: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 5037);

/// How the Android backend reaches devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndroidConfig {
    /// adb servers to list devices from, in order. Devices of the first keep their
    /// serial as id; devices of the others are named `HOST:PORT/SERIAL`.
    pub servers: Vec<SocketAddrV4>,
    /// Whether discovery may start a server (`adb -P PORT start-server`) on a loopback
    /// address in [`servers`](Self::servers) where none answers. With `false` the backend
    /// never runs `adb` and talks only to the listed servers (the server's `--demo`
    /// mode, whose adb server is the virtual phone's own front end).
    pub start_server: bool,
    /// The `adb` binary used to start a server when none answers (otherwise
    /// `$ANDROID_HOME/platform-tools/adb`, then `adb` on `PATH`).
    pub adb_path: Option<PathBuf>,
}

impl Default for AndroidConfig {
    fn default() -> Self {
        AndroidConfig {
            servers: vec![DEFAULT_SERVER],
            start_server: true,
            adb_path: None,
        }
    }
}

impl AndroidConfig {
    /// The default configuration, with the server address taken from
    /// `ADB_SERVER_SOCKET` (`tcp:HOST:PORT`) or `ANDROID_ADB_SERVER_PORT`, as adb does.
    /// A malformed value is ignored with a warning.
    pub fn from_env() -> Self {
        let socket = std::env::var("ADB_SERVER_SOCKET").ok();
        let port = std::env::var("ANDROID_ADB_SERVER_PORT").ok();
        let server = server_from_env(socket.as_deref(), port.as_deref()).unwrap_or_else(|e| {
            tracing::warn!("{e}; using {DEFAULT_SERVER}");
            DEFAULT_SERVER
        });
        AndroidConfig {
            servers: vec![server],
            ..Default::default()
        }
    }

    /// Only the adb server at `addr`, which is never started by this backend (no `adb`
    /// binary is looked for or run); the other fields are the defaults.
    pub fn only_server(addr: SocketAddrV4) -> Self {
        AndroidConfig {
            servers: vec![addr],
            start_server: false,
            ..Default::default()
        }
    }

    /// Adds a server (`--adb-server HOST:PORT`), ignoring duplicates.
    pub fn add_server(&mut self, addr: SocketAddrV4) {
        if !self.servers.contains(&addr) {
            self.servers.push(addr);
        }
    }
}

/// The server address adb itself would use given these two variables.
pub(crate) fn server_from_env(
    socket: Option<&str>,
    port: Option<&str>,
) -> Result<SocketAddrV4, String> {
    if let Some(s) = socket.filter(|s| !s.trim().is_empty()) {
        let rest = s.trim().strip_prefix("tcp:").ok_or_else(|| {
            format!("ADB_SERVER_SOCKET={s} is not supported: only tcp:HOST:PORT is")
        })?;
        return parse_server(rest).map_err(|e| format!("ADB_SERVER_SOCKET: {e}"));
    }
    if let Some(p) = port.filter(|p| !p.trim().is_empty()) {
        let port: u16 = p
            .trim()
            .parse()
            .map_err(|_| format!("ANDROID_ADB_SERVER_PORT={p} is not a port number"))?;
        return Ok(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
    }
    Ok(DEFAULT_SERVER)
}

/// Parses `HOST:PORT`, `PORT` or `tcp:HOST:PORT`; `HOST` may be a name that resolves to
/// an IPv4 address (`localhost`).
pub fn parse_server(s: &str) -> Result<SocketAddrV4, String> {
    let s = s.trim();
    let s = s.strip_prefix("tcp:").unwrap_or(s);
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
    }
    if let Ok(a) = s.parse::<SocketAddrV4>() {
        return Ok(a);
    }
    let (host, port) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("`{s}` is not HOST:PORT"))?;
    let port: u16 = port
        .parse()
        .map_err(|_| format!("`{port}` is not a port number"))?;
    if host == "localhost" {
        return Ok(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
    }
    (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve `{host}`: {e}"))?
        .find_map(|a| match a {
            std::net::SocketAddr::V4(v4) => Some(v4),
            _ => None,
        })
        .ok_or_else(|| format!("`{host}` has no IPv4 address"))
}

/// Finds the `adb` binary: the configured path, then `$ANDROID_HOME/platform-tools/adb`,
/// then `adb` on `PATH`.
pub fn find_adb(
    configured: Option<&Path>,
    android_home: Option<OsString>,
    path: Option<OsString>,
) -> Option<PathBuf> {
    let exe = if cfg!(windows) { "adb.exe" } else { "adb" };
    if let Some(p) = configured {
        return p.is_file().then(|| p.to_path_buf());
    }
    if let Some(home) = android_home.filter(|h| !h.is_empty()) {
        let p = PathBuf::from(home).join("platform-tools").join(exe);
        if p.is_file() {
            return Some(p);
        }
    }
    std::env::split_paths(&path?)
        .map(|d| d.join(exe))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_rules() {
        assert_eq!(server_from_env(None, None).unwrap(), DEFAULT_SERVER);
        assert_eq!(
            server_from_env(Some("tcp:127.0.0.1:5039"), Some("6000")).unwrap(),
            "127.0.0.1:5039".parse().unwrap()
        );
        assert_eq!(
            server_from_env(None, Some("5041")).unwrap(),
            "127.0.0.1:5041".parse().unwrap()
        );
        assert_eq!(
            server_from_env(Some("tcp:localhost:5040"), None).unwrap(),
            "127.0.0.1:5040".parse().unwrap()
        );
        assert!(server_from_env(Some("local:/tmp/x"), None).is_err());
        assert!(server_from_env(None, Some("x")).is_err());
        assert_eq!(
            parse_server("5038").unwrap(),
            "127.0.0.1:5038".parse().unwrap()
        );
        assert!(parse_server("nonsense").is_err());
    }

    #[test]
    fn adb_lookup_order() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("sdk");
        std::fs::create_dir_all(home.join("platform-tools")).unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        assert_eq!(
            find_adb(None, Some(home.clone().into()), Some(bin.clone().into())),
            None
        );
        std::fs::write(bin.join("adb"), "").unwrap();
        assert_eq!(
            find_adb(None, Some(home.clone().into()), Some(bin.clone().into())),
            Some(bin.join("adb"))
        );
        std::fs::write(home.join("platform-tools/adb"), "").unwrap();
        assert_eq!(
            find_adb(None, Some(home.clone().into()), Some(bin.clone().into())),
            Some(home.join("platform-tools/adb"))
        );
        assert_eq!(find_adb(Some(&dir.path().join("none")), None, None), None);
    }
}
