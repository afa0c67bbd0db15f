//! Pure parsers from what a device or adb server prints to domain types. No I/O here:
//! each parser is tested against captures in `fixtures/android/`.

pub mod apps;
pub mod devices;
pub mod display;
pub mod logcat;
pub mod permissions;
pub mod props;
pub mod screencap;
pub mod ui;
pub mod window;

/// Lines of command output without `\r` (old devices' PTYs add it).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|l| l.trim_end_matches('\r'))
}
