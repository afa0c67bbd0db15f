//! Shell programs whose answers differ per release (`virtual_phone::profile`): `cmd location`
//! and the app op that silently gates its test providers, `cmd clipboard`, toybox `ps -o`.

use virtual_phone::profile::{self, Profile};
use virtual_phone::{PhoneConfig, PhoneHandle, VirtualPhone};

fn phone(sdk: u32) -> PhoneHandle {
    VirtualPhone::start(PhoneConfig {
        state: Some(profile::state_for(Profile::android(sdk))),
        ..PhoneConfig::default()
    })
    .unwrap()
}

fn gps(p: &PhoneHandle) -> Option<(f64, f64)> {
    p.state()
        .location
        .test_providers
        .get("gps")
        .and_then(|t| t.location)
}

#[test]
fn test_providers_do_nothing_silently_until_the_shell_may_mock() {
    let p = phone(34);
    // LocationManagerService returns quietly when MOCK_LOCATION is not allowed.
    assert_eq!(p.shell("cmd location providers add-test-provider gps"), "");
    assert_eq!(
        p.shell("cmd location providers set-test-provider-location gps --location 1.5,2.5"),
        ""
    );
    assert!(p.state().location.test_providers.is_empty());

    assert_eq!(
        p.shell("appops set com.android.shell android:mock_location allow"),
        ""
    );
    let out = p.shell("cmd location providers set-test-provider-location gps --location 1.5,2.5");
    assert!(out.contains("gps provider is not a test provider"), "{out}");
    let out = p.shell("cmd location providers set-test-provider-enabled nope true");
    assert!(out.contains("provider doesn't exist: nope"), "{out}");
    p.shell("cmd location providers add-test-provider gps");
    p.shell("cmd location providers set-test-provider-enabled gps true");
    p.shell("cmd location providers set-test-provider-location gps --location 1.5,2.5");
    assert_eq!(gps(&p), Some((1.5, 2.5)));
    let out = p.shell("cmd location providers set-test-provider-location gps --location 1.5");
    assert!(
        out.contains("Exception occurred while executing 'providers'"),
        "{out}"
    );
    let out = p.shell("appops set com.android.shell android:nope allow");
    assert!(out.contains("Unknown operation string"), "{out}");
}

#[test]
fn cmd_location_per_release() {
    let out = phone(30).shell("cmd location providers add-test-provider gps");
    assert_eq!(out, "Unknown command: providers\n");
    for sdk in [26, 29] {
        let out = phone(sdk).shell("cmd location providers add-test-provider gps");
        assert_eq!(out, "No shell command implementation.\n", "SDK {sdk}");
    }
}

#[test]
fn cmd_clipboard_has_no_shell_command_on_any_release() {
    for sdk in [26, 29, 31, 34] {
        let p = phone(sdk);
        let out = p.shell("cmd clipboard set-text hello");
        assert_eq!(out, "No shell command implementation.\n", "SDK {sdk}");
        assert_eq!(p.state().clipboard, "");
    }
}

#[test]
fn toybox_ps_o_prints_the_named_fields() {
    let p = phone(26);
    let out = p.shell("ps -A -o PID=,NAME=");
    let mut lines = out.lines();
    // `FIELD=` empties the title but the header line is still printed.
    assert_eq!(lines.next().map(str::trim), Some(""), "{out}");
    assert!(out.lines().any(|l| l == "  612 system_server"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.trim_start().ends_with(" com.android.launcher3")),
        "{out}"
    );
    let out = p.shell("ps -A -o PID,USER,NAME");
    assert!(out.starts_with("  PID USER         NAME\n"), "{out}");
    let out = p.shell("ps -A -o NOPE");
    assert!(out.contains("bad -o NOPE"), "{out}");
    // Without -o: Android's default columns.
    let out = p.shell("ps -A");
    assert!(out.starts_with("USER           PID  PPID"), "{out}");
}
