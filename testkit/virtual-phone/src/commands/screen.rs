//! `uiautomator dump`, `screencap` and `screenrecord`.

use super::*;

pub(super) fn uiautomator(ctx: &mut Ctx, args: &[String]) -> Res {
    if args.first().map(String::as_str) != Some("dump") {
        ctx.eprint("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n")?;
        return Ok(1);
    }
    let file = args[1..]
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "/sdcard/window_dump.xml".into());
    // A refusal (an animated screen, another UiAutomation client) costs what it costs on a
    // phone: `waitForIdle` gives up after its timeout (10 s), in virtual time.
    let refusal = ctx.with_state(|s| {
        let r = crate::profile::uiautomator_refusal(s);
        if r.is_some_and(|t| t.contains("idle state")) {
            s.profile.clock.now_ms += crate::profile::IDLE_TIMEOUT_MS;
        }
        r
    });
    if let Some(text) = refusal {
        ctx.eprint(text)?;
        return Ok(1);
    }
    let xml = ctx.with_state(|s| {
        let root = layout::layout(s);
        uixml::dump(&root, s.rotation())
    });
    if file == "/dev/tty" || file == "/dev/stdout" {
        ctx.print(&xml)?;
    } else {
        let path = normalize(&file);
        ctx.with_state(|s| write_file(s, &path, xml.into_bytes()));
    }
    ctx.print(&format!("UI hierchary dumped to: {file}\n"))?;
    Ok(0)
}

pub(super) fn screencap(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut png = false;
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => png = true,
            "-d" => {
                it.next();
            }
            "-h" => {
                ctx.eprint("usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n   -d: specify the physical display ID to capture (default: 4619827259835644672)\n")?;
                return Ok(0);
            }
            s if s.starts_with('-') => {}
            s => file = Some(s.to_string()),
        }
    }
    if file.as_deref().is_some_and(|f| f.ends_with(".png")) {
        png = true;
    }
    let frame = ctx.phone.screenshot();
    let bytes = if png {
        frame.png().to_vec()
    } else {
        let mut b = Vec::with_capacity(16 + frame.rgba.len());
        for v in [frame.width, frame.height, 1, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&frame.rgba);
        b
    };
    match file {
        Some(f) => {
            let p = normalize(&f);
            ctx.with_state(|s| write_file(s, &p, bytes));
        }
        None => ctx.bytes(&bytes)?,
    }
    Ok(0)
}

pub(super) fn screenrecord(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut limit = 180.0f64;
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time-limit" => limit = it.next().and_then(|v| v.parse().ok()).unwrap_or(180.0),
            "--size" | "--bit-rate" | "--display-id" | "--output-format" | "--codec-name"
            | "--bugreport-x" => {
                it.next();
            }
            s if s.starts_with("--") => {}
            s => file = Some(s.to_string()),
        }
    }
    let Some(file) = file else {
        ctx.eprint("Must specify output file (see --help).\n")?;
        return Ok(2);
    };
    let limit = Duration::from_secs_f64(limit.clamp(0.0, 180.0));
    let (pid, cancel) = ctx.phone.start_recording();
    let started = Instant::now();
    let mut frames = 0u32;
    while started.elapsed() < limit && !cancel.load(Ordering::SeqCst) && !ctx.io.closed() {
        std::thread::sleep(Duration::from_millis(50));
        frames += 1;
    }
    ctx.phone.end_recording(pid);
    // A small MP4-shaped file: an ftyp box, then a free box recording the duration.
    let mut data = Vec::new();
    data.extend_from_slice(&24u32.to_be_bytes());
    data.extend_from_slice(b"ftypmp42\0\0\0\0mp42isom");
    let note = format!(
        "virtual-device screenrecord frames={frames} ms={}",
        started.elapsed().as_millis()
    );
    data.extend_from_slice(&((8 + note.len()) as u32).to_be_bytes());
    data.extend_from_slice(b"free");
    data.extend_from_slice(note.as_bytes());
    let p = normalize(&file);
    ctx.with_state(|s| write_file(s, &p, data));
    Ok(0)
}
