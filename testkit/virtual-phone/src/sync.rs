//! `sync:` — the file transfer sub-protocol, parsed as a byte stream (requests are not aligned
//! to WRTE packets). Each request is `id[4] + u32 len + len bytes`. Supported: STAT, LSTA, LIST,
//! SEND (DATA…DONE), RECV and QUIT. Responses are flushed one request at a time so that, over
//! adbd packets, every response header starts a WRTE (adb_client's direct path relies on that).

use std::io::{self, Read};
use std::sync::Arc;

use crate::commands::{children, normalize, write_file_mode};
use crate::phone::{CommandRecord, Shared};
use crate::services::ServiceStream;

const DATA_CHUNK: usize = 64 * 1024;

fn read_u32(r: &mut (impl Read + ?Sized)) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn read_id(r: &mut (impl Read + ?Sized)) -> io::Result<Option<[u8; 4]>> {
    let mut b = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        let n = r.read(&mut b[got..])?;
        if n == 0 {
            return if got == 0 {
                Ok(None)
            } else {
                Err(io::ErrorKind::UnexpectedEof.into())
            };
        }
        got += n;
    }
    Ok(Some(b))
}

fn read_string(r: &mut (impl Read + ?Sized), len: u32) -> io::Result<String> {
    if len > 4096 {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "path too long"));
    }
    let mut b = vec![0u8; len as usize];
    r.read_exact(&mut b)?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

fn msg(id: &[u8; 4], words: &[u32]) -> Vec<u8> {
    let mut v = id.to_vec();
    for w in words {
        v.extend_from_slice(&w.to_le_bytes());
    }
    v
}

fn fail(stream: &mut dyn ServiceStream, text: &str) -> io::Result<()> {
    let mut v = msg(b"FAIL", &[text.len() as u32]);
    v.extend_from_slice(text.as_bytes());
    stream.write(&v)?;
    stream.flush()
}

fn log(phone: &Shared, argv: Vec<String>) {
    phone.record(CommandRecord {
        service: "sync:".into(),
        argv: vec![argv],
        ..CommandRecord::empty()
    });
}

/// Serves requests until QUIT or the host closes the stream.
pub(crate) fn serve(phone: &Arc<Shared>, stream: &mut dyn ServiceStream) -> io::Result<()> {
    loop {
        let Some(id) = read_id(stream)? else {
            return Ok(());
        };
        let len = read_u32(stream)?;
        match &id {
            b"STAT" | b"LSTA" => {
                let path = read_string(stream, len)?;
                log(
                    phone,
                    vec![String::from_utf8_lossy(&id).into_owned(), path.clone()],
                );
                let p = normalize(&path);
                let (mode, size, mtime) = phone.with_state(|s| {
                    if let Some(f) = s.files.get(&p) {
                        (f.mode, f.data.len() as u32, f.mtime)
                    } else if s.dirs.contains(&p) {
                        (0o040_771, 4096, 0)
                    } else {
                        (0, 0, 0)
                    }
                });
                stream.write(&msg(&id, &[mode, size, mtime]))?;
                stream.flush()?;
            }
            b"LIST" => {
                let path = read_string(stream, len)?;
                log(phone, vec!["LIST".into(), path.clone()]);
                let p = normalize(&path);
                let entries = phone.with_state(|s| {
                    children(s, &p)
                        .into_iter()
                        .map(|(name, is_dir)| {
                            let full = if p == "/" {
                                format!("/{name}")
                            } else {
                                format!("{p}/{name}")
                            };
                            match s.files.get(&full) {
                                Some(f) if !is_dir => (name, f.mode, f.data.len() as u32, f.mtime),
                                _ => (name, 0o040_771, 4096, 0),
                            }
                        })
                        .collect::<Vec<_>>()
                });
                for (name, mode, size, mtime) in entries {
                    let mut v = msg(b"DENT", &[mode, size, mtime, name.len() as u32]);
                    v.extend_from_slice(name.as_bytes());
                    stream.write(&v)?;
                }
                stream.write(&msg(b"DONE", &[0, 0, 0, 0]))?;
                stream.flush()?;
            }
            b"SEND" => {
                let spec = read_string(stream, len)?;
                log(phone, vec!["SEND".into(), spec.clone()]);
                let (path, mode) = match spec.rsplit_once(',') {
                    Some((p, m)) => (p.to_string(), m.parse::<u32>().unwrap_or(0o644)),
                    None => (spec.clone(), 0o644),
                };
                let mode = if mode & 0o170_000 == 0 {
                    0o100_000 | (mode & 0o7777)
                } else {
                    mode
                };
                let mut data = Vec::new();
                let mtime;
                loop {
                    let Some(cid) = read_id(stream)? else {
                        return Ok(());
                    };
                    let n = read_u32(stream)?;
                    match &cid {
                        b"DATA" => {
                            if n as usize > DATA_CHUNK * 4 {
                                return fail(stream, "data chunk too large");
                            }
                            let start = data.len();
                            data.resize(start + n as usize, 0);
                            stream.read_exact(&mut data[start..])?;
                        }
                        b"DONE" => {
                            mtime = n;
                            break;
                        }
                        _ => return fail(stream, "unexpected sync request in SEND"),
                    }
                }
                let p = normalize(&path);
                let is_dir = phone.with_state(|s| s.dirs.contains(&p));
                if is_dir {
                    fail(stream, "couldn't create file: Is a directory")?;
                    continue;
                }
                phone.with_state(|s| write_file_mode(s, &p, data, mode, mtime));
                stream.write(&msg(b"OKAY", &[0]))?;
                stream.flush()?;
            }
            b"RECV" => {
                let path = read_string(stream, len)?;
                log(phone, vec!["RECV".into(), path.clone()]);
                let p = normalize(&path);
                let data = phone.with_state(|s| s.files.get(&p).map(|f| f.data.clone()));
                match data {
                    None => fail(stream, "No such file or directory")?,
                    Some(d) => {
                        for chunk in d.chunks(DATA_CHUNK) {
                            let mut v = msg(b"DATA", &[chunk.len() as u32]);
                            v.extend_from_slice(chunk);
                            // One DATA per WRTE keeps headers at packet starts.
                            stream.flush()?;
                            stream.write(&v)?;
                            stream.flush()?;
                        }
                        stream.write(&msg(b"DONE", &[0]))?;
                        stream.flush()?;
                    }
                }
            }
            b"QUIT" => return Ok(()),
            _ => {
                let text = format!("unknown sync request {}", String::from_utf8_lossy(&id));
                return fail(stream, &text);
            }
        }
    }
}
