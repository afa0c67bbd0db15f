//! The pasteboard (`simctl pbpaste`, `simctl pbcopy`).

use mobile_device::Result;

use super::SimulatorDevice;
use crate::errors;
use crate::tools::argv;

impl SimulatorDevice {
    pub(super) async fn clipboard(&self) -> Result<String> {
        let out = self
            .simctl_ok(argv!["pbpaste", &self.udid], "pbpaste", None)
            .await?;
        Ok(out.stdout_text())
    }

    pub(super) async fn set_clipboard(&self, text: &str) -> Result<()> {
        let out = self
            .tools
            .simctl_with_input(argv!["pbcopy", &self.udid], Some(text.as_bytes()), "pbcopy")
            .await?;
        if out.success() {
            Ok(())
        } else {
            Err(errors::simctl_error(&self.ctx("pbcopy", None), &out))
        }
    }
}
