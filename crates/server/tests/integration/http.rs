//! The built binary serving Streamable HTTP (`--listen`): rmcp's client and raw requests,
//! the safety layers (bearer token, Host/Origin, body size, non-loopback refusal), the
//! stateless 2026-07-28 path, idle sessions, and the payload filter over HTTP on the
//! session path and the stateless path.
//!
//! Every server is a child process on a port the OS picks (`--listen 127.0.0.1:0`; the
//! address is read from its log line) and is killed when its guard drops. Device
//! discovery is pointed at nothing (a closed adb port, no adb binary on `PATH`, a
//! missing xcrun), so no test starts or reaches a real device tool.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use mcp_payload_filter::Filter;
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const FILTER_VAR: &str = "MCP_MODEL_PAYLOAD_FILTER";
const LATEST: &str = "2026-07-28";
/// `qwen` as a token, and `device` as a token (for a key collision).
const QWEN_TOKEN: &str = "__mcp_ref_7177656e__";
const DEVICE_KEY_TOKEN: &str = "__mcp_ref_646576696365__";

/// A `mobile-mcp --listen` child, killed on drop.
struct Server {
    child: Child,
    /// HOME of the child (the demo phone's adb key lands there).
    _home: tempfile::TempDir,
    /// `http://127.0.0.1:PORT`
    base: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    fn start(args: &[&str], envs: &[(&str, &str)]) -> Server {
        Self::try_start(args, envs)
            .unwrap_or_else(|(code, log)| panic!("server did not start (exit {code:?}):\n{log}"))
    }

    /// Spawns the server; `Err((exit code, stderr))` if it exits before listening.
    fn try_start(args: &[&str], envs: &[(&str, &str)]) -> Result<Server, (Option<i32>, String)> {
        let bin = std::path::PathBuf::from(crate::SERVER);
        let home = tempfile::tempdir().expect("temp HOME");
        let mut cmd = Command::new(bin);
        cmd.env("HOME", home.path());
        if !args.contains(&"--listen") {
            cmd.args(["--listen", "127.0.0.1:0"]);
        }
        cmd.args(args)
            .args(["--adb-server", "127.0.0.1:1"])
            .env("RUST_LOG", "warn,mobile_mcp=info")
            .env("PATH", "/nonexistent")
            .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
            .env("MOBILE_MCP_IDB", "/nonexistent/idb")
            .env_remove("ANDROID_HOME")
            .env_remove("MOBILE_MCP_AUTH")
            .env_remove(FILTER_VAR)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn mobile-mcp");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let log2 = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let addr = rest.split("/mcp").next().unwrap_or("").to_string();
                    let _ = tx.send(addr);
                }
                let mut l = log2.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(addr) => {
                    return Ok(Server {
                        child,
                        _home: home,
                        base: format!("http://{addr}"),
                        stderr: log,
                    });
                }
                Err(_) => {
                    if let Ok(Some(status)) = child.try_wait() {
                        // Let the reader thread drain what is left.
                        std::thread::sleep(Duration::from_millis(200));
                        return Err((status.code(), log.lock().unwrap().clone()));
                    }
                    if std::time::Instant::now() > deadline {
                        let _ = child.kill();
                        return Err((None, log.lock().unwrap().clone()));
                    }
                }
            }
        }
    }

    fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    fn port(&self) -> u16 {
        self.base.rsplit(':').next().unwrap().parse().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("reqwest client")
}

/// One HTTP exchange: status, headers, body text, and the JSON-RPC messages in the body
/// (a JSON body, or the JSON `data` of each SSE event).
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
    messages: Vec<Value>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The single JSON-RPC message carrying a result or an error.
    fn response(&self) -> &Value {
        self.messages
            .iter()
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .unwrap_or_else(|| panic!("no response message in {self:?}"))
    }
}

fn sse_messages(body: &str) -> Vec<Value> {
    body.replace("\r\n", "\n")
        .split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            serde_json::from_str(&data.join("\n")).ok()
        })
        .collect()
}

async fn send(req: reqwest::RequestBuilder) -> Reply {
    let resp = req.send().await.expect("HTTP request");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.text().await.expect("body");
    let ct = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let messages = if ct.starts_with("text/event-stream") {
        sse_messages(&body)
    } else {
        serde_json::from_str::<Value>(&body)
            .ok()
            .into_iter()
            .collect()
    };
    Reply {
        status,
        headers,
        body,
        messages,
    }
}

/// A POST of one JSON-RPC message with the headers Streamable HTTP asks for.
fn post(url: &str, message: &Value) -> reqwest::RequestBuilder {
    http()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string())
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"http-test","version":"1"}}})
}

fn call(id: u64, tool: &str, args: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":args}})
}

/// A raw session: initialize, then requests carrying its session id.
struct Session {
    url: String,
    id: String,
    token: Option<String>,
}

impl Session {
    async fn open(url: &str, token: Option<&str>) -> (Session, Reply) {
        let mut req = post(url, &initialize(1));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let reply = send(req).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        let id = reply
            .header("mcp-session-id")
            .expect("Mcp-Session-Id")
            .to_string();
        let s = Session {
            url: url.to_string(),
            id,
            token: token.map(str::to_string),
        };
        let ack = s
            .send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        assert_eq!(ack.status, 202, "{ack:?}");
        (s, reply)
    }

    fn request(&self, message: &Value) -> reqwest::RequestBuilder {
        let mut req = post(&self.url, message)
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", "2025-06-18");
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        req
    }

    async fn send(&self, message: &Value) -> Reply {
        send(self.request(message)).await
    }
}

/// A stateless 2026-07-28 request: no session, the version in a header and in `_meta`.
async fn stateless(url: &str, mut message: Value) -> Reply {
    let method = message["method"].as_str().unwrap().to_string();
    let name = message["params"]["name"].as_str().map(str::to_string);
    let params = message
        .as_object_mut()
        .unwrap()
        .entry("params")
        .or_insert_with(|| json!({}));
    params.as_object_mut().unwrap().insert(
        "_meta".into(),
        json!({
            "io.modelcontextprotocol/protocolVersion": LATEST,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name":"http-test","version":"1"}
        }),
    );
    let mut req = post(url, &message)
        .header("mcp-protocol-version", LATEST)
        .header("mcp-method", &method);
    if let Some(name) = name {
        req = req.header("mcp-name", name);
    }
    send(req).await
}

/// Runs a test body with a deadline.
async fn bounded<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(Duration::from_secs(120), f)
        .await
        .expect("test finished within 120 s");
}

fn tool_names(reply: &Reply) -> Vec<String> {
    reply.response()["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {reply:?}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

// -----------------------------------------------------------------------------------
// Serving

#[tokio::test]
async fn rmcp_client_initializes_lists_tools_and_calls_one() {
    bounded(async {
        let server = Server::start(&[], &[]);
        let transport = StreamableHttpClientTransport::with_client(
            http(),
            StreamableHttpClientTransportConfig::with_uri(server.mcp()),
        );
        let client = ().serve(transport).await.expect("initialize over HTTP");
        let info = client.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|i| i.name.as_str()),
            Some("mobile-mcp")
        );
        let tools = client.list_all_tools().await.expect("tools/list");
        assert!(tools.len() >= 20, "{} tools", tools.len());
        assert!(
            tools
                .iter()
                .any(|t| t.name == "mobile_list_available_devices")
        );
        let result = client
            .call_tool(rmcp::model::CallToolRequestParams::new(
                "mobile_list_available_devices",
            ))
            .await
            .expect("tools/call");
        assert_ne!(result.is_error, Some(true), "{result:?}");
        client.cancel().await.expect("close");
    })
    .await;
}

#[tokio::test]
async fn raw_session_initialize_list_and_delete() {
    bounded(async {
        let server = Server::start(&[], &[]);
        let (session, init) = Session::open(&server.mcp(), None).await;
        assert!(
            init.header("content-type")
                .unwrap()
                .starts_with("text/event-stream")
        );
        let result = &init.response()["result"];
        assert_eq!(result["serverInfo"]["name"], "mobile-mcp");
        assert!(result["capabilities"]["tools"].is_object());

        let list = session
            .send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
            .await;
        assert_eq!(list.status, 200);
        assert!(tool_names(&list).contains(&"mobile_take_screenshot".to_string()));

        // The standalone GET stream opens.
        let get = http()
            .get(server.mcp())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session.id)
            .send()
            .await
            .expect("GET");
        assert_eq!(get.status(), 200);
        drop(get);

        let del = http()
            .delete(server.mcp())
            .header("mcp-session-id", &session.id)
            .send()
            .await
            .expect("DELETE");
        assert!(del.status().is_success(), "{}", del.status());
        let after = session
            .send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}))
            .await;
        assert_eq!(after.status, 404, "{after:?}");
    })
    .await;
}

#[tokio::test]
async fn healthz_answers_without_auth() {
    bounded(async {
        let server = Server::start(&[], &[("MOBILE_MCP_AUTH", "s3cret-token")]);
        let r = send(http().get(format!("{}/healthz", server.base))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.messages, vec![json!({"status":"ok"})]);
    })
    .await;
}

#[tokio::test]
async fn stateless_2026_07_28_requests_need_no_session() {
    bounded(async {
        let server = Server::start(&[], &[]);
        let list = stateless(
            &server.mcp(),
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
        assert_eq!(list.status, 200, "{list:?}");
        assert!(list.header("mcp-session-id").is_none());
        assert!(tool_names(&list).contains(&"mobile_list_apps".to_string()));
        let called = stateless(
            &server.mcp(),
            call(2, "mobile_list_available_devices", json!({})),
        )
        .await;
        assert_eq!(called.status, 200, "{called:?}");
        assert_ne!(called.response()["result"]["isError"], true, "{called:?}");
    })
    .await;
}

#[tokio::test]
async fn many_clients_at_once() {
    // 50 clients, each with its own session: tools/list and a screenshot of the demo
    // phone, with distinct request ids so a mixed-up response would be caught.
    bounded(async {
        let server = Server::start(&["--demo"], &[]);
        let url = server.mcp();
        let (probe, _) = Session::open(&url, None).await;
        let listed = probe
            .send(&call(2, "mobile_list_available_devices", json!({})))
            .await;
        let dev = listed.response()["result"]["structuredContent"]["devices"][0]["id"].clone();
        assert!(dev.is_string(), "{listed:?}");
        let mut tasks = Vec::new();
        for i in 0..50u64 {
            let url = url.clone();
            let dev = dev.clone();
            tasks.push(tokio::spawn(async move {
                let (s, _) = Session::open(&url, None).await;
                let list_id = 1000 + i;
                let list = s
                    .send(&json!({"jsonrpc":"2.0","id":list_id,"method":"tools/list"}))
                    .await;
                assert_eq!(list.response()["id"], list_id);
                let tools = tool_names(&list).len();
                let shot_id = 2000 + i;
                let shot = s
                    .send(&call(
                        shot_id,
                        "mobile_take_screenshot",
                        json!({"device": dev}),
                    ))
                    .await;
                let r = shot.response();
                assert_eq!(r["id"], shot_id, "a response for another request");
                assert_ne!(r["result"]["isError"], true, "{r}");
                let data = r["result"]["content"][1]["data"]
                    .as_str()
                    .expect("image data");
                use base64::Engine;
                let jpeg = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .expect("base64");
                let img = image::load_from_memory(&jpeg).expect("a decodable image");
                assert_eq!(img.width().max(img.height()), 1024);
                tools
            }));
        }
        for t in tasks {
            assert!(t.await.expect("client task") >= 20);
        }
    })
    .await;
}

#[tokio::test]
async fn idle_sessions_expire() {
    bounded(async {
        let server = Server::start(&["--session-idle", "1"], &[]);
        let (session, _) = Session::open(&server.mcp(), None).await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        let r = session
            .send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
            .await;
        assert_eq!(r.status, 404, "{r:?}");
    })
    .await;
}

#[tokio::test]
async fn ipv6_loopback_and_localhost_listen_forms() {
    bounded(async {
        let v6 = Server::start(&["--listen", "[::1]:0"], &[]);
        assert!(v6.base.starts_with("http://[::1]:"), "{}", v6.base);
        let r = send(http().get(format!("{}/healthz", v6.base))).await;
        assert_eq!(r.status, 200);
        let (_, init) = Session::open(&v6.mcp(), None).await;
        assert_eq!(
            init.response()["result"]["serverInfo"]["name"],
            "mobile-mcp"
        );

        let named = Server::start(&["--listen", "localhost:0"], &[]);
        assert!(
            named.base.starts_with("http://127.0.0.1:"),
            "{}",
            named.base
        );
    })
    .await;
}

// -----------------------------------------------------------------------------------
// Safety layers

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

// -----------------------------------------------------------------------------------
// The payload filter over HTTP

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
        // The demo phone has an app whose name and package hold filtered terms.
        let server = Server::start(&["--demo"], &[(FILTER_VAR, "1")]);
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
async fn server_exits_on_sigterm() {
    bounded(async {
        let mut server = Server::start(&[], &[]);
        let pid = server.child.id().to_string();
        let status = Command::new("/bin/kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = server.child.try_wait().expect("try_wait") {
                assert!(
                    status.success(),
                    "{status:?}: {}",
                    server.stderr.lock().unwrap()
                );
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "still running 10 s after SIGTERM"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
}
