//! `fake-xcrun`: answers `xcrun simctl …` from the state file in `FAKE_IOS_STATE`,
//! logging each call to `FAKE_IOS_LOG`. See `virtual_device::ios`.

fn main() {
    std::process::exit(virtual_device::ios::xcrun_main());
}
