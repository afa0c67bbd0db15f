//! One way to put the server in front of a virtual phone: the phone, a private real adb
//! server that has connected it, and the built server pointed at that adb server.

use serde_json::json;
use std::time::Duration;
use test_support::McpChild;
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::state::PhoneState;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

/// What a test starts with: `state` (the default phone when `None`), extra server `args`
/// and extra environment.
#[derive(Default)]
pub(crate) struct Setup<'a> {
    pub state: Option<PhoneState>,
    pub args: &'a [&'a str],
    pub env: &'a [(&'a str, &'a str)],
}

/// The started pieces; dropping them stops the server, the adb server and the phone.
pub(crate) struct Started {
    pub mcp: McpChild,
    pub phone: PhoneHandle,
    pub adb: PrivateAdbServer,
}

/// Starts the phone, the adb server and the built server.
pub(crate) async fn start(setup: Setup<'_>) -> Started {
    let phone = VirtualPhone::start(PhoneConfig {
        state: setup.state,
        ..PhoneConfig::default()
    })
    .expect("start the virtual phone");
    let adb = PrivateAdbServer::start().expect("start a private adb server");
    adb.connect(&phone).expect("adb connect");
    let server = format!("127.0.0.1:{}", adb.port());
    let mut args = vec!["--adb-server", server.as_str()];
    args.extend_from_slice(setup.args);
    let mut env = adb.env();
    env.extend(
        setup
            .env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    let mcp = McpChild::spawn(crate::SERVER, &args, &env).await;
    Started { mcp, phone, adb }
}

/// Waits (bounded) until the server lists `serial` online: the adb server lists a newly
/// connected device once it has come online.
pub(crate) async fn wait_online(mcp: &McpChild, serial: &str) {
    for _ in 0..100 {
        let r = mcp.call("mobile_list_available_devices", json!({})).await;
        let online = r.structured_content.as_ref().is_some_and(|v| {
            v["devices"].as_array().is_some_and(|d| {
                d.iter()
                    .any(|d| d["id"] == serial && d["state"] == "online")
            })
        });
        if online {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
