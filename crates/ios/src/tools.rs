//! The two command-line tools this backend drives, with their paths and, for the listing,
//! a bound on each run.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use mobile_device::DeviceError;

use crate::errors;
use crate::process::{self, Output};

/// `xcrun` and `idb`, as configured.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    pub xcrun: Option<PathBuf>,
    pub idb: Option<PathBuf>,
    /// How long one run may take, for the listing, which is no single device call. A
    /// device's calls have none: the caller's deadline drops them, which kills the child.
    pub timeout: Option<Duration>,
    pub env: Vec<(OsString, OsString)>,
}

impl Tools {
    pub(crate) fn xcrun(&self) -> Result<&PathBuf, DeviceError> {
        self.xcrun.as_ref().ok_or_else(|| {
            DeviceError::backend_with_hint(
                "xcrun was not found",
                "iOS simulators need macOS with Xcode installed (or set MOBILE_MCP_XCRUN)",
            )
        })
    }

    /// Runs `xcrun simctl <args>`; a non-zero exit is returned, not raised.
    pub(crate) async fn simctl(
        &self,
        args: Vec<OsString>,
        what: &str,
    ) -> Result<Output, DeviceError> {
        self.simctl_with_input(args, None, what).await
    }

    pub(crate) async fn simctl_with_input(
        &self,
        args: Vec<OsString>,
        stdin: Option<&[u8]>,
        what: &str,
    ) -> Result<Output, DeviceError> {
        let xcrun = self.xcrun()?;
        let mut argv: Vec<OsString> = Vec::with_capacity(args.len() + 1);
        argv.push("simctl".into());
        argv.extend(args);
        process::run(xcrun, &argv, stdin, &self.env, self.timeout, what).await
    }

    /// Runs `idb <args>`; a missing idb is an Unsupported error with install steps.
    pub(crate) async fn idb(&self, args: Vec<OsString>, what: &str) -> Result<Output, DeviceError> {
        let idb = self.idb.as_ref().ok_or_else(|| errors::idb_missing(what))?;
        process::run(idb, &args, None, &self.env, self.timeout, what).await
    }
}

/// Builds an argv from string-likes.
macro_rules! argv {
    ($($a:expr),* $(,)?) => {
        vec![$(::std::ffi::OsString::from($a)),*]
    };
}
pub(crate) use argv;
