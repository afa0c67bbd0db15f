//! A farm device allocated by an HTTP session is that session's: another session is
//! refused it (the lease), and it goes back to the farm when the session ends without
//! releasing it.

use serde_json::{Value, json};

use super::{Server, Session, bounded, call, http, text_of};
use crate::farm::{FarmRig, SERIAL};

fn result(reply: &super::Reply) -> Value {
    reply.response()["result"].clone()
}

#[tokio::test]
async fn a_session_that_ends_gives_its_farm_device_back() {
    bounded(async {
        let rig = FarmRig::start();
        let args = rig.args(900);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env: Vec<(String, String)> = rig.adb.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let server = Server::start(&args, &env);
        let (a, _) = Session::open(&server.mcp(), None).await;
        let (b, _) = Session::open(&server.mcp(), None).await;
        let got = result(
            &a.send(&call(
                2,
                "mobile_allocate_remote_device",
                json!({"platform": "android"}),
            ))
            .await,
        );
        assert_ne!(got["isError"], true, "{got}");
        let device = got["structuredContent"]["device"]
            .as_str()
            .unwrap()
            .to_string();
        // The other session may see it but not use it.
        let refused = result(
            &b.send(&call(
                2,
                "mobile_get_screen_size",
                json!({"device": device}),
            ))
            .await,
        );
        assert_eq!(refused["isError"], true, "{refused}");
        assert!(
            text_of(&refused).contains("in use by another session"),
            "{refused}"
        );
        let not_theirs = result(
            &b.send(&call(
                3,
                "mobile_release_remote_device",
                json!({"device": device}),
            ))
            .await,
        );
        assert!(
            text_of(&not_theirs).contains("allocated by another session"),
            "{not_theirs}"
        );
        assert!(rig.stf.owner(SERIAL).is_some());

        // A ends its session without releasing: the device goes back to the farm.
        let del = http()
            .delete(server.mcp())
            .header("mcp-session-id", &a.id)
            .send()
            .await
            .expect("DELETE");
        assert!(del.status().is_success());
        rig.wait_free().await;
        assert_eq!(rig.releases().len(), 2, "{:?}", rig.stf.events());
        assert_eq!(rig.stf.remote_url(SERIAL), None);
    })
    .await;
}
