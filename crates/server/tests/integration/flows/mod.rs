//! Maestro flows end to end: hand-written flows covering every supported command run
//! through `mobile_run_flow` and through `mobile-mcp run-flow` on the virtual phone (each
//! checked in the phone's state and input records afterwards); a wrong expectation fails
//! at its named step with the nearest candidates; unknown commands and keys are errors
//! naming their lines with nothing sent to the phone; the recorded session's export is
//! held to a golden file and replayed on a fresh phone (`round_trip`, `ios`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use test_support::text_of;
use virtual_phone::PhoneHandle;
use virtual_phone::state::InputEvent;

use crate::phone_rig::{Setup, Started, start};

mod ios;
mod round_trip;

const NOTES: &str = "com.example.notes";

/// The repository's hand-written flows.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/flows")
}

/// The hand-written flows copied into a fresh folder (takeScreenshot writes beside them).
fn flows_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("sub")).expect("sub folder");
    for f in ["every-command.yaml", "sub/delete-dialog.yaml"] {
        std::fs::copy(fixtures().join(f), dir.path().join(f)).expect("copy a flow");
    }
    dir
}

fn note_texts(phone: &PhoneHandle) -> Vec<String> {
    phone.state().packages[NOTES].screens["main"]
        .elements
        .iter()
        .filter(|e| e.resource_id.ends_with("note_title") || e.resource_id.ends_with("item"))
        .map(|e| e.text.clone())
        .collect()
}

/// What `every-command.yaml` leaves on the phone, checked in its state and input log.
fn assert_every_command_ran(phone: &PhoneHandle, dir: &Path) {
    let s = phone.state();
    assert_eq!(
        note_texts(phone),
        ["Shopping list", "Groceries"],
        "the saved note"
    );
    assert!(
        s.input_events
            .iter()
            .any(|e| matches!(e, InputEvent::Text { text } if text == "Groceriesx")),
        "typed ${{TITLE}}x: {:?}",
        s.input_events
    );
    let dels = s
        .input_events
        .iter()
        .filter(|e| matches!(e, InputEvent::Key { code: 67, .. }))
        .count();
    assert_eq!(dels, 1, "eraseText: 1 is one KEYCODE_DEL (67)");
    assert!(
        s.input_events.iter().any(|e| matches!(
            e,
            InputEvent::LongPress {
                duration_ms: 3000,
                ..
            }
        )),
        "longPressOn holds 3 s"
    );
    assert_eq!(s.browser_url, "https://example.com", "openLink");
    let loc = format!("{:?}", s.location);
    assert!(
        loc.contains("48.8584") && loc.contains("2.2945"),
        "setLocation: {loc}"
    );
    assert_eq!(
        s.foreground_package(),
        Some("com.android.settings"),
        "Back left Chrome"
    );
    assert!(
        dir.join("every-command.png").is_file(),
        "takeScreenshot wrote its file"
    );
    assert!(phone.injections().is_empty(), "nothing was injected");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_command_runs_through_mobile_run_flow() {
    let dir = flows_copy();
    let root = dir.path().to_str().unwrap().to_string();
    let s = start(Setup {
        args: &["--files-root", &root],
        ..Default::default()
    })
    .await;
    crate::phone_rig::wait_online(&s.mcp, &s.phone.serial()).await;
    let path = dir.path().join("every-command.yaml");
    let r = s
        .mcp
        .call(
            "mobile_run_flow",
            json!({"device": s.phone.serial(), "path": path.to_str().unwrap()}),
        )
        .await;
    let t = text_of(&r);
    assert_ne!(r.is_error, Some(true), "{t}");
    assert!(
        t.starts_with("Flow \"Every supported command\" passed: 46 steps."),
        "{t}"
    );
    let report = r.structured_content.expect("a report");
    assert_eq!(report["passed"], true);
    let steps = report["steps"].as_array().unwrap();
    let first_tap = steps
        .iter()
        .find(|s| s["label"] == "Open the editor")
        .unwrap();
    assert_eq!(first_tap["line"], 13);
    assert!(
        first_tap["matched"].as_str().unwrap().contains("New note"),
        "{first_tap}"
    );
    assert_every_command_ran(&s.phone, dir.path());
}

/// Runs `mobile-mcp [global args] run-flow ARGS` in `cwd` against the rig's adb server.
async fn cli(s: &Started, cwd: &Path, args: &[&str]) -> (i32, String) {
    let server = format!("127.0.0.1:{}", s.adb.port());
    let mut cmd = tokio::process::Command::new(crate::SERVER);
    cmd.current_dir(cwd)
        .args(["--adb-server", &server, "run-flow"])
        .args(args)
        .env("RUST_LOG", "warn")
        .env("MOBILE_MCP_XCRUN", "/nonexistent/xcrun")
        .kill_on_drop(true);
    for (k, v) in s.adb.env() {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_secs(240), cmd.output())
        .await
        .expect("run-flow ends within 240 s")
        .expect("run-flow starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn every_command_runs_through_the_command_line_with_a_junit_report() {
    let dir = flows_copy();
    let s = start(Setup::default()).await;
    crate::phone_rig::wait_online(&s.mcp, &s.phone.serial()).await;
    let junit = dir.path().join("report.xml");
    let (code, out) = cli(
        &s,
        dir.path(),
        &[
            "every-command.yaml",
            "--device",
            &s.phone.serial(),
            "--junit",
            junit.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert!(
        xml.contains("<testsuite name=\"Every supported command\" tests=\"46\" failures=\"0\""),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 46, "{xml}");
    assert_every_command_ran(&s.phone, dir.path());
}

const WRONG: &str = "appId: com.example.notes\n---\n- launchApp\n- tapOn: New note\n- assertVisible: Titel\n- tapOn: Save\n";

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_expectation_fails_at_its_step_with_the_nearest_candidates() {
    let s = start(Setup::default()).await;
    crate::phone_rig::wait_online(&s.mcp, &s.phone.serial()).await;
    let r = s
        .mcp
        .call(
            "mobile_run_flow",
            json!({"device": s.phone.serial(), "flow": WRONG, "lookupTimeoutMs": 600}),
        )
        .await;
    let t = text_of(&r);
    assert_eq!(r.is_error, Some(true), "{t}");
    assert!(t.contains("step at line 5 (assertVisible) failed"), "{t}");
    assert!(
        t.contains("nearest on screen: EditText \"Title\""),
        "the nearest first: {t}"
    );
    // The flow stopped there: Save was never tapped, the editor is still in front.
    let fg = s.phone.state().foreground().unwrap().screen.clone();
    assert_eq!(fg, "editor");
    assert_eq!(note_texts(&s.phone), ["Shopping list"]);

    // The command line says the same, exits 1 and writes the failure to JUnit.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wrong.yaml"), WRONG).unwrap();
    let (code, out) = cli(
        &s,
        dir.path(),
        &[
            "wrong.yaml",
            "--lookup-timeout-ms",
            "600",
            "--junit",
            "j.xml",
        ],
    )
    .await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL line 5 assertVisible"), "{out}");
    let xml = std::fs::read_to_string(dir.path().join("j.xml")).unwrap();
    assert!(
        xml.contains("<testcase name=\"line 5 assertVisible\""),
        "{xml}"
    );
    assert!(
        xml.contains("<failure message=\"no element matches text &quot;Titel&quot;"),
        "{xml}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_commands_and_keys_are_errors_naming_their_lines() {
    let s = start(Setup::default()).await;
    crate::phone_rig::wait_online(&s.mcp, &s.phone.serial()).await;
    let cases = [
        (
            "appId: a.b\n---\n- launchApp\n- tapOn: OK\n- fly: away\n",
            "line 5: `fly` is not a command",
        ),
        (
            "appId: a.b\n---\n- launchApp\n- tapOn:\n    text: OK\n    colour: red\n",
            "line 6: `colour` is not a selector key",
        ),
        (
            "appId: a.b\n---\n- back\n- swipe:\n    direction: UP\n    speed: 3\n",
            "line 6: `speed` is not an option of swipe",
        ),
        (
            "appId: a.b\n---\n- back\n- runScript: x.js\n",
            "line 4: `runScript` is a Maestro command this runner does not support",
        ),
        (
            "appId: a.b\nonFlowStart: []\n---\n- back\n",
            "line 2: the config key `onFlowStart` is not supported",
        ),
        (
            "appId: a.b\n---\n- back\n- tapOn:\n    width: 3\n",
            "line 5: `width` is a Maestro selector key this runner does not support",
        ),
        (
            "appId: a.b\n---\n- back\n- inputText: ${NOPE}\n",
            "line 4: the variable NOPE has no value",
        ),
    ];
    for (flow, want) in cases {
        let r = s
            .mcp
            .call(
                "mobile_run_flow",
                json!({"device": s.phone.serial(), "flow": flow}),
            )
            .await;
        let t = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{flow}: {t}");
        assert!(t.contains(want), "{flow}: want {want:?} in {t}");
        assert!(t.contains("Nothing was done"), "{t}");
    }
    assert!(
        s.phone.state().input_events.is_empty(),
        "nothing reached the phone"
    );
}
