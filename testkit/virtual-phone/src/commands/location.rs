//! `cmd location` (the location service's shell command) and `appops`, per release.
//!
//! Modelled on AOSP `services/core/java/com/android/server/location/LocationShellCommand.java`
//! and `LocationManagerService.java` (see `fixtures/SOURCES.md`, "Mock location"):
//! - up to Android 10 the location service has no shell command: `Binder.onShellCommand`'s
//!   default prints `No shell command implementation.` and the result is 0;
//! - Android 11 has only `set-location-enabled` and `send-extra-command`; anything else is
//!   `Unknown command: X` (`BasicShellCommandHandler.handleDefaultCommands`, result -1);
//! - from Android 12 `providers add-test-provider / set-test-provider-enabled /
//!   set-test-provider-location / remove-test-provider`. Each first notes the
//!   `MOCK_LOCATION` app op for the caller (the shell, uid 2000, `com.android.shell`) and,
//!   when it is not allowed, returns without a word: the command "succeeds" and nothing
//!   changed. The op is allowed with `appops set com.android.shell android:mock_location
//!   allow` (the help text of `add-test-provider` says so).

use super::*;
use crate::state::location::TestProvider;

/// The caller of every `cmd` on the phone: the shell user.
const SHELL_PACKAGE: &str = "com.android.shell";
/// The providers a phone has before any test provider (`LocationManagerService`: passive,
/// then network, fused and gps once the system is ready).
const REAL_PROVIDERS: &[&str] = &["passive", "network", "fused", "gps"];

/// What `BasicShellCommandHandler.exec` prints when the command throws: the exception on
/// stderr after an empty line, result -1.
fn exception(ctx: &mut Ctx, cmd: &str, exception: &str) -> Res {
    ctx.eprint(&format!(
        "\nException occurred while executing '{cmd}':\n{exception}\n\tat com.android.server.location.LocationShellCommand.onCommand(LocationShellCommand.java)\n"
    ))?;
    Ok(255)
}

/// `cmd location ARGS`.
pub(super) fn cmd_location(ctx: &mut Ctx, args: &[String]) -> Res {
    let sdk = ctx.with_state(|s| s.profile.sdk);
    if sdk <= 29 {
        ctx.eprint("No shell command implementation.\n")?;
        return Ok(0);
    }
    let sub = args.first().map(String::as_str);
    match sub {
        Some("set-location-enabled") | Some("send-extra-command") => Ok(0),
        Some("is-location-enabled") if sdk >= 31 => {
            ctx.print("true\n")?;
            Ok(0)
        }
        Some("providers") if sdk >= 31 => providers(ctx, &args[1..]),
        None | Some("help") | Some("-h") => {
            ctx.print("Location service commands:\n  help or -h\n    Print this help text.\n")?;
            Ok(255)
        }
        Some(other) => {
            ctx.print(&format!("Unknown command: {other}\n"))?;
            Ok(255)
        }
    }
}

fn providers(ctx: &mut Ctx, args: &[String]) -> Res {
    let Some(sub) = args.first().map(String::as_str) else {
        return exception(
            ctx,
            "providers",
            "java.lang.IllegalArgumentException: Argument expected after \"providers\"",
        );
    };
    let Some(name) = args.get(1).cloned() else {
        return exception(
            ctx,
            "providers",
            &format!("java.lang.IllegalArgumentException: Argument expected after \"{sub}\""),
        );
    };
    let rest = &args[2..];
    let known = matches!(
        sub,
        "add-test-provider"
            | "remove-test-provider"
            | "set-test-provider-enabled"
            | "set-test-provider-location"
            | "send-extra-command"
    );
    if !known {
        ctx.print(&format!("Unknown command: {sub}\n"))?;
        return Ok(255);
    }
    // Arguments are parsed before the service is called.
    let location = if sub == "set-test-provider-location" {
        match parse_location(rest) {
            Ok(l) => Some(l),
            Err(e) => return exception(ctx, "providers", &e),
        }
    } else {
        None
    };
    let enabled = if sub == "set-test-provider-enabled" {
        match rest.first() {
            Some(v) => Some(v.eq_ignore_ascii_case("true")),
            None => {
                return exception(
                    ctx,
                    "providers",
                    &format!(
                        "java.lang.IllegalArgumentException: Argument expected after \"{name}\""
                    ),
                );
            }
        }
    } else {
        None
    };
    if sub == "send-extra-command" {
        return Ok(0);
    }
    // LocationManagerService: `if (!noteOp(OP_MOCK_LOCATION, identity)) return;`
    if !ctx.with_state(|s| s.location.mock_allowed(SHELL_PACKAGE)) {
        return Ok(0);
    }
    let outcome: Result<(), String> = ctx.with_state(|s| {
        let providers = &mut s.location.test_providers;
        let exists = REAL_PROVIDERS.contains(&name.as_str()) || providers.contains_key(&name);
        match sub {
            "add-test-provider" => {
                providers.insert(name.clone(), TestProvider::default());
                Ok(())
            }
            "remove-test-provider" => {
                providers.remove(&name);
                Ok(())
            }
            _ if !exists => Err(format!(
                "java.lang.IllegalArgumentException: provider doesn't exist: {name}"
            )),
            _ => match providers.get_mut(&name) {
                None => Err(format!(
                    "java.lang.IllegalArgumentException: {name} provider is not a test provider"
                )),
                Some(p) => {
                    if let Some(e) = enabled {
                        p.enabled = e;
                    }
                    if let Some(l) = location {
                        p.location = Some(l);
                    }
                    Ok(())
                }
            },
        }
    });
    match outcome {
        Ok(()) => Ok(0),
        Err(e) => exception(ctx, "providers", &e),
    }
}

/// `--location LAT,LNG [--accuracy A] [--time T]` (`handleSetTestProviderLocation`).
fn parse_location(rest: &[String]) -> Result<(f64, f64), String> {
    let mut it = rest.iter();
    let mut found = None;
    while let Some(opt) = it.next() {
        match opt.as_str() {
            "--location" => {
                let v = it.next().ok_or_else(|| {
                    "java.lang.IllegalArgumentException: Argument expected after \"--location\""
                        .to_string()
                })?;
                let parts: Vec<&str> = v.split(',').collect();
                if parts.len() != 2 {
                    return Err(format!(
                        "java.lang.IllegalArgumentException: Location argument must be in the form of \"<LATITUDE>,<LONGITUDE>\", not [{}]",
                        parts.join(", ")
                    ));
                }
                let num = |t: &str| {
                    t.trim().parse::<f64>().map_err(|_| {
                        format!("java.lang.NumberFormatException: For input string: \"{t}\"")
                    })
                };
                found = Some((num(parts[0])?, num(parts[1])?));
            }
            "--accuracy" | "--time" => {
                it.next();
            }
            other => {
                return Err(format!(
                    "java.lang.IllegalArgumentException: Unknown option: {other}"
                ));
            }
        }
    }
    found.ok_or_else(|| {
        "java.lang.IllegalArgumentException: Option \"--location\" is required".to_string()
    })
}

/// `appops set [--user U] PACKAGE|UID OP MODE`, `appops get PACKAGE|UID [OP]`
/// (AppOpsService's shell command; op names as `android:mock_location` or `MOCK_LOCATION`).
pub(super) fn appops(ctx: &mut Ctx, args: &[String]) -> Res {
    let args = strip_user(args);
    let sub = args.first().map(String::as_str).unwrap_or("");
    let package = match args.get(1).map(String::as_str) {
        Some("2000") => SHELL_PACKAGE.to_string(),
        Some(p) => p.to_string(),
        None => {
            ctx.eprint("Error: No UID or package specified.\n")?;
            return Ok(255);
        }
    };
    let op = args.get(2).map(|o| op_name(o));
    match (sub, op) {
        ("set", Some(Some(op))) => {
            let Some(mode) = args.get(3) else {
                ctx.eprint("Error: Mode not specified.\n")?;
                return Ok(255);
            };
            if !["allow", "ignore", "deny", "default", "foreground"].contains(&mode.as_str()) {
                ctx.eprint(&format!("Error: Mode {mode} is not valid\n"))?;
                return Ok(255);
            }
            ctx.with_state(|s| {
                s.location
                    .app_ops
                    .entry(package)
                    .or_default()
                    .insert(op, mode.clone())
            });
            Ok(0)
        }
        ("get", Some(Some(op))) => {
            let mode = ctx.with_state(|s| {
                s.location
                    .app_ops
                    .get(&package)
                    .and_then(|o| o.get(&op))
                    .cloned()
            });
            match mode {
                Some(m) => ctx.print(&format!("{op}: {m}\n"))?,
                None => ctx.print("No operations.\n")?,
            }
            Ok(0)
        }
        (_, Some(None)) => {
            let raw = args.get(2).cloned().unwrap_or_default();
            ctx.eprint(&format!("Error: Unknown operation string: {raw}\n"))?;
            Ok(255)
        }
        _ => Ok(0),
    }
}

/// `android:mock_location` / `MOCK_LOCATION` → `MOCK_LOCATION`; `None` for ops the phone
/// does not know.
fn op_name(raw: &str) -> Option<String> {
    let name = raw
        .strip_prefix("android:")
        .unwrap_or(raw)
        .to_ascii_uppercase();
    const KNOWN: &[&str] = &[
        "MOCK_LOCATION",
        "COARSE_LOCATION",
        "FINE_LOCATION",
        "READ_CLIPBOARD",
        "WRITE_CLIPBOARD",
        "SYSTEM_ALERT_WINDOW",
    ];
    KNOWN.contains(&name.as_str()).then_some(name)
}
