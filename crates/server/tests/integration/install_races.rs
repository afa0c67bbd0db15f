//! Installs that read what was checked. `mobile_install_app` checks a path; the device
//! double then waits at a gate until the test has swapped what the path names (an `.apk`
//! for a symlink to a file outside the allowed folder, or for a FIFO; a file inside an
//! `.app` folder for a symlink), and only then reads its package, as a backend would. The
//! bytes it read must be the checked file's, never the outside file's, and no read may
//! block on a FIFO.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mobile_device::*;
use mobile_mcp::{FileRoots, MobileServer, ServerOptions};
use rmcp::model::CallToolRequestParams;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tokio::sync::Notify;

/// Where the double stops: it says it got there and waits for the test to let it go.
#[derive(Default)]
struct Gate {
    entered: Notify,
    go: Notify,
}

/// A device whose install waits at the gate, then reads the package it was given.
struct Installer {
    gate: Arc<Gate>,
    /// What the last install read: a file's bytes, or a folder's `Info.plist`.
    read: Arc<Mutex<Option<Vec<u8>>>>,
}

/// Reads a package as a backend does, on a blocking thread; `None` if it did not finish
/// within 5 s (a read blocked on a FIFO).
async fn read_package(package: AppPackage) -> Option<std::io::Result<Vec<u8>>> {
    let read = tokio::task::spawn_blocking(move || match package.content {
        PackageContent::File(mut f) => {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut out).map(|_| out)
        }
        PackageContent::Folder(dir) => std::fs::read(dir.join("Info.plist")),
    });
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .ok()
        .map(|r| r.unwrap())
}

#[async_trait]
impl Device for Installer {
    fn id(&self) -> &str {
        "installer-1"
    }
    fn platform(&self) -> Platform {
        Platform::Android
    }
    fn coordinate_unit(&self) -> CoordinateUnit {
        CoordinateUnit::Pixels
    }
    async fn install_app(&self, package: AppPackage, _progress: Option<ProgressFn>) -> Result<()> {
        self.gate.entered.notify_one();
        self.gate.go.notified().await;
        match read_package(package).await {
            Some(Ok(bytes)) => {
                *self.read.lock().unwrap() = Some(bytes);
                Ok(())
            }
            Some(Err(e)) => Err(DeviceError::backend(e.to_string())),
            None => Err(DeviceError::backend("the read blocked")),
        }
    }
}

struct Backend {
    gate: Arc<Gate>,
    read: Arc<Mutex<Option<Vec<u8>>>>,
}

#[async_trait]
impl DeviceBackend for Backend {
    fn name(&self) -> &str {
        "installer"
    }
    async fn discover(&self) -> Discovery {
        Discovery {
            devices: vec![DeviceInfo {
                id: "installer-1".into(),
                name: "Installer".into(),
                platform: Platform::Android,
                kind: DeviceKind::Emulator,
                version: None,
                state: DeviceState::Online,
                model: None,
                hint: None,
            }],
            notes: vec![],
        }
    }
    async fn open(&self, _info: &DeviceInfo) -> Result<Arc<dyn Device>> {
        Ok(Arc::new(Installer {
            gate: self.gate.clone(),
            read: self.read.clone(),
        }))
    }
}

type Client = Arc<rmcp::service::RunningService<RoleClient, ()>>;

/// An in-process server allowed only `root`, its client, the gate and what was read.
async fn server(root: &Path) -> (Client, Arc<Gate>, Arc<Mutex<Option<Vec<u8>>>>) {
    let gate = Arc::new(Gate::default());
    let read = Arc::new(Mutex::new(None));
    let mut registry = DeviceRegistry::new();
    registry.register(Arc::new(Backend {
        gate: gate.clone(),
        read: read.clone(),
    }));
    let options = ServerOptions {
        files: FileRoots::new([root.to_path_buf()]),
        ..ServerOptions::default()
    };
    let server = MobileServer::new(Arc::new(registry), options);
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(s) = server.serve(b).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(a).await.expect("client initializes");
    (Arc::new(client), gate, read)
}

/// One swap: the package's name under the root, how to make it, and how to swap it.
struct Swap {
    label: &'static str,
    /// The path given to the tool, relative to the root.
    given: &'static str,
    make: fn(&Path),
    /// Swaps what `given` names, with `outside` a folder outside the root holding
    /// `secret.apk` and `Info.plist`, both "SECRET".
    swap: fn(&Path, &Path),
}

fn write(p: PathBuf, bytes: &[u8]) {
    std::fs::write(p, bytes).unwrap();
}

const SWAPS: &[Swap] = &[
    Swap {
        label: ".apk swapped for a link to a file outside",
        given: "app.apk",
        make: |root| write(root.join("app.apk"), b"CHECKED"),
        swap: |root, outside| {
            std::fs::rename(root.join("app.apk"), root.join("moved.apk")).unwrap();
            std::os::unix::fs::symlink(outside.join("secret.apk"), root.join("app.apk")).unwrap();
        },
    },
    Swap {
        label: ".apk swapped for a FIFO",
        given: "app.apk",
        make: |root| write(root.join("app.apk"), b"CHECKED"),
        swap: |root, _| {
            std::fs::rename(root.join("app.apk"), root.join("moved.apk")).unwrap();
            rustix::fs::mkfifoat(
                rustix::fs::CWD,
                root.join("app.apk"),
                rustix::fs::Mode::from_raw_mode(0o600),
            )
            .unwrap();
        },
    },
    Swap {
        label: "a file in an .app folder swapped for a link outside",
        given: "Demo.app",
        make: |root| {
            std::fs::create_dir(root.join("Demo.app")).unwrap();
            write(root.join("Demo.app/Info.plist"), b"CHECKED");
        },
        swap: |root, outside| {
            std::fs::remove_file(root.join("Demo.app/Info.plist")).unwrap();
            std::os::unix::fs::symlink(
                outside.join("Info.plist"),
                root.join("Demo.app/Info.plist"),
            )
            .unwrap();
        },
    },
    Swap {
        label: "an .app folder swapped for a link to a folder outside",
        given: "Demo.app",
        make: |root| {
            std::fs::create_dir(root.join("Demo.app")).unwrap();
            write(root.join("Demo.app/Info.plist"), b"CHECKED");
        },
        swap: |root, outside| {
            std::fs::rename(root.join("Demo.app"), root.join("Moved.app")).unwrap();
            std::os::unix::fs::symlink(outside, root.join("Demo.app")).unwrap();
        },
    },
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_install_reads_the_checked_package_whatever_is_swapped_in() {
    tokio::time::timeout(Duration::from_secs(120), async {
        let mut wrong = Vec::new();
        for s in SWAPS {
            let root = tempfile::Builder::new()
                .tempdir_in(std::env::temp_dir())
                .unwrap();
            let outside = tempfile::Builder::new()
                .tempdir_in(std::env::temp_dir())
                .unwrap();
            write(outside.path().join("secret.apk"), b"SECRET");
            write(outside.path().join("Info.plist"), b"SECRET");
            (s.make)(root.path());
            let (client, gate, read) = server(root.path()).await;
            let path = root.path().join(s.given).display().to_string();
            let call = {
                let client = client.clone();
                let req = CallToolRequestParams::new("mobile_install_app".to_string())
                    .with_arguments(
                        json!({"device": "installer-1", "path": path})
                            .as_object()
                            .cloned()
                            .unwrap(),
                    );
                tokio::spawn(async move { client.call_tool(req).await })
            };
            gate.entered.notified().await;
            (s.swap)(root.path(), outside.path());
            gate.go.notify_one();
            let r = call.await.unwrap().unwrap();
            let got = read.lock().unwrap().clone();
            if r.is_error == Some(true) || got.as_deref() != Some(&b"CHECKED"[..]) {
                wrong.push(format!(
                    "{}: read {:?}, result {:?}",
                    s.label,
                    got.map(|b| String::from_utf8_lossy(&b).into_owned()),
                    r.content
                ));
            }
            // A reader left blocked on the FIFO is let go, so the test ends.
            let fifo = root.path().join(s.given);
            if std::fs::symlink_metadata(&fifo).is_ok_and(|m| m.file_type().is_fifo()) {
                let _ = rustix::fs::open(
                    &fifo,
                    rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::NONBLOCK,
                    rustix::fs::Mode::empty(),
                );
            }
        }
        assert!(
            wrong.is_empty(),
            "installs that did not read the checked package: {wrong:#?}"
        );
    })
    .await
    .expect("the install race test finished within its deadline");
}
