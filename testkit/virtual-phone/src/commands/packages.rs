//! `pm` and `cmd package` (list, path, install, uninstall, features, query-activities,
//! resolve-activity; clear, grant and revoke in `app_data.rs`), plus the other `cmd`
//! services.

use super::*;

pub(super) fn pm(ctx: &mut Ctx, args: &[String]) -> Res {
    package_command(ctx, args, false)
}

pub(super) fn cmd(ctx: &mut Ctx, args: &[String]) -> Res {
    let service = args.first().map(String::as_str).unwrap_or("");
    let rest = if args.is_empty() { args } else { &args[1..] };
    if !service.is_empty() && !ctx.with_state(|s| s.profile.has_cmd(service)) {
        // What `cmd` prints for a service this release does not have
        // (frameworks/native/cmds/cmd/cmd.cpp).
        ctx.eprint(&format!("cmd: Can't find service: {service}\n"))?;
        return Ok(20);
    }
    match service {
        "package" => package_command(ctx, rest, true),
        "activity" => am(ctx, rest),
        "window" => wm(ctx, rest),
        "settings" => settings(ctx, rest),
        "input" => input(ctx, rest),
        "device_state" => device_state::device_state(ctx, rest),
        "location" => location::cmd_location(ctx, rest),
        "input_method" => super::ime::ime(ctx, rest),
        // AOSP's ClipboardService has no shell command on any release (SOURCES.md).
        "clipboard" => {
            ctx.eprint("No shell command implementation.\n")?;
            Ok(0)
        }
        "locale" => {
            // cmd locale set-app-locales PKG --locales L
            if rest.first().map(String::as_str) == Some("set-app-locales")
                && let Some(pkg) = rest.get(1)
            {
                let locales = rest
                    .iter()
                    .position(|a| a == "--locales")
                    .and_then(|i| rest.get(i + 1))
                    .cloned()
                    .unwrap_or_default();
                ctx.with_state(|s| s.app_locales.insert(pkg.clone(), locales));
            }
            Ok(0)
        }
        "display" if rest.first().map(String::as_str) == Some("get-displays") => {
            let (w, h, d) =
                ctx.with_state(|s| (s.display.width, s.display.height, s.display.density));
            ctx.print(&format!(
                "Displays:\n  Display id 0: DisplayInfo{{\"Built-in Screen\", displayId 0\", displayGroupId 0, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real {w} x {h}, largest app {w} x {h}, smallest app {w} x {h}, appMode 60.0, mode 1, defaultMode 1, modes [{{id=1, width={w}, height={h}, fps=60.0}}], rotation 0, state ON, type INTERNAL, uniqueId \"local:4619827259835644672\", app {w} x {h}, density {d} ({d}.0 x {d}.0) dpi}}\n"
            ))?;
            Ok(0)
        }
        "" => {
            ctx.eprint("cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.\n")?;
            Ok(20)
        }
        other => {
            ctx.eprint(&format!("cmd: Can't find service: {other}\n"))?;
            Ok(20)
        }
    }
}

pub(super) fn strip_user(args: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--user" {
            it.next();
        } else {
            v.push(a.clone());
        }
    }
    v
}

fn package_command(ctx: &mut Ctx, args: &[String], via_cmd: bool) -> Res {
    let args = strip_user(args);
    let sub = args.first().map(String::as_str).unwrap_or("");
    let rest = if args.is_empty() {
        &args[..]
    } else {
        &args[1..]
    };
    match sub {
        "list" => match rest.first().map(String::as_str) {
            Some("packages") => list_packages(ctx, &rest[1..]),
            Some("features") => {
                ctx.print("feature:android.hardware.touchscreen\nfeature:android.hardware.touchscreen.multitouch\nfeature:android.hardware.wifi\nfeature:android.software.webview\nfeature:android.hardware.screen.portrait\nfeature:android.hardware.screen.landscape\n")?;
                Ok(0)
            }
            _ => {
                ctx.eprint("Error: unknown list type\n")?;
                Ok(255)
            }
        },
        "path" => {
            let pkg = rest
                .iter()
                .find(|a| !a.starts_with('-'))
                .cloned()
                .unwrap_or_default();
            let path = ctx.with_state(|s| s.packages.get(&pkg).map(|p| p.apk_path.clone()));
            match path {
                Some(p) => ctx.print(&format!("package:{p}\n")).map(|_| 0),
                None => Ok(1),
            }
        }
        "install" => install(ctx, rest),
        "uninstall" => {
            let pkg = rest
                .iter()
                .find(|a| !a.starts_with('-'))
                .cloned()
                .unwrap_or_default();
            let ok = ctx.with_state(|s| match s.packages.get(&pkg) {
                Some(p) if !p.system => {
                    s.packages.remove(&pkg);
                    s.force_stop(&pkg);
                    scenario::refresh_launcher(s);
                    s.log('I', "PackageManager", &format!("Package {pkg} removed"));
                    true
                }
                _ => false,
            });
            if ok {
                ctx.print("Success\n")?;
                Ok(0)
            } else {
                ctx.print("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")?;
                Ok(1)
            }
        }
        "clear" => super::app_data::pm_clear(ctx, rest),
        "grant" => super::app_data::pm_grant(ctx, rest, true),
        "revoke" => super::app_data::pm_grant(ctx, rest, false),
        "enable" | "disable-user" | "set-home-activity" | "compile" | "trim-caches" => Ok(0),
        "dump" => dumpsys_package(ctx, rest.first().map(String::as_str).unwrap_or("")),
        "query-activities" if via_cmd => query_activities(ctx, rest),
        "resolve-activity" if via_cmd => resolve_activity(ctx, rest),
        _ => {
            ctx.eprint(&format!("Unknown command: {sub}\n"))?;
            Ok(255)
        }
    }
}

fn list_packages(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut show_path = false;
    let mut third = false;
    let mut system = false;
    let mut uid = false;
    let mut version = false;
    let mut installer = false;
    let mut filter = None;
    for a in args {
        match a.as_str() {
            "-f" => show_path = true,
            "-3" => third = true,
            "-s" => system = true,
            "-U" => uid = true,
            "--show-versioncode" => version = true,
            "-i" => installer = true,
            s if s.starts_with('-') => {}
            s => filter = Some(s.to_string()),
        }
    }
    let out: String = ctx.with_state(|s| {
        s.packages
            .values()
            .filter(|p| (!third || !p.system) && (!system || p.system))
            .filter(|p| filter.as_deref().is_none_or(|f| p.name.contains(f)))
            .map(|p| {
                let mut line = String::from("package:");
                if show_path {
                    line.push_str(&format!("{}=", p.apk_path));
                }
                line.push_str(&p.name);
                if version {
                    line.push_str(&format!(" versionCode:{}", p.version_code));
                }
                if installer {
                    line.push_str(if p.system {
                        "  installer=null"
                    } else {
                        "  installer=com.android.shell"
                    });
                }
                if uid {
                    line.push_str(&format!(" uid:{}", p.uid));
                }
                line.push('\n');
                line
            })
            .collect()
    });
    ctx.print(&out)?;
    Ok(0)
}

fn install(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut size: Option<usize> = None;
    let mut path = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-S" => size = it.next().and_then(|s| s.parse().ok()),
            "-i" | "--install-location" | "--originating-uri" | "--referrer" | "--abi" | "-p"
            | "--pkg" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            s => path = Some(s.to_string()),
        }
    }
    let (data, name) = if let Some(n) = size {
        // Streamed install: the APK bytes follow on stdin.
        let mut data = Vec::with_capacity(n);
        let deadline = Instant::now() + Duration::from_secs(60);
        while data.len() < n {
            if Instant::now() > deadline {
                ctx.print("Failure [INSTALL_FAILED_INVALID_APK: timed out reading APK]\n")?;
                return Ok(1);
            }
            match ctx.io.read_input(Duration::from_millis(200)) {
                Ok(Some(chunk)) => data.extend_from_slice(&chunk),
                Ok(None) => {}
                Err(_) => break,
            }
        }
        if data.len() < n {
            ctx.print(&format!(
                "Failure [INSTALL_FAILED_INVALID_APK: expected {n} bytes, got {}]\n",
                data.len()
            ))?;
            return Ok(1);
        }
        data.truncate(n);
        (data, None)
    } else if let Some(p) = path {
        let p = normalize(&p);
        match ctx.with_state(|s| s.files.get(&p).map(|f| f.data.clone())) {
            Some(d) => (d, Some(p)),
            None => {
                ctx.print(&format!(
                    "Failure [INSTALL_FAILED_INVALID_URI: Don't allow to install {p}]\n"
                ))?;
                return Ok(1);
            }
        }
    } else {
        ctx.eprint("Error: must either specify a package size or an APK file\n")?;
        return Ok(255);
    };
    let (pkg, label) = apk::identify(&data, name.as_deref());
    let ok = ctx.with_state(|s| {
        if s.packages.get(&pkg).is_some_and(|p| p.system) {
            return false;
        }
        s.next_uid += 1;
        let uid = s.packages.get(&pkg).map(|p| p.uid).unwrap_or(s.next_uid);
        let p = scenario::installed_package(&pkg, &label, uid);
        s.packages.insert(pkg.clone(), p);
        scenario::refresh_launcher(s);
        s.log('I', "PackageManager", &format!("Package {pkg} installed"));
        true
    });
    if ok {
        ctx.print("Success\n")?;
        Ok(0)
    } else {
        ctx.print(&format!("Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package {pkg} signatures do not match newer version; ignoring!]\n"))?;
        Ok(1)
    }
}

fn intent_filter(args: &[String]) -> (Option<String>, Vec<String>, Option<String>, bool, bool) {
    let (mut action, mut cats, mut pkg, mut brief, mut components) =
        (None, Vec::new(), None, false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" => action = it.next().cloned(),
            "-c" => {
                if let Some(c) = it.next() {
                    cats.push(c.clone());
                }
            }
            "--brief" => brief = true,
            "--components" => components = true,
            "-p" => pkg = it.next().cloned(),
            s if s.starts_with('-') => {}
            s => pkg = Some(s.to_string()),
        }
    }
    (action, cats, pkg, brief, components)
}

/// Launcher activities matching the filter (MAIN/LAUNCHER only are modelled).
type Match = (String, String, String, u32, bool, String);

fn launcher_matches(
    s: &PhoneState,
    action: Option<&str>,
    cats: &[String],
    pkg: Option<&str>,
) -> Vec<Match> {
    let home = cats.iter().any(|c| c == "android.intent.category.HOME");
    let action_ok = action.is_none_or(|a| a == "android.intent.action.MAIN");
    let cats_ok = cats.iter().all(|c| {
        c == "android.intent.category.LAUNCHER"
            || c == "android.intent.category.HOME"
            || c == "android.intent.category.DEFAULT"
    });
    if !action_ok || !cats_ok {
        return Vec::new();
    }
    s.packages
        .values()
        .filter(|p| pkg.is_none_or(|f| f == p.name))
        .filter(|p| {
            if home {
                p.name == LAUNCHER_PACKAGE
            } else {
                p.name != LAUNCHER_PACKAGE || pkg.is_some()
            }
        })
        .flat_map(|p| {
            crate::profile::launcher_activities(s, &p.name)
                .into_iter()
                .map(|a| {
                    (
                        p.name.clone(),
                        a,
                        p.label.clone(),
                        p.uid,
                        p.system || s.profile.resource_labels,
                        p.apk_path.clone(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn query_activities(ctx: &mut Ctx, args: &[String]) -> Res {
    let (action, cats, pkg, brief, components) = intent_filter(args);
    let found = ctx.with_state(|s| launcher_matches(s, action.as_deref(), &cats, pkg.as_deref()));
    let mut out = String::new();
    if components {
        for (p, a, ..) in &found {
            out.push_str(&format!("{}\n", short_component(p, a)));
        }
    } else if brief {
        out.push_str(&format!("{} activities found:\n", found.len()));
        for (i, (p, a, ..)) in found.iter().enumerate() {
            out.push_str(&format!("  Activity #{i}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    {}\n", short_component(p, a)));
        }
    } else if found.is_empty() {
        out.push_str("No activities found\n");
    } else {
        out.push_str(&format!("{} activities found:\n", found.len()));
        for (i, (p, a, label, uid, system, source)) in found.iter().enumerate() {
            out.push_str(&activity_block(i, p, a, label, *uid, *system, source));
        }
    }
    ctx.print(&out)?;
    Ok(0)
}

fn activity_block(
    i: usize,
    p: &str,
    a: &str,
    label: &str,
    uid: u32,
    system: bool,
    source: &str,
) -> String {
    // Layout of AOSP ResolveInfo.dump / ActivityInfo.dump / ApplicationInfo.dump, as in
    // fixtures/android/query-activities.txt. Literal labels (user apps) show as
    // nonLocalizedLabel; system apps use resource labels.
    let data_dir = format!("/data/user/0/{p}");
    let nl = if system {
        "null".to_string()
    } else {
        label.to_string()
    };
    format!(
        "  Activity #{i}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ActivityInfo:\n      name={a}\n      packageName={p}\n      labelRes=0x0 nonLocalizedLabel=null icon=0x0\n      enabled=true exported=true directBootAware=false\n      taskAffinity={p} targetActivity=null persistableMode=PERSIST_ROOT_ONLY\n      launchMode=LAUNCH_MULTIPLE flags=0x3 privateFlags=0x0 theme=0x7f150{i:03x}\n      screenOrientation=-1 configChanges=0x4a0 softInputMode=0x0\n      lockTaskLaunchMode=LOCK_TASK_LAUNCH_MODE_DEFAULT\n      resizeMode=RESIZE_MODE_RESIZEABLE\n      knownActivityEmbeddingCerts={{}}\n      ApplicationInfo:\n        name={p}.App\n        packageName={p}\n        labelRes=0x{lr:x} nonLocalizedLabel={nl} icon=0x7f0f0000 banner=0x0\n        className={p}.App\n        processName={p}\n        taskAffinity={p}\n        uid={uid} flags=0x{flags:x} privateFlags=0x{pflags:x} theme=0x7f150000\n        requiresSmallestWidthDp=0 compatibleWidthLimitDp=0 largestWidthLimitDp=0\n        sourceDir={source}\n        dataDir={data_dir}\n        deviceProtectedDataDir=/data/user_de/0/{p}\n        credentialProtectedDataDir={data_dir}\n        enabled=true minSdkVersion=24 targetSdkVersion=34 versionCode=1 targetSandboxVersion=1\n        supportsRtl=true\n        fullBackupContent=true\n        HiddenApiEnforcementPolicy=2\n        usesNonSdkApi=false\n        allowsPlaybackCapture=true\n",
        lr = if system { 0x7f14_0000u32 + i as u32 } else { 0 },
        flags = if system { 0x38c8be45u32 } else { 0x3888be44 },
        pflags = if system { 0xac1b1148u32 } else { 0xac001000 },
    )
}

fn resolve_activity(ctx: &mut Ctx, args: &[String]) -> Res {
    let (action, cats, pkg, brief, components) = intent_filter(args);
    let found = ctx.with_state(|s| {
        let mut v = launcher_matches(
            s,
            action.as_deref().or(Some("android.intent.action.MAIN")),
            &cats,
            pkg.as_deref(),
        );
        if v.is_empty() && pkg.is_some() && cats.is_empty() {
            v = launcher_matches(
                s,
                None,
                &["android.intent.category.LAUNCHER".to_string()],
                pkg.as_deref(),
            );
        }
        v
    });
    if found.len() > 1 {
        // Several activities match equally: `resolveIntent` answers with the system chooser
        // (ComputerEngine.chooseBestActivity returns mResolveInfo, ResolverActivity in
        // package `android`), which `--brief` prints as its short component.
        let comp = format!("android/{}", crate::profile::RESOLVER_ACTIVITY);
        if components {
            ctx.print(&format!("{comp}\n"))?;
        } else {
            ctx.print(&format!(
                "priority=0 preferredOrder=0 match=0x0 specificIndex=-1 isDefault=false\n{comp}\n"
            ))?;
        }
        return Ok(0);
    }
    let Some((p, a, label, uid, system, source)) = found.into_iter().next() else {
        ctx.print("No activity found\n")?;
        return Ok(0);
    };
    if components {
        ctx.print(&format!("{}\n", short_component(&p, &a)))?;
    } else if brief {
        ctx.print(&format!(
            "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n{}\n",
            short_component(&p, &a)
        ))?;
    } else {
        let block = activity_block(0, &p, &a, &label, uid, system, &source);
        let body: String = block
            .lines()
            .skip(1)
            .map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l)))
            .collect();
        ctx.print(&body)?;
    }
    Ok(0)
}
