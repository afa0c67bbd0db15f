//! Screen recording with `screenrecord`, in a shell session of its own.

use std::time::{Duration, Instant};

use mobile_device::{DeviceError, DevicePath, Recording, RecordingOptions, Result};

use super::AndroidDevice;
use crate::adb::output::first_lines;
use crate::adb::{AdbResult, Cap, Hangup};
use crate::quote::command;

pub(super) struct ActiveRecording {
    device_path: String,
    started: Instant,
    done: tokio::sync::oneshot::Receiver<AdbResult<Vec<u8>>>,
}

impl AndroidDevice {
    /// Starts `screenrecord --time-limit N /sdcard/mobile-mcp-….mp4` in its own shell
    /// session, which stays open while it records.
    pub(super) async fn start_recording(&self, options: &RecordingOptions) -> Result<()> {
        let mut slot = self.recording.lock().await;
        if slot.is_some() {
            return Err(DeviceError::invalid(
                "a screen recording is already running on this device; stop it first",
            ));
        }
        let limit = options.time_limit.secs();
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let device_path = format!("/sdcard/mobile-mcp-{millis}.mp4");
        let cmd = command(&[
            "screenrecord",
            "--time-limit",
            &limit.to_string(),
            &device_path,
        ])?;
        let link = self.link.clone();
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("screenrecord".into())
            .spawn(move || {
                // Stopped with `pkill -INT` (so the file is finalized), never hung up.
                let _ = tx.send(link.shell(&cmd, Cap::SHELL, &Hangup::default()));
            })
            .map_err(|e| DeviceError::backend(format!("cannot start the recorder: {e}")))?;
        // A recorder that fails (missing binary, no permission) ends at once.
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Ok(done) = rx.try_recv() {
            let out = done.map_err(|e| self.describe("screen recording", e))?;
            return Err(DeviceError::backend(format!(
                "screenrecord stopped at once: {}",
                first_lines(&String::from_utf8_lossy(&out))
            )));
        }
        *slot = Some(ActiveRecording {
            device_path,
            started: Instant::now(),
            done: rx,
        });
        Ok(())
    }

    /// 1 round trip `pkill -INT screenrecord`, a wait for the file to be finalized, 1
    /// sync session to pull it into `out`, 1 round trip `rm -f`.
    pub(super) async fn stop_recording(&self, out: std::fs::File) -> Result<Recording> {
        let Some(rec) = self.recording.lock().await.take() else {
            return Err(DeviceError::invalid(
                "no screen recording is running on this device; start one first",
            ));
        };
        let duration = rec.started.elapsed();
        self.sh(
            "stopping the recording",
            command(&["pkill", "-INT", "screenrecord"])?,
        )
        .await?;
        match tokio::time::timeout(Duration::from_secs(15), rec.done).await {
            Ok(_) => {}
            Err(_) => tracing::warn!("screenrecord did not exit 15 s after SIGINT"),
        }
        let remote = DevicePath::parse(&rec.device_path).map_err(|e| DeviceError::invalid(e.0))?;
        let bytes = self.pull_file(&remote, out).await.map_err(|e| {
            DeviceError::backend(format!(
                "the recording could not be copied from {} (it is left on the device): {e}",
                rec.device_path
            ))
        })?;
        let _ = self
            .sh(
                "removing the recording from the device",
                command(&["rm", "-f", &rec.device_path])?,
            )
            .await;
        Ok(Recording { bytes, duration })
    }
}
