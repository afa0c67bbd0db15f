//! Screen recording with `simctl io recordVideo`, which writes a file by path: it writes
//! into a private folder this process creates (mode 0700, a fresh random name), and when
//! the recording stops the video is copied into the open file the server gave, so the
//! backend never writes a path the caller chose.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use mobile_device::{DeviceError, Recording, RecordingOptions, Result};
use tokio::process::{Child, Command};

use super::{RECORDING_FINISH, SimulatorDevice};
use crate::errors;
use crate::process::Output;
use crate::tools::argv;

/// A recording in progress: the `simctl` child and the private file it writes.
pub(super) struct ActiveRecording {
    child: Child,
    /// The private folder; removed with this value.
    folder: tempfile::TempDir,
    started: Instant,
    timer: Option<tokio::task::JoinHandle<()>>,
}

impl ActiveRecording {
    fn video(&self) -> PathBuf {
        self.folder.path().join("recording.mp4")
    }
}

impl SimulatorDevice {
    pub(super) async fn start_recording_to_private(
        &self,
        options: &RecordingOptions,
    ) -> Result<()> {
        let mut slot = self.recording.lock().await;
        if let Some(active) = slot.as_mut() {
            if matches!(active.child.try_wait(), Ok(None)) {
                return Err(DeviceError::invalid(format!(
                    "simulator {} is already recording; stop that recording first",
                    self.udid
                )));
            }
            *slot = None;
        }
        let folder = tempfile::Builder::new()
            .prefix("mobile-mcp-recording-")
            .tempdir()
            .map_err(|e| {
                DeviceError::backend(format!("could not make a folder for the recording: {e}"))
            })?;
        let video = folder.path().join("recording.mp4");
        let xcrun = self.tools.xcrun()?;
        let mut child = Command::new(xcrun)
            .args(argv![
                "simctl",
                "io",
                &self.udid,
                "recordVideo",
                "--codec=h264",
                "--force",
                video.as_os_str()
            ])
            .envs(self.tools.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| DeviceError::backend(format!("could not run {}: {e}", xcrun.display())))?;
        // A recording that cannot start (device not booted) fails at once; catch that.
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Ok(Some(status)) = child.try_wait() {
            let mut stderr = String::new();
            if let Some(e) = child.stderr.take() {
                use tokio::io::AsyncReadExt;
                // Capped like every child's output (a descendant may still hold the pipe).
                let mut e = e.take(crate::process::STDERR_CAP as u64);
                let _ = e.read_to_string(&mut stderr).await;
            }
            let out = Output {
                code: status.code(),
                stdout: Vec::new(),
                stderr,
            };
            return Err(errors::simctl_error(&self.ctx("recordVideo", None), &out));
        }
        let timer = {
            let (pid, limit) = (child.id(), options.time_limit.get());
            Some(tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                SimulatorDevice::send_signal(pid, libc::SIGINT).await;
            }))
        };
        *slot = Some(ActiveRecording {
            child,
            folder,
            started: Instant::now(),
            timer,
        });
        Ok(())
    }

    pub(super) async fn stop_recording_into(&self, out: std::fs::File) -> Result<Recording> {
        let mut slot = self.recording.lock().await;
        let Some(mut active) = slot.take() else {
            return Err(DeviceError::invalid(format!(
                "simulator {} is not recording; start a recording first",
                self.udid
            )));
        };
        if let Some(t) = active.timer.take() {
            t.abort();
        }
        let duration = active.started.elapsed();
        // simctl finishes the file on SIGINT, as Ctrl-C in a terminal would.
        Self::send_signal(active.child.id(), libc::SIGINT).await;
        match tokio::time::timeout(RECORDING_FINISH, active.child.wait()).await {
            Ok(Ok(_)) => {}
            _ => {
                let _ = active.child.kill().await;
                return Err(DeviceError::backend(format!(
                    "simctl recordVideo did not finish within {} s of being stopped; the video was not saved",
                    RECORDING_FINISH.as_secs()
                )));
            }
        }
        let video = active.video();
        // The copy is blocking file I/O; the private folder goes when `active` does.
        let copied = tokio::task::spawn_blocking(move || {
            let mut out = out;
            let mut src = std::fs::File::open(&video)?;
            let n = std::io::copy(&mut src, &mut out)?;
            drop(active);
            Ok::<u64, std::io::Error>(n)
        })
        .await
        .map_err(|e| DeviceError::backend(format!("copying the recording failed: {e}")))?;
        let bytes = copied.map_err(|e| {
            DeviceError::backend(format!(
                "the recording was stopped but could not be saved: {e}"
            ))
        })?;
        Ok(Recording { bytes, duration })
    }
}
