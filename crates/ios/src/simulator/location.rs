//! The simulated location (`simctl location UDID set LAT,LON` / `clear`).

use mobile_device::{Location, Result};

use super::SimulatorDevice;
use crate::tools::argv;

impl SimulatorDevice {
    pub(super) async fn set_location(&self, location: Option<Location>) -> Result<()> {
        let args = match location {
            Some(l) => argv![
                "location",
                &self.udid,
                "set",
                format!("{},{}", l.latitude.get(), l.longitude.get())
            ],
            None => argv!["location", &self.udid, "clear"],
        };
        self.simctl_ok(args, "location", None).await?;
        Ok(())
    }
}
