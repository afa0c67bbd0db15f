//! The file-path cases, as figures: a stated table of hostile paths (traversal, symlinks,
//! hard links, FIFOs, devices, sockets) run through the built server against every tool
//! that writes a local file (screenshot, UI dump, logs, pull, recording) and every tool
//! that reads one (push, install). Each must be refused, nothing on this machine may
//! change (the whole fixture tree, inside and outside the root, is compared), and nothing
//! may reach the phone (its files and packages are compared). The counts are printed;
//! README's safety section quotes them.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use test_support::{McpChild, text_of};
use virtual_phone::adb_server::PrivateAdbServer;
use virtual_phone::{PhoneConfig, VirtualPhone};

/// What a case attacks, for the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Traversal,
    Symlink,
    HardLink,
    Special,
}

/// One hostile path: its kind, a label, and the path for a tool's extension, given the
/// fixture tree's base folder (`root` inside it is the one allowed folder).
struct Case {
    kind: Kind,
    label: &'static str,
    path: fn(&Path, &str) -> String,
}

fn s(p: PathBuf) -> String {
    p.display().to_string()
}

const CASES: &[Case] = &[
    Case {
        kind: Kind::Traversal,
        label: "root/../out",
        path: |b, e| format!("{}/root/../out/new.{e}", b.display()),
    },
    Case {
        kind: Kind::Traversal,
        label: "absolute outside",
        path: |b, e| s(b.join(format!("out/new.{e}"))),
    },
    Case {
        kind: Kind::Traversal,
        label: "relative ../out from the root",
        path: |_, e| format!("../out/new.{e}"),
    },
    Case {
        kind: Kind::Traversal,
        label: "deep ../../",
        path: |b, e| {
            format!(
                "{}/root/a/../../../{}/out/new.{e}",
                b.display(),
                b.file_name().unwrap().to_string_lossy()
            )
        },
    },
    Case {
        kind: Kind::Traversal,
        label: "root/./..//out",
        path: |b, e| format!("{}/root/./..//out/new.{e}", b.display()),
    },
    Case {
        kind: Kind::Traversal,
        label: "percent-encoded %2e%2e/",
        path: |b, e| format!("{}/root/%2e%2e/out/new.{e}", b.display()),
    },
    Case {
        kind: Kind::Traversal,
        label: "percent-encoded ..%2f folder",
        path: |b, e| format!("{}/root/..%2fout/new.{e}", b.display()),
    },
    Case {
        kind: Kind::Traversal,
        label: "backslashes ..\\",
        path: |b, e| format!("{}/root\\..\\out\\new.{e}", b.display()),
    },
    Case {
        kind: Kind::Traversal,
        label: "~ (HOME is outside)",
        path: |_, e| format!("~/new.{e}"),
    },
    Case {
        kind: Kind::Traversal,
        label: "file:// URL",
        path: |b, e| format!("file://{}/out/new.{e}", b.display()),
    },
    Case {
        kind: Kind::Traversal,
        label: "NUL byte",
        path: |b, e| format!("{}/root/ok.{e}\0/../../out/new.{e}", b.display()),
    },
    Case {
        kind: Kind::Traversal,
        label: "existing outside file",
        path: |b, e| s(b.join(format!("out/victim.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "link to an outside file",
        path: |b, e| s(b.join(format!("root/to-out.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "dangling link to outside",
        path: |b, e| s(b.join(format!("root/dangling.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "chain of links to outside",
        path: |b, e| s(b.join(format!("root/chain1.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "symlinked parent folder",
        path: |b, e| s(b.join(format!("root/outdir/victim.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "symlinked parent, new file",
        path: |b, e| s(b.join(format!("root/outdir/new.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "symlinked parent then ..",
        path: |b, e| s(b.join(format!("root/outdir/../new.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "dangling link inside",
        path: |b, e| s(b.join(format!("root/dangling-in.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "link loop",
        path: |b, e| s(b.join(format!("root/loop1.{e}"))),
    },
    Case {
        kind: Kind::Symlink,
        label: "link to /dev/null",
        path: |b, e| s(b.join(format!("root/devnull.{e}"))),
    },
    Case {
        kind: Kind::HardLink,
        label: "hard link to an outside file",
        path: |b, e| s(b.join(format!("root/hard-out.{e}"))),
    },
    Case {
        kind: Kind::HardLink,
        label: "file with a second name inside",
        path: |b, e| s(b.join(format!("root/hard-in.{e}"))),
    },
    Case {
        kind: Kind::Special,
        label: "FIFO",
        path: |b, e| s(b.join(format!("root/fifo.{e}"))),
    },
    Case {
        kind: Kind::Special,
        label: "Unix socket",
        path: |b, e| s(b.join(format!("root/sock.{e}"))),
    },
    Case {
        kind: Kind::Special,
        label: "/dev/null",
        path: |_, _| "/dev/null".to_string(),
    },
];

/// Builds the fixture tree for extension `e` under `base`: `root` (allowed), `out` (not)
/// with a victim file, `home` (HOME), and the links, hard links and special files the
/// cases name. Returns the Unix socket's listener, which must stay open.
fn fixtures(base: &Path, e: &str) -> std::os::unix::net::UnixListener {
    let root = base.join("root");
    let out = base.join("out");
    for d in [&root, &out, &base.join("home")] {
        std::fs::create_dir_all(d).unwrap();
    }
    let victim = out.join(format!("victim.{e}"));
    let bytes = if e == "apk" {
        virtual_phone::fake_apk("com.example.victim", "Victim")
    } else {
        b"the victim's bytes".to_vec()
    };
    std::fs::write(&victim, &bytes).unwrap();
    let r = |n: &str| root.join(n.replace("EXT", e));
    symlink(&victim, r("to-out.EXT")).unwrap();
    symlink(out.join(format!("missing.{e}")), r("dangling.EXT")).unwrap();
    symlink(r("chain2.EXT"), r("chain1.EXT")).unwrap();
    symlink(&victim, r("chain2.EXT")).unwrap();
    symlink(&out, r("outdir")).unwrap();
    symlink(r("nothing-here.EXT"), r("dangling-in.EXT")).unwrap();
    symlink(r("loop2.EXT"), r("loop1.EXT")).unwrap();
    symlink(r("loop1.EXT"), r("loop2.EXT")).unwrap();
    symlink("/dev/null", r("devnull.EXT")).unwrap();
    std::fs::hard_link(&victim, r("hard-out.EXT")).unwrap();
    std::fs::write(r("hard-in.EXT"), &bytes).unwrap();
    std::fs::hard_link(r("hard-in.EXT"), r("hard-in-2.EXT")).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        r("fifo.EXT"),
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    std::os::unix::net::UnixListener::bind(r("sock.EXT")).unwrap()
}

/// Every entry under `dir`: files with their bytes, links with their targets, the rest by
/// kind. FIFOs and sockets are not opened.
fn snapshot(dir: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        let ft = m.file_type();
        if ft.is_dir() {
            into.insert(p.clone(), b"dir".to_vec());
            snapshot(&p, into);
        } else if ft.is_symlink() {
            let t = std::fs::read_link(&p).unwrap();
            into.insert(p, t.into_os_string().into_encoded_bytes());
        } else if ft.is_file() {
            into.insert(p.clone(), std::fs::read(&p).unwrap());
        } else {
            into.insert(p, format!("special {:?}", ft).into_bytes());
        }
    }
}

/// The server started in `cwd` (so relative paths start in the root).
async fn spawn_in(args: &[&str], env: &[(String, String)], cwd: &Path) -> McpChild {
    let mut cmd = tokio::process::Command::new(crate::SERVER);
    cmd.args(args)
        .current_dir(cwd)
        .env("RUST_LOG", "warn")
        .env_remove("MCP_MODEL_PAYLOAD_FILTER")
        .stderr(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let transport = rmcp::transport::TokioChildProcess::new(cmd).expect("spawn the server");
    let client = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .expect("initialize within 60 s")
        .expect("initialize");
    McpChild { client }
}

/// A tool under test: its name, the extension its path needs, and its arguments.
struct Tool {
    name: &'static str,
    ext: &'static str,
    args: fn(&str, &str) -> Value,
}

const WRITERS: &[Tool] = &[
    Tool {
        name: "mobile_save_screenshot",
        ext: "png",
        args: |d, p| json!({"device": d, "saveTo": p, "overwrite": true}),
    },
    Tool {
        name: "mobile_ui_dump",
        ext: "xml",
        args: |d, p| json!({"device": d, "output_path": p, "overwrite": true}),
    },
    Tool {
        name: "mobile_get_device_logs",
        ext: "txt",
        args: |d, p| json!({"device": d, "saveTo": p, "overwrite": true}),
    },
    Tool {
        name: "mobile_adb_pull",
        ext: "bin",
        args: |d, p| json!({"device": d, "remote_path": "/sdcard/Download/seed.bin", "local_path": p, "overwrite": true}),
    },
    Tool {
        name: "mobile_start_screen_recording",
        ext: "mp4",
        args: |d, p| json!({"device": d, "output": p, "overwrite": true, "timeLimit": 2}),
    },
];

const READERS: &[Tool] = &[
    Tool {
        name: "mobile_adb_push",
        ext: "bin",
        args: |d, p| json!({"device": d, "local_path": p, "remote_path": "/sdcard/Download/pushed.bin"}),
    },
    Tool {
        name: "mobile_install_app",
        ext: "apk",
        args: |d, p| json!({"device": d, "path": p}),
    },
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_path_is_refused_by_every_file_tool() {
    tokio::time::timeout(Duration::from_secs(300), async {
        let phone = VirtualPhone::start(PhoneConfig::default()).expect("start the virtual phone");
        let adb = PrivateAdbServer::start().expect("start a private adb server");
        adb.connect(&phone).expect("adb connect");
        let serial = phone.serial();
        // A device file that exists, so a pull is refused for its local path alone.
        phone.update_state(|s| {
            s.files.insert(
                "/sdcard/Download/seed.bin".into(),
                virtual_phone::state::FileEntry { data: b"seed".to_vec(), mode: 0o100644, mtime: 0 },
            );
        });
        let mut counts: BTreeMap<Kind, usize> = BTreeMap::new();
        let mut failures = Vec::new();
        let mut runs = 0;
        for tool in WRITERS.iter().chain(READERS) {
            let base = tempfile::Builder::new().tempdir_in(std::env::temp_dir()).unwrap();
            let base_path = std::fs::canonicalize(base.path()).unwrap();
            let _socket = fixtures(&base_path, tool.ext);
            let root = base_path.join("root");
            let server = format!("127.0.0.1:{}", adb.port());
            let mut env = adb.env();
            env.push(("HOME".into(), base_path.join("home").display().to_string()));
            let root_arg = root.display().to_string();
            let mcp = spawn_in(&["--adb-server", &server, "--files-root", &root_arg], &env, &root).await;
            let phone_before = (phone.state().files.clone(), phone.state().packages.keys().cloned().collect::<Vec<_>>());
            for case in CASES {
                let path = (case.path)(&base_path, tool.ext);
                let mut before = BTreeMap::new();
                snapshot(&base_path, &mut before);
                let r = mcp.call(tool.name, (tool.args)(&serial, &path)).await;
                if tool.name == "mobile_start_screen_recording" && r.is_error != Some(true) {
                    let _ = mcp.call("mobile_stop_screen_recording", json!({"device": serial})).await;
                }
                let mut after = BTreeMap::new();
                snapshot(&base_path, &mut after);
                runs += 1;
                *counts.entry(case.kind).or_default() += 1;
                let t = text_of(&r);
                if r.is_error != Some(true) {
                    failures.push(format!("{} {}: accepted: {t}", tool.name, case.label));
                } else if before != after {
                    failures.push(format!("{} {}: refused but the tree changed: {t}", tool.name, case.label));
                }
            }
            let phone_after = (phone.state().files.clone(), phone.state().packages.keys().cloned().collect::<Vec<_>>());
            if phone_before != phone_after {
                failures.push(format!("{}: the phone changed", tool.name));
            }
        }
        let per_tool = |k: Kind| CASES.iter().filter(|c| c.kind == k).count();
        println!(
            "path cases: {} per tool ({} traversal, {} symlink, {} hard link, {} FIFO/socket/device) x {} tools ({} writers, {} readers) = {runs} calls, {} refused",
            CASES.len(),
            per_tool(Kind::Traversal),
            per_tool(Kind::Symlink),
            per_tool(Kind::HardLink),
            per_tool(Kind::Special),
            WRITERS.len() + READERS.len(),
            WRITERS.len(),
            READERS.len(),
            runs - failures.len(),
        );
        assert!(failures.is_empty(), "{} of {runs} not refused cleanly:\n{}", failures.len(), failures.join("\n"));
    })
    .await
    .expect("the path cases finished within their deadline");
}
