//! `dumpsys` (window, activity, package, SurfaceFlinger, display, input_method).

use super::*;

fn focus_lines(s: &PhoneState) -> (String, String, String) {
    let (win, app, comp) = app_focus_lines(s);
    if s.profile.keyguard {
        // The keyguard's window has focus; the app below stays the focused app.
        let title = s.profile.keyguard_window();
        return (format!("Window{{2c4e1b8 u0 {title}}}"), app, comp);
    }
    (win, app, comp)
}

fn app_focus_lines(s: &PhoneState) -> (String, String, String) {
    match s.foreground() {
        Some(f) => {
            let comp = short_component(&f.package, &f.activity);
            let full = format!("{}/{}", f.package, f.activity);
            (
                format!("Window{{8d5a5a9 u0 {full}}}"),
                format!("ActivityRecord{{cd9f1d7 u0 {comp} t{}}}", f.task),
                comp,
            )
        }
        None => ("null".into(), "null".into(), String::new()),
    }
}

pub(super) fn dumpsys(ctx: &mut Ctx, args: &[String]) -> Res {
    let service = args.first().map(String::as_str).unwrap_or("");
    match service {
        "window" => {
            let which = args.get(1).map(String::as_str).unwrap_or("");
            let out = ctx.with_state(|s| dumpsys_window(s, which));
            ctx.print(&out)?;
            Ok(0)
        }
        "activity" => {
            let out = ctx.with_state(|s| dumpsys_activity(s));
            ctx.print(&out)?;
            Ok(0)
        }
        "package" => dumpsys_package(ctx, args.get(1).map(String::as_str).unwrap_or("")),
        "SurfaceFlinger" if args.get(1).map(String::as_str) == Some("--display-id") => {
            ctx.print("Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName=\"Built-in Screen\"\n")?;
            Ok(0)
        }
        "SurfaceFlinger" => surfaceflinger::dumpsys_surfaceflinger(ctx, &args[1..]),
        "display" => {
            let (w, h, d) =
                ctx.with_state(|s| (s.display.width, s.display.height, s.display.density));
            ctx.print(&format!("DISPLAY MANAGER (dumpsys display)\n  mOnlyCore=false\n  mDefaultViewport=DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:4619827259835644672', physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}\n  mDisplayDeviceInfo: DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:4619827259835644672\", {w} x {h}, modeId 1, density {d}, state ON}}\n"))?;
            Ok(0)
        }
        "input_method" => {
            let shown = ctx.with_state(|s| s.foreground().is_some_and(|f| f.focused.is_some()));
            ctx.print(&format!(
                "  mInputShown={shown}\n  mIsInputViewShown={shown}\n"
            ))?;
            Ok(0)
        }
        "" => {
            ctx.print("Currently running services:\n  activity\n  display\n  input_method\n  package\n  SurfaceFlinger\n  window\n")?;
            Ok(0)
        }
        other => {
            ctx.print(&format!("Can't find service: {other}\n"))?;
            Ok(0)
        }
    }
}

fn dumpsys_window(s: &PhoneState, which: &str) -> String {
    let (win, app, _) = focus_lines(s);
    let (w, h) = s.oriented_size();
    let rot = s.rotation();
    let d = s.display.override_density.unwrap_or(s.display.density);
    let ime = s.foreground().is_some_and(|f| f.focused.is_some());
    // `DisplayContent.dump` prints `base=` only when `wm size`/`wm density` changed it.
    let (bw, bh) = s
        .display
        .override_size
        .unwrap_or((s.display.width, s.display.height));
    let base = if (bw, bh, d) != (s.display.width, s.display.height, s.display.density) {
        format!(" base={bw}x{bh} {d}dpi")
    } else {
        String::new()
    };
    let mut out = String::new();
    if which.is_empty() || which == "displays" || which == "d" {
        out.push_str("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n");
        out.push_str(&format!(
            "  Display: mDisplayId=0 rootTasks=3\n    init={}x{} {}dpi{base} cur={w}x{h} app={w}x{} rng=1080x1017-2400x2337\n    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))\n\n  mLayoutSeq=312\n  mCurrentFocus={win}\n  mFocusedApp={app}\n  mLastStatusBarVisibility=0x0\n  mDisplayRotation:\n    mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED\n    mRotation={rot} mDeferredRotationPauseCount=0\n    mUserRotationMode={} mUserRotation=ROTATION_{}\n\n",
            s.display.width, s.display.height, s.display.density, h - 126,
            if s.setting("system", "accelerometer_rotation") == Some("0") { "USER_ROTATION_LOCKED" } else { "USER_ROTATION_FREE" },
            rot * 90,
        ));
    }
    if which.is_empty() || which == "windows" || which == "w" {
        out.push_str("WINDOW MANAGER WINDOWS (dumpsys window windows)\n");
        if let Some(f) = s.foreground() {
            out.push_str(&format!("  Window #2 Window{{8d5a5a9 u0 {}/{}}}:\n    mDisplayId=0 rootTaskId={} mSession=Session{{6fdbba 4321:u0a10150}} mClient=android.os.BinderProxy@dbd59e0\n    mOwnerUid=10150 showForAllUsers=false package={} appop=NONE\n    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false\n", f.package, f.activity, f.task, f.package));
        }
        out.push_str("  Window #1 Window{e41b499 u0 NavigationBar0}:\n    mDisplayId=0 rootTaskId=1 mSession=Session{a1b2c3 1899:u0a10102}\n    mOwnerUid=10102 showForAllUsers=true package=com.android.systemui appop=NONE\n  Window #0 Window{5c2a1f0 u0 StatusBar}:\n    mDisplayId=0 rootTaskId=1 mSession=Session{a1b2c3 1899:u0a10102}\n    mOwnerUid=10102 showForAllUsers=true package=com.android.systemui appop=NONE\n\n");
        out.push_str(&format!("  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h890dp {d}dpi nrml long port finger qwerty/v/v -nav/h winConfig={{ mBounds=Rect(0, 0 - {w}, {h}) mAppBounds=Rect(0, 0 - {w}, {h}) mWindowingMode=fullscreen mDisplayWindowingMode=fullscreen mActivityType=undefined mAlwaysOnTop=undefined mRotation=ROTATION_{}}}}}\n", rot * 90));
        out.push_str(&format!(
            "  mCurrentFocus={win}\n  mFocusedApp={app}\n  mInputMethodWindow={}\n",
            if ime {
                "Window{3f4e5d6 u0 InputMethod}"
            } else {
                "null"
            }
        ));
    }
    if out.is_empty() {
        out = format!("  mCurrentFocus={win}\n  mFocusedApp={app}\n");
    }
    out
}

fn dumpsys_activity(s: &PhoneState) -> String {
    let mut out = String::from(
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\nDisplay #0 (activities from top to bottom):\n",
    );
    for (i, f) in s.stack.iter().enumerate().rev() {
        let comp = short_component(&f.package, &f.activity);
        out.push_str(&format!(
            "  * Task{{{:x} #{} type={} A=10150:{} U=0 visible=true mode=fullscreen translucent=false sz=1}}\n    * Hist  #{i}: ActivityRecord{{cd9f1d7 u0 {comp} t{}}}\n      packageName={} processName={}\n      state={}\n",
            0xa00 + f.task, f.task, if f.package == LAUNCHER_PACKAGE { "home" } else { "standard" }, f.package, f.task, f.package, f.package,
            if i + 1 == s.stack.len() { "RESUMED" } else { "STOPPED" },
        ));
    }
    if let Some(f) = s.foreground() {
        let comp = short_component(&f.package, &f.activity);
        let rec = format!("ActivityRecord{{cd9f1d7 u0 {comp} t{}}}", f.task);
        out.push_str(&format!("\n  ResumedActivity: {rec}\n  mResumedActivity: {rec}\n  topResumedActivity={rec}\n  mFocusedApp={rec}\n"));
    }
    out
}

pub(super) fn dumpsys_package(ctx: &mut Ctx, pkg: &str) -> Res {
    let out = ctx.with_state(|s| {
        let Some(p) = s.packages.get(pkg) else {
            return String::from("Dexopt state:\n  Unable to find package: ") + pkg + "\n";
        };
        let mut o = "Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n".to_string();
        if let Some(a) = &p.launcher_activity {
            o.push_str(&format!("        8f4c2b1 {} filter 3d1e0a7\n          Action: \"android.intent.action.MAIN\"\n          Category: \"android.intent.category.LAUNCHER\"\n", short_component(&p.name, a)));
        }
        o.push_str(&format!(
            "\nPackages:\n  Package [{}] (a1b2c3d):\n    userId={}\n    pkg=Package{{a1b2c3d {}}}\n    codePath={}\n    versionCode={} minSdk=24 targetSdk=34\n    versionName={}\n    flags=[ {}HAS_CODE ALLOW_CLEAR_USER_DATA ]\n    dataDir=/data/user/0/{}\n",
            p.name, p.uid, p.name, p.apk_path.rsplit_once('/').map(|x| x.0).unwrap_or(""), p.version_code, p.version_name,
            if p.system { "SYSTEM " } else { "" }, p.name
        ));
        o.push_str(&super::app_data::permission_sections(p));
        o
    });
    ctx.print(&out)?;
    Ok(0)
}
