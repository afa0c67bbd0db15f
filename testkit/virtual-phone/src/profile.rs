//! Device profiles: how a real phone differs from the default virtual Pixel, chosen per test
//! (the `profile` field of [`crate::state::PhoneState`], so a scenario JSON can carry it too).
//!
//! Each behaviour here is modelled on a cited AOSP source or public capture, listed in
//! `testkit/virtual-phone/fixtures/SOURCES.md` (the "Profiles" section), never on what a
//! backend expects. The commands in `crate::commands` ask this module what to do; a
//! default [`Profile`] changes nothing, so scenarios without one behave as before.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::state::{Element, ElementKind, PhoneState, Screen};

/// The system chooser `PackageManager.resolveIntent` answers with when several activities
/// match an intent equally well (AOSP `com.android.internal.app.ResolverActivity`).
pub const RESOLVER_ACTIVITY: &str = "com.android.internal.app.ResolverActivity";

/// `ViewConfiguration.DOUBLE_TAP_TIMEOUT`: the most time from the first tap's up to the
/// second tap's down for `GestureDetector` to see a double tap.
pub const DOUBLE_TAP_TIMEOUT_MS: u64 = 300;
/// `ViewConfiguration.DOUBLE_TAP_MIN_TIME`: taps closer together than this are not one.
pub const DOUBLE_TAP_MIN_TIME_MS: u64 = 40;

/// Virtual milliseconds `monkey` takes to start (an `app_process` VM on every release).
pub const MONKEY_START_MS: u64 = 500;
/// Virtual milliseconds `uiautomator dump` waits for an idle screen before giving up
/// (`DumpCommand`: `waitForIdle(1000, 1000 * 10)`).
pub const IDLE_TIMEOUT_MS: u64 = 10_000;

/// A device profile: the release and the traits that differ between phones and apps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Profile {
    /// `ro.build.version.sdk` (26 = Android 8.0, 29 = 10, 31 = 12, 34 = 14).
    pub sdk: u32,
    /// The panel's natural orientation is landscape (tablets, TVs): `wm size` prints the
    /// landscape size and rotation 0 is landscape.
    pub landscape_natural: bool,
    /// The device has no hardware keys (most TVs and many emulators): `monkey` refuses its
    /// default system-key event share.
    pub no_hardware_keys: bool,
    /// The keyguard (lock screen) is in front of the apps.
    pub keyguard: bool,
    /// Apps label themselves with string resources, so `nonLocalizedLabel=null` for every
    /// app in `cmd package query-activities` (what nearly every real app does).
    pub resource_labels: bool,
    /// More MAIN/LAUNCHER activities per package (full class names), besides the one in
    /// the package's `launcher_activity`.
    pub extra_launchers: BTreeMap<String, Vec<String>>,
    /// Packages that ask for a fixed rotation (`screenOrientation=landscape` is 1) while
    /// they are in front, whatever `user_rotation` says.
    pub app_rotation: BTreeMap<String, u32>,
    /// The foreground screen never goes idle (an animation, a video): `uiautomator dump`
    /// fails with "could not get idle state".
    pub animated: bool,
    /// Another UiAutomation client (an Appium server, a running instrumentation) is
    /// connected: `uiautomator dump` cannot register its own.
    pub other_uiautomation: bool,
    /// A native crash (a `libc` fatal signal and its `DEBUG` tombstone) in the crash buffer.
    pub native_crash: bool,
    /// What the virtual clock and input records hold (see [`Clock`]).
    pub clock: Clock,
    /// `/system/bin/app_process` is not there for the shell (a locked-down build): the
    /// shell answers `inaccessible or not found` (`commands/app_process.rs`).
    pub no_app_process: bool,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            sdk: 34,
            landscape_natural: false,
            no_hardware_keys: false,
            keyguard: false,
            resource_labels: false,
            extra_launchers: BTreeMap::new(),
            app_rotation: BTreeMap::new(),
            animated: false,
            other_uiautomation: false,
            native_crash: false,
            clock: Clock::default(),
            no_app_process: false,
        }
    }
}

/// A virtual clock for costs that are real time on a phone (a VM start per `input` call),
/// so tests can judge timing without sleeping; and the gestures it makes of taps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Clock {
    /// Virtual milliseconds spent in commands that cost time.
    pub now_ms: u64,
    /// Processes started for `input` (one Java VM each on Android 8–11).
    pub input_vms: u32,
    /// The last tap: (virtual ms, x, y).
    pub last_tap: Option<(u64, f64, f64)>,
    /// Taps that followed another at the same place within the double-tap window.
    pub double_taps: u32,
}

impl Profile {
    /// The default phone on Android release `sdk`.
    pub fn android(sdk: u32) -> Self {
        Profile {
            sdk,
            ..Profile::default()
        }
    }

    /// `ro.build.version.release` for the SDK level.
    pub fn release(&self) -> &'static str {
        match self.sdk {
            0..=25 => "7.1.1",
            26 => "8.0.0",
            27 => "8.1.0",
            28 => "9",
            29 => "10",
            30 => "11",
            31 | 32 => "12",
            33 => "13",
            34 => "14",
            _ => "15",
        }
    }

    /// Whether the service behind `cmd SERVICE` exists on this release. `locale` (per-app
    /// locales, `LocaleManagerService`) arrived in Android 13; `cmd input`
    /// (`InputShellCommand` in system_server) in 12; `package`, `window`, `activity`,
    /// `settings`, `display`, `location` and `clipboard` exist on every release modelled
    /// here (what `cmd location` can do per release is in `commands/location.rs`).
    pub fn has_cmd(&self, service: &str) -> bool {
        match service {
            "locale" => self.sdk >= 33,
            "input" => self.sdk >= 31,
            _ => true,
        }
    }

    /// Virtual milliseconds one `input` call costs before its event: on Android 8–11
    /// `/system/bin/input` is a script running `app_process` (a Java VM per call); from 12
    /// it runs `cmd input` in system_server.
    pub fn input_start_ms(&self) -> u64 {
        if self.sdk <= 30 { 500 } else { 0 }
    }

    /// The focused window's title while the keyguard shows: `NotificationShade` from
    /// Android 11 (SystemUI's shade window, `TYPE_NOTIFICATION_SHADE`, hosts the keyguard),
    /// `StatusBar` before (see SOURCES.md).
    pub fn keyguard_window(&self) -> &'static str {
        if self.sdk >= 30 {
            "NotificationShade"
        } else {
            "StatusBar"
        }
    }
}

/// The phone state for a profile: the default scenario with the profile's release, panel,
/// launchers and crash buffer.
pub fn state_for(profile: Profile) -> PhoneState {
    let mut s = crate::scenario::default_state();
    apply(&mut s, profile);
    s
}

/// Applies `profile` to `s` (props, display, extra launcher activities, the chooser screen).
pub fn apply(s: &mut PhoneState, profile: Profile) {
    s.props
        .insert("ro.build.version.sdk".into(), profile.sdk.to_string());
    s.props
        .insert("ro.build.version.release".into(), profile.release().into());
    if profile.landscape_natural {
        // A 10-inch tablet panel, natural landscape.
        s.display.width = 2560;
        s.display.height = 1600;
        s.display.density = 320;
        s.props.insert("ro.sf.lcd_density".into(), "320".into());
    }
    for (pkg, acts) in &profile.extra_launchers {
        if let Some(p) = s.packages.get_mut(pkg) {
            for a in acts {
                if !p.activities.contains(a) {
                    p.activities.push(a.clone());
                }
            }
        }
    }
    if let Some(android) = s.packages.get_mut("android") {
        android.activities.push(RESOLVER_ACTIVITY.into());
        android.screens.insert(
            "chooser".into(),
            Screen {
                activity: RESOLVER_ACTIVITY.into(),
                title: "Open with".into(),
                elements: vec![
                    Element::new(ElementKind::Text, "Open with"),
                    Element::new(ElementKind::Button, "Just once"),
                    Element::new(ElementKind::Button, "Always"),
                ],
            },
        );
    }
    if profile.native_crash {
        s.crash_log.extend(native_crash_lines());
    }
    s.profile = profile;
}

/// The MAIN/LAUNCHER activities of a package, the manifest's first.
pub fn launcher_activities(s: &PhoneState, pkg: &str) -> Vec<String> {
    let Some(p) = s.packages.get(pkg) else {
        return Vec::new();
    };
    let mut v: Vec<String> = p.launcher_activity.iter().cloned().collect();
    if let Some(more) = s.profile.extra_launchers.get(pkg) {
        v.extend(more.iter().cloned());
    }
    v
}

/// The display's current rotation (0..=3), as `DisplayRotation.rotationForOrientation`
/// picks it: an app in front that asks for a fixed orientation gets it; otherwise the
/// locked `user_rotation`. (With auto-rotate on a real phone follows its sensor; the virtual
/// phone is held upright, so it keeps `user_rotation`, which tests set directly.)
pub fn current_rotation(s: &PhoneState) -> u32 {
    if let Some(r) = s
        .foreground_package()
        .and_then(|p| s.profile.app_rotation.get(p))
    {
        return r % 4;
    }
    s.setting("system", "user_rotation")
        .and_then(|v| v.trim().parse::<u32>().ok())
        .map(|r| r % 4)
        .unwrap_or(0)
}

/// Advances the clock for one `input` process and records a tap; a tap at the same place
/// between [`DOUBLE_TAP_MIN_TIME_MS`] and [`DOUBLE_TAP_TIMEOUT_MS`] after the last one
/// counts as a double tap.
pub fn input_process(s: &mut PhoneState) {
    let cost = s.profile.input_start_ms();
    s.profile.clock.now_ms += cost;
    s.profile.clock.input_vms += 1;
}

/// Records a tap at the clock's time (see [`input_process`]).
pub fn record_tap(s: &mut PhoneState, x: f64, y: f64) {
    let c = &mut s.profile.clock;
    if let Some((t, lx, ly)) = c.last_tap {
        let gap = c.now_ms.saturating_sub(t);
        let near = (lx - x).abs() < 50.0 && (ly - y).abs() < 50.0;
        if near && (DOUBLE_TAP_MIN_TIME_MS..=DOUBLE_TAP_TIMEOUT_MS).contains(&gap) {
            c.double_taps += 1;
        }
    }
    c.last_tap = Some((c.now_ms, x, y));
}

/// What `uiautomator dump` prints instead of a dump on this profile, if anything.
/// `DumpCommand` prints "ERROR: could not get idle state." when
/// `UiAutomation.waitForIdle` times out; `UiAutomationManager` throws "UiAutomationService
/// … already registered!" when another client holds the connection, which reaches the
/// dump's `UiAutomation.connect` through binder: the client's frames first, then the
/// server's under "Caused by: android.os.RemoteException: Remote stack trace:" (frames
/// and line numbers from the public capture cited in SOURCES.md).
pub fn uiautomator_refusal(s: &PhoneState) -> Option<&'static str> {
    if s.profile.other_uiautomation {
        Some(
            "java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@5d1c7f0already registered!\n\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3030)\n\tat android.os.Parcel.createException(Parcel.java:3006)\n\tat android.os.Parcel.readException(Parcel.java:2989)\n\tat android.os.Parcel.readException(Parcel.java:2931)\n\tat android.view.accessibility.IAccessibilityManager$Stub$Proxy.registerUiTestAutomationService(IAccessibilityManager.java:845)\n\tat android.app.UiAutomationConnection.registerUiTestAutomationServiceLocked(UiAutomationConnection.java:558)\n\tat android.app.UiAutomationConnection.connect(UiAutomationConnection.java:112)\n\tat android.app.UiAutomation.connectWithTimeout(UiAutomation.java:337)\n\tat android.app.UiAutomation.connect(UiAutomation.java:289)\nCaused by: android.os.RemoteException: Remote stack trace:\n\tat com.android.server.accessibility.UiAutomationManager.registerUiTestAutomationServiceLocked(UiAutomationManager.java:94)\n",
        )
    } else if s.profile.animated {
        Some("ERROR: could not get idle state.\n")
    } else {
        None
    }
}

/// A native crash as the crash buffer holds it: the signal line libc's debuggerd handler
/// logs from the crashing process, then crash_dump's tombstone under tag `DEBUG` from
/// another pid, naming the crashed pid in its `pid:` line.
fn native_crash_lines() -> Vec<crate::state::LogLine> {
    let t = crate::state::now_ms().saturating_sub(120_000);
    let line = |pid, tag: &str, level, msg: &str| crate::state::LogLine {
        time_ms: t,
        pid,
        tid: pid,
        level,
        tag: tag.into(),
        message: msg.into(),
    };
    vec![
        line(
            5001,
            "libc",
            'F',
            "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 5001 (example.notes), pid 5001 (example.notes)",
        ),
        line(
            5012,
            "DEBUG",
            'F',
            "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
        ),
        line(
            5012,
            "DEBUG",
            'F',
            "Build fingerprint: 'google/panther/panther:14/AP2A.240605.024/11860263:user/release-keys'",
        ),
        line(
            5012,
            "DEBUG",
            'F',
            "pid: 5001, tid: 5001, name: example.notes  >>> com.example.notes <<<",
        ),
        line(
            5012,
            "DEBUG",
            'F',
            "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000",
        ),
        line(5012, "DEBUG", 'F', "backtrace:"),
        line(
            5012,
            "DEBUG",
            'F',
            "      #00 pc 000000000004a2b0  /data/app/com.example.notes/lib/arm64/libnotes.so (crash+16)",
        ),
    ]
}
