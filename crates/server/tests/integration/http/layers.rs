//! The safety layers of `--listen`: bearer token, Host/Origin, body size, and the refusal
//! to bind a non-loopback address without a token.

use super::*;

#[tokio::test]
async fn bearer_token_is_required_when_set() {
    bounded(async {
        let token = "s3cret-token-for-tests";
        let server = Server::start(&[], &[("MOBILE_MCP_AUTH", token)]);
        let url = server.mcp();

        for (name, auth) in [
            ("missing", None),
            ("wrong", Some("Bearer s3cret-token-for-test")),
            ("longer", Some("Bearer s3cret-token-for-tests-and-more")),
            ("scheme", Some("Basic s3cret-token-for-tests")),
        ] {
            let mut req = post(&url, &initialize(1));
            if let Some(a) = auth {
                req = req.header("authorization", a);
            }
            let r = send(req).await;
            assert_eq!(r.status, 401, "{name}: {r:?}");
            assert!(
                r.header("www-authenticate")
                    .unwrap_or("")
                    .starts_with("Bearer"),
                "{name}: {r:?}"
            );
            let body = &r.messages[0];
            assert_eq!(body["jsonrpc"], "2.0");
            assert_eq!(body["id"], Value::Null);
            assert_eq!(body["error"]["code"], -32001);
            assert!(!r.body.contains(token));
        }
        // GET and DELETE are guarded too.
        let get = send(http().get(&url).header("accept", "text/event-stream")).await;
        assert_eq!(get.status, 401);

        let (session, init) = Session::open(&url, Some(token)).await;
        assert_eq!(init.status, 200);
        let list = session
            .send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
            .await;
        assert_eq!(list.status, 200);

        // rmcp's own client with the token.
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
        config.auth_header = Some(token.to_string());
        let client =
            ().serve(StreamableHttpClientTransport::with_client(http(), config))
                .await
                .expect("initialize with the token");
        assert!(
            !client
                .list_all_tools()
                .await
                .expect("tools/list")
                .is_empty()
        );
        client.cancel().await.expect("close");
    })
    .await;
}

#[tokio::test]
async fn token_file_is_accepted() {
    bounded(async {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "file-token\n").unwrap();
        let server = Server::start(&["--auth-token-file", path.to_str().unwrap()], &[]);
        let r = send(post(&server.mcp(), &initialize(1))).await;
        assert_eq!(r.status, 401);
        let r = send(post(&server.mcp(), &initialize(1)).bearer_auth("file-token")).await;
        assert_eq!(r.status, 200, "{r:?}");
    })
    .await;
}

#[tokio::test]
async fn host_and_origin_are_checked() {
    bounded(async {
        let server = Server::start(
            &[
                "--allowed-host",
                "phones.lab.example",
                "--allowed-origin",
                "https://app.example",
            ],
            &[],
        );
        let url = server.mcp();
        let port = server.port();
        let with = |k: &'static str, v: String| post(&url, &initialize(1)).header(k, v);

        for bad in [
            "evil.example".to_string(),
            format!("evil.example:{port}"),
            format!("127.0.0.1.evil.example:{port}"),
        ] {
            let r = send(with("host", bad.clone())).await;
            assert_eq!(r.status, 403, "Host {bad}: {r:?}");
            assert!(r.body.contains("--allowed-host"), "{r:?}");
        }
        for good in [
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
            "phones.lab.example".to_string(),
        ] {
            let r = send(with("host", good.clone())).await;
            assert_eq!(r.status, 200, "Host {good}: {r:?}");
        }

        for bad in ["http://evil.example", "https://app.example:8443", "null"] {
            let r = send(with("origin", bad.to_string())).await;
            assert_eq!(r.status, 403, "Origin {bad}: {r:?}");
            assert!(r.body.contains("--allowed-origin"), "{r:?}");
        }
        for good in [
            "https://app.example".to_string(),
            format!("http://localhost:{port}"),
            "http://127.0.0.1:6274".to_string(),
        ] {
            let r = send(with("origin", good.clone())).await;
            assert_eq!(r.status, 200, "Origin {good}: {r:?}");
        }
        // A rebinding attempt is refused even with both headers foreign, before auth or parsing.
        let r = send(
            http()
                .post(&url)
                .header("host", "evil.example")
                .header("origin", "http://evil.example")
                .body("not json"),
        )
        .await;
        assert_eq!(r.status, 403);
    })
    .await;
}

#[tokio::test]
async fn non_loopback_bind_without_token_is_refused() {
    bounded(async {
        let Err((code, log)) = Server::try_start(&["--listen", "0.0.0.0:0"], &[]) else {
            panic!("a non-loopback bind without a token must be refused");
        };
        assert!(code.is_some_and(|c| c != 0), "exit {code:?}: {log}");
        assert!(log.contains("MOBILE_MCP_AUTH"), "{log}");
        assert!(log.contains("refusing to listen on 0.0.0.0:0"), "{log}");

        // With a token it serves (reached here through loopback).
        let server = Server::start(&["--listen", "0.0.0.0:0"], &[("MOBILE_MCP_AUTH", "t0k")]);
        let url = format!("http://127.0.0.1:{}/mcp", server.port());
        let r = send(post(&url, &initialize(1)).bearer_auth("t0k")).await;
        assert_eq!(r.status, 200, "{r:?}");
        // Loopback origins are not implied on a public bind.
        let r = send(
            post(&url, &initialize(1))
                .bearer_auth("t0k")
                .header("origin", "http://localhost:3000"),
        )
        .await;
        assert_eq!(r.status, 403, "{r:?}");
    })
    .await;
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    bounded(async {
        for filter in ["0", "1"] {
            let server = Server::start(&["--max-body-bytes", "2000"], &[(FILTER_VAR, filter)]);
            let big = call(
                1,
                "mobile_type_keys",
                json!({"device":"x","text":"a".repeat(3000)}),
            );
            let r = send(post(&server.mcp(), &big)).await;
            assert_eq!(r.status, 413, "filter={filter}: {r:?}");
            // Chunked, without a Content-Length.
            let chunks = vec![Ok::<_, std::io::Error>(big.to_string().into_bytes())];
            let r = send(
                http()
                    .post(server.mcp())
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
                        chunks,
                    ))),
            )
            .await;
            assert_eq!(r.status, 413, "filter={filter} chunked: {r:?}");
            // Just under the limit is served.
            let r = send(post(&server.mcp(), &initialize(1))).await;
            assert_eq!(r.status, 200);
        }
    })
    .await;
}
