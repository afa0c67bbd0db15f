//! The location service's test providers and the app ops that gate them: what
//! `cmd location providers …` and `appops set …` change (`commands/location.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The mock-location side of `LocationManagerService` and `AppOpsService`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LocationState {
    /// App-op modes set with `appops set PKG OP MODE` (package → op → mode), e.g.
    /// `com.android.shell` → `MOCK_LOCATION` → `allow`. An op not listed has its default
    /// mode; `MOCK_LOCATION`'s default is `errored` (`AppOpsManager.sOpDefaultMode`).
    pub app_ops: BTreeMap<String, BTreeMap<String, String>>,
    /// Test providers added with `add-test-provider`, by provider name.
    pub test_providers: BTreeMap<String, TestProvider>,
}

/// A test (mock) provider that replaced a real one, or a new one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TestProvider {
    /// Set by `set-test-provider-enabled NAME true|false`.
    pub enabled: bool,
    /// The last `set-test-provider-location NAME --location LAT,LNG`: (latitude, longitude).
    pub location: Option<(f64, f64)>,
}

impl LocationState {
    /// Whether `package` may use `MOCK_LOCATION` (`appops set … android:mock_location allow`).
    pub fn mock_allowed(&self, package: &str) -> bool {
        self.app_ops
            .get(package)
            .and_then(|ops| ops.get("MOCK_LOCATION"))
            .is_some_and(|m| m == "allow")
    }
}
