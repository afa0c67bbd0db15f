//! The screen: its size, screenshots (`simctl io screenshot`), the accessibility tree
//! (`idb ui describe-all`) as elements or raw, and the orientation.

use std::time::Duration;

use mobile_device::{
    CaptureFormat, CoordinateUnit, DeviceError, Element, Orientation, Platform, Result, ScreenSize,
    Screenshot, ScreenshotOptions,
};

use super::SimulatorDevice;
use crate::parse::describe_all::{application_frame, is_placeholder_tree, to_elements};
use crate::parse::parse_describe_all;
use crate::screen::{png_dimensions, scale_for_model, scale_from};
use crate::tools::argv;

/// How often, and how far apart, an empty tree right after a launch is asked for again.
const TREE_RETRIES: u32 = 4;
const TREE_RETRY_DELAY: Duration = Duration::from_millis(400);

impl SimulatorDevice {
    /// The raw describe-all JSON, asked again while idb returns the empty tree it gives
    /// right after a launch.
    pub(super) async fn describe_all(&self) -> Result<(String, Vec<crate::parse::AxNode>)> {
        let mut attempt = 0;
        loop {
            let out = self
                .idb_ok(argv!["ui", "describe-all", "--json"], "listing elements")
                .await?;
            let raw = out.stdout_text();
            let roots =
                parse_describe_all(&raw).map_err(|e| DeviceError::backend(e.to_string()))?;
            attempt += 1;
            if !is_placeholder_tree(&roots) || attempt >= TREE_RETRIES {
                return Ok((raw, roots));
            }
            tokio::time::sleep(TREE_RETRY_DELAY).await;
        }
    }

    pub(super) async fn capture_png(&self) -> Result<Vec<u8>> {
        let dir = tempfile::Builder::new()
            .prefix("mobile-ios-shot")
            .tempdir()
            .map_err(|e| {
                DeviceError::backend(format!("could not make a temporary directory: {e}"))
            })?;
        let file = dir.path().join("screenshot.png");
        // `-` for stdout is unreliable (Xcode 26 writes a file named `-`), so use a file.
        self.simctl_ok(
            argv![
                "io",
                &self.udid,
                "screenshot",
                "--type=png",
                file.as_os_str()
            ],
            "screenshot",
            None,
        )
        .await?;
        let bytes = tokio::fs::read(&file).await.map_err(|e| {
            DeviceError::backend(format!(
                "simctl io screenshot succeeded but {} could not be read: {e}",
                file.display()
            ))
        })?;
        if png_dimensions(&bytes).is_none() {
            return Err(DeviceError::backend(
                "simctl io screenshot wrote something that is not a PNG",
            ));
        }
        Ok(bytes)
    }

    pub(super) async fn screen_size(&self) -> Result<ScreenSize> {
        let png = self.capture_png().await?;
        let (pw, ph) = png_dimensions(&png).unwrap_or((0, 0));
        let points = if self.tools.idb.is_some() {
            self.describe_all()
                .await
                .ok()
                .and_then(|(_, roots)| application_frame(&roots))
        } else {
            None
        };
        // The capture may be the portrait framebuffer while the interface is turned,
        // so the scale pairs the short sides and the size is the tree's.
        let short = |a: f64, b: f64| a.min(b);
        let scale = points
            .and_then(|(w, h)| scale_from(pw.min(ph), short(w, h)))
            .unwrap_or_else(|| scale_for_model(self.model.as_deref().unwrap_or(&self.name)));
        let (width, height) = match points {
            Some((w, h)) => (w.round() as u32, h.round() as u32),
            None => (
                (pw as f64 / scale).round() as u32,
                (ph as f64 / scale).round() as u32,
            ),
        };
        Ok(ScreenSize {
            unit: CoordinateUnit::Points,
            width,
            height,
            scale,
            density: None,
        })
    }

    pub(super) async fn screenshot(&self, _want: &ScreenshotOptions) -> Result<Screenshot> {
        Ok(Screenshot {
            format: CaptureFormat::Png,
            bytes: self.capture_png().await?,
        })
    }

    pub(super) async fn list_elements(&self) -> Result<Vec<Element>> {
        let (_, roots) = self.describe_all().await?;
        Ok(to_elements(&roots))
    }

    pub(super) async fn ui_dump(&self) -> Result<String> {
        Ok(self.describe_all().await?.0)
    }

    pub(super) async fn orientation(&self) -> Result<Orientation> {
        if let Some(o) = self.tree_orientation().await? {
            return Ok(o);
        }
        let png = self.capture_png().await?;
        let (w, h) = png_dimensions(&png).unwrap_or((0, 0));
        // Every simulator profile is portrait-shaped, so a wide capture means rotated.
        Ok(if w > h {
            Orientation::Landscape
        } else {
            Orientation::Portrait
        })
    }

    pub(super) async fn set_orientation(&self, orientation: Orientation) -> Result<()> {
        if self.tools.idb.is_none() {
            return Err(DeviceError::unsupported_with_hint(
                "changing the orientation",
                Platform::Ios,
                "without idb, rotate with Simulator.app's Device > Rotate menu (Cmd+Left/Right); or install idb with `brew install facebook/fb/idb-companion` and `pip install fb-idb`",
            ));
        }
        self.idb_set_orientation(orientation).await
    }
}
