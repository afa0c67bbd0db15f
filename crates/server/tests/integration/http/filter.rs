//! The payload filter over HTTP, on the session path and the stateless 2026-07-28 path.

use super::*;

/// Every string and key of `value` is free of filtered terms.
fn assert_term_free(value: &Value, context: &str) {
    let f = Filter::global();
    match value {
        Value::String(s) => assert!(!f.contains_term(s), "{context}: term in {s:?}"),
        Value::Array(items) => items.iter().for_each(|v| assert_term_free(v, context)),
        Value::Object(map) => {
            for (k, v) in map {
                assert!(!f.contains_term(k), "{context}: term in key {k:?}");
                assert_term_free(v, context);
            }
        }
        _ => {}
    }
}

fn assert_reply_term_free(reply: &Reply, context: &str) {
    assert!(
        !reply.messages.is_empty(),
        "{context}: no messages in {reply:?}"
    );
    for m in &reply.messages {
        assert_term_free(m, context);
    }
    assert!(
        !Filter::global().contains_term(&reply.body),
        "{context}: term in raw body {}",
        reply.body
    );
}

/// The checks shared by the session path and the stateless path; `exchange` sends one
/// message the way the path does.
async fn check_filtered_exchange<F, Fut>(exchange: F, path: &str)
where
    F: Fn(Value) -> Fut,
    Fut: std::future::Future<Output = Reply>,
{
    let list = exchange(json!({"jsonrpc":"2.0","id":10,"method":"tools/list"})).await;
    assert_eq!(list.status, 200, "{path}: {list:?}");
    assert_reply_term_free(&list, &format!("{path} tools/list"));
    assert!(tool_names(&list).len() >= 20);

    let ok = exchange(call(11, "mobile_list_available_devices", json!({}))).await;
    assert_ne!(ok.response()["result"]["isError"], true, "{path}: {ok:?}");
    assert_reply_term_free(&ok, &format!("{path} successful call"));

    // An error result that echoes a raw term the client sent: encoded on the way out.
    let raw = exchange(call(12, "mobile_list_apps", json!({"device":"qwen-phone"}))).await;
    let raw_result = &raw.response()["result"];
    assert_eq!(raw_result["isError"], true, "{path}: {raw:?}");
    assert_reply_term_free(&raw, &format!("{path} error call"));
    let raw_text = text_of(raw_result);
    assert!(
        raw_text.contains(&format!("{QWEN_TOKEN}-phone")),
        "{path}: {raw_text}"
    );

    // A token argument arrives decoded (the tool saw `qwen-phone`, so it answers as it
    // did above; a literal token reaching the tool would come back escaped instead).
    let tok = exchange(call(
        13,
        "mobile_list_apps",
        json!({"device": format!("{QWEN_TOKEN}-phone")}),
    ))
    .await;
    let tok_result = &tok.response()["result"];
    assert_eq!(tok_result["isError"], true, "{path}: {tok:?}");
    assert_reply_term_free(&tok, &format!("{path} token call"));
    let tok_text = text_of(tok_result);
    assert_eq!(tok_text, raw_text, "{path}");
    assert!(tok.body.contains(&format!("{QWEN_TOKEN}-phone")), "{path}");
    assert!(
        Filter::global()
            .decode_str(&tok_text)
            .contains("qwen-phone"),
        "{path}: {tok_text}"
    );

    // Keys that collide once decoded: -32602, and the tool never runs.
    let clash = exchange(call(
        14,
        "mobile_list_apps",
        json!({"device":"a", DEVICE_KEY_TOKEN: "b"}),
    ))
    .await;
    assert_eq!(clash.status, 200, "{path}: {clash:?}");
    let err = &clash.response();
    assert_eq!(err["id"], 14, "{path}: {clash:?}");
    assert_eq!(err["error"]["code"], -32602, "{path}: {clash:?}");
    assert_reply_term_free(&clash, &format!("{path} collision"));
}

#[tokio::test]
async fn filter_covers_the_session_path() {
    bounded(async {
        let server = Server::start(&[], &[(FILTER_VAR, "1")]);
        let (session, init) = Session::open(&server.mcp(), None).await;
        assert_reply_term_free(&init, "initialize");
        let session = Arc::new(session);
        check_filtered_exchange(
            |m| {
                let s = session.clone();
                async move { s.send(&m).await }
            },
            "session",
        )
        .await;

        // The standalone GET stream passes the filter layer too: its priming event
        // (not JSON) comes through unchanged.
        let mut get = http()
            .get(server.mcp())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session.id)
            .send()
            .await
            .expect("GET");
        assert_eq!(get.status(), 200);
        let first = tokio::time::timeout(Duration::from_secs(10), get.chunk())
            .await
            .expect("first SSE bytes in time")
            .expect("chunk")
            .expect("some bytes");
        let first = String::from_utf8_lossy(&first);
        assert!(first.contains("retry:"), "{first}");
    })
    .await;
}

#[tokio::test]
async fn filter_covers_the_stateless_path() {
    bounded(async {
        let server = Server::start(&[], &[(FILTER_VAR, "1")]);
        let url = server.mcp();
        check_filtered_exchange(
            |m| {
                let url = url.clone();
                async move { stateless(&url, m).await }
            },
            "stateless",
        )
        .await;
    })
    .await;
}

#[tokio::test]
async fn filter_covers_rmcp_client_sessions() {
    bounded(async {
        let server = Server::start(&[], &[(FILTER_VAR, "1")]);
        let transport = StreamableHttpClientTransport::with_client(
            http(),
            StreamableHttpClientTransportConfig::with_uri(server.mcp()),
        );
        let client = ().serve(transport).await.expect("initialize");
        let tools = client.list_all_tools().await.expect("tools/list");
        assert_term_free(&serde_json::to_value(&tools).unwrap(), "rmcp tools/list");
        let mut args = serde_json::Map::new();
        args.insert("device".into(), json!(format!("{QWEN_TOKEN}-x")));
        let r = client
            .call_tool(
                rmcp::model::CallToolRequestParams::new("mobile_list_apps").with_arguments(args),
            )
            .await
            .expect("tools/call");
        assert_eq!(r.is_error, Some(true));
        assert_term_free(&serde_json::to_value(&r).unwrap(), "rmcp call");
        client.cancel().await.expect("close");
    })
    .await;
}

#[tokio::test]
async fn filter_encodes_demo_phone_results_on_both_paths() {
    bounded(async {
        // The demo phone has an app whose name and package hold filtered terms. A session
        // and a stateless request (a session of its own) use it: shared on purpose.
        let server = Server::start(&["--demo", "--share-devices"], &[(FILTER_VAR, "1")]);
        let (session, _) = Session::open(&server.mcp(), None).await;
        let devices = session
            .send(&call(2, "mobile_list_available_devices", json!({})))
            .await;
        let device = devices.response()["result"]["structuredContent"]["devices"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("the demo phone is listed: {devices:?}"))
            .to_string();

        let apps = session
            .send(&call(3, "mobile_list_apps", json!({"device": device})))
            .await;
        let stateless_apps = stateless(
            &server.mcp(),
            call(4, "mobile_list_apps", json!({"device": device})),
        )
        .await;
        for (path, reply) in [("session", &apps), ("stateless", &stateless_apps)] {
            let result = &reply.response()["result"];
            assert_ne!(result["isError"], true, "{path}: {reply:?}");
            assert_reply_term_free(reply, &format!("{path} demo apps"));
            let decoded = Filter::global().decode_str(&text_of(result)).into_owned();
            assert!(decoded.contains("com.alibaba.qwen"), "{path}: {decoded}");
            let mut structured = result["structuredContent"].clone();
            Filter::global()
                .decode_value(&mut structured)
                .expect("decodes");
            assert!(
                structured.to_string().contains("com.alibaba.qwen"),
                "{path}"
            );
        }

        // A screenshot (a large SSE event over many chunks): the image is left as it is.
        let shot = session
            .send(&call(
                5,
                "mobile_take_screenshot",
                json!({"device": device}),
            ))
            .await;
        assert_reply_term_free(&shot, "screenshot");
        let result = &shot.response()["result"];
        let image = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == "image")
            .unwrap_or_else(|| panic!("an image in {result}"));
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(image["data"].as_str().unwrap())
            .expect("base64");
        let decoded = image::load_from_memory(&bytes).expect("an image");
        let caption = text_of(result);
        assert!(
            caption.contains(&format!(
                "Screenshot is {}x{}",
                decoded.width(),
                decoded.height()
            )),
            "{caption}"
        );
    })
    .await;
}

/// The same exchange, as text: every body, with the headers that are not per-run.
async fn unfiltered_transcript(server: &Server) -> String {
    let mut out = String::new();
    let mut note = |label: &str, r: &Reply| {
        let mut headers: Vec<String> = r
            .headers
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "date" | "mcp-session-id"))
            .map(|(k, v)| format!("{k}: {}", v.to_str().unwrap_or("?")))
            .collect();
        headers.sort();
        out.push_str(&format!(
            "== {label} {}\n{}\n{}\n",
            r.status,
            headers.join("\n"),
            r.body
        ));
    };
    let (session, init) = Session::open(&server.mcp(), None).await;
    note("initialize", &init);
    for (label, m) in [
        (
            "tools/list",
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
        ),
        (
            "devices",
            call(3, "mobile_list_available_devices", json!({})),
        ),
        (
            "apps",
            call(4, "mobile_list_apps", json!({"device":"qwen-phone"})),
        ),
        (
            "token",
            call(
                5,
                "mobile_list_apps",
                json!({"device": format!("{QWEN_TOKEN}-phone")}),
            ),
        ),
        (
            "clash",
            call(
                6,
                "mobile_list_apps",
                json!({"device":"a", DEVICE_KEY_TOKEN: "b"}),
            ),
        ),
    ] {
        note(label, &session.send(&m).await);
        note(
            &format!("stateless {label}"),
            &stateless(&server.mcp(), m).await,
        );
    }
    out
}

#[tokio::test]
async fn filter_off_is_byte_identical_unset_or_zero() {
    bounded(async {
        let unset = Server::start(&[], &[]);
        let zero = Server::start(&[], &[(FILTER_VAR, "0")]);
        let a = unfiltered_transcript(&unset).await;
        let b = unfiltered_transcript(&zero).await;
        assert_eq!(a, b);
        // Unfiltered means unfiltered: the raw term comes back as sent.
        assert!(a.contains("qwen-phone"), "{a}");
        drop((unset, zero));
    })
    .await;
}

#[tokio::test]
async fn filter_covers_plain_text_errors() {
    bounded(async {
        let server = Server::start(&[], &[(FILTER_VAR, "1")]);
        let (session, _) = Session::open(&server.mcp(), None).await;
        // rmcp refuses an unknown protocol version with a plain-text body that repeats
        // the header's value.
        let r = send(
            post(
                &server.mcp(),
                &json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            )
            .header("mcp-session-id", &session.id)
            .header("mcp-protocol-version", "qwen-alibaba-1"),
        )
        .await;
        assert_eq!(r.status, 400, "{r:?}");
        assert!(r.messages.is_empty(), "a plain-text body: {r:?}");
        let lower = r.body.to_lowercase();
        assert!(
            !lower.contains("qwen") && !lower.contains("alibaba"),
            "a term passed the filter: {}",
            r.body
        );
        assert!(r.body.contains(QWEN_TOKEN), "{}", r.body);
        assert!(r.body.contains("MCP-Protocol-Version"), "{}", r.body);
    })
    .await;
}
