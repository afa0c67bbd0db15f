//! `AndroidDevice`: the `Device` trait on one phone or emulator.
//!
//! Every method builds its device command as argv arrays joined by the one quoter
//! ([`crate::quote`]), sends it in as few shell sessions as it can (each doc comment
//! gives the round-trip count), and parses the output with the pure parsers in
//! [`crate::parse`]. Input events to one device are serialized by an async mutex, so
//! two agents' taps never interleave inside a double tap or a typed string.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use base64::Engine as _;
use mobile_device::ScreenshotOptions;
use mobile_device::{
    App, AppId, Button, CoordinateUnit, Crash, Device, DeviceError, DevicePath, DeviceUrl, Element,
    ForegroundApp, Locales, Location, LogEntry, LogField, LogQuery, Orientation, PackageName,
    Platform, Point, ProgressFn, Recording, RecordingOptions, Result, ScreenSize, Screenshot,
};
use tokio::sync::{Mutex, OnceCell};

use crate::adb::{AdbResult, Hangup, Link, run, run_shell};
use crate::capture::{Route, RouteChooser};
use crate::parse;
use crate::parse::screencap::{HEADER_V2, RawFrameSink, RawOutcome};
use crate::parse::ui::DumpError;
use crate::quote::command;

/// The Android buttons, for error messages.
pub const ANDROID_BUTTONS: &str = "HOME, BACK, MENU, ENTER, VOLUME_UP, VOLUME_DOWN, POWER, DPAD_UP, DPAD_DOWN, DPAD_LEFT, DPAD_RIGHT, DPAD_CENTER";

/// The package of the ADBKeyboard IME, the route for non-ASCII text.
const ADB_KEYBOARD: &str = "com.android.adbkeyboard";

/// The capture route a device's first screenshot takes, before any measurement
/// ([`crate::capture`] then picks by measured time).
///
/// Raw (`screencap` without `-p`, 10 MB for 1080x2400) skips the PNG encode that costs a
/// phone CPU tens to hundreds of milliseconds per frame, and USB and emulator links move
/// the raw frame fast; a device reached over a real network (adb over Wi-Fi, `HOST:PORT`
/// with a non-loopback host) is bandwidth-bound, so its first guess is the ~10x smaller PNG.
fn prefers_png(link: &Link) -> bool {
    let host = match link {
        // mDNS-discovered Wi-Fi devices: `adb-SERIAL-id._adb-tls-connect._tcp`.
        Link::Server { serial, .. } if serial.contains("._adb") => return true,
        Link::Server { serial, .. } => match serial.rsplit_once(':') {
            Some((host, port)) if port.parse::<u16>().is_ok() => host.to_string(),
            _ => return false,
        },
        Link::Direct(d) => d.addr().ip().to_string(),
    };
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => !ip.is_loopback(),
        Err(_) => host != "localhost",
    }
}

struct ActiveRecording {
    device_path: String,
    output: PathBuf,
    started: Instant,
    done: tokio::sync::oneshot::Receiver<AdbResult<Vec<u8>>>,
}

/// One Android device.
pub struct AndroidDevice {
    id: String,
    link: Link,
    timeout: Duration,
    install_timeout: Duration,
    input: Mutex<()>,
    capture_route: RouteChooser,
    /// Length of this device's raw `screencap` header (16 from Android 10, else 12).
    raw_header: AtomicUsize,
    displays: OnceCell<Vec<String>>,
    recording: Mutex<Option<ActiveRecording>>,
}

impl AndroidDevice {
    pub(crate) fn new(
        id: String,
        link: Link,
        timeout: Duration,
        install_timeout: Duration,
    ) -> Self {
        AndroidDevice {
            id,
            timeout,
            install_timeout,
            input: Mutex::new(()),
            raw_header: AtomicUsize::new(HEADER_V2),
            capture_route: RouteChooser::new(if prefers_png(&link) {
                Route::Png
            } else {
                Route::Raw
            }),
            link,
            displays: OnceCell::new(),
            recording: Mutex::new(None),
        }
    }

    fn describe(&self, what: &str, e: adb_client::RustADBError) -> DeviceError {
        adb_error(&self.id, &self.link, what, e)
    }

    /// One shell session; the output as bytes.
    async fn sh_bytes(&self, what: &str, cmd: String, deadline: Duration) -> Result<Vec<u8>> {
        tracing::debug!(device = %self.id, %cmd, "shell");
        let id = self.id.clone();
        let what_owned = what.to_string();
        run_shell(&self.link, what, deadline, move |link, hangup| {
            link.shell(&cmd, hangup)
                .map_err(|e| adb_error(&id, link, &what_owned, e))
        })
        .await
    }

    /// One shell session; the output as text.
    async fn sh(&self, what: &str, cmd: String) -> Result<String> {
        let out = self.sh_bytes(what, cmd, self.timeout).await?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Several commands, one shell session each, outputs joined. Commands are never
    /// chained with `;` in one session: the test phone (like any strict auditor of
    /// what reaches `sh`) treats an unquoted operator as an injection, and one command
    /// per session keeps every line a single quoted argv.
    async fn sh_seq(&self, what: &str, cmds: &[String]) -> Result<String> {
        let mut all = String::new();
        for c in cmds {
            let out = self.sh(what, c.clone()).await?;
            all.push_str(&out);
            if !all.ends_with('\n') {
                all.push('\n');
            }
        }
        Ok(all)
    }

    /// Two independent reads, one shell session each, run at the same time (the latency of
    /// one round trip); outputs joined in order.
    async fn sh_pair(&self, what: &str, first: String, second: String) -> Result<String> {
        let (a, b) = tokio::try_join!(self.sh(what, first), self.sh(what, second))?;
        let mut all = a;
        if !all.ends_with('\n') {
            all.push('\n');
        }
        all.push_str(&b);
        Ok(all)
    }

    async fn input(&self, what: &str, cmd: String) -> Result<()> {
        self.input_all(what, &[cmd]).await
    }

    /// Input commands run back to back, with no other input to this device between them.
    async fn input_all(&self, what: &str, cmds: &[String]) -> Result<()> {
        let _turn = self.input.lock().await;
        for c in cmds {
            let out = self.sh(what, c.clone()).await?;
            check_input_output(what, &out)?;
        }
        Ok(())
    }

    fn package(app: &AppId) -> Result<PackageName> {
        app.package_name().map_err(|e| DeviceError::invalid(e.0))
    }

    fn point_args(p: Point) -> Result<[String; 2]> {
        if p.x < 0 || p.y < 0 {
            return Err(DeviceError::invalid(format!(
                "coordinates must not be negative (got {},{})",
                p.x, p.y
            )));
        }
        Ok([p.x.to_string(), p.y.to_string()])
    }

    /// The display to capture: `None` on a single-display phone (the common case; one
    /// round trip the first time, cached), else the first display that is on.
    async fn capture_display(&self) -> Result<Option<String>> {
        let ids = self
            .displays
            .get_or_try_init(|| async {
                let out = self
                    .sh(
                        "listing displays",
                        command(&["dumpsys", "SurfaceFlinger", "--display-id"])?,
                    )
                    .await?;
                Ok::<_, DeviceError>(parse::display::parse_display_ids(&out))
            })
            .await?;
        if ids.len() < 2 {
            return Ok(None);
        }
        let out = self
            .sh(
                "finding the active display",
                command(&["cmd", "display", "get-displays"])?,
            )
            .await?;
        Ok(parse::display::active_display(&out, ids).or_else(|| ids.first().cloned()))
    }

    async fn uiautomator_xml(&self) -> Result<String> {
        let tty = command(&["uiautomator", "dump", "/dev/tty"])?;
        let tmp = "/data/local/tmp/mobile-mcp-ui.xml";
        let file_route = [
            command(&["uiautomator", "dump", tmp])?,
            command(&["cat", tmp])?,
            command(&["rm", "-f", tmp])?,
        ];
        let mut last = String::new();
        let mut used_file = false;
        for attempt in 0..6 {
            let out = if used_file {
                self.sh_seq("reading the screen's elements", &file_route)
                    .await?
            } else {
                self.sh("reading the screen's elements", tty.clone())
                    .await?
            };
            match parse::ui::extract_xml(&out) {
                Ok(xml) => return Ok(xml.to_string()),
                Err(DumpError::Transient(msg)) => {
                    tracing::debug!(attempt, %msg, "uiautomator transient failure; retrying");
                    last = msg;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(DumpError::NoXml(text)) if !used_file => {
                    // Some builds cannot write to /dev/tty; dump to a file instead.
                    used_file = true;
                    last = text;
                }
                Err(DumpError::NoXml(text)) | Err(DumpError::Invalid(text)) => {
                    last = text;
                    break;
                }
            }
        }
        Err(DeviceError::backend_with_hint(
            format!("uiautomator could not dump the screen: {last}"),
            "The screen may be changing (an animation or a video); wait a moment and try again, or take a screenshot instead",
        ))
    }

    async fn adb_keyboard_state(&self) -> Result<(bool, bool)> {
        let out = self
            .sh_pair(
                "checking the keyboard",
                command(&["settings", "get", "secure", "default_input_method"])?,
                command(&["pm", "path", ADB_KEYBOARD])?,
            )
            .await?;
        let active = out.lines().next().unwrap_or("").contains(ADB_KEYBOARD);
        let installed = out.contains("package:");
        Ok((active, installed))
    }
}

/// `input` prints nothing on success; anything that looks like an error is reported.
fn check_input_output(what: &str, out: &str) -> Result<()> {
    let t = out.trim();
    let bad = [
        "Error",
        "Exception",
        "not found",
        "Usage:",
        "inaccessible or not found",
    ];
    if bad.iter().any(|b| t.contains(b)) {
        return Err(DeviceError::backend(format!(
            "{what} failed on the device: {}",
            first_lines(t)
        )));
    }
    Ok(())
}

fn first_lines(t: &str) -> String {
    t.lines().take(3).collect::<Vec<_>>().join(" / ")
}

/// Gives an adb_client failure a message about this device.
pub(crate) fn adb_error(
    id: &str,
    link: &Link,
    what: &str,
    e: adb_client::RustADBError,
) -> DeviceError {
    let text = e.to_string();
    let where_ = match link {
        Link::Server { addr, .. } => format!("the adb server at {addr}"),
        Link::Direct(d) => format!("{}", d.addr()),
    };
    let lower = text.to_ascii_lowercase();
    if lower.contains("not found") && lower.contains("device") {
        return DeviceError::NotFound {
            what: format!("Device \"{id}\""),
            hint: Some(format!("It is no longer connected to {where_}")),
            next: Some(mobile_device::NextStep::ListDevices),
        };
    }
    if lower.contains("offline") {
        return DeviceError::backend_with_hint(
            format!("Device \"{id}\" went offline during {what}"),
            "Reconnect it (or run `adb reconnect offline`) and call mobile_list_available_devices",
        );
    }
    if lower.contains("unauthorized") {
        return DeviceError::backend_with_hint(
            format!("Device \"{id}\" is unauthorized"),
            "Accept the \"Allow USB debugging\" prompt on the phone",
        );
    }
    if let adb_client::RustADBError::IOError(io) = &e {
        use std::io::ErrorKind::*;
        if matches!(
            io.kind(),
            ConnectionRefused
                | ConnectionReset
                | ConnectionAborted
                | BrokenPipe
                | UnexpectedEof
                | NotConnected
        ) {
            return DeviceError::backend_with_hint(
                format!("lost the connection to {where_} during {what} on \"{id}\": {io}"),
                "The device or the adb server went away; call mobile_list_available_devices",
            );
        }
    }
    DeviceError::backend(format!("{what} on \"{id}\" failed: {text}"))
}

fn keycode(button: Button) -> Option<&'static str> {
    Some(match button {
        Button::Home => "KEYCODE_HOME",
        Button::Back => "KEYCODE_BACK",
        Button::Menu => "KEYCODE_MENU",
        Button::Enter => "KEYCODE_ENTER",
        Button::VolumeUp => "KEYCODE_VOLUME_UP",
        Button::VolumeDown => "KEYCODE_VOLUME_DOWN",
        Button::Power => "KEYCODE_POWER",
        Button::DpadUp => "KEYCODE_DPAD_UP",
        Button::DpadDown => "KEYCODE_DPAD_DOWN",
        Button::DpadLeft => "KEYCODE_DPAD_LEFT",
        Button::DpadRight => "KEYCODE_DPAD_RIGHT",
        Button::DpadCenter => "KEYCODE_DPAD_CENTER",
        Button::Lock | Button::SideButton | Button::Siri | Button::ApplePay => return None,
    })
}

/// Splits printable-ASCII text into `input text` arguments.
///
/// `input text` turns `%s` into a space, so spaces are sent as `%s`; a literal `%`
/// followed by `s` cannot be said inside one argument, so the text is cut between them
/// and sent as two `input text` commands (in the same shell session). Newline and tab
/// become key events.
pub fn input_text_commands(text: &str) -> Result<Vec<Vec<String>>> {
    let mut cmds: Vec<Vec<String>> = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, cmds: &mut Vec<Vec<String>>| {
        if !cur.is_empty() {
            cmds.push(vec!["input".into(), "text".into(), std::mem::take(cur)]);
        }
    };
    let mut prev_percent = false;
    for c in text.chars() {
        match c {
            '\n' | '\r' => {
                flush(&mut cur, &mut cmds);
                cmds.push(vec![
                    "input".into(),
                    "keyevent".into(),
                    "KEYCODE_ENTER".into(),
                ]);
                prev_percent = false;
                continue;
            }
            '\t' => {
                flush(&mut cur, &mut cmds);
                cmds.push(vec![
                    "input".into(),
                    "keyevent".into(),
                    "KEYCODE_TAB".into(),
                ]);
                prev_percent = false;
                continue;
            }
            ' ' => cur.push_str("%s"),
            's' if prev_percent => {
                flush(&mut cur, &mut cmds);
                cur.push('s');
            }
            c if c.is_ascii_graphic() => cur.push(c),
            c => {
                return Err(DeviceError::invalid(format!(
                    "character {c:?} cannot be typed with `input text`"
                )));
            }
        }
        prev_percent = c == '%';
    }
    flush(&mut cur, &mut cmds);
    Ok(cmds)
}

/// Decodes what `input text ARG` types, as Android's `InputShellCommand` does (`%s` is a
/// space, any other `%` is literal). Used by the tests to check [`input_text_commands`].
pub fn input_text_decode(arg: &str) -> String {
    arg.replace("%s", " ")
}

#[async_trait]
impl Device for AndroidDevice {
    fn id(&self) -> &str {
        &self.id
    }

    fn platform(&self) -> Platform {
        Platform::Android
    }
    fn coordinate_unit(&self) -> CoordinateUnit {
        CoordinateUnit::Pixels
    }

    /// 1 round trip: `cmd package query-activities -a MAIN -c LAUNCHER`.
    async fn list_apps(&self) -> Result<Vec<App>> {
        let out = self
            .sh(
                "listing apps",
                command(&[
                    "cmd",
                    "package",
                    "query-activities",
                    "-a",
                    "android.intent.action.MAIN",
                    "-c",
                    "android.intent.category.LAUNCHER",
                ])?,
            )
            .await?;
        if out.contains("Unknown command") || out.contains("Can't find service") {
            return Err(DeviceError::unsupported_with_hint(
                "listing launchable apps",
                Platform::Android,
                "`cmd package query-activities` needs Android 7 or later",
            ));
        }
        Ok(parse::apps::parse_launcher_apps(&out))
    }

    /// 2 round trips: `cmd package resolve-activity --brief PKG`, then `am start -n
    /// PKG/ACT` (3 with a locale: `cmd locale set-app-locales PKG --locales L` first). A
    /// package whose launcher activity does not resolve falls back to `monkey -p PKG -c
    /// android.intent.category.LAUNCHER 1`.
    async fn launch_app(&self, app: &AppId, locales: Option<&Locales>) -> Result<()> {
        let pkg = Self::package(app)?;
        if let Some(l) = locales {
            let out = self
                .sh(
                    "setting the app's locale",
                    command(&[
                        "cmd",
                        "locale",
                        "set-app-locales",
                        pkg.as_str(),
                        "--locales",
                        l.as_str(),
                    ])?,
                )
                .await?;
            if out.contains("Unknown command") || out.contains("Exception") || out.contains("Error")
            {
                return Err(DeviceError::unsupported_with_hint(
                    "launching an app in a given locale",
                    Platform::Android,
                    format!(
                        "the device refused `cmd locale set-app-locales` ({}); per-app locales need Android 13 or later",
                        first_lines(&out)
                    ),
                ));
            }
        }
        let out = self
            .sh(
                "launching the app",
                command(&[
                    "cmd",
                    "package",
                    "resolve-activity",
                    "--brief",
                    pkg.as_str(),
                ])?,
            )
            .await?;
        let _turn = self.input.lock().await;
        if let Some(component) = parse::apps::parse_resolve_activity(&out) {
            let out = self
                .sh(
                    "launching the app",
                    command(&["am", "start", "-n", &component])?,
                )
                .await?;
            if out.contains("Error") {
                return Err(DeviceError::backend(format!(
                    "the device could not start {component}: {}",
                    first_lines(&out)
                )));
            }
            return Ok(());
        }
        let out = self
            .sh(
                "launching the app",
                command(&[
                    "monkey",
                    "-p",
                    pkg.as_str(),
                    "-c",
                    "android.intent.category.LAUNCHER",
                    "1",
                ])?,
            )
            .await?;
        if out.contains("No activities found") || out.contains("aborted") || out.contains("Error") {
            return Err(DeviceError::not_found(
                format!("A launchable app \"{pkg}\""),
                "Call mobile_list_apps to see the installed apps",
            ));
        }
        Ok(())
    }

    /// 1 round trip: `am force-stop PKG`.
    async fn terminate_app(&self, app: &AppId) -> Result<()> {
        let pkg = Self::package(app)?;
        let out = self
            .sh(
                "stopping the app",
                command(&["am", "force-stop", pkg.as_str()])?,
            )
            .await?;
        if out.contains("Error") || out.contains("Exception") {
            return Err(DeviceError::backend(format!(
                "the device could not stop {pkg}: {}",
                first_lines(&out)
            )));
        }
        Ok(())
    }

    /// 1 streamed session, `exec:cmd package install -S SIZE` with the APK as input
    /// (see `adb::transport::Link::install`); progress as the bytes go through a server.
    async fn install_app(&self, path: &Path, progress: Option<ProgressFn>) -> Result<()> {
        let is_apk = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("apk"));
        if !is_apk {
            return Err(DeviceError::invalid(format!(
                "{} is not an .apk file; Android installs only .apk packages (split APKs and .aab bundles are not supported)",
                path.display()
            )));
        }
        if !path.is_file() {
            return Err(DeviceError::not_found(
                format!("The file {}", path.display()),
                "Give the path of an existing .apk on this machine",
            ));
        }
        let link = self.link.clone();
        let id = self.id.clone();
        let apk = path.to_path_buf();
        // Dropped with this future (the client cancelled, or the deadline passed): the
        // upload running on the blocking thread stops at its next read.
        let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = cancel.0.clone();
        let result = run(
            "installing the app",
            self.install_timeout,
            self.link.on_timeout(),
            move || {
                link.install(&apk, progress, flag).map_err(|e| match e {
                    adb_client::RustADBError::ADBRequestFailed(msg) => DeviceError::backend(
                        format!("the device refused the package: {}", msg.trim()),
                    ),
                    adb_client::RustADBError::WrongFileExtension(_) => DeviceError::invalid(
                        format!("rename {} to end in lowercase .apk", apk.display()),
                    ),
                    e => adb_error(&id, &link, "installing the app", e),
                })
            },
        )
        .await;
        drop(cancel);
        result
    }

    /// 1 round trip: `pm uninstall PKG`.
    async fn uninstall_app(&self, app: &AppId) -> Result<()> {
        let pkg = Self::package(app)?;
        let out = self
            .sh(
                "uninstalling the app",
                command(&["pm", "uninstall", pkg.as_str()])?,
            )
            .await?;
        if out.contains("Success") {
            return Ok(());
        }
        if out.contains("DELETE_FAILED_INTERNAL_ERROR") || out.contains("Unknown package") {
            return Err(DeviceError::not_found(
                format!("An uninstallable app \"{pkg}\""),
                "It is not installed (call mobile_list_apps), or it is a system app, which cannot be uninstalled",
            ));
        }
        Err(DeviceError::backend(format!(
            "the device did not uninstall {pkg}: {}",
            first_lines(&out)
        )))
    }

    /// 1 round trip: `dumpsys window displays` (focus lines); a second one,
    /// `dumpsys window windows`, only on old builds that print no focus there.
    async fn foreground_app(&self) -> Result<ForegroundApp> {
        let out = self
            .sh(
                "reading the foreground app",
                command(&["dumpsys", "window", "displays"])?,
            )
            .await?;
        if let Some(app) = parse::window::parse_focus(&out) {
            return Ok(app);
        }
        let out = self
            .sh(
                "reading the foreground app",
                command(&["dumpsys", "window", "windows"])?,
            )
            .await?;
        parse::window::parse_focus(&out).ok_or_else(|| {
            DeviceError::not_found(
                "A focused app",
                "The screen may be off or locked; press POWER or HOME and try again",
            )
        })
    }

    /// 2 round trips at once: `wm size`, `wm density`.
    async fn screen_size(&self) -> Result<ScreenSize> {
        let out = self
            .sh_pair(
                "reading the screen size",
                command(&["wm", "size"])?,
                command(&["wm", "density"])?,
            )
            .await?;
        parse::display::parse_wm(&out).ok_or_else(|| {
            DeviceError::backend(format!("`wm size` printed no size: {}", first_lines(&out)))
        })
    }

    /// 1 round trip: `screencap` (raw RGBA, no PNG encode on the phone, scaled while it
    /// arrives) or `screencap -p`, whichever has been faster on this device
    /// (`capture.rs`); a multi-display phone adds `dumpsys SurfaceFlinger
    /// --display-id` once and `cmd display get-displays` per capture, and captures with
    /// `-d ID`. A phone whose raw header is the pre-Android-10 one costs one more capture,
    /// once.
    async fn screenshot(&self, want: &ScreenshotOptions) -> Result<Screenshot> {
        let display = self.capture_display().await?;
        let mut argv = vec!["screencap".to_string()];
        if let Some(d) = &display {
            argv.push("-d".into());
            argv.push(d.clone());
        }
        let route = self.capture_route.next();
        if route == Route::Raw {
            for _ in 0..2 {
                let started = Instant::now();
                let header = self.raw_header.load(Ordering::Relaxed);
                let mut sink = RawFrameSink::new(*want, header);
                let cmd = command(&argv)?;
                let id = self.id.clone();
                let sink = run_shell(
                    &self.link,
                    "taking a screenshot",
                    self.timeout,
                    move |link, hangup| {
                        link.shell_to(&cmd, &mut sink, hangup)
                            .map_err(|e| adb_error(&id, link, "taking a screenshot", e))?;
                        Ok(sink)
                    },
                )
                .await?;
                match sink.finish() {
                    RawOutcome::Frame(s) => {
                        self.capture_route.record(route, started.elapsed());
                        return Ok(s);
                    }
                    RawOutcome::OtherHeader(len) => self.raw_header.store(len, Ordering::Relaxed),
                    RawOutcome::Unreadable(why) => {
                        tracing::debug!(device = %self.id, %why, "raw screencap unreadable; PNG from now on");
                        break;
                    }
                }
            }
            // Not a frame the pipeline reads: PNG from now on.
            self.capture_route.give_up(Route::Raw);
        }
        argv.insert(1, "-p".into());
        let started = Instant::now();
        let bytes = self
            .sh_bytes("taking a screenshot", command(&argv)?, self.timeout)
            .await?;
        if route == Route::Png {
            self.capture_route.record(Route::Png, started.elapsed());
        }
        png_capture(bytes)
    }

    /// 1 round trip (`uiautomator dump /dev/tty`), retried on uiautomator's known
    /// transient failures.
    async fn list_elements(&self) -> Result<Vec<Element>> {
        let xml = self.uiautomator_xml().await?;
        parse::ui::parse_elements(&xml)
            .map_err(|e| DeviceError::backend(format!("uiautomator's dump did not parse: {e:?}")))
    }

    async fn ui_dump(&self) -> Result<String> {
        self.uiautomator_xml().await
    }

    /// 1 round trip: `input tap X Y`.
    async fn tap(&self, at: Point) -> Result<()> {
        let [x, y] = Self::point_args(at)?;
        self.input("tapping", command(&["input", "tap", &x, &y])?)
            .await
    }

    /// 2 round trips, back to back under the input lock: `input tap X Y` twice.
    async fn double_tap(&self, at: Point) -> Result<()> {
        let [x, y] = Self::point_args(at)?;
        let tap = command(&["input", "tap", &x, &y])?;
        self.input_all("double tapping", &[tap.clone(), tap]).await
    }

    /// 1 round trip: `input swipe X Y X Y MS`.
    async fn long_press(&self, at: Point, duration: Duration) -> Result<()> {
        let [x, y] = Self::point_args(at)?;
        let ms = duration.as_millis().max(1).to_string();
        self.input(
            "long pressing",
            command(&["input", "swipe", &x, &y, &x, &y, &ms])?,
        )
        .await
    }

    /// 1 round trip: `input swipe X1 Y1 X2 Y2 MS`.
    async fn swipe(&self, from: Point, to: Point, duration: Duration) -> Result<()> {
        let [x1, y1] = Self::point_args(from)?;
        let [x2, y2] = Self::point_args(to)?;
        let ms = duration.as_millis().max(1).to_string();
        self.input(
            "swiping",
            command(&["input", "swipe", &x1, &y1, &x2, &y2, &ms])?,
        )
        .await
    }

    /// ASCII: 1 round trip `input text ARG` (one more per `%s` cut and per newline or
    /// tab key event; see [`input_text_commands`]). Other text: 2 round trips to check
    /// for the ADBKeyboard IME (`settings get secure default_input_method`, `pm path`),
    /// then 1 broadcast
    /// `am broadcast -a ADB_INPUT_B64 --es msg BASE64` to it.
    async fn type_text(&self, text: &str) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if text.contains('\0') {
            return Err(DeviceError::invalid("text cannot contain NUL characters"));
        }
        let ascii = text
            .chars()
            .all(|c| c.is_ascii_graphic() || matches!(c, ' ' | '\n' | '\r' | '\t'));
        if ascii {
            let cmds = input_text_commands(text)?
                .iter()
                .map(|argv| command(argv))
                .collect::<Result<Vec<_>>>()?;
            return self.input_all("typing text", &cmds).await;
        }
        let (active, installed) = self.adb_keyboard_state().await?;
        if !active {
            let hint = if installed {
                format!(
                    "ADBKeyboard is installed but not the current keyboard: run `adb shell ime enable {ADB_KEYBOARD}/.AdbIME` and `adb shell ime set {ADB_KEYBOARD}/.AdbIME`"
                )
            } else {
                format!(
                    "install the ADBKeyboard IME ({ADB_KEYBOARD}) and make it the current keyboard (`ime enable` / `ime set {ADB_KEYBOARD}/.AdbIME`)"
                )
            };
            return Err(DeviceError::unsupported_with_hint(
                "typing non-ASCII text",
                Platform::Android,
                format!("`input text` only types ASCII; {hint}"),
            ));
        }
        let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        let out = {
            let _turn = self.input.lock().await;
            self.sh(
                "typing text",
                command(&[
                    "am",
                    "broadcast",
                    "-a",
                    "ADB_INPUT_B64",
                    "--es",
                    "msg",
                    &b64,
                ])?,
            )
            .await?
        };
        if out.contains("Error") || out.contains("Exception") {
            return Err(DeviceError::backend(format!(
                "ADBKeyboard did not accept the text: {}",
                first_lines(&out)
            )));
        }
        Ok(())
    }

    /// 1 round trip: `input keyevent KEYCODE_…`.
    async fn press_button(&self, button: Button) -> Result<()> {
        let Some(code) = keycode(button) else {
            return Err(DeviceError::unsupported_with_hint(
                format!("the {button} button"),
                Platform::Android,
                format!("Android buttons are {ANDROID_BUTTONS}"),
            ));
        };
        self.input("pressing a button", command(&["input", "keyevent", code])?)
            .await
    }

    /// 1 round trip: `am start -a android.intent.action.VIEW -d URL`.
    async fn open_url(&self, url: &DeviceUrl) -> Result<()> {
        let out = self
            .sh(
                "opening the URL",
                command(&[
                    "am",
                    "start",
                    "-a",
                    "android.intent.action.VIEW",
                    "-d",
                    url.as_str(),
                ])?,
            )
            .await?;
        if out.contains("Error") {
            return Err(DeviceError::backend_with_hint(
                format!("the device could not open the URL: {}", first_lines(&out)),
                "No installed app handles this URL",
            ));
        }
        Ok(())
    }

    /// 1 round trip: `settings get system user_rotation`.
    async fn orientation(&self) -> Result<Orientation> {
        let out = self
            .sh(
                "reading the orientation",
                command(&["settings", "get", "system", "user_rotation"])?,
            )
            .await?;
        parse::display::parse_user_rotation(&out).ok_or_else(|| {
            DeviceError::backend(format!("unexpected user_rotation: {}", first_lines(&out)))
        })
    }

    /// 2 round trips: `settings put system accelerometer_rotation 0`, `settings put
    /// system user_rotation N`.
    async fn set_orientation(&self, orientation: Orientation) -> Result<()> {
        let n = match orientation {
            Orientation::Portrait => "0",
            Orientation::Landscape => "1",
        };
        let out = self
            .sh_seq(
                "changing the orientation",
                &[
                    command(&["settings", "put", "system", "accelerometer_rotation", "0"])?,
                    command(&["settings", "put", "system", "user_rotation", n])?,
                ],
            )
            .await?;
        if out.contains("Exception") || out.contains("Error") {
            return Err(DeviceError::backend(format!(
                "the device refused the orientation change: {}",
                first_lines(&out)
            )));
        }
        Ok(())
    }

    /// 1 round trip: `logcat -d -v threadtime -t N` (without `-t` when filters are
    /// given, so the limit applies after filtering); with a `process` filter, one more:
    /// `ps -A -o PID=,NAME=` to name the pids.
    async fn logs(&self, query: &LogQuery) -> Result<Vec<LogEntry>> {
        let limit = if query.limit == 0 {
            100
        } else {
            query.limit.min(10_000)
        };
        let mut logcat: Vec<String> = vec![
            "logcat".into(),
            "-d".into(),
            "-v".into(),
            "threadtime".into(),
        ];
        if query.filters.is_empty() {
            logcat.push("-t".into());
            logcat.push(limit.to_string());
        }
        let wants_process = query.filters.iter().any(|f| f.key == LogField::Process);
        let ps = if wants_process {
            self.sh(
                "listing processes",
                command(&["ps", "-A", "-o", "PID=,NAME="])?,
            )
            .await?
        } else {
            String::new()
        };
        let log = self.sh("reading the device log", command(&logcat)?).await?;
        let log = log.as_str();
        let names = parse::logcat::parse_ps_names(&ps);
        let mut entries = parse::logcat::parse_threadtime(log);
        if wants_process {
            for e in &mut entries {
                e.process = e.pid.and_then(|p| names.get(&p).cloned());
            }
        }
        entries.retain(|e| query.filters.iter().all(|f| f.matches(e)));
        let skip = entries.len().saturating_sub(limit);
        Ok(entries.split_off(skip))
    }

    /// 1 round trip: `logcat -b crash -d -v threadtime`.
    async fn crashes(&self) -> Result<Vec<Crash>> {
        let out = self.sh("listing crashes", crash_command()?).await?;
        Ok(parse::logcat::parse_crashes(&out)
            .into_iter()
            .map(|c| c.crash)
            .collect())
    }

    /// 1 round trip: the crash buffer again, then the crash with this id.
    async fn crash(&self, id: &str) -> Result<String> {
        let out = self.sh("reading a crash", crash_command()?).await?;
        parse::logcat::parse_crashes(&out)
            .into_iter()
            .find(|c| c.crash.id == id)
            .map(|c| c.text)
            .ok_or_else(|| {
                DeviceError::not_found(
                    format!("Crash \"{id}\""),
                    "Crash ids come from mobile_list_crashes; the crash buffer may have rotated",
                )
            })
    }

    /// 1 sync session (`SEND`).
    async fn push_file(&self, local: &Path, remote: &DevicePath) -> Result<u64> {
        if !local.is_file() {
            return Err(DeviceError::not_found(
                format!("The local file {}", local.display()),
                "Give the path of an existing file on this machine",
            ));
        }
        let link = self.link.clone();
        let id = self.id.clone();
        let (local, remote) = (local.to_path_buf(), remote.as_str().to_string());
        run(
            "pushing the file",
            self.install_timeout,
            self.link.on_timeout(),
            move || {
                link.push(&local, &remote)
                    .map_err(|e| adb_error(&id, &link, &format!("pushing to {remote}"), e))
            },
        )
        .await
    }

    /// 1 sync session (`RECV`).
    async fn pull_file(&self, remote: &DevicePath, local: &Path) -> Result<u64> {
        let link = self.link.clone();
        let id = self.id.clone();
        let (local, remote) = (local.to_path_buf(), remote.as_str().to_string());
        run(
            "pulling the file",
            self.install_timeout,
            self.link.on_timeout(),
            move || {
                link.pull(&remote, &local).map_err(|e| {
                    let text = e.to_string();
                    if text.contains("No such file")
                        || text.contains("does not exist")
                        || text.contains("FAIL")
                    {
                        DeviceError::not_found(format!("The device file {remote}"), text)
                    } else {
                        adb_error(&id, &link, &format!("pulling {remote}"), e)
                    }
                })
            },
        )
        .await
    }

    /// Starts `screenrecord --time-limit N /sdcard/mobile-mcp-….mp4` in its own shell
    /// session, which stays open while it records.
    async fn start_recording(&self, options: &RecordingOptions) -> Result<()> {
        let mut slot = self.recording.lock().await;
        if slot.is_some() {
            return Err(DeviceError::invalid(
                "a screen recording is already running on this device; stop it first",
            ));
        }
        let limit = options
            .time_limit
            .map(|d| d.as_secs().clamp(1, 180))
            .unwrap_or(180);
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let device_path = format!("/sdcard/mobile-mcp-{millis}.mp4");
        let cmd = command(&[
            "screenrecord",
            "--time-limit",
            &limit.to_string(),
            &device_path,
        ])?;
        let link = self.link.fork();
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("screenrecord".into())
            .spawn(move || {
                // Stopped with `pkill -INT` (so the file is finalized), never hung up.
                let _ = tx.send(link.shell(&cmd, &Hangup::default()));
            })
            .map_err(|e| DeviceError::backend(format!("cannot start the recorder: {e}")))?;
        // A recorder that fails (missing binary, no permission) ends at once.
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Ok(done) = rx.try_recv() {
            let out = done.map_err(|e| self.describe("screen recording", e))?;
            return Err(DeviceError::backend(format!(
                "screenrecord stopped at once: {}",
                first_lines(&String::from_utf8_lossy(&out))
            )));
        }
        *slot = Some(ActiveRecording {
            device_path,
            output: options.output.clone(),
            started: Instant::now(),
            done: rx,
        });
        Ok(())
    }

    /// 1 round trip `pkill -INT screenrecord`, a wait for the file to be finalized, 1
    /// sync session to pull it, 1 round trip `rm -f`.
    async fn stop_recording(&self) -> Result<Recording> {
        let Some(rec) = self.recording.lock().await.take() else {
            return Err(DeviceError::invalid(
                "no screen recording is running on this device; start one first",
            ));
        };
        let duration = rec.started.elapsed();
        self.sh(
            "stopping the recording",
            command(&["pkill", "-INT", "screenrecord"])?,
        )
        .await?;
        match tokio::time::timeout(Duration::from_secs(15), rec.done).await {
            Ok(_) => {}
            Err(_) => tracing::warn!("screenrecord did not exit 15 s after SIGINT"),
        }
        let remote = DevicePath::parse(&rec.device_path).map_err(|e| DeviceError::invalid(e.0))?;
        let bytes = self.pull_file(&remote, &rec.output).await.map_err(|e| {
            DeviceError::backend(format!(
                "the recording could not be copied from {} (it is left on the device): {e}",
                rec.device_path
            ))
        })?;
        let _ = self
            .sh(
                "removing the recording from the device",
                command(&["rm", "-f", &rec.device_path])?,
            )
            .await;
        Ok(Recording {
            path: rec.output,
            bytes,
            duration,
        })
    }

    async fn clipboard(&self) -> Result<String> {
        Err(DeviceError::unsupported_with_hint(
            "reading the clipboard",
            Platform::Android,
            "Android has no shell command for the clipboard (apps read it only while in front); copy the text into a field and read it with mobile_list_elements_on_screen",
        ))
    }

    async fn set_clipboard(&self, _text: &str) -> Result<()> {
        Err(DeviceError::unsupported_with_hint(
            "setting the clipboard",
            Platform::Android,
            "Android has no shell command for the clipboard; type the text with mobile_type_keys instead",
        ))
    }

    async fn set_location(&self, _location: Option<Location>) -> Result<()> {
        Err(DeviceError::unsupported_with_hint(
            "setting the location",
            Platform::Android,
            "Android has no shell command for a mock location: on an emulator use its console (`adb emu geo fix LONGITUDE LATITUDE`); on a phone select a mock-location app in Developer options",
        ))
    }
}

fn crash_command() -> Result<String> {
    command(&["logcat", "-b", "crash", "-d", "-v", "threadtime"])
}

fn png_capture(bytes: Vec<u8>) -> Result<Screenshot> {
    const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
    let Some(start) = bytes.windows(MAGIC.len()).position(|w| w == MAGIC) else {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
        return Err(DeviceError::backend(format!(
            "screencap returned no image: {}",
            first_lines(&text)
        )));
    };
    let mut bytes = bytes;
    bytes.drain(..start);
    Ok(Screenshot {
        format: mobile_device::CaptureFormat::Png,
        bytes,
    })
}

/// Keeps the device type nameable from outside (`Arc<AndroidDevice>` as `Arc<dyn Device>`).
pub(crate) fn into_dyn(d: AndroidDevice) -> Arc<dyn Device> {
    Arc::new(d)
}

/// Sets its flag when dropped, so blocking work can see that its caller went away.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn typed(cmds: &[Vec<String>]) -> String {
        cmds.iter()
            .map(|c| match c[1].as_str() {
                "text" => input_text_decode(&c[2]),
                "keyevent" if c[2] == "KEYCODE_ENTER" => "\n".to_string(),
                "keyevent" => "\t".to_string(),
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn spaces_and_percent_s() {
        let c = input_text_commands("hello world").unwrap();
        assert_eq!(c, vec![vec!["input", "text", "hello%sworld"]]);
        let c = input_text_commands("100%sure").unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(typed(&c), "100%sure");
        assert_eq!(
            typed(&input_text_commands("a\nb\tc % s").unwrap()),
            "a\nb\tc % s"
        );
        assert!(input_text_commands("é").is_err());
    }

    proptest! {
        #[test]
        fn typed_text_decodes_to_itself(s in "[ -~\\n\\t]{0,60}") {
            let c = input_text_commands(&s).unwrap();
            prop_assert_eq!(typed(&c), s);
        }
    }

    #[test]
    fn png_only_over_a_real_network() {
        let server = |serial: &str| Link::Server {
            addr: "127.0.0.1:5037".parse().unwrap(),
            serial: serial.into(),
        };
        assert!(!prefers_png(&server("emulator-5554")));
        assert!(!prefers_png(&server("R58M12ABCDE")));
        assert!(!prefers_png(&server("127.0.0.1:15555")));
        assert!(prefers_png(&server("192.168.1.20:5555")));
        assert!(prefers_png(&server(
            "adb-R58M-abc._adb-tls-connect._tcp:37000"
        )));
        let direct = |a: &str| {
            Link::Direct(std::sync::Arc::new(crate::adb::transport::DirectLink::new(
                a.parse().unwrap(),
            )))
        };
        assert!(!prefers_png(&direct("127.0.0.1:15555")));
        assert!(prefers_png(&direct("10.0.0.9:5555")));
    }

    #[test]
    fn buttons_map_and_ios_ones_do_not() {
        assert_eq!(keycode(Button::Home), Some("KEYCODE_HOME"));
        assert_eq!(keycode(Button::DpadCenter), Some("KEYCODE_DPAD_CENTER"));
        assert_eq!(keycode(Button::Siri), None);
    }

    #[test]
    fn png_magic_is_found() {
        let mut b = b"WARNING: x\n".to_vec();
        b.extend_from_slice(b"\x89PNG\r\n\x1a\nrest");
        assert!(png_capture(b).unwrap().bytes.starts_with(b"\x89PNG"));
        assert!(png_capture(b"Error: no display".to_vec()).is_err());
    }
}
