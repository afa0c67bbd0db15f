#![warn(missing_docs)]
//! `virtual-phone`: a stateful virtual Android phone on loopback, for mobile-mcp's tests,
//! benchmarks and `--demo`.
//!
//! It speaks the adbd wire protocol, so the real adb server (`adb connect`) and `adb_client`
//! (through a server, or by direct TCP) drive it as a phone; and it can put an adb-server front
//! end ([`AdbFrontEnd`]) in front of itself, so a client of the adb server reaches it with no adb
//! binary at all. Every command it receives is recorded ([`CommandRecord`]) and checked for shell
//! injection. Of the product crates it depends on `mobile-screenshot` alone, and only for its
//! text drawing (`mobile_screenshot::text`): screens are drawn with real text, so what the
//! element list says can be read off a screenshot.
//!
//! What it is not: an emulator. Nothing runs Android code; every program the phone offers
//! (`pm`, `am`, `input`, `dumpsys`, `uiautomator`, `screencap`, …) is modelled in
//! `commands` on top of [`state::PhoneState`], with output formats matched to real captures in
//! `fixtures/android/` (see `SOURCES-virtual-device.md` there). Nor is it a general adb server:
//! the front end serves this one phone. The simulated iPhone lives elsewhere (`testkit/fake-xcode`).
//!
//! # Using it in a test
//!
//! ```no_run
//! use virtual_phone::{AdbFrontEnd, PhoneConfig, VirtualPhone, adb_server::PrivateAdbServer};
//! let phone = VirtualPhone::start(PhoneConfig::default())?; // 127.0.0.1:<ephemeral>
//! let adb = PrivateAdbServer::start()?;                       // adb -P <free port>, private HOME
//! adb.connect(&phone)?;                                       // adb connect + wait for "device"
//! let out = adb.adb(&["-s", &phone.serial(), "shell", "wm", "size"])?;
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "Physical size: 1080x2400\n");
//! assert!(phone.injections().is_empty());                     // no unquoted metacharacters arrived
//!
//! // Or with no adb binary: an adb-server front end for the phone.
//! let front = AdbFrontEnd::start(&phone)?;                    // 127.0.0.1:<ephemeral>
//! let server = std::net::TcpStream::connect(front.addr())?;   // speak the adb host protocol
//! # drop(server);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! For `adb_client`, export [`adb_server::PrivateAdbServer::env`] first (it runs
//! `adb start-server` without `-P`), then use `ADBServer::new(adb.socket_addr())`; or connect
//! directly with `adb_client::tcp::ADBTcpDevice::new(phone.addr())`; or point
//! `ANDROID_ADB_SERVER_PORT` and `ADBServer::new` at [`AdbFrontEnd::addr`].
//!
//! # What the phone offers
//!
//! - **Protocol** ([`protocol`], `connection`): CNXN without AUTH (banner
//!   `device::ro.product.name=panther;ro.product.model=Pixel 7;ro.product.device=panther;features=`),
//!   OPEN/OKAY/WRTE/CLSE with v1 per-stream flow control, many streams at once, byte-sum checksums
//!   on every packet, `TCP_NODELAY`, a second CNXN restarts the transport, host disconnects end
//!   every stream. No `shell_v2`, `cmd`, `stat_v2` or `ls_v2` (so adb shell has no exit codes).
//! - **adb-server front end** ([`AdbFrontEnd`]): the adb host protocol on loopback for one phone
//!   (`host:version`, `host:devices[-l]`, `host:features`, `host-serial:S:…`, `host:transport…`,
//!   `host:tport:…`, `get-state`, `host:kill`), then device services through the same dispatch,
//!   so adb-server clients need no adb binary. Answers match the Debian adb server 29.0.6.
//! - **Services**: `shell:CMD` and `shell,ARGS:CMD` (not `v2`), `shell:` (line-at-a-time),
//!   `exec:CMD` (binary-safe), `sync:` (STAT/LSTA, LIST, SEND/DATA/DONE, RECV, QUIT, parsed as a
//!   byte stream), `framebuffer:` (v1 header + RGBA). Anything else: `CLSE(0, id)` (behind the
//!   front end: `FAIL closed`, as a real adb server answers).
//! - **Shell** (`shell`): mksh-like splitting; a line with unquoted `;` `&` `&&` `||` `|`
//!   newline `( )`, a `$( )`/backtick substitution, or a redirection other than `/dev/null` and
//!   `2>&1` is recorded as an injection and **not run** (adb's own `export ANDROID_LOG_TAGS=…;
//!   exec logcat …` and `rm … </dev/null` are allowed). `sh -c STRING` is checked recursively.
//!   Unquoted `*`, `?`, `[…]` expand against the phone's files (literal when nothing matches);
//!   records keep the words as split, before expansion.
//! - **Commands** (`commands`): `pm` (list packages [-f -3 -s -U FILTER], path, install,
//!   uninstall, clear, list features, dump), `cmd package` (the same plus query-activities
//!   [--brief|--components], resolve-activity [--brief|--components], `install -S N` from stdin),
//!   `cmd locale|display|window|activity|settings|input`, `am start [-W] -n|-a -d -c`,
//!   `am force-stop|kill|broadcast` (ADBKeyboard's `ADB_INPUT_TEXT`/`ADB_INPUT_B64`/`ADB_CLEAR_TEXT`
//!   type into the focused field once `com.android.adbkeyboard` is installed and selected), `monkey -p PKG … 1`, `input tap|swipe|text|keyevent|press|draganddrop`,
//!   `dumpsys window [displays|windows]|activity|package PKG|SurfaceFlinger [--display-id|--frametimeline -all]|display|input_method`,
//!   `wm size|density|user-rotation`, `settings get|put|delete|list`, `content insert|update|query|delete`
//!   (settings URIs), `getprop`, `setprop`, `uiautomator dump [FILE|/dev/tty]`, `screencap [-p] [FILE]`,
//!   `screenrecord` (until `--time-limit`, `pkill -INT screenrecord`, `kill -INT PID` or the stream
//!   closing), `pidof`/`pgrep`, `logcat` (-d, -c, -b, -v threadtime/year/brief, -t/-T, follow),
//!   `ps`, `ls`, `cat`, `rm`, `mkdir`, `touch`, `echo`, `true`, `false`, `id`, `whoami`, `sleep`,
//!   `date`, `export`, `exec`, `sh -c`, `appops`, `ime`/`cmd input_method` (list, enable, disable,
//!   set, reset; worded per release), `md5sum`/`sha1sum` after `screencap` or the frame timeline. Unknown: `/system/bin/sh: X: inaccessible or not found`.
//! - **State** ([`state`], `scenario` for the packages and screens): packages, activity stack,
//!   per-screen elements and focus, settings (rotation), display, clipboard, main and crash log
//!   buffers, files, every input event. Screens are laid out (`layout`) and drawn (`render`,
//!   cached per screen state) from the same tree `uiautomator dump` (`uixml`) prints.
//! - **Records**: every shell/exec line, sync request, framebuffer and refused open is a
//!   [`CommandRecord`] (service, command, argv per simple command, injection flag and reasons,
//!   timestamp), kept in memory (the newest [`KEPT`], and the injection records apart,
//!   so a long `--demo` stays bounded) and optionally appended as JSON lines
//!   (`PhoneConfig::log_path`).
//!
//! # Module layout
//!
//! - Ways in: `connection` (the adbd transport: CNXN, streams, flow control) over [`protocol`]
//!   packets; `front_end` (the adb host protocol) over `socket_stream`. Both hand an open stream
//!   to `services` (one dispatch: `shell:`, `exec:`, `sync:` in `sync`, `framebuffer:`).
//! - The phone: `phone` ([`VirtualPhone`], [`PhoneHandle`]), `records` (the bounded log), `shell` (splitting and the
//!   injection check), `commands` (one module per program or family: `settings` for
//!   getprop/settings/content/wm, `packages` for pm/cmd package, `am`, `input`, `dumpsys`,
//!   `screen` for uiautomator/screencap/screenrecord, `processes`, `logcat`, `files`).
//! - The model: [`state`] (the data; its `actions` module what happens to it), `scenario`,
//!   `layout`, `render`, `uixml`, `apk`.
//! - For tests: [`adb_server`] (a private real adb server), [`look_alikes`] (a long list of
//!   rows with look-alike buttons), [`PhoneHandle::stall`] (a phone whose shell stalls and
//!   comes back).
//!
//! The public modules are the namespaces tests reach into ([`adb_server`], [`living`], [`look_alikes`],
//! [`profile`], [`protocol`], [`state`]); the others are private, and the few of their items
//! other crates use are re-exported here ([`fake_apk`], [`default_state`], [`KEPT`]).
//!
//! Threads and `std::net` only, so it runs the same under tokio, in sync tests or in the binary.
//! Crates used: `image` (PNG), `serde`/`serde_json` (scenarios, records), `clap` (binary flags),
//! `tempfile` (private adb server HOME).

pub mod adb_server;
mod apk;
mod commands;
mod connection;
mod front_end;
mod inbox;
mod layout;
pub mod living;
pub mod look_alikes;
mod phone;
pub mod profile;
pub mod protocol;
mod records;
mod render;
mod scenario;
mod services;
mod shell;
mod socket_stream;
pub mod state;
mod sync;
mod uixml;

pub use apk::fake_apk;
pub use connection::DeviceStream;
pub use front_end::AdbFrontEnd;
pub use phone::{CommandRecord, PhoneConfig, PhoneHandle, VirtualPhone, load_state};
pub use records::{INJECTIONS_KEPT, KEPT};
pub use scenario::default_state;
pub use state::PhoneState;
