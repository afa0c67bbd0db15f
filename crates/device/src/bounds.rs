//! Numbers a tool takes within bounds, validated once, when the arguments are read:
//! gesture and delay durations, the log line limit, the recording time limit, a
//! latitude and a longitude. A backend receives them already legal and checks nothing
//! again; each type's JSON schema states its bounds, and a value outside them is refused
//! with a sentence that names the bounds and the value.
//!
//! Numbers may come as JSON numbers or numeric strings (some models quote numbers).
//!
//! Not for: coordinates on the screen (the server keeps them inside the screen) or the
//! tools' defaults (each tool says its own).

use std::borrow::Cow;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

use crate::input::ValidationError;

/// A JSON number or a numeric string (some models quote numbers), finite: the one
/// lenient number reader behind every numeric parameter.
pub fn number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum N {
        Num(f64),
        Str(String),
    }
    let v = match N::deserialize(d)? {
        N::Num(n) => n,
        N::Str(s) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| serde::de::Error::custom(format!("expected a number, got {s:?}")))?,
    };
    if v.is_finite() {
        Ok(v)
    } else {
        Err(serde::de::Error::custom("expected a finite number"))
    }
}

/// A number type's `Deserialize` (through `parse`) and its schema (its bounds).
macro_rules! bounded {
    ($name:ident, $ty:literal, $min:expr, $max:expr) => {
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $name::parse(number(d)?).map_err(serde::de::Error::custom)
            }
        }
        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({ "type": $ty, "minimum": $min, "maximum": $max })
            }
        }
    };
}

/// How long a press is held or a drag moves: 1 to 10000 milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GestureMillis(Duration);

impl GestureMillis {
    /// Milliseconds, 1 to 10000 (rounded to whole milliseconds).
    pub fn parse(ms: f64) -> Result<Self, ValidationError> {
        millis(ms, 1, 10_000).map(GestureMillis)
    }
    /// The duration.
    pub fn get(self) -> Duration {
        self.0
    }
}
bounded!(GestureMillis, "number", 1, 10_000);

/// How long a batch's `delay` step waits: 0 to 10000 milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayMillis(Duration);

impl DelayMillis {
    /// Milliseconds, 0 to 10000 (rounded to whole milliseconds).
    pub fn parse(ms: f64) -> Result<Self, ValidationError> {
        millis(ms, 0, 10_000).map(DelayMillis)
    }
    /// The duration.
    pub fn get(self) -> Duration {
        self.0
    }
}
bounded!(DelayMillis, "number", 0, 10_000);

fn millis(ms: f64, min: u32, max: u32) -> Result<Duration, ValidationError> {
    if ms.is_finite() && (f64::from(min)..=f64::from(max)).contains(&ms) {
        Ok(Duration::from_millis(ms.round() as u64))
    } else {
        Err(ValidationError(format!(
            "duration must be {min} to {max} milliseconds, got {ms}"
        )))
    }
}

/// How many of the most recent log lines to return: 1 to 10000, 100 unless given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLimit(usize);

impl LogLimit {
    /// The most lines a read returns.
    pub const MAX: usize = 10_000;

    /// A whole number of lines, 1 to [`LogLimit::MAX`].
    pub fn parse(n: f64) -> Result<Self, ValidationError> {
        if n.fract() == 0.0 && (1.0..=Self::MAX as f64).contains(&n) {
            Ok(LogLimit(n as usize))
        } else {
            Err(ValidationError(format!(
                "limit must be a whole number of lines from 1 to {}, got {n}",
                Self::MAX
            )))
        }
    }
    /// The number of lines.
    pub fn get(self) -> usize {
        self.0
    }
}

impl Default for LogLimit {
    fn default() -> Self {
        LogLimit(100)
    }
}
bounded!(LogLimit, "integer", 1, 10_000);

/// How long a screen recording may run before it stops by itself: 1 to 180 seconds
/// (Android's `screenrecord --time-limit` maximum), 180 unless given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordingLimit(u32);

impl RecordingLimit {
    /// The longest recording, in seconds.
    pub const MAX_SECS: u32 = 180;

    /// A whole number of seconds, 1 to [`RecordingLimit::MAX_SECS`].
    pub fn parse(secs: f64) -> Result<Self, ValidationError> {
        if secs.fract() == 0.0 && (1.0..=f64::from(Self::MAX_SECS)).contains(&secs) {
            Ok(RecordingLimit(secs as u32))
        } else {
            Err(ValidationError(format!(
                "timeLimit must be a whole number of seconds from 1 to {}, got {secs}",
                Self::MAX_SECS
            )))
        }
    }
    /// Whole seconds.
    pub fn secs(self) -> u32 {
        self.0
    }
    /// The duration.
    pub fn get(self) -> Duration {
        Duration::from_secs(u64::from(self.0))
    }
}

impl Default for RecordingLimit {
    fn default() -> Self {
        RecordingLimit(Self::MAX_SECS)
    }
}
bounded!(RecordingLimit, "integer", 1, 180);

/// A latitude in degrees, -90 to 90.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latitude(f64);

impl Latitude {
    /// Degrees, -90 to 90.
    pub fn parse(deg: f64) -> Result<Self, ValidationError> {
        degrees(deg, 90.0, "latitude").map(Latitude)
    }
    /// Degrees.
    pub fn get(self) -> f64 {
        self.0
    }
}
bounded!(Latitude, "number", -90, 90);

/// A longitude in degrees, -180 to 180.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Longitude(f64);

impl Longitude {
    /// Degrees, -180 to 180.
    pub fn parse(deg: f64) -> Result<Self, ValidationError> {
        degrees(deg, 180.0, "longitude").map(Longitude)
    }
    /// Degrees.
    pub fn get(self) -> f64 {
        self.0
    }
}
bounded!(Longitude, "number", -180, 180);

fn degrees(deg: f64, bound: f64, what: &str) -> Result<f64, ValidationError> {
    if deg.is_finite() && (-bound..=bound).contains(&deg) {
        Ok(deg)
    } else {
        Err(ValidationError(format!(
            "{what} must be -{bound} to {bound} degrees, got {deg}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn de<T: for<'de> Deserialize<'de>>(v: serde_json::Value) -> Result<T, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn values_inside_the_bounds_are_taken_and_others_refused_clearly() {
        use serde_json::json;
        assert_eq!(
            de::<GestureMillis>(json!(500)).unwrap().get(),
            Duration::from_millis(500)
        );
        assert_eq!(
            de::<GestureMillis>(json!("1500")).unwrap().get(),
            Duration::from_millis(1500)
        );
        let e = de::<GestureMillis>(json!(20000)).unwrap_err();
        assert!(
            e.contains("duration must be 1 to 10000 milliseconds, got 20000"),
            "{e}"
        );
        assert!(de::<GestureMillis>(json!(0)).is_err());
        assert_eq!(de::<DelayMillis>(json!(0)).unwrap().get(), Duration::ZERO);
        assert!(de::<DelayMillis>(json!(-1)).is_err());
        assert_eq!(de::<LogLimit>(json!(5)).unwrap().get(), 5);
        assert_eq!(LogLimit::default().get(), 100);
        let e = de::<LogLimit>(json!(0)).unwrap_err();
        assert!(e.contains("from 1 to 10000, got 0"), "{e}");
        assert!(de::<LogLimit>(json!(2.5)).is_err());
        assert_eq!(de::<RecordingLimit>(json!(30)).unwrap().secs(), 30);
        assert_eq!(RecordingLimit::default().secs(), 180);
        assert!(de::<RecordingLimit>(json!(181)).is_err());
        assert_eq!(de::<Latitude>(json!(-90)).unwrap().get(), -90.0);
        let e = de::<Latitude>(json!(91)).unwrap_err();
        assert!(
            e.contains("latitude must be -90 to 90 degrees, got 91"),
            "{e}"
        );
        assert_eq!(de::<Longitude>(json!("2.35")).unwrap().get(), 2.35);
        assert!(de::<Longitude>(json!(180.5)).is_err());
        assert!(de::<Longitude>(json!("east")).is_err());
    }

    #[test]
    fn schemas_state_the_bounds() {
        let s = schemars::schema_for!(GestureMillis);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["minimum"], 1);
        assert_eq!(v["maximum"], 10_000);
        let v = serde_json::to_value(schemars::schema_for!(Latitude)).unwrap();
        assert_eq!(
            (v["minimum"].clone(), v["maximum"].clone()),
            (serde_json::json!(-90), serde_json::json!(90))
        );
        let v = serde_json::to_value(schemars::schema_for!(LogLimit)).unwrap();
        assert_eq!(v["type"], "integer");
    }
}
