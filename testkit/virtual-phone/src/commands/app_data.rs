//! `pm clear`, `pm grant` / `pm revoke` and the permission sections of `dumpsys package`,
//! over the app state of [`crate::state::app_data`] (sources there and in
//! `fixtures/SOURCES.md`).
//!
//! - `pm clear PKG` prints `Success` or `Failed` (`PackageManagerShellCommand.runClear`).
//! - `pm grant|revoke PKG PERM` prints nothing; what the permission service throws comes
//!   back as `BasicShellCommandHandler.exec` prints it: an empty line, `Exception occurred
//!   while executing 'grant':`, the exception and its stack, on stderr, result 255.
//! - `dumpsys package PKG` lists `requested permissions:`, `install permissions:` (`NAME:
//!   granted=true`) and, under `User 0:`, `runtime permissions:` (`NAME: granted=BOOL,
//!   flags=[ … ]`) (`Settings.dumpPackageLPr` / `dumpRuntimePermissionsLPr`).

use super::*;
use crate::state::app_data::{Protection, protection};

/// `pm clear PKG`.
pub(super) fn pm_clear(ctx: &mut Ctx, rest: &[String]) -> Res {
    let pkg = rest
        .iter()
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    let ok = ctx.with_state(|s| s.clear_app_data(&pkg));
    ctx.print(if ok { "Success\n" } else { "Failed\n" })?;
    Ok(if ok { 0 } else { 1 })
}

/// `pm grant PKG PERM` (`grant`) or `pm revoke PKG PERM`.
pub(super) fn pm_grant(ctx: &mut Ctx, rest: &[String], grant: bool) -> Res {
    let verb = if grant { "grant" } else { "revoke" };
    let args: Vec<&String> = rest.iter().filter(|a| !a.starts_with("--")).collect();
    let (Some(pkg), Some(perm)) = (args.first(), args.get(1)) else {
        let what = if args.is_empty() {
            "package"
        } else {
            "permission"
        };
        ctx.eprint(&format!("Error: no {what} specified\n"))?;
        return Ok(1);
    };
    let (pkg, perm) = (pkg.to_string(), perm.to_string());
    match ctx.with_state(|s| s.set_permission(&pkg, &perm, grant)) {
        Ok(()) => Ok(0),
        Err(exception) => {
            let method = if grant {
                "grantRuntimePermissionInternal"
            } else {
                "revokeRuntimePermissionInternal"
            };
            ctx.eprint(&format!(
                "\nException occurred while executing '{verb}':\n{exception}\n\tat com.android.server.pm.permission.PermissionManagerServiceImpl.{method}(PermissionManagerServiceImpl.java)\n\tat com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission(PackageManagerShellCommand.java)\n"
            ))?;
            Ok(255)
        }
    }
}

/// The permission lines of a package's `dumpsys package` block.
pub(super) fn permission_sections(p: &Package) -> String {
    let mut o = String::new();
    if !p.permissions.is_empty() {
        o.push_str("    requested permissions:\n");
        for perm in &p.permissions {
            o.push_str(&format!("      {perm}\n"));
        }
    }
    let install: Vec<&String> = p
        .permissions
        .iter()
        .filter(|n| protection(n) == Some(Protection::Install))
        .collect();
    if !install.is_empty() {
        o.push_str("    install permissions:\n");
        for perm in install {
            o.push_str(&format!("      {perm}: granted=true\n"));
        }
    }
    o.push_str(&format!(
        "    User 0: ceDataInode={} installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false\n",
        3_000_000 + p.uid
    ));
    let runtime: Vec<&String> = p
        .permissions
        .iter()
        .filter(|n| protection(n) == Some(Protection::Runtime))
        .collect();
    if !runtime.is_empty() {
        o.push_str("      runtime permissions:\n");
        for perm in runtime {
            let granted = p.granted.contains(perm.as_str());
            let flags = if granted {
                "USER_SET|USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
            } else {
                "USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
            };
            o.push_str(&format!(
                "        {perm}: granted={granted}, flags=[ {flags}]\n"
            ));
        }
    }
    o
}
