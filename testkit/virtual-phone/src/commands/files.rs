//! File utilities (`ls`, `cat`, `rm`, `mkdir`, `touch`) and the phone's path and file helpers.

use super::*;

/// Canonical path: `/storage/emulated/0` and friends map to `/sdcard`; `.`/`..` resolved.
pub(crate) fn normalize(path: &str) -> String {
    let mut p = path.to_string();
    for alias in [
        "/storage/emulated/0",
        "/storage/self/primary",
        "/mnt/sdcard",
        "/mnt/user/0/primary",
    ] {
        if p == alias || p.starts_with(&format!("{alias}/")) {
            p = format!("/sdcard{}", &p[alias.len()..]);
        }
    }
    if !p.starts_with('/') {
        p = format!("/{p}");
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

fn parent(path: &str) -> String {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/".into(),
        Some((p, _)) => p.to_string(),
    }
}

/// Writes a file (creating parent directories).
pub(crate) fn write_file(s: &mut PhoneState, path: &str, data: Vec<u8>) {
    write_file_mode(s, path, data, 0o100_644, (now_ms() / 1000) as u32);
}

pub(crate) fn write_file_mode(
    s: &mut PhoneState,
    path: &str,
    data: Vec<u8>,
    mode: u32,
    mtime: u32,
) {
    let mut d = parent(path);
    loop {
        s.dirs.insert(d.clone());
        if d == "/" {
            break;
        }
        d = parent(&d);
    }
    s.files
        .insert(path.to_string(), FileEntry { data, mode, mtime });
}

/// Direct children (name, is_dir) of a directory.
pub(crate) fn children(s: &PhoneState, dir: &str) -> Vec<(String, bool)> {
    let prefix = if dir == "/" {
        "/".to_string()
    } else {
        format!("{dir}/")
    };
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    for d in &s.dirs {
        if let Some(rest) = d.strip_prefix(&prefix)
            && !rest.is_empty()
            && !rest.contains('/')
        {
            out.insert(rest.to_string(), true);
        }
    }
    for f in s.files.keys() {
        if let Some(rest) = f.strip_prefix(&prefix)
            && !rest.contains('/')
        {
            out.insert(rest.to_string(), false);
        }
    }
    out.into_iter().collect()
}

pub(super) fn ls(ctx: &mut Ctx, args: &[String]) -> Res {
    let long = args.iter().any(|a| a.starts_with('-') && a.contains('l'));
    let mut paths: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    if paths.is_empty() {
        paths.push("/".into());
    }
    let mut status = 0;
    let mut out = String::new();
    let multi = paths.len() > 1;
    for raw in &paths {
        let p = normalize(raw);
        let entry = ctx.with_state(|s| {
            if let Some(f) = s.files.get(&p) {
                Some(Err((f.data.len(), f.mtime)))
            } else if s.dirs.contains(&p) {
                Some(Ok(children(s, &p)
                    .into_iter()
                    .map(|(n, d)| {
                        let (size, mtime) = s
                            .files
                            .get(&format!("{}/{n}", p.trim_end_matches('/')))
                            .map(|f| (f.data.len(), f.mtime))
                            .unwrap_or((4096, 0));
                        (n, d, size, mtime)
                    })
                    .collect::<Vec<_>>()))
            } else {
                None
            }
        });
        match entry {
            None => {
                ctx.eprint(&format!("ls: {raw}: No such file or directory\n"))?;
                status = 1;
            }
            Some(Err((size, mtime))) => {
                if long {
                    out.push_str(&format!(
                        "-rw-rw---- 1 u0_a150 media_rw {size:>8} {} {raw}\n",
                        &format_date(u64::from(mtime) * 1000, true)[..16]
                    ));
                } else {
                    out.push_str(&format!("{raw}\n"));
                }
            }
            Some(Ok(list)) => {
                if multi {
                    out.push_str(&format!("{raw}:\n"));
                }
                if long {
                    out.push_str(&format!("total {}\n", list.len()));
                }
                for (n, d, size, mtime) in list {
                    if long {
                        let kind = if d { "drwxrws--- 2" } else { "-rw-rw---- 1" };
                        out.push_str(&format!(
                            "{kind} u0_a150 media_rw {size:>8} {} {n}\n",
                            &format_date(u64::from(mtime) * 1000, true)[..16]
                        ));
                    } else {
                        out.push_str(&format!("{n}\n"));
                    }
                }
            }
        }
    }
    ctx.print(&out)?;
    Ok(status)
}

pub(super) fn cat(ctx: &mut Ctx, args: &[String]) -> Res {
    let mut status = 0;
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        let (data, is_dir) =
            ctx.with_state(|s| (s.files.get(&p).map(|f| f.data.clone()), s.dirs.contains(&p)));
        match data {
            Some(d) => ctx.bytes(&d)?,
            None if is_dir => {
                ctx.eprint(&format!("cat: {raw}: Is a directory\n"))?;
                status = 1;
            }
            None => {
                ctx.eprint(&format!("cat: {raw}: No such file or directory\n"))?;
                status = 1;
            }
        }
    }
    Ok(status)
}

pub(super) fn rm(ctx: &mut Ctx, args: &[String]) -> Res {
    let force = args.iter().any(|a| a.starts_with('-') && a.contains('f'));
    let recursive = args
        .iter()
        .any(|a| a.starts_with('-') && (a.contains('r') || a.contains('R')));
    let mut status = 0;
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        let r = ctx.with_state(|s| {
            if s.files.remove(&p).is_some() {
                Ok(())
            } else if s.dirs.contains(&p) {
                if !recursive {
                    return Err(format!("rm: {raw}: Is a directory\n"));
                }
                let prefix = format!("{p}/");
                s.files.retain(|k, _| !k.starts_with(&prefix));
                s.dirs.retain(|k| !k.starts_with(&prefix) && *k != p);
                Ok(())
            } else if force {
                Ok(())
            } else {
                Err(format!("rm: {raw}: No such file or directory\n"))
            }
        });
        if let Err(e) = r {
            ctx.eprint(&e)?;
            status = 1;
        }
    }
    Ok(status)
}

pub(super) fn mkdir(ctx: &mut Ctx, args: &[String]) -> Res {
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        ctx.with_state(|s| {
            let mut d = p.clone();
            loop {
                s.dirs.insert(d.clone());
                if d == "/" {
                    break;
                }
                d = parent(&d);
            }
        });
    }
    Ok(0)
}

pub(super) fn touch(ctx: &mut Ctx, args: &[String]) -> Res {
    for raw in args.iter().filter(|a| !a.starts_with('-')) {
        let p = normalize(raw);
        ctx.with_state(|s| {
            if !s.files.contains_key(&p) {
                write_file(s, &p, Vec::new());
            }
        });
    }
    Ok(0)
}
