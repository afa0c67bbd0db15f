//! End to end on Android device profiles (`virtual_phone::profile`): the built binary, the
//! real adb server and a virtual phone that behaves like a given release or device (an app
//! with two launcher activities, a landscape tablet, Android 10's `input`, the keyguard…).
//! Each test checks what the phone received and its state afterwards.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{McpChild, text_of};
use virtual_phone::PhoneHandle;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::profile::{self, Profile};
use virtual_phone::state::{InputEvent, PhoneState};

mod apps;
mod device;
mod screen;
mod unicode;

const DEADLINE: Duration = Duration::from_secs(240);

pub(crate) struct Rig {
    pub mcp: McpChild,
    pub phone: PhoneHandle,
    pub dev: Value,
    _adb: PrivateAdbServer,
}

pub(crate) async fn rig(profile: Profile) -> Rig {
    rig_with(profile::state_for(profile)).await
}

pub(crate) async fn rig_with(state: PhoneState) -> Rig {
    let s = crate::phone_rig::start(crate::phone_rig::Setup {
        state: Some(state),
        ..Default::default()
    })
    .await;
    let dev = json!(s.phone.serial());
    Rig {
        mcp: s.mcp,
        phone: s.phone,
        dev,
        _adb: s.adb,
    }
}

/// Runs a test body under the module's deadline.
pub(crate) async fn bounded<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(DEADLINE, f)
        .await
        .expect("test deadline");
}

pub(crate) fn swipes(phone: &PhoneHandle) -> Vec<(f64, f64, f64, f64)> {
    phone
        .state()
        .input_events
        .into_iter()
        .filter_map(|e| match e {
            InputEvent::Swipe { x1, y1, x2, y2, .. } => Some((x1, y1, x2, y2)),
            _ => None,
        })
        .collect()
}

/// The argv of every shell command the phone ran.
pub(crate) fn argvs(phone: &PhoneHandle) -> Vec<Vec<String>> {
    phone
        .shell_commands()
        .into_iter()
        .flat_map(|c| c.argv)
        .collect()
}

pub(crate) fn err_text(r: &rmcp::model::CallToolResult) -> String {
    assert_eq!(r.is_error, Some(true), "expected an error: {}", text_of(r));
    text_of(r)
}
