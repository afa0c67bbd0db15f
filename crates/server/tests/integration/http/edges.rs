//! Edges of the HTTP protocol: a Host with userinfo, a second DELETE of a session, bodies
//! that are not JSON-RPC, and the session cap.

use super::*;

#[tokio::test]
async fn host_with_userinfo_is_refused() {
    bounded(async {
        let server = Server::start(&[], &[]);
        let port = server.port();
        for bad in [
            "evil.example@localhost".to_string(),
            format!("evil.example@localhost:{port}"),
            format!("evil.example@127.0.0.1:{port}"),
        ] {
            let r = send(post(&server.mcp(), &initialize(1)).header("host", bad.clone())).await;
            assert_eq!(r.status, 403, "Host {bad}: {r:?}");
            assert!(r.header("mcp-session-id").is_none(), "{r:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn second_delete_of_a_session_is_404() {
    bounded(async {
        let server = Server::start(&[], &[]);
        let (session, _) = Session::open(&server.mcp(), None).await;
        let delete = || {
            http()
                .delete(server.mcp())
                .header("mcp-session-id", &session.id)
                .header("mcp-protocol-version", "2025-06-18")
                .send()
        };
        let first = delete().await.expect("DELETE");
        assert!(first.status().is_success(), "{}", first.status());
        let second = delete().await.expect("DELETE");
        assert_eq!(second.status(), 404);
        let never = http()
            .delete(server.mcp())
            .header("mcp-session-id", "no-such-session")
            .header("mcp-protocol-version", "2025-06-18")
            .send()
            .await
            .expect("DELETE");
        assert_eq!(never.status(), 404);
    })
    .await;
}

/// POSTs raw bytes as `application/json`.
async fn post_raw(url: &str, body: &'static [u8]) -> Reply {
    send(
        http()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body),
    )
    .await
}

#[tokio::test]
async fn bodies_that_are_not_json_rpc_get_json_rpc_errors() {
    bounded(async {
        for filter in ["0", "1"] {
            let server = Server::start(&[], &[(FILTER_VAR, filter)]);
            let url = server.mcp();
            for (body, id, code) in [
                (&b"not json at all"[..], Value::Null, -32700),
                (&b"{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"initialize\",\"params\":{\"a\":NaN}}"[..], json!(41), -32700),
                (&b"{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"ping\",\"x\":\"\xff\"}"[..], json!("s"), -32700),
                (&br#"{"jsonrpc":"1.0","id":42,"method":"initialize"}"#[..], json!(42), -32600),
                (&br#"7"#[..], Value::Null, -32600),
            ] {
                let r = post_raw(&url, body).await;
                let shown = String::from_utf8_lossy(body);
                assert_eq!(r.status, 400, "filter={filter} {shown}: {r:?}");
                assert!(r.header("content-type").unwrap_or("").starts_with("application/json"), "{r:?}");
                let m = &r.messages[0];
                assert_eq!(m["jsonrpc"], "2.0", "{shown}: {r:?}");
                assert_eq!(m["id"], id, "{shown}: {r:?}");
                assert_eq!(m["error"]["code"], code, "{shown}: {r:?}");
            }
            // Still serving.
            let (_, init) = Session::open(&url, None).await;
            assert_eq!(init.response()["result"]["serverInfo"]["name"], "mobile-mcp");
        }
    })
    .await;
}

#[tokio::test]
async fn sessions_are_capped() {
    bounded(async {
        let server = Server::start(&["--max-sessions", "2"], &[]);
        let url = server.mcp();
        let (a, _) = Session::open(&url, None).await;
        let (_b, _) = Session::open(&url, None).await;
        let r = send(post(&url, &initialize(9))).await;
        assert_eq!(r.status, 503, "{r:?}");
        assert_eq!(r.messages[0]["id"], 9, "{r:?}");
        assert!(r.body.contains("--max-sessions"), "{r:?}");
        // Open sessions keep working, and closing one makes room.
        let list = a
            .send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
            .await;
        assert_eq!(list.status, 200);
        let del = http()
            .delete(&url)
            .header("mcp-session-id", &a.id)
            .send()
            .await
            .unwrap();
        assert!(del.status().is_success());
        let (_c, init) = Session::open(&url, None).await;
        assert_eq!(init.status, 200);
    })
    .await;
}
