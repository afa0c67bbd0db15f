//! File transfer: pushing and pulling device files, through files the server opened.

use std::fs::File;

use mobile_device::{DeviceError, DevicePath, Result};

use super::AndroidDevice;
use super::errors::adb_error;
use crate::adb::{output, run_transfer};

impl AndroidDevice {
    /// 1 sync session (`SEND`), reading `local` from where it is.
    pub(super) async fn push_file(&self, local: File, remote: &DevicePath) -> Result<u64> {
        let link = self.link.clone();
        let id = self.id.clone();
        let remote = remote.as_str().to_string();
        run_transfer("pushing the file", move |cancel| {
            link.push(local, &remote, cancel)
                .map_err(|e| adb_error(&id, &link, &format!("pushing to {remote}"), e))
        })
        .await
    }

    /// 1 sync session (`RECV`), writing into `out`.
    pub(super) async fn pull_file(&self, remote: &DevicePath, out: File) -> Result<u64> {
        let link = self.link.clone();
        let id = self.id.clone();
        let remote = remote.as_str().to_string();
        run_transfer("pulling the file", move |cancel| {
            link.pull(&remote, out, cancel).map_err(|e| {
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
