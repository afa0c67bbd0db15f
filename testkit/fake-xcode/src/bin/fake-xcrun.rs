//! `fake-xcrun`: answers `xcrun simctl …` from the state file in `FAKE_IOS_STATE`,
//! logging each call to `FAKE_IOS_LOG`. The simulated Mac is the
//! `fake-xcode` library (`testkit/fake-xcode/src/lib.rs`).

fn main() {
    std::process::exit(fake_xcode::xcrun_main());
}
