//! The simulated iPhone behind `fake-xcrun` and `fake-idb`. (Filled in by the iOS issue.)
