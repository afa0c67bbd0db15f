//! Shared setup for the adb end-to-end tests: a phone, a private adb server, and bounded adb calls.
#![allow(dead_code)]

use std::process::Output;
use std::time::Duration;

use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

pub(crate) struct Rig {
    pub(crate) phone: PhoneHandle,
    pub(crate) adb: PrivateAdbServer,
}

impl Rig {
    /// A phone and a private adb server connected to it.
    pub(crate) fn new() -> Rig {
        let phone = VirtualPhone::start(PhoneConfig::default()).expect("start phone");
        let adb = PrivateAdbServer::start().expect("start private adb server");
        adb.connect(&phone).expect("adb connect");
        Rig { phone, adb }
    }

    /// `adb -P PORT -s SERIAL ARGS…` (20 s timeout), asserting exit status 0.
    pub(crate) fn adb_ok(&self, args: &[&str]) -> Output {
        let out = self.adb_raw(args);
        assert!(
            out.status.success(),
            "adb {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `adb -P PORT -s SERIAL ARGS…` whatever its status.
    pub(crate) fn adb_raw(&self, args: &[&str]) -> Output {
        let serial = self.phone.serial();
        let mut full = vec!["-s", serial.as_str()];
        full.extend_from_slice(args);
        self.adb
            .adb_timeout(&full, Duration::from_secs(20))
            .expect("adb ran within its timeout")
    }

    /// `adb shell ARGS…` stdout as text.
    pub(crate) fn shell(&self, args: &[&str]) -> String {
        let mut full = vec!["shell"];
        full.extend_from_slice(args);
        String::from_utf8_lossy(&self.adb_ok(&full).stdout).into_owned()
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        let _ = self.adb.disconnect(&self.phone);
    }
}

pub(crate) fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
