//! Unit tests across the reader and the exporter: every supported command reads into its
//! model; unknown commands and keys name their lines; the exporter's selector choice,
//! password variables, points and the "not exported" list; an export reads back.

use std::time::Duration;

use mobile_device::{Element, ElementStates, Point, Rect};

use crate::*;

fn read(text: &str) -> Result<Flow, FlowError> {
    read_flow(text, &ReadOptions::default())
}

#[test]
fn every_supported_command_reads() {
    let flow = read(
        include_str!("../../../fixtures/flows/every-command.yaml")
            .replace("file: sub/delete-dialog.yaml", "commands: []")
            .as_str(),
    );
    // `runFlow: file` needs a loader; with inline commands the rest reads.
    let flow = flow.expect("reads");
    fn walk<'a>(steps: &'a [Step], out: &mut Vec<&'a str>) {
        for s in steps {
            out.push(s.command.name());
            if let Command::RunFlow { steps, .. } | Command::Repeat { steps, .. } = &s.command {
                walk(steps, out);
            }
        }
    }
    let mut names = Vec::new();
    walk(&flow.steps, &mut names);
    for c in parse::COMMANDS {
        assert!(names.contains(c), "{c} is not in the fixture: {names:?}");
    }
    assert_eq!(flow.config.app_id.as_deref(), Some("com.example.notes"));
    assert_eq!(flow.config.tags, ["demo"]);
    let typed = flow.steps.iter().find_map(|s| match &s.command {
        Command::InputText(t) => Some(t.clone()),
        _ => None,
    });
    assert_eq!(
        typed.as_deref(),
        Some("Groceriesx"),
        "${{TITLE}} replaced from env"
    );
}

#[test]
fn defaults_follow_maestro() {
    let f = read("appId: a.b\n---\n- eraseText\n- scrollUntilVisible:\n    element: X\n- swipe:\n    direction: left\n- assertVisible: A\n").unwrap();
    assert_eq!(f.steps[0].command, Command::EraseText(50));
    match &f.steps[1].command {
        Command::ScrollUntilVisible {
            direction,
            timeout,
            visibility,
            ..
        } => {
            assert_eq!(*direction, Direction::Down);
            assert_eq!(*timeout, Duration::from_millis(20_000));
            assert_eq!(*visibility, 100);
        }
        c => panic!("{c:?}"),
    }
    assert_eq!(
        f.steps[2].command,
        Command::Swipe(Swipe::Direction(
            Direction::Left,
            Duration::from_millis(400)
        ))
    );
    assert_eq!(f.steps[3].line, 8);
}

#[test]
fn outside_values_win_and_launch_options_follow_maestro() {
    let opts = ReadOptions {
        env: vec![("USER".into(), "outside".into())],
        ..Default::default()
    };
    let f = read_flow("appId: a.b\nenv:\n  USER: inside\n---\n- inputText: ${USER}\n- launchApp:\n    clearState: true\n    stopApp: false\n    permissions:\n      all: deny\n      camera: allow\n    arguments:\n      count: 3\n      debug: true\n      ratio: 0.5\n      name: Ada\n- launchApp\n- launchApp:\n    arguments:\n      \"bad key\": 1\n", &opts).unwrap();
    assert_eq!(f.steps[0].command, Command::InputText("outside".into()));
    let Command::LaunchApp(l) = &f.steps[1].command else {
        panic!()
    };
    let o = launch_options_from_step(l, f.steps[1].line).unwrap();
    assert!(o.clear_state && !o.stop_first);
    let p = serde_json::to_value(o.permissions.as_ref().unwrap()).unwrap();
    assert_eq!(p, serde_json::json!({"all": "deny", "camera": "allow"}));
    let args: Vec<String> = o
        .arguments
        .iter()
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect();
    assert_eq!(
        args,
        [
            "count=Int(3)",
            "debug=Bool(true)",
            "ratio=Float(0.5)",
            "name=Text(\"Ada\")"
        ]
    );
    // A bare launchApp: Maestro's defaults, stop first and every permission allowed.
    let Command::LaunchApp(l) = &f.steps[2].command else {
        panic!()
    };
    let o = launch_options_from_step(l, f.steps[2].line).unwrap();
    assert!(o.stop_first && !o.clear_state && o.arguments.is_empty());
    let p = serde_json::to_value(o.permissions.as_ref().unwrap()).unwrap();
    assert_eq!(p, serde_json::json!({"all": "allow"}));
    let Command::LaunchApp(l) = &f.steps[3].command else {
        panic!()
    };
    let e = launch_options_from_step(l, f.steps[3].line).unwrap_err();
    assert!(e.starts_with("line 18: launchApp's arguments"), "{e}");
}

#[test]
fn a_launch_with_options_exports_to_a_launch_app_that_reads_back_the_same() {
    let opts: mobile_device::LaunchOptions = mobile_device::LaunchOptions {
        stop_first: true,
        clear_state: true,
        permissions: Some(
            serde_json::from_value(serde_json::json!({"all": "deny", "camera": "allow"})).unwrap(),
        ),
        arguments: serde_json::from_value(
            serde_json::json!({"count": 3, "debug": true, "ratio": 0.5, "name": "Ada \"the\" first"}),
        )
        .unwrap(),
        ..Default::default()
    };
    let action = RecordedAction::launch("com.app", &opts).unwrap();
    let out = export_flow(&[RecordedStep::new(action)], None, None);
    assert!(out.not_exported.is_empty(), "{:?}", out.not_exported);
    assert!(
        out.yaml.contains("- launchApp:\n    clearState: true\n"),
        "{}",
        out.yaml
    );
    let f = read(&out.yaml).unwrap();
    let Command::LaunchApp(l) = &f.steps[0].command else {
        panic!("{}", out.yaml)
    };
    let back = launch_options_from_step(l, f.steps[0].line).unwrap();
    assert_eq!(back, opts, "{}", out.yaml);
    // A locale or a deep link has no launchApp equivalent.
    let linked = mobile_device::LaunchOptions {
        url: Some(mobile_device::DeviceUrl::parse("https://example.com").unwrap()),
        ..Default::default()
    };
    assert!(RecordedAction::launch("com.app", &linked).is_none());
}

#[test]
fn unknown_things_name_their_lines() {
    let cases = [
        (
            "appId: a\n---\n- back\n- tapOn: x\n- dance\n",
            5,
            "`dance` is not a command",
        ),
        (
            "appId: a\n---\n- tapOn:\n    text: x\n    below:\n      txt: y\n",
            6,
            "`txt` is not a selector key",
        ),
        (
            "appId: a\n---\n- extendedWaitUntil:\n    visible: x\n    timeout: 10\n    every: 2\n",
            6,
            "`every` is not an option of extendedWaitUntil",
        ),
        (
            "appId: a\n---\n- tapOn: x\n  doubleTapOn: y\n",
            4,
            "a command is a map with one key",
        ),
        ("appId: a\n---\n- tapOn:\n    point: 50%\n", 4, "a point is"),
        (
            "appId: a\n---\n- pressKey:\n    key: Enter\n    times: 2\n",
            5,
            "`times` is not an option of pressKey",
        ),
        ("appId: a\n", 1, "then a line `---`"),
        (
            "appId: a\n---\n- runFlow: other.yaml\n",
            3,
            "needs the flow to be read from a file",
        ),
    ];
    for (text, line, want) in cases {
        let e = read(text).unwrap_err();
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.message.contains(want), "{text}: {e}");
    }
}

#[test]
fn run_flow_files_are_read_relative_to_the_flow_and_name_their_own_lines() {
    let loader = |p: &std::path::Path| -> Result<String, String> {
        match p.to_str() {
            Some("/flows/sub/login.yaml") => Ok("appId: a\n---\n- back\n- hop\n".into()),
            other => Err(format!("no file {other:?}")),
        }
    };
    let opts = ReadOptions {
        path: Some("/flows/main.yaml".into()),
        loader: Some(&loader),
        ..Default::default()
    };
    let e = read_flow("appId: a\n---\n- runFlow: sub/login.yaml\n", &opts).unwrap_err();
    assert_eq!(e.file.as_deref(), Some("/flows/sub/login.yaml"));
    assert_eq!(e.line, 4);
}

fn el(kind: &str, text: &str, id: &str, y: i32) -> Element {
    Element {
        element_type: kind.into(),
        text: (!text.is_empty()).then(|| text.into()),
        identifier: (!id.is_empty()).then(|| id.into()),
        rect: Rect {
            x: 0,
            y,
            width: 1080,
            height: 100,
        },
        states: ElementStates {
            clickable: kind == "Button",
            ..Default::default()
        },
        ..Default::default()
    }
}

fn tap_on(screen: Vec<Element>, i: usize) -> RecordedStep {
    let mut s = RecordedStep::new(RecordedAction::Tap {
        at: screen[i].rect.center(),
    });
    s.element = Some(screen[i].clone());
    s.anchor = row_anchor(&screen, i);
    s.screen = screen;
    s
}

#[test]
fn the_exporter_picks_the_most_robust_selector_that_picks_exactly_the_element() {
    let rows = vec![
        el("Text", "Title", "", 0),
        el("Text", "Row A", "", 100),
        el("Button", "Delete", "app:id/delete", 150),
        el("Text", "Row B", "", 300),
        el("Button", "Delete", "app:id/delete", 350),
        el("Button", "OK", "app:id/ok", 600),
        el("Button", "ok", "", 700),
        el("Button", "", "", 800),
    ];
    let steps = vec![
        tap_on(rows.clone(), 5), // the id alone
        tap_on(rows.clone(), 4), // look-alikes: below its row's title
        tap_on(rows.clone(), 6), // "OK" and "ok" collide under Maestro's rules: index
        tap_on(rows.clone(), 7), // nothing to select it by: a point
    ];
    let x = export_flow(&steps, Some("com.app"), None);
    let want = "appId: \"com.app\"\n---\n\
- tapOn:\n    id: \"ok\"\n\
- tapOn:\n    text: \"Delete\"\n    below:\n      text: \"Row B\"\n\
- tapOn:\n    text: \"ok\"\n    index: 1\n\
- tapOn:\n    point: \"540, 850\" # the element has no id and no text to select it by\n";
    assert_eq!(x.yaml, want);
    // What it wrote reads back and each selector finds the element that was hit.
    let flow = read(&x.yaml).unwrap();
    for (step, rec) in flow.steps.iter().zip(&steps) {
        if let Command::Tap {
            target: Target::Element(sel),
            ..
        } = &step.command
        {
            let hit = find(sel, &rec.screen).unwrap();
            assert_eq!(Some(&rec.screen[hit]), rec.element.as_ref(), "{sel:?}");
        }
    }
}

#[test]
fn passwords_become_variables_and_what_cannot_be_replayed_is_named() {
    let mut field = el("SecureTextField", "", "password", 100);
    field.states.focused = true;
    let mut typed = RecordedStep::new(RecordedAction::Type {
        text: "hunter2".into(),
        submit: true,
    });
    typed.screen = vec![field];
    let steps = vec![
        RecordedStep::new(RecordedAction::Launch {
            app: "com.app".into(),
            clear_state: false,
            permissions: None,
            arguments: Vec::new(),
        }),
        typed,
        RecordedStep::new(RecordedAction::Terminate {
            app: "com.app".into(),
        }),
        RecordedStep::new(RecordedAction::Button {
            name: "MENU".into(),
        }),
        RecordedStep::new(RecordedAction::Swipe {
            from: Point::new(540, 1800),
            to: Point::new(540, 600),
            millis: 500,
        }),
    ];
    let x = export_flow(&steps, None, Some("Login"));
    assert!(!x.yaml.contains("hunter2"), "{}", x.yaml);
    assert!(
        x.yaml
            .contains("- inputText: ${PASSWORD}\n- pressKey: Enter\n"),
        "{}",
        x.yaml
    );
    assert!(
        x.yaml
            .contains("# Typed into password fields, not recorded: pass PASSWORD"),
        "{}",
        x.yaml
    );
    assert_eq!(x.variables, ["PASSWORD"]);
    assert_eq!(x.not_exported.len(), 2, "{:?}", x.not_exported);
    assert!(x.not_exported[0].starts_with("step 3: stopping com.app"));
    assert!(x.not_exported[1].starts_with("step 4: the MENU button"));
    let opts = ReadOptions {
        env: vec![("PASSWORD".into(), "pw".into())],
        ..Default::default()
    };
    let flow = read_flow(&x.yaml, &opts).unwrap();
    assert_eq!(flow.config.name.as_deref(), Some("Login"));
    assert_eq!(flow.steps[1].command, Command::InputText("pw".into()));
}

#[test]
fn an_android_password_field_shows_dots_after_typing() {
    let mut after = el("EditText", "•••••••", "app:id/pw", 100);
    after.states.focused = true;
    let mut typed = RecordedStep::new(RecordedAction::Type {
        text: "hunter2".into(),
        submit: false,
    });
    typed.after = Some(vec![after]);
    let x = export_flow(&[typed], Some("a"), None);
    assert!(x.yaml.contains("- inputText: ${PASSWORD}\n"), "{}", x.yaml);
}
