//! A DeviceFarmer STF farm (`--farm stf=URL`), played by `stf-double`, whose remote adb
//! leads to a virtual phone; our adb server is a private real adb server. What the farm
//! and the phone saw is read from the double and the phone: who holds the device, the adb
//! key registered, the requests made, the app launched, the tap, the screen captured.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stf_double::{Config, FarmDevice, StfDouble};
use test_support::{McpChild, text_of};
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

pub(crate) const SERIAL: &str = "STF-PHONE-1";
pub(crate) const TOKEN: &str = "stf-test-token";
const DEADLINE: Duration = Duration::from_secs(180);

/// The phone, the farm in front of it, our adb server, and a folder for the token and the
/// lease files.
pub(crate) struct FarmRig {
    pub phone: PhoneHandle,
    pub stf: StfDouble,
    pub adb: PrivateAdbServer,
    pub dir: tempfile::TempDir,
}

impl FarmRig {
    pub(crate) fn start() -> FarmRig {
        FarmRig::start_with(false)
    }

    /// A rig whose farm serves https (`tls`), its CA certificate in the folder's `ca.pem`.
    pub(crate) fn start_with(tls: bool) -> FarmRig {
        let phone = VirtualPhone::start(PhoneConfig {
            serial: Some(SERIAL.into()),
            ..PhoneConfig::default()
        })
        .expect("start the virtual phone");
        let mut config = Config::new(TOKEN, vec![FarmDevice::pixel(SERIAL, phone.addr())]);
        config.tls = tls;
        let stf = StfDouble::start(config).expect("start the STF double");
        let adb = PrivateAdbServer::start().expect("start a private adb server");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
        std::fs::write(dir.path().join("bad-token"), "not-the-token\n").unwrap();
        if let Some(ca) = stf.ca_pem() {
            std::fs::write(dir.path().join("ca.pem"), ca).unwrap();
        }
        FarmRig {
            phone,
            stf,
            adb,
            dir,
        }
    }

    /// The server's arguments: our adb server, the farm, its token, its idle timeout.
    pub(crate) fn args(&self, idle_secs: u64) -> Vec<String> {
        self.args_with(idle_secs, &self.stf.url(), "token")
    }

    /// [`args`](Self::args) with another farm URL and token file (in the rig's folder).
    pub(crate) fn args_with(&self, idle_secs: u64, url: &str, token_file: &str) -> Vec<String> {
        vec![
            "--adb-server".into(),
            format!("127.0.0.1:{}", self.adb.port()),
            "--farm".into(),
            format!("stf={url}"),
            "--farm-token-file".into(),
            self.dir.path().join(token_file).display().to_string(),
            "--farm-idle".into(),
            idle_secs.to_string(),
            "--lease-dir".into(),
            self.dir.path().join("leases").display().to_string(),
        ]
    }

    /// Our adb server's public key, as adb wrote it.
    pub(crate) fn adb_key(&self) -> String {
        std::fs::read_to_string(self.adb.home().join(".android/adbkey.pub"))
            .expect("the adb server wrote its key")
            .trim()
            .to_string()
    }

    /// Waits (bounded) until the farm no longer lends the device to anyone.
    pub(crate) async fn wait_free(&self) {
        for _ in 0..300 {
            if self.stf.owner(SERIAL).is_none() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the farm still lends {SERIAL}: {:?}", self.stf.events());
    }

    /// The requests the farm received for the device's release.
    pub(crate) fn releases(&self) -> Vec<String> {
        self.stf
            .events()
            .into_iter()
            .filter(|e| e.starts_with("DELETE /api/v1/user/devices/"))
            .collect()
    }
}

fn taps(phone: &PhoneHandle) -> Vec<String> {
    phone
        .commands()
        .iter()
        .flat_map(|c| c.argv.iter())
        .filter(|a| a.len() >= 4 && a[0] == "input" && a[1] == "tap")
        .map(|a| format!("{} {}", a[2], a[3]))
        .collect()
}

async fn spawn(rig: &FarmRig, url: &str, token_file: &str) -> McpChild {
    spawn_with(rig, url, token_file, &[]).await
}

/// [`spawn`] with more arguments.
async fn spawn_with(rig: &FarmRig, url: &str, token_file: &str, more: &[String]) -> McpChild {
    let mut args = rig.args_with(900, url, token_file);
    args.extend_from_slice(more);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    McpChild::spawn(crate::SERVER, &args, &rig.adb.env()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_allocate_act_and_release_a_farm_device() {
    tokio::time::timeout(
        DEADLINE,
        list_allocate_act_and_release(FarmRig::start(), &[]),
    )
    .await
    .expect("within the deadline");
}

/// The same over https, the farm's certificate signed by a CA given with --farm-ca-file:
/// every handshake asked for the URL's host by name (SNI).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_farm_with_its_ca_file() {
    tokio::time::timeout(DEADLINE, async {
        let rig = FarmRig::start_with(true);
        assert!(rig.stf.url().starts_with("https://localhost:"));
        let ca = [
            "--farm-ca-file".to_string(),
            rig.dir.path().join("ca.pem").display().to_string(),
        ];
        let rig = list_allocate_act_and_release(rig, &ca).await;
        let names = rig.stf.server_names();
        // list, add, key, remoteConnect, list (release, twice), DELETE ×2
        assert!(names.len() >= 5, "{names:?}");
        assert!(names.iter().all(|n| n == "localhost"), "{names:?}");
    })
    .await
    .expect("within the deadline");
}

/// Without the CA, the farm's certificate is refused before any request is sent (the
/// token never leaves), and the error names the host and --farm-ca-file; an https URL at
/// a farm that speaks http fails its handshake, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_farm_whose_certificate_is_not_trusted() {
    tokio::time::timeout(DEADLINE, async {
        let rig = FarmRig::start_with(true);
        let mcp = spawn(&rig, &rig.stf.url(), "token").await;
        let r = mcp.call("mobile_list_remote_devices", json!({})).await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("TLS certificate localhost presented is not trusted")
                && t.contains("does not trust")
                && t.contains("--farm-ca-file"),
            "{t}"
        );
        assert!(rig.stf.events().is_empty(), "{:?}", rig.stf.events());
        assert!(rig.stf.server_names().is_empty());
        let _ = mcp.client.cancel().await;

        let plain = StfDouble::start(Config::new(TOKEN, vec![])).expect("an http double");
        let port = plain.url().rsplit(':').next().unwrap().to_string();
        let url = format!("https://127.0.0.1:{port}");
        let ca = [
            "--farm-ca-file".to_string(),
            rig.dir.path().join("ca.pem").display().to_string(),
        ];
        let mcp = spawn_with(&rig, &url, "token", &ca).await;
        let r = mcp.call("mobile_list_remote_devices", json!({})).await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("TLS handshake with 127.0.0.1 failed") && t.contains("speaks https"),
            "{t}"
        );
        assert!(plain.events().is_empty(), "{:?}", plain.events());
        let _ = mcp.client.cancel().await;
    })
    .await
    .expect("within the deadline");
}

/// Lists, allocates, acts on and releases the rig's device through the tools, with `more`
/// server arguments; checks what the farm and the phone saw.
async fn list_allocate_act_and_release(rig: FarmRig, more: &[String]) -> FarmRig {
    {
        let mcp = spawn_with(&rig, &rig.stf.url(), "token", more).await;

        let listed = mcp.call("mobile_list_remote_devices", json!({})).await;
        let s = listed.structured_content.clone().expect("structured");
        assert_eq!(s["devices"][0]["serial"], SERIAL, "{s}");
        assert_eq!(s["devices"][0]["state"], "free", "{s}");
        assert_eq!(s["devices"][0]["model"], "Pixel 7", "{s}");

        let got = mcp
            .call(
                "mobile_allocate_remote_device",
                json!({"platform": "android", "name": "pixel*", "version": [">=12"]}),
            )
            .await;
        assert_ne!(got.is_error, Some(true), "{}", text_of(&got));
        let s = got.structured_content.clone().expect("structured");
        let device = s["device"].as_str().unwrap().to_string();
        assert_eq!(s["serial"], SERIAL);
        // The farm lent it to the token's user, with the idle timeout asked for, and runs
        // remote adb at the address that is now the device id; our adb key is registered.
        assert_eq!(rig.stf.owner(SERIAL).as_deref(), Some("agent@example.org"));
        assert_eq!(
            rig.stf.lease_timeout(SERIAL),
            Some(Duration::from_secs(900))
        );
        assert_eq!(rig.stf.remote_url(SERIAL).as_deref(), Some(device.as_str()));
        assert_eq!(rig.stf.adb_keys(), [rig.adb_key()]);

        // Every tool works on it.
        let launch = mcp
            .call(
                "mobile_launch_app",
                json!({"device": device, "packageName": "com.android.settings"}),
            )
            .await;
        assert_ne!(launch.is_error, Some(true), "{}", text_of(&launch));
        assert_eq!(
            rig.phone.state().foreground_package(),
            Some("com.android.settings")
        );
        let tap = mcp
            .call(
                "mobile_click_on_screen_at_coordinates",
                json!({"device": device, "x": 140, "y": 700, "settleTimeoutMs": 0}),
            )
            .await;
        assert_ne!(tap.is_error, Some(true), "{}", text_of(&tap));
        assert_eq!(taps(&rig.phone), ["140 700"]);
        let shot = mcp
            .call("mobile_take_screenshot", json!({"device": device}))
            .await;
        assert_ne!(shot.is_error, Some(true), "{}", text_of(&shot));
        assert!(
            rig.phone
                .commands()
                .iter()
                .any(|c| c.service.contains("screencap")),
            "the phone captured its screen"
        );
        assert!(
            shot.content.iter().any(|c| c.as_image().is_some()),
            "an image came back"
        );

        let rel = mcp
            .call("mobile_release_remote_device", json!({"device": device}))
            .await;
        assert_ne!(rel.is_error, Some(true), "{}", text_of(&rel));
        assert_eq!(rig.stf.owner(SERIAL), None);
        assert_eq!(rig.stf.remote_url(SERIAL), None);
        assert_eq!(
            rig.releases(),
            [
                format!("DELETE /api/v1/user/devices/{SERIAL}/remoteConnect"),
                format!("DELETE /api/v1/user/devices/{SERIAL}")
            ]
        );
        // Released twice: refused, saying why.
        let again = mcp
            .call("mobile_release_remote_device", json!({"device": device}))
            .await;
        assert_eq!(again.is_error, Some(true));
        assert!(
            text_of(&again).contains("was not allocated from the farm"),
            "{}",
            text_of(&again)
        );
        let _ = mcp.client.cancel().await;
    }
    rig
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn farm_failures_say_what_to_do() {
    tokio::time::timeout(DEADLINE, async {
        let rig = FarmRig::start();
        let mcp = spawn(&rig, &rig.stf.url(), "token").await;
        // Someone takes the only device between our listing and our lease (STF's 403).
        rig.stf.take_before_next_add(SERIAL);
        let r = mcp
            .call(
                "mobile_allocate_remote_device",
                json!({"platform": "android"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains(&format!("taken by someone else meanwhile ({SERIAL})")),
            "{t}"
        );
        assert_eq!(
            rig.stf.owner(SERIAL).as_deref(),
            Some("someone@example.org")
        );
        assert_eq!(rig.stf.remote_url(SERIAL), None);
        // Someone else has it, as the listing says.
        let r = mcp
            .call(
                "mobile_allocate_remote_device",
                json!({"platform": "android"}),
            )
            .await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains(&format!("{SERIAL}: in use")) && t.contains("try again later"),
            "{t}"
        );
        assert_eq!(
            rig.stf.owner(SERIAL).as_deref(),
            Some("someone@example.org")
        );
        let ios = mcp
            .call("mobile_allocate_remote_device", json!({"platform": "ios"}))
            .await;
        assert!(
            text_of(&ios).contains("Android devices only"),
            "{}",
            text_of(&ios)
        );
        let _ = mcp.client.cancel().await;

        // A refused token.
        let mcp = spawn(&rig, &rig.stf.url(), "bad-token").await;
        let r = mcp.call("mobile_list_remote_devices", json!({})).await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("refused the access token") && t.contains("--farm-token-file"),
            "{t}"
        );
        let _ = mcp.client.cancel().await;

        // Nothing at the address.
        let mcp = spawn(&rig, "http://127.0.0.1:1", "token").await;
        let r = mcp.call("mobile_list_remote_devices", json!({})).await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(
            t.contains("Cannot reach the farm at http://127.0.0.1:1") && t.contains("--farm"),
            "{t}"
        );
        let _ = mcp.client.cancel().await;
    })
    .await
    .expect("within the deadline");
}

/// A server over stdio driven line by line, so the test decides how it ends: its stdin
/// closed (the client going away) or killed.
struct Stdio_ {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Stdio_ {
    fn start(rig: &FarmRig, idle_secs: u64) -> Stdio_ {
        let mut cmd = Command::new(crate::SERVER);
        cmd.args(rig.args(idle_secs))
            .env("RUST_LOG", "warn")
            .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in rig.adb.env() {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn mobile-mcp");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut s = Stdio_ {
            child,
            stdin,
            lines,
        };
        s.request(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"farm-test","version":"1"}}}));
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        s
    }

    fn send(&mut self, m: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{m}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and reads lines until its response (the server answers in time:
    /// the test's deadline bounds it).
    fn request(&mut self, m: Value) -> Value {
        self.send(&m);
        for line in self.lines.by_ref() {
            let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if v["id"] == m["id"] {
                return v;
            }
        }
        panic!("the server closed stdout");
    }

    fn allocate(&mut self) -> String {
        let r = self.request(
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{
            "name":"mobile_allocate_remote_device","arguments":{"platform":"android"}}}),
        );
        assert_ne!(r["result"]["isError"], true, "{r}");
        r["result"]["structuredContent"]["device"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits (bounded) for the process to end.
    fn wait(&mut self) -> std::process::ExitStatus {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return st;
            }
            assert!(Instant::now() < until, "the server did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Stdio_ {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_without_releasing_gives_the_device_back() {
    tokio::time::timeout(DEADLINE, async {
        let rig = FarmRig::start();
        let mut server = Stdio_::start(&rig, 900);
        let device = server.allocate();
        assert_eq!(rig.stf.remote_url(SERIAL).as_deref(), Some(device.as_str()));
        // The client goes away (EOF on stdin) without calling release.
        server.stdin = None;
        let status = server.wait();
        assert!(status.success(), "{status}");
        // The server gave it back before it exited.
        assert_eq!(rig.stf.owner(SERIAL), None);
        assert_eq!(rig.stf.remote_url(SERIAL), None);
        assert_eq!(rig.releases().len(), 2, "{:?}", rig.stf.events());
        assert!(!rig.stf.events().iter().any(|e| e.starts_with("timeout")));
    })
    .await
    .expect("within the deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_leaves_the_device_to_the_farms_idle_timeout() {
    tokio::time::timeout(DEADLINE, async {
        let rig = FarmRig::start();
        let mut server = Stdio_::start(&rig, 2);
        server.allocate();
        assert_eq!(rig.stf.lease_timeout(SERIAL), Some(Duration::from_secs(2)));
        // Killed: nothing is given back by the server...
        let _ = server.child.kill();
        server.wait();
        assert_eq!(rig.stf.owner(SERIAL).as_deref(), Some("agent@example.org"));
        // ...and the farm frees the device once it has been idle for its timeout.
        rig.wait_free().await;
        assert!(
            rig.stf.events().contains(&format!("timeout {SERIAL}")),
            "{:?}",
            rig.stf.events()
        );
        assert!(rig.releases().is_empty(), "{:?}", rig.releases());
        assert_eq!(rig.stf.remote_url(SERIAL), None);
    })
    .await
    .expect("within the deadline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopped_by_a_signal_gives_the_device_back() {
    tokio::time::timeout(DEADLINE, async {
        let rig = FarmRig::start();
        let mut server = Stdio_::start(&rig, 900);
        server.allocate();
        let term = Command::new("kill")
            .args(["-TERM", &server.child.id().to_string()])
            .status()
            .expect("kill -TERM");
        assert!(term.success());
        server.wait();
        assert_eq!(rig.stf.owner(SERIAL), None, "{:?}", rig.stf.events());
        assert_eq!(rig.releases().len(), 2, "{:?}", rig.stf.events());
    })
    .await
    .expect("within the deadline");
}
