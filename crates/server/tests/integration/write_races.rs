//! Writes that cannot be redirected. A folder of the target path is swapped for a symlink
//! to a folder outside the allowed roots after the call checked the path and before the
//! file is written: the device double waits at that point until the test has swapped, so
//! the race is won every time. The file must land nowhere outside the roots and the
//! link's target must stay as it was; every writer is tried (screenshot, UI dump, logs,
//! pull, recording).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mobile_device::*;
use mobile_mcp::{FileRoots, MobileServer, ServerOptions};
use rmcp::model::CallToolRequestParams;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Where the double stops: it says it got there and waits for the test to let it go.
#[derive(Default)]
struct Gate {
    entered: Notify,
    go: Notify,
}

impl Gate {
    async fn pass(&self) {
        self.entered.notify_one();
        self.go.notified().await;
    }
}

/// A device whose every writer-feeding call waits at the gate.
struct Gated {
    gate: Arc<Gate>,
}

fn png() -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(4, 4, image::Rgba([1, 2, 3, 255]));
    let mut buf = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut buf, image::ImageFormat::Png)
        .unwrap();
    buf.into_inner()
}

#[async_trait]
impl Device for Gated {
    fn id(&self) -> &str {
        "gated-1"
    }
    fn platform(&self) -> Platform {
        Platform::Android
    }
    fn coordinate_unit(&self) -> CoordinateUnit {
        CoordinateUnit::Pixels
    }
    async fn screenshot(&self, _want: &ScreenshotOptions) -> Result<Screenshot> {
        self.gate.pass().await;
        Ok(Screenshot {
            format: CaptureFormat::Png,
            bytes: png(),
        })
    }
    async fn ui_dump(&self) -> Result<String> {
        self.gate.pass().await;
        Ok("<hierarchy/>".into())
    }
    async fn logs(&self, _q: &LogQuery) -> Result<Vec<LogEntry>> {
        self.gate.pass().await;
        Ok(vec![LogEntry {
            message: "hello".into(),
            ..Default::default()
        }])
    }
    async fn pull_file(&self, _remote: &DevicePath, out: std::fs::File) -> Result<u64> {
        self.gate.pass().await;
        write_all(out, b"pulled")
    }
    async fn start_recording(&self, _o: &RecordingOptions) -> Result<()> {
        Ok(())
    }
    async fn stop_recording(&self, out: std::fs::File) -> Result<Recording> {
        self.gate.pass().await;
        let bytes = write_all(out, b"video")?;
        Ok(Recording {
            bytes,
            duration: Duration::from_secs(1),
        })
    }
}

fn write_all(mut out: std::fs::File, bytes: &[u8]) -> Result<u64> {
    use std::io::Write;
    out.write_all(bytes)
        .map_err(|e| DeviceError::backend(e.to_string()))?;
    Ok(bytes.len() as u64)
}

struct Backend {
    gate: Arc<Gate>,
}

#[async_trait]
impl DeviceBackend for Backend {
    fn name(&self) -> &str {
        "gated"
    }
    async fn discover(&self) -> Discovery {
        Discovery {
            devices: vec![DeviceInfo {
                id: "gated-1".into(),
                name: "Gated".into(),
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
        Ok(Arc::new(Gated {
            gate: self.gate.clone(),
        }))
    }
}

/// An in-process server allowed only `root`, its client, and the device's gate.
async fn server(
    root: &Path,
) -> (
    Arc<rmcp::service::RunningService<RoleClient, ()>>,
    Arc<Gate>,
) {
    let gate = Arc::new(Gate::default());
    let mut registry = DeviceRegistry::new();
    registry.register(Arc::new(Backend { gate: gate.clone() }));
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
    (Arc::new(client), gate)
}

fn request(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_string())
        .with_arguments(args.as_object().cloned().unwrap_or_default())
}

/// Every file under `dir` with its bytes, links as their targets.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            out.extend(snapshot(&p));
        } else if m.file_type().is_symlink() {
            out.push((
                p.clone(),
                std::fs::read_link(&p)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes(),
            ));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

/// A tool's arguments for a target path.
type Args = fn(&str) -> Value;

/// One writer: the tool, its arguments for a path, and the file name it writes.
struct Writer {
    tool: &'static str,
    file: &'static str,
    args: Args,
    /// A call to make first (the recording is started, then stopped at the gate).
    start: Option<(&'static str, Args)>,
}

const WRITERS: &[Writer] = &[
    Writer {
        tool: "mobile_save_screenshot",
        file: "shot.png",
        args: |p| json!({"device": "gated-1", "saveTo": p, "overwrite": true}),
        start: None,
    },
    Writer {
        tool: "mobile_ui_dump",
        file: "dump.xml",
        args: |p| json!({"device": "gated-1", "output_path": p, "overwrite": true}),
        start: None,
    },
    Writer {
        tool: "mobile_get_device_logs",
        file: "logs.txt",
        args: |p| json!({"device": "gated-1", "saveTo": p, "overwrite": true}),
        start: None,
    },
    Writer {
        tool: "mobile_adb_pull",
        file: "down.bin",
        args: |p| json!({"device": "gated-1", "remote_path": "/sdcard/x", "local_path": p, "overwrite": true}),
        start: None,
    },
    Writer {
        tool: "mobile_stop_screen_recording",
        file: "rec.mp4",
        args: |_| json!({"device": "gated-1"}),
        start: Some((
            "mobile_start_screen_recording",
            |p| json!({"device": "gated-1", "output": p, "overwrite": true}),
        )),
    },
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_swapped_for_a_link_after_the_check_does_not_redirect_writes() {
    tokio::time::timeout(Duration::from_secs(120), async {
        let mut redirected = Vec::new();
        for w in WRITERS {
            let root = tempfile::Builder::new()
                .tempdir_in(std::env::temp_dir())
                .unwrap();
            let outside = tempfile::Builder::new()
                .tempdir_in(std::env::temp_dir())
                .unwrap();
            // The link's target already has a file of the name: it must keep its bytes.
            std::fs::write(outside.path().join(w.file), b"keep").unwrap();
            let before = snapshot(outside.path());
            let sub = root.path().join("sub");
            std::fs::create_dir(&sub).unwrap();
            let target = sub.join(w.file).display().to_string();
            let (client, gate) = server(root.path()).await;
            if let Some((tool, args)) = w.start {
                let r = client
                    .call_tool(request(tool, args(&target)))
                    .await
                    .unwrap();
                assert_ne!(r.is_error, Some(true), "{tool}: {r:?}");
            }
            let call = {
                let client = client.clone();
                let req = request(w.tool, (w.args)(&target));
                tokio::spawn(async move { client.call_tool(req).await })
            };
            gate.entered.notified().await;
            // The swap: the checked folder moves aside and a link to outside takes its name.
            std::fs::rename(&sub, root.path().join("moved")).unwrap();
            std::os::unix::fs::symlink(outside.path(), &sub).unwrap();
            gate.go.notify_one();
            let r = call.await.unwrap().unwrap();
            if snapshot(outside.path()) != before {
                redirected.push(format!("{}: {:?}", w.tool, snapshot(outside.path())));
            }
            // Done: whole in the folder that was checked, or refused.
            let landed = root.path().join("moved").join(w.file);
            if r.is_error != Some(true) && !landed.is_file() {
                redirected.push(format!(
                    "{}: reported success, not in the checked folder",
                    w.tool
                ));
            }
        }
        assert!(
            redirected.is_empty(),
            "writes redirected outside the roots: {redirected:#?}"
        );
    })
    .await
    .expect("the race test finished within its deadline");
}
