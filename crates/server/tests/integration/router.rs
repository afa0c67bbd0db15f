//! Router tests: the real tool catalogue behind an rmcp client over an in-memory pipe,
//! with a recording test double of `Device`. They show that every tool reaches the right
//! trait method with decoded parameters, and that bad input becomes a clear `isError`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use mobile_device::*;
use mobile_mcp::{MobileServer, ServerOptions};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

#[derive(Default)]
pub(crate) struct Calls(Mutex<Vec<String>>);

impl Calls {
    fn push(&self, s: String) {
        self.0.lock().unwrap().push(s);
    }
    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

struct Double {
    calls: Arc<Calls>,
}

fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba([10, 20, 30, 255]));
    let mut buf = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut buf, image::ImageFormat::Png)
        .unwrap();
    buf.into_inner()
}

#[async_trait]
impl Device for Double {
    fn id(&self) -> &str {
        "double-1"
    }
    fn platform(&self) -> Platform {
        Platform::Android
    }
    fn coordinate_unit(&self) -> CoordinateUnit {
        CoordinateUnit::Pixels
    }
    async fn list_apps(&self) -> Result<Vec<App>> {
        self.calls.push("list_apps".into());
        Ok(vec![App {
            package_name: "com.example.notes".into(),
            app_name: "Notes".into(),
        }])
    }
    async fn launch_app(&self, app: &AppId, options: &LaunchOptions) -> Result<LaunchReport> {
        self.calls.push(format!(
            "launch_app {app} {}",
            options.locales.as_ref().map(|l| l.as_str()).unwrap_or("-")
        ));
        Ok(LaunchReport::default())
    }
    async fn terminate_app(&self, app: &AppId) -> Result<()> {
        self.calls.push(format!("terminate_app {app}"));
        Ok(())
    }
    async fn install_app(&self, package: AppPackage, _p: Option<ProgressFn>) -> Result<()> {
        self.calls.push(format!("install_app {}", package.name));
        Ok(())
    }
    async fn uninstall_app(&self, app: &AppId) -> Result<()> {
        self.calls.push(format!("uninstall_app {app}"));
        Ok(())
    }
    async fn foreground_app(&self) -> Result<ForegroundApp> {
        self.calls.push("foreground_app".into());
        Ok(ForegroundApp {
            package_name: "com.example.notes".into(),
            activity: Some(".Main".into()),
        })
    }
    async fn screen_size(&self) -> Result<ScreenSize> {
        self.calls.push("screen_size".into());
        Ok(ScreenSize {
            unit: CoordinateUnit::Pixels,
            width: 1080,
            height: 2400,
            scale: 2.625,
            density: Some(420),
        })
    }
    async fn screenshot(&self, _want: &mobile_device::ScreenshotOptions) -> Result<Screenshot> {
        self.calls.push("screenshot".into());
        Ok(Screenshot {
            format: CaptureFormat::Png,
            bytes: png(1080, 2400),
        })
    }
    async fn list_elements(&self) -> Result<Vec<Element>> {
        self.calls.push("list_elements".into());
        Ok(vec![Element {
            reference: "@e1".into(),
            element_type: "android.widget.Button".into(),
            text: Some("Save".into()),
            rect: Rect {
                x: 100,
                y: 200,
                width: 50,
                height: 20,
            },
            ..Default::default()
        }])
    }
    async fn ui_dump(&self) -> Result<String> {
        self.calls.push("ui_dump".into());
        Ok("<hierarchy/>".into())
    }
    async fn tap(&self, at: Point) -> Result<()> {
        self.calls.push(format!("tap {} {}", at.x, at.y));
        Ok(())
    }
    async fn drag(&self, from: Point, to: Point, d: Duration) -> Result<()> {
        self.calls.push(format!(
            "drag {} {} {} {} {}",
            from.x,
            from.y,
            to.x,
            to.y,
            d.as_millis()
        ));
        Ok(())
    }
    async fn fold(&self, posture: mobile_device::Posture) -> Result<mobile_device::FoldState> {
        self.calls.push(format!("fold {posture}"));
        Ok(mobile_device::FoldState {
            id: 2,
            name: "HALF_OPENED".into(),
        })
    }
    async fn double_tap(&self, at: Point) -> Result<()> {
        self.calls.push(format!("double_tap {} {}", at.x, at.y));
        Ok(())
    }
    async fn long_press(&self, at: Point, d: Duration) -> Result<()> {
        self.calls
            .push(format!("long_press {} {} {}", at.x, at.y, d.as_millis()));
        Ok(())
    }
    async fn swipe(&self, a: Point, b: Point, _d: Duration) -> Result<()> {
        self.calls
            .push(format!("swipe {} {} {} {}", a.x, a.y, b.x, b.y));
        Ok(())
    }
    async fn type_text(&self, t: &str) -> Result<()> {
        self.calls.push(format!("type_text {t}"));
        Ok(())
    }
    async fn press_button(&self, b: Button) -> Result<()> {
        self.calls.push(format!("press_button {b}"));
        Ok(())
    }
    async fn open_url(&self, u: &DeviceUrl) -> Result<()> {
        self.calls.push(format!("open_url {u}"));
        Ok(())
    }
    async fn orientation(&self) -> Result<Orientation> {
        self.calls.push("orientation".into());
        Ok(Orientation::Landscape)
    }
    async fn set_orientation(&self, o: Orientation) -> Result<()> {
        self.calls.push(format!("set_orientation {o}"));
        Ok(())
    }
    async fn logs(&self, q: &LogQuery) -> Result<Vec<LogEntry>> {
        self.calls
            .push(format!("logs {} {}", q.limit.get(), q.filters.len()));
        Ok(vec![LogEntry {
            tag: Some("T".into()),
            message: "hello".into(),
            ..Default::default()
        }])
    }
    async fn crashes(&self) -> Result<Vec<Crash>> {
        self.calls.push("crashes".into());
        Ok(vec![Crash {
            id: "c1".into(),
            process_name: "com.example.notes".into(),
            timestamp: "2026-11-30 05:00:00".into(),
        }])
    }
    async fn crash(&self, id: &str) -> Result<String> {
        self.calls.push(format!("crash {id}"));
        Ok("FATAL EXCEPTION".into())
    }
    async fn push_file(&self, local: std::fs::File, remote: &DevicePath) -> Result<u64> {
        self.calls.push(format!("push_file {remote}"));
        Ok(local.metadata().map(|m| m.len()).unwrap_or(0))
    }
    async fn pull_file(&self, remote: &DevicePath, mut out: std::fs::File) -> Result<u64> {
        self.calls.push(format!("pull_file {remote}"));
        std::io::Write::write_all(&mut out, b"data").unwrap();
        Ok(4)
    }
    async fn start_recording(&self, o: &RecordingOptions) -> Result<()> {
        self.calls
            .push(format!("start_recording {}", o.time_limit.secs()));
        Ok(())
    }
    async fn stop_recording(&self, _out: std::fs::File) -> Result<Recording> {
        self.calls.push("stop_recording".into());
        Ok(Recording {
            bytes: 1_500_000,
            duration: Duration::from_secs(3),
        })
    }
    async fn clipboard(&self) -> Result<String> {
        self.calls.push("clipboard".into());
        Ok("clip".into())
    }
    async fn set_clipboard(&self, t: &str) -> Result<()> {
        self.calls.push(format!("set_clipboard {t}"));
        Ok(())
    }
    async fn set_location(&self, l: Option<Location>) -> Result<()> {
        self.calls.push(format!(
            "set_location {}",
            l.map(|l| format!("{},{}", l.latitude.get(), l.longitude.get()))
                .unwrap_or("clear".into())
        ));
        Ok(())
    }
}

struct Backend {
    calls: Arc<Calls>,
}

#[async_trait]
impl DeviceBackend for Backend {
    fn name(&self) -> &str {
        "double"
    }
    async fn discover(&self) -> Discovery {
        Discovery {
            devices: vec![DeviceInfo {
                id: "double-1".into(),
                name: "Test Double".into(),
                platform: Platform::Android,
                kind: DeviceKind::Emulator,
                version: Some("14".into()),
                state: DeviceState::Online,
                model: None,
                hint: None,
            }],
            notes: vec![],
        }
    }
    async fn open(&self, _info: &DeviceInfo) -> Result<Arc<dyn Device>> {
        Ok(Arc::new(Double {
            calls: self.calls.clone(),
        }))
    }
}

pub(crate) struct Harness {
    pub(crate) client: RunningService<RoleClient, ()>,
    pub(crate) calls: Arc<Calls>,
}

pub(crate) async fn start(options: ServerOptions) -> Harness {
    let calls = Arc::new(Calls::default());
    let mut registry = DeviceRegistry::new();
    registry.register(Arc::new(Backend {
        calls: calls.clone(),
    }));
    let server = MobileServer::new(Arc::new(registry), options);
    let (a, b) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        if let Ok(s) = server.serve(b).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(a).await.expect("client initializes");
    Harness { client, calls }
}

impl Harness {
    pub(crate) async fn call(&self, name: &str, args: Value) -> CallToolResult {
        let args = args.as_object().cloned().unwrap_or_default();
        tokio::time::timeout(
            Duration::from_secs(20),
            self.client
                .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args)),
        )
        .await
        .expect("call finishes")
        .expect("call succeeds at the protocol level")
    }
}

pub(crate) fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn every_tool_reaches_its_trait_method() {
    let h = start(ServerOptions::default()).await;
    let tmp = tempfile::Builder::new()
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let apk = tmp.path().join("app.apk");
    std::fs::write(&apk, b"apk").unwrap();
    let up = tmp.path().join("up.txt");
    std::fs::write(&up, b"12345").unwrap();
    let t = |p: &str| tmp.path().join(p).display().to_string();

    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        ("mobile_list_apps", json!({}), vec!["list_apps"]),
        (
            "mobile_get_foreground_app",
            json!({}),
            vec!["foreground_app"],
        ),
        (
            "mobile_launch_app",
            json!({"packageName": "com.example.notes", "locale": "fr-FR, de", "settleTimeoutMs": 0, "observe": "none"}),
            vec!["launch_app com.example.notes fr-FR,de"],
        ),
        (
            "mobile_terminate_app",
            json!({"packageName": "com.example.notes", "settleTimeoutMs": 0, "observe": "none"}),
            vec!["terminate_app com.example.notes"],
        ),
        (
            "mobile_install_app",
            json!({"path": apk.display().to_string()}),
            vec!["install_app app.apk"],
        ),
        (
            "mobile_uninstall_app",
            json!({"bundle_id": "com.example.notes"}),
            vec!["uninstall_app com.example.notes"],
        ),
        ("mobile_get_screen_size", json!({}), vec!["screen_size"]),
        (
            "mobile_click_on_screen_at_coordinates",
            json!({"x": 10.4, "y": "20", "settleTimeoutMs": 0, "observe": "none"}),
            vec!["tap 10 20"],
        ),
        (
            "mobile_click_on_screen_at_coordinates",
            json!({"ref": "@e1", "x": 1, "y": 1, "settleTimeoutMs": 0, "observe": "none"}),
            vec!["list_elements", "tap 125 210"],
        ),
        (
            "mobile_double_tap_on_screen",
            json!({"x": 5, "y": 6, "settleTimeoutMs": 0, "observe": "none"}),
            vec!["double_tap 5 6"],
        ),
        (
            "mobile_long_press_on_screen_at_coordinates",
            json!({"x": 5, "y": 6, "duration": 800, "settleTimeoutMs": 0, "observe": "none"}),
            vec!["long_press 5 6 800"],
        ),
        (
            "mobile_list_elements_on_screen",
            json!({"format": "json"}),
            vec!["list_elements"],
        ),
        (
            "mobile_press_button",
            json!({"button": "home", "settleTimeoutMs": 0, "observe": "none"}),
            vec!["press_button HOME"],
        ),
        (
            "mobile_open_url",
            json!({"url": "https://example.com/?q=a&b=$(id)", "settleTimeoutMs": 0, "observe": "none"}),
            vec!["open_url https://example.com/?q=a&b=$(id)"],
        ),
        (
            "mobile_swipe_on_screen",
            json!({"direction": "up", "settleTimeoutMs": 0, "observe": "none"}),
            vec!["screen_size", "swipe 540 1680 540 720"],
        ),
        (
            "mobile_type_keys",
            json!({"text": "héllo; $(x)", "submit": true, "settleTimeoutMs": 0, "observe": "none"}),
            vec!["type_text héllo; $(x)", "press_button ENTER"],
        ),
        (
            "mobile_click_on_screen_at_coordinates",
            json!({"x": 10, "y": 20}),
            // By default the screen settles (two equal element lists on a device with no
            // frame hash) and the result carries the change list (one more list).
            vec![
                "tap 10 20",
                "list_elements",
                "list_elements",
                "list_elements",
            ],
        ),
        (
            "mobile_click_on_screen_at_coordinates",
            json!({"x": 11, "y": 21, "observe": "none"}),
            // observe "none" is the bare action: no settle unless settleTimeoutMs asks.
            vec!["tap 11 21"],
        ),
        (
            "mobile_click_on_screen_at_coordinates",
            json!({"x": 12, "y": 22, "observe": "none", "settleTimeoutMs": 500}),
            vec!["tap 12 22", "list_elements", "list_elements"],
        ),
        (
            "mobile_wait_for",
            json!({"until": "settled", "timeoutMs": 3000}),
            vec!["list_elements", "list_elements"],
        ),
        ("mobile_take_screenshot", json!({}), vec!["screenshot"]),
        (
            "mobile_save_screenshot",
            json!({"saveTo": t("shot.png"), "maxSize": 100}),
            vec!["screenshot"],
        ),
        (
            "mobile_set_orientation",
            json!({"orientation": "landscape", "settleTimeoutMs": 0, "observe": "none"}),
            vec!["set_orientation landscape"],
        ),
        ("mobile_get_orientation", json!({}), vec!["orientation"]),
        (
            "mobile_set_location",
            json!({"latitude": 48.85, "longitude": 2.35}),
            vec!["set_location 48.85,2.35"],
        ),
        ("mobile_set_location", json!({}), vec!["set_location clear"]),
        ("mobile_clipboard", json!({}), vec!["clipboard"]),
        (
            "mobile_clipboard",
            json!({"text": "copied"}),
            vec!["set_clipboard copied"],
        ),
        (
            "mobile_get_device_logs",
            json!({"limit": 5, "filter": ["tag=T"]}),
            vec!["logs 5 1"],
        ),
        (
            "mobile_start_screen_recording",
            json!({"output": t("rec.mp4"), "timeLimit": 7}),
            vec!["start_recording 7"],
        ),
        (
            "mobile_stop_screen_recording",
            json!({}),
            vec!["stop_recording"],
        ),
        ("mobile_list_crashes", json!({}), vec!["crashes"]),
        ("mobile_get_crash", json!({"id": "c1"}), vec!["crash c1"]),
        ("mobile_ui_dump", json!({}), vec!["ui_dump"]),
        (
            "mobile_adb_push",
            json!({"local_path": up.display().to_string(), "remote_path": "/sdcard/Download/../up.txt"}),
            vec!["push_file /sdcard/up.txt"],
        ),
        (
            "mobile_adb_pull",
            json!({"remote_path": "/sdcard/up.txt", "local_path": t("down.txt")}),
            vec!["pull_file /sdcard/up.txt"],
        ),
        (
            "mobile_batch_commands",
            json!({"steps": [
                {"name": "mobile_press_button", "arguments": {"button": "BACK", "settleTimeoutMs": 0, "observe": "none"}},
                {"name": "mobile_type_keys", "arguments": {"text": "x", "settleTimeoutMs": 0, "observe": "none"}}
            ], "listElementsAtEnd": true}),
            vec!["press_button BACK", "type_text x", "list_elements"],
        ),
        (
            "mobile_drag_on_screen",
            json!({"from": "@e1", "to": {"x": 300, "y": "400"}, "duration": 250, "settleTimeoutMs": 0, "observe": "none"}),
            vec!["list_elements", "drag 125 210 300 400 250"],
        ),
        (
            "mobile_fold_device",
            json!({"posture": "half-open"}),
            vec!["fold half-open"],
        ),
        (
            "mobile_run_flow",
            json!({"flow": "appId: a.b\n---\n- pressKey: Home\n"}),
            vec!["press_button HOME", "list_elements", "list_elements"],
        ),
        // Export reads only what this session recorded: the run above is no agent action.
        ("mobile_export_flow", json!({}), vec![]),
    ];
    let tools: Vec<String> = h
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    for tool in &tools {
        if tool != "mobile_list_available_devices" {
            assert!(
                cases.iter().any(|(n, _, _)| n == tool),
                "no router case for {tool}"
            );
        }
    }
    for (name, mut args, expected) in cases {
        args["device"] = json!("double-1");
        let r = h.call(name, args).await;
        assert_ne!(r.is_error, Some(true), "{name}: {}", text_of(&r));
        assert_eq!(h.calls.take(), expected, "{name}");
    }
    assert_eq!(std::fs::read(tmp.path().join("down.txt")).unwrap(), b"data");
    let saved = image::open(tmp.path().join("shot.png")).unwrap();
    assert_eq!((saved.width(), saved.height()), (45, 100));
}

#[tokio::test]
async fn results_carry_text_structure_and_images() {
    let h = start(ServerOptions::default()).await;
    let r = h.call("mobile_list_available_devices", json!({})).await;
    let s = r.structured_content.clone().unwrap();
    assert_eq!(s["devices"][0]["id"], "double-1");
    assert_eq!(s["devices"][0]["type"], "emulator");
    assert!(text_of(&r).contains("double-1: Test Double (Android 14, emulator, online)"));

    let r = h
        .call("mobile_list_apps", json!({"device": "double-1"}))
        .await;
    assert_eq!(
        text_of(&r),
        "Found these apps on device: Notes (com.example.notes)"
    );
    assert_eq!(
        r.structured_content.unwrap()["apps"][0]["packageName"],
        "com.example.notes"
    );

    let r = h
        .call(
            "mobile_list_elements_on_screen",
            json!({"device": "double-1"}),
        )
        .await;
    assert!(text_of(&r).ends_with("\n@e1 Button text=\"Save\" at=125,210 size=50x20"));

    let r = h
        .call("mobile_take_screenshot", json!({"device": "double-1"}))
        .await;
    assert_eq!(r.content.len(), 2);
    assert!(text_of(&r).starts_with("Screenshot is 461x1024. Screen coordinates are 1080x2400."));
    let ContentBlock::Image(img) = &r.content[1] else {
        panic!("second block is an image");
    };
    assert_eq!(img.mime_type, "image/jpeg");
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&img.data)
        .unwrap();
    let decoded = image::load_from_memory(&bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (461, 1024));
}

#[tokio::test]
async fn bad_input_is_a_clear_error_and_reaches_no_device() {
    let h = start(ServerOptions::default()).await;
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "mobile_list_apps",
            json!({"device": "nope"}),
            "Device \"nope\" was not found",
        ),
        // The registry's next step, worded by the server with its tool's name.
        (
            "mobile_list_apps",
            json!({"device": "nope"}),
            "; call mobile_list_available_devices to see the devices",
        ),
        (
            "mobile_launch_app",
            json!({"device": "double-1", "packageName": "com.x;reboot"}),
            "not a valid app id",
        ),
        (
            "mobile_launch_app",
            json!({"device": "double-1", "packageName": "../x"}),
            "not a valid app id",
        ),
        (
            "mobile_launch_app",
            json!({"device": "double-1", "packageName": ""}),
            "not a valid app id",
        ),
        (
            "mobile_terminate_app",
            json!({"device": "double-1", "packageName": "$(reboot)"}),
            "not a valid app id",
        ),
        (
            "mobile_open_url",
            json!({"device": "double-1", "url": "javascript:alert(1)"}),
            "never allowed",
        ),
        (
            "mobile_open_url",
            json!({"device": "double-1", "url": "myapp://x"}),
            "--allow-url-scheme myapp",
        ),
        (
            "mobile_launch_app",
            json!({"device": "double-1"}),
            "mobile_launch_app needs packageName",
        ),
        (
            "mobile_launch_app",
            json!({"device": 5, "packageName": "com.x"}),
            "device must be text",
        ),
        (
            "mobile_press_button",
            json!({"device": "double-1", "button": "REBOOT"}),
            "Invalid arguments: Unknown button \"REBOOT\". Use one of: HOME, ENTER, DEL, BACK",
        ),
        (
            "mobile_click_on_screen_at_coordinates",
            json!({"device": "double-1", "x": 5}),
            "Give either ref",
        ),
        (
            "mobile_click_on_screen_at_coordinates",
            json!({"device": "double-1", "ref": "@e99"}),
            "No element \"@e99\"",
        ),
        (
            "mobile_save_screenshot",
            json!({"device": "double-1", "saveTo": "/etc/shot.png"}),
            "outside the allowed folders",
        ),
        (
            "mobile_save_screenshot",
            json!({"device": "double-1", "saveTo": "shot.gif"}),
            "must end in .png, .jpg, .jpeg",
        ),
        (
            "mobile_adb_push",
            json!({"device": "double-1", "local_path": "/etc/hostname", "remote_path": "/sdcard/x"}),
            "outside the allowed folders",
        ),
        (
            "mobile_adb_pull",
            json!({"device": "double-1", "remote_path": "sdcard/x", "local_path": "x"}),
            "not an absolute device path",
        ),
        (
            "mobile_take_screenshot",
            json!({"device": "double-1", "scale": 3}),
            "scale must be greater than 0 and at most 1",
        ),
        (
            "mobile_long_press_on_screen_at_coordinates",
            json!({"device": "double-1", "x": 1, "y": 1, "duration": 20000}),
            "duration must be 1 to 10000",
        ),
        (
            "mobile_batch_commands",
            json!({"device": "double-1", "steps": [{"name": "mobile_batch_commands"}]}),
            "not allowed in a batch",
        ),
        (
            "mobile_get_device_logs",
            json!({"device": "double-1", "filter": ["color=red"]}),
            "log filter key `color` is unknown",
        ),
        (
            "mobile_set_location",
            json!({"device": "double-1", "latitude": 1}),
            "Give both latitude and longitude",
        ),
    ];
    for (name, args, want) in cases {
        let r = h.call(name, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{name} {args}");
        let t = text_of(&r);
        assert!(t.contains(want), "{name} {args}: {t}");
    }
    // Only the screenshot call with a bad scale and the ref lookup reached the device.
    let calls = h.calls.take();
    assert_eq!(calls, vec!["list_elements", "screenshot"], "{calls:?}");
}

#[tokio::test]
async fn batch_stops_at_the_first_failure() {
    let h = start(ServerOptions::default()).await;
    let r = h
        .call(
            "mobile_batch_commands",
            json!({"device": "double-1", "steps": [
                {"name": "mobile_press_button", "arguments": {"button": "BOGUS"}},
                {"name": "mobile_press_button", "arguments": {"button": "HOME"}}
            ]}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        text_of(&r)
            .contains("Step 1 (mobile_press_button): FAILED: Invalid arguments: Unknown button")
    );
    assert!(h.calls.take().is_empty());
}

#[tokio::test]
async fn read_only_policy_hides_and_refuses_mutating_tools() {
    let options = ServerOptions {
        tools: mobile_mcp::ToolPolicy {
            read_only: true,
            allow: None,
            deny: vec!["mobile_list_crashes".into()],
        },
        ..ServerOptions::default()
    };
    let h = start(options).await;
    let names: Vec<String> = h
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"mobile_list_apps".to_string()));
    assert!(!names.contains(&"mobile_launch_app".to_string()));
    assert!(!names.contains(&"mobile_list_crashes".to_string()));
    let r = h
        .call(
            "mobile_launch_app",
            json!({"device": "double-1", "packageName": "com.x"}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    assert!(text_of(&r).contains("--read-only"), "{}", text_of(&r));
    let r = h
        .call("mobile_list_crashes", json!({"device": "double-1"}))
        .await;
    assert!(text_of(&r).contains("--deny-tools"), "{}", text_of(&r));
    assert!(h.calls.take().is_empty());
}

#[tokio::test]
async fn deny_beats_allow() {
    let options = ServerOptions {
        tools: mobile_mcp::ToolPolicy {
            read_only: false,
            allow: Some(vec!["mobile_list_apps".into(), "mobile_launch_app".into()]),
            deny: vec!["mobile_launch_app".into()],
        },
        ..ServerOptions::default()
    };
    let h = start(options).await;
    let names: Vec<String> = h
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, vec!["mobile_list_apps".to_string()]);
    let r = h
        .call(
            "mobile_launch_app",
            json!({"device": "double-1", "packageName": "com.x"}),
        )
        .await;
    assert!(text_of(&r).contains("--deny-tools"), "{}", text_of(&r));
    let r = h
        .call(
            "mobile_terminate_app",
            json!({"device": "double-1", "packageName": "com.x"}),
        )
        .await;
    assert!(text_of(&r).contains("--allow-tools"), "{}", text_of(&r));
    assert!(h.calls.take().is_empty());
}
