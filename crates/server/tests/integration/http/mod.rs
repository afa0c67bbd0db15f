//! The built binary serving Streamable HTTP (`--listen`): rmcp's client and raw requests,
//! the safety layers (bearer token, Host/Origin, body size, non-loopback refusal), the
//! stateless 2026-07-28 path, idle sessions, and the payload filter over HTTP on the
//! session path and the stateless path.
//!
//! Every server is a child process on a port the OS picks (`--listen 127.0.0.1:0`; the
//! address is read from its log line) and is killed when its guard drops. Device
//! discovery is pointed at nothing (a closed adb port, no adb binary on `PATH`, a
//! missing xcrun), so no test starts or reaches a real device tool.
//!
//! The serving tests are here, beside the helpers all the tests use; the safety layers
//! are tested in `layers`, the payload filter in `filter`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use mcp_payload_filter::Filter;
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

mod edges;
mod farm;
mod filter;
mod idle;
mod layers;
mod leases;
mod observations;
mod soak;
mod starvation;

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
    try_send(req).await.expect("HTTP request")
}

/// One exchange that may fail at the transport (a dropped connection, a client limit).
async fn try_send(req: reqwest::RequestBuilder) -> Result<Reply, String> {
    let resp = req.send().await.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.text().await.map_err(|e| e.to_string())?;
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
    Ok(Reply {
        status,
        headers,
        body,
        messages,
    })
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
    /// How long each of its requests may take.
    limit: Duration,
}

/// How long one request of a test may take, unless the test says otherwise.
const REQUEST_LIMIT: Duration = Duration::from_secs(30);

impl Session {
    async fn open(url: &str, token: Option<&str>) -> (Session, Reply) {
        Self::open_within(url, token, REQUEST_LIMIT).await
    }

    /// Opens a session whose requests may each take up to `limit`.
    async fn open_within(url: &str, token: Option<&str>, limit: Duration) -> (Session, Reply) {
        let mut req = post(url, &initialize(1)).timeout(limit);
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
            limit,
        };
        let ack = s
            .send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        assert_eq!(ack.status, 202, "{ack:?}");
        (s, reply)
    }

    fn request(&self, message: &Value) -> reqwest::RequestBuilder {
        let mut req = post(&self.url, message)
            .timeout(self.limit)
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
    bounded_for(Duration::from_secs(120), f).await
}

/// Runs a test body with the deadline `limit`.
async fn bounded_for<F: std::future::Future<Output = ()>>(limit: Duration, f: F) {
    tokio::time::timeout(limit, f)
        .await
        .unwrap_or_else(|_| panic!("test finished within {limit:?}"));
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

/// Clients of the load test, each with its own session.
const CLIENTS: u64 = 100;
/// How long one request of the load test may take: far past what it needs, so a busy
/// machine makes it slower, not failed. The whole test is still bounded.
const LOAD_LIMIT: Duration = Duration::from_secs(240);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_at_once() {
    // 100 clients, each with its own session: tools/list and a screenshot of the demo
    // phone, with distinct request ids so a mixed-up response would be caught. The
    // server's device deadline is raised with the request limit: the test counts errors,
    // it does not time the server.
    bounded_for(Duration::from_secs(600), async {
        // A hundred sessions on the one demo phone, on purpose: no leases.
        let server = Server::start(&["--demo", "--timeout", "240", "--share-devices"], &[]);
        let url = server.mcp();
        let (probe, _) = Session::open_within(&url, None, LOAD_LIMIT).await;
        let listed = probe
            .send(&call(2, "mobile_list_available_devices", json!({})))
            .await;
        let dev = listed.response()["result"]["structuredContent"]["devices"][0]["id"].clone();
        assert!(dev.is_string(), "{listed:?}");
        // Every client opens its session before any asks for work, so all 100 sessions
        // and their requests are in flight together.
        let gate = Arc::new(tokio::sync::Barrier::new(CLIENTS as usize));
        let mut tasks = Vec::new();
        for i in 0..CLIENTS {
            let url = url.clone();
            let dev = dev.clone();
            let gate = gate.clone();
            tasks.push(tokio::spawn(async move {
                let (s, _) = Session::open_within(&url, None, LOAD_LIMIT).await;
                gate.wait().await;
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
        let mut served = 0;
        for t in tasks {
            assert!(t.await.expect("client task") >= 20);
            served += 1;
        }
        assert_eq!(served, CLIENTS);
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
