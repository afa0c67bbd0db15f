//! A private adb server for tests: its own port (never 5037, never 5555–5585), its own `HOME`
//! (so it never touches the user's keys or a running default server), every call bounded by a
//! timeout, and `kill-server` on drop.
//!
//! `adb_client` note: for loopback addresses every `ADBServer` method first runs
//! `adb start-server` **without `-P`**. Set `ANDROID_ADB_SERVER_PORT` to [`PrivateAdbServer::port`]
//! in the test process (see [`PrivateAdbServer::env`]) before using
//! `adb_client::server::ADBServer::new(addr)`, or that child would target port 5037.

use std::io::{self, Read};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::PhoneHandle;

/// Default timeout of one `adb` invocation.
pub const ADB_TIMEOUT: Duration = Duration::from_secs(20);

/// A running private adb server.
pub struct PrivateAdbServer {
    port: u16,
    home: tempfile::TempDir,
    adb: PathBuf,
    killed: bool,
}

/// A free loopback TCP port outside 5037 and 5555–5585.
pub fn free_port() -> io::Result<u16> {
    for _ in 0..50 {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = l.local_addr()?.port();
        if port != 5037 && !(5555..=5585).contains(&port) {
            return Ok(port);
        }
    }
    Err(io::Error::other("no free port found"))
}

/// Runs a command with a deadline; kills it (and returns `TimedOut`) when the deadline passes.
pub fn run_with_timeout(mut cmd: Command, timeout: Duration) -> io::Result<Output> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let out_pipe = child.stdout.take();
    let err_pipe = child.stderr.take();
    let reader = |p: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = p {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out_t = reader(out_pipe.map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err_t = reader(err_pipe.map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if Instant::now() >= deadline {
            kill(&mut child);
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("{cmd:?} timed out after {timeout:?}"),
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // A daemon child (adb's forked server) may keep the pipes open: don't wait forever.
    let join = |t: std::thread::JoinHandle<Vec<u8>>| {
        let until = Instant::now() + Duration::from_secs(2);
        while !t.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if t.is_finished() {
            t.join().unwrap_or_default()
        } else {
            Vec::new()
        }
    };
    Ok(Output {
        status,
        stdout: join(out_t),
        stderr: join(err_t),
    })
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

impl PrivateAdbServer {
    /// Starts `adb -P PORT start-server` on a free port with a private `HOME`, using `adb` from
    /// `PATH` (or `$ADB` if set).
    pub fn start() -> io::Result<Self> {
        let adb = std::env::var_os("ADB")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("adb"));
        Self::start_with(&adb)
    }

    /// Like [`start`](Self::start) with an explicit adb binary.
    pub fn start_with(adb: &Path) -> io::Result<Self> {
        let mut last_err = None;
        for _ in 0..3 {
            let port = free_port()?;
            let server = PrivateAdbServer {
                port,
                home: tempfile::Builder::new().prefix("vdev-adb-home").tempdir()?,
                adb: adb.to_path_buf(),
                killed: false,
            };
            match server.adb_timeout(&["start-server"], Duration::from_secs(30)) {
                Ok(out) if out.status.success() => return Ok(server),
                Ok(out) => {
                    last_err = Some(io::Error::other(format!(
                        "adb start-server failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    )))
                }
                Err(e) => last_err = Some(e),
            }
        }
        Err(last_err.unwrap_or_else(|| io::Error::other("adb start-server failed")))
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's socket address (for `adb_client::server::ADBServer::new`).
    pub fn socket_addr(&self) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, self.port)
    }

    /// The private `HOME` the server runs with.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Environment for child processes (and for `adb_client`, which runs `adb start-server`
    /// itself): `ANDROID_ADB_SERVER_PORT`, `HOME`, `ADB_LOCAL_TRANSPORT_MAX_PORT`.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("ANDROID_ADB_SERVER_PORT".into(), self.port.to_string()),
            ("HOME".into(), self.home.path().display().to_string()),
            // Keep the emulator scan to a single port (5555) instead of 5555–5585.
            ("ADB_LOCAL_TRANSPORT_MAX_PORT".into(), "5555".into()),
        ]
    }

    /// `adb -P PORT ARGS…` with the default timeout.
    pub fn adb(&self, args: &[&str]) -> io::Result<Output> {
        self.adb_timeout(args, ADB_TIMEOUT)
    }

    /// `adb -P PORT ARGS…` with a timeout.
    pub fn adb_timeout(&self, args: &[&str], timeout: Duration) -> io::Result<Output> {
        let mut cmd = Command::new(&self.adb);
        cmd.arg("-P").arg(self.port.to_string()).args(args);
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        cmd.env_remove("ADB_SERVER_SOCKET")
            .env_remove("ANDROID_SERIAL");
        run_with_timeout(cmd, timeout)
    }

    /// `adb connect ADDR` for the phone; checks the reply text (adb exits 0 on failure).
    pub fn connect(&self, phone: &PhoneHandle) -> io::Result<()> {
        let serial = phone.serial();
        let out = self.adb(&["connect", &serial])?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        if text.contains(&format!("connected to {serial}")) {
            // Wait until the transport is online.
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                let st = self.adb(&["-s", &serial, "get-state"])?;
                if String::from_utf8_lossy(&st.stdout).trim() == "device" {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("{serial} did not come online"),
            ));
        }
        Err(io::Error::other(format!(
            "adb connect {serial}: {}",
            text.trim()
        )))
    }

    /// `adb disconnect ADDR`.
    pub fn disconnect(&self, phone: &PhoneHandle) -> io::Result<()> {
        self.adb(&["disconnect", &phone.serial()]).map(|_| ())
    }

    /// Kills the server now (also done on drop).
    pub fn kill(&mut self) {
        if !self.killed {
            self.killed = true;
            let _ = self.adb_timeout(&["kill-server"], Duration::from_secs(10));
        }
    }
}

impl Drop for PrivateAdbServer {
    fn drop(&mut self) {
        self.kill();
    }
}
