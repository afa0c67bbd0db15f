//! Fold postures of a foldable device, and the device state a fold request settled in.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How far a foldable is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Posture {
    /// Closed, the halves against each other.
    Folded,
    /// Partly opened, like a laptop or a book (a "tabletop" or "book" posture).
    HalfOpen,
    /// Opened flat.
    Open,
}

impl Posture {
    /// The posture of a hinge at `degrees` (0 closed, 180 flat), with the boundaries of
    /// AOSP's sensor-based device-state configuration (`DeviceStateProviderImplTest`:
    /// CLOSED below 90, HALF_OPENED from 90 to below 180, OPENED from 180).
    pub fn from_hinge_angle(degrees: f64) -> Option<Posture> {
        match degrees {
            d if !(0.0..=360.0).contains(&d) => None,
            d if d < 90.0 => Some(Posture::Folded),
            d if d < 180.0 => Some(Posture::HalfOpen),
            _ => Some(Posture::Open),
        }
    }

    /// The name tools take: `folded`, `half-open`, `open`.
    pub fn as_str(self) -> &'static str {
        match self {
            Posture::Folded => "folded",
            Posture::HalfOpen => "half-open",
            Posture::Open => "open",
        }
    }
}

impl fmt::Display for Posture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The device state a fold request asked for, as the device names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldState {
    /// The device's identifier of the state (Android's device-state id).
    pub id: i64,
    /// The device's name of the state, e.g. `HALF_OPENED`.
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hinge_angles_map_to_postures_at_the_aosp_boundaries() {
        assert_eq!(Posture::from_hinge_angle(0.0), Some(Posture::Folded));
        assert_eq!(Posture::from_hinge_angle(89.9), Some(Posture::Folded));
        assert_eq!(Posture::from_hinge_angle(90.0), Some(Posture::HalfOpen));
        assert_eq!(Posture::from_hinge_angle(180.0), Some(Posture::Open));
        assert_eq!(Posture::from_hinge_angle(-1.0), None);
        assert_eq!(
            serde_json::from_str::<Posture>("\"half-open\"").unwrap(),
            Posture::HalfOpen
        );
    }
}
