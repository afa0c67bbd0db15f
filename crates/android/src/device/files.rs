//! File transfer: pushing and pulling device files.

use std::path::Path;

use mobile_device::{DeviceError, DevicePath, Result};

use super::AndroidDevice;
use super::errors::adb_error;
use crate::adb::{output, run_transfer};

impl AndroidDevice {
    /// 1 sync session (`SEND`).
    pub(super) async fn push_file(&self, local: &Path, remote: &DevicePath) -> Result<u64> {
        if !local.is_file() {
            return Err(DeviceError::not_found(
                format!("The local file {}", local.display()),
                "Give the path of an existing file on this machine",
            ));
        }
        let link = self.link.clone();
        let id = self.id.clone();
        let (local, remote) = (local.to_path_buf(), remote.as_str().to_string());
        run_transfer("pushing the file", move |cancel| {
            link.push(&local, &remote, cancel)
                .map_err(|e| adb_error(&id, &link, &format!("pushing to {remote}"), e))
        })
        .await
    }

    /// 1 sync session (`RECV`).
    pub(super) async fn pull_file(&self, remote: &DevicePath, local: &Path) -> Result<u64> {
        let link = self.link.clone();
        let id = self.id.clone();
        let (local, remote) = (local.to_path_buf(), remote.as_str().to_string());
        run_transfer("pulling the file", move |cancel| {
            link.pull(&remote, &local, cancel).map_err(|e| {
                let text = e.to_string();
                if output::PULL_NO_FILE.failed(&text) {
                    DeviceError::not_found(format!("The device file {remote}"), text)
                } else {
                    adb_error(&id, &link, &format!("pulling {remote}"), e)
                }
            })
        })
        .await
    }
}
