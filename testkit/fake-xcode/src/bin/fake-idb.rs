//! `fake-idb`: answers `idb ui …`, `idb list-targets`, … from the state file in
//! `FAKE_IOS_STATE`, logging each call to `FAKE_IOS_LOG`. See `fake_xcode`.

fn main() {
    std::process::exit(fake_xcode::idb_main());
}
