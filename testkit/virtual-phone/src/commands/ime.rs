//! `ime` and `cmd input_method`: list, enable, disable, set and reset the input methods, on
//! the phone's secure settings `default_input_method` (the selected IME) and
//! `enabled_input_methods` (colon-separated), where Android keeps them
//! (`Settings.Secure.DEFAULT_INPUT_METHOD`, `ENABLED_INPUT_METHODS`).
//!
//! The IMEs the phone has are those of [`KNOWN`] whose package is installed (Gboard is a
//! system package of the default scenario; ADBKeyboard appears when
//! `com.android.adbkeyboard` is installed). With no `enabled_input_methods` setting the
//! selected IME alone is enabled.
//!
//! Output per release (see `fixtures/SOURCES.md`, "IME shell command"):
//! - up to Android 8.1 (SDK 27) `ime` is AOSP `cmds/ime` (`com.android.commands.ime.Ime`):
//!   `Input method ID: now enabled` / `already enabled`, `Input method ID selected`, an
//!   unknown verb (`reset` included) prints `Error: unknown command 'VERB'` and the usage;
//! - Android 9 (SDK 28): `cmd input_method` in `InputMethodManagerService`:
//!   `Input method ID  selected` (two spaces), `reset` prints `Reset current and enabled
//!   IMEs`, `Newly selected IME:` and `Newly enabled IMEs:` with two-space indented IDs;
//! - Android 10 and later: the multi-user shell command: `Input method ID: now enabled for
//!   user #0`, `Input method ID selected for user #0`, unknown IDs `Unknown input method ID
//!   cannot be enabled|selected for user #0` (exit 255), `reset` prints `Reset current and
//!   enabled IMEs for user #0`, `  Selected: ID`, `   Enabled: ID` per enabled IME.
//!
//! `ime list [-a] [-s]` prints the enabled (`-a`: all) IMEs: `-s` one ID a line, else `ID:`
//! and `InputMethodInfo.dump` with a two-space prefix (its first line's fields grow with
//! the release; the `Service:` block is abbreviated to the service's name and package).

use super::*;

/// IMEs a phone may have: (package, ID, settings activity, is a default system IME).
const KNOWN: &[(&str, &str, &str, bool)] = &[
    (
        "com.google.android.inputmethod.latin",
        "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME",
        "com.google.android.apps.inputmethod.latin.preference.SettingsActivity",
        true,
    ),
    (
        "com.android.adbkeyboard",
        "com.android.adbkeyboard/.AdbIME",
        "null",
        false,
    ),
];

/// The IMEs the phone has now (package installed), in [`KNOWN`]'s order.
fn available(s: &PhoneState) -> Vec<&'static (&'static str, &'static str, &'static str, bool)> {
    KNOWN
        .iter()
        .filter(|(pkg, ..)| s.packages.contains_key(*pkg))
        .collect()
}

/// The selected IME (`default_input_method`), if any.
fn selected(s: &PhoneState) -> Option<String> {
    s.setting("secure", "default_input_method")
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// The enabled IMEs (`enabled_input_methods`, else the selected one).
fn enabled(s: &PhoneState) -> Vec<String> {
    match s.setting("secure", "enabled_input_methods") {
        Some(v) => v
            .split(':')
            .filter(|id| !id.is_empty())
            .map(|id| id.split(';').next().unwrap_or(id).to_string())
            .collect(),
        None => selected(s).into_iter().collect(),
    }
}

fn put(s: &mut PhoneState, key: &str, value: &str) {
    s.set_setting("secure", key, value);
}

const USAGE_OLD: &str = "usage: ime list [-a] [-s]\n       ime enable ID\n       ime disable ID\n       ime set ID\n\nThe list command prints all enabled input methods.  Use\nthe -a option to see all input methods.  Use\nthe -s option to see only a single summary line of each.\n\nThe enable command allows the given input method ID to be used.\n\nThe disable command disallows the given input method ID from use.\n\nThe set command switches to the given input method ID.\n";

/// `ime ARGS` (and `cmd input_method ARGS`).
pub(super) fn ime(ctx: &mut Ctx, args: &[String]) -> Res {
    let sdk = ctx.with_state(|s| s.profile.sdk);
    let user = if sdk >= 29 { " for user #0" } else { "" };
    let verb = args.first().map(String::as_str).unwrap_or("");
    match verb {
        "list" => {
            let all = args[1..].iter().any(|a| a == "-a");
            let brief = args[1..].iter().any(|a| a == "-s");
            let out = ctx.with_state(|s| {
                let on = enabled(s);
                let mut out = String::new();
                for (pkg, id, settings, _) in available(s) {
                    if !all && !on.iter().any(|e| e == id) {
                        continue;
                    }
                    if brief {
                        out.push_str(&format!("{id}\n"));
                        continue;
                    }
                    let mut first = format!("  mId={id} mSettingsActivityName={settings}");
                    if sdk >= 28 {
                        first.push_str(" mIsVrOnly=false mSupportsSwitchingToNextInputMethod=false");
                    }
                    if sdk >= 30 {
                        first.push_str(" mInlineSuggestionsEnabled=false");
                    }
                    let class = id.split_once('/').map_or("", |(_, c)| c);
                    let class = if class.starts_with('.') {
                        format!("{pkg}{class}")
                    } else {
                        class.to_string()
                    };
                    out.push_str(&format!(
                        "{id}:\n{first}\n  mIsDefaultResId=0x0\n  Service:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n      name={class}\n      packageName={pkg}\n"
                    ));
                }
                out
            });
            ctx.print(&out)?;
            Ok(0)
        }
        "enable" | "disable" => {
            let Some(id) = args.get(1) else {
                return missing_id(ctx, sdk, verb);
            };
            let on = verb == "enable";
            let known = ctx.with_state(|s| available(s).iter().any(|(_, k, ..)| k == id));
            if !known && (on || sdk < 29) {
                return unknown(ctx, sdk, id, "enabled");
            }
            let was = ctx.with_state(|s| {
                let mut list = enabled(s);
                let was = list.iter().any(|e| e == id);
                if on && !was {
                    list.push(id.clone());
                } else if !on {
                    list.retain(|e| e != id);
                }
                put(s, "enabled_input_methods", &list.join(":"));
                was
            });
            let state = match (on, was) {
                (true, true) => "already enabled",
                (true, false) => "now enabled",
                (false, true) => "now disabled",
                (false, false) => "already disabled",
            };
            ctx.print(&format!("Input method {id}: {state}{user}\n"))?;
            Ok(0)
        }
        "set" => {
            let Some(id) = args.get(1) else {
                return missing_id(ctx, sdk, verb);
            };
            let known = ctx.with_state(|s| available(s).iter().any(|(_, k, ..)| k == id));
            if !known {
                return unknown(ctx, sdk, id, "selected");
            }
            ctx.with_state(|s| put(s, "default_input_method", id));
            let spaces = if sdk == 28 { "  " } else { " " };
            ctx.print(&format!("Input method {id}{spaces}selected{user}\n"))?;
            Ok(0)
        }
        "reset" if sdk >= 28 => {
            let (next, on) = ctx.with_state(|s| {
                let defaults: Vec<String> = available(s)
                    .iter()
                    .filter(|(.., d)| *d)
                    .map(|(_, id, ..)| id.to_string())
                    .collect();
                let next = defaults.first().cloned().unwrap_or_default();
                put(s, "enabled_input_methods", &defaults.join(":"));
                put(s, "default_input_method", &next);
                (next, defaults)
            });
            let out = if sdk >= 29 {
                let mut o =
                    format!("Reset current and enabled IMEs for user #0\n  Selected: {next}\n");
                for id in &on {
                    o.push_str(&format!("   Enabled: {id}\n"));
                }
                o
            } else {
                let mut o = format!(
                    "Reset current and enabled IMEs\nNewly selected IME:\n  {next}\nNewly enabled IMEs:\n"
                );
                for id in &on {
                    o.push_str(&format!("  {id}\n"));
                }
                o
            };
            ctx.print(&out)?;
            Ok(0)
        }
        _ if sdk < 28 => {
            if !verb.is_empty() {
                ctx.eprint(&format!("Error: unknown command '{verb}'\n"))?;
            }
            ctx.eprint(USAGE_OLD)?;
            Ok(0)
        }
        _ => {
            ctx.print(&format!("Unknown command: {verb}\n"))?;
            Ok(255)
        }
    }
}

fn missing_id(ctx: &mut Ctx, sdk: u32, verb: &str) -> Res {
    if sdk < 28 {
        ctx.eprint("Error: no input method ID specified\n")?;
        ctx.eprint(USAGE_OLD)?;
        return Ok(0);
    }
    ctx.eprint(&format!("Error: Argument expected after \"{verb}\"\n"))?;
    Ok(255)
}

fn unknown(ctx: &mut Ctx, sdk: u32, id: &str, what: &str) -> Res {
    if sdk >= 29 {
        ctx.eprint(&format!(
            "Unknown input method {id} cannot be {what} for user #0\n"
        ))?;
        return Ok(255);
    }
    // `setInputMethodEnabled` / `setInputMethod` throw for an ID not in the method map.
    ctx.eprint(&format!("Error: Unknown id: {id}\n"))?;
    Ok(if sdk < 28 { 0 } else { 255 })
}
