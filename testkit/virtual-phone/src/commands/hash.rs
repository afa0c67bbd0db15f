//! `md5sum` and `sha1sum` (toybox, on Android since 6.0), and the one pipeline the shell
//! runs: `screencap [-p] | md5sum` / `| sha1sum`, which hashes the frame on the phone so
//! only the 33-byte line crosses the cable (or `dumpsys SurfaceFlinger --frametimeline -all`
//! in place of `screencap`).
//!
//! Output as toybox toys/lets/md5sum.c prints it: the lowercase hex digest, two spaces, and
//! the file name, `-` for standard input (`printf("%s  %s\n", hash, name)`).

use super::*;

/// The hashes a settle check sends, the one pipeline the shell lets through, with no
/// redirection: `screencap [-p] | md5sum` (or `sha1sum`), the frame hashed on the phone,
/// and `dumpsys SurfaceFlinger --frametimeline -all | md5sum` (or `sha1sum`), the list of
/// composed display frames hashed on the phone (see `surfaceflinger.rs`).
pub(crate) fn is_frame_hash(line: &crate::shell::ParsedLine) -> bool {
    let first: Vec<&str> = line
        .commands
        .first()
        .map(|c| c.argv.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let source = match first.as_slice() {
        ["screencap", rest @ ..] => rest.iter().all(|a| *a == "-p"),
        ["dumpsys", "SurfaceFlinger", "--frametimeline", "-all"] => true,
        _ => false,
    };
    line.operators == ["|"]
        && line.commands.len() == 2
        && source
        && matches!(
            line.commands[1].argv.as_slice(),
            [p] if p == "md5sum" || p == "sha1sum"
        )
        && line.commands.iter().all(|c| c.redirects.is_empty())
}

/// `md5sum [FILE…]` / `sha1sum [FILE…]`: one line per file, standard input without files.
pub(super) fn hashsum(ctx: &mut Ctx, name: &str, args: &[String]) -> Res {
    let digest = |data: &[u8]| {
        if name == "md5sum" {
            hex(&md5(data))
        } else {
            use sha1::Digest;
            hex(&sha1::Sha1::digest(data))
        }
    };
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if files.is_empty() {
        let mut data = Vec::new();
        while let Ok(Some(chunk)) = ctx.io.read_input(Duration::from_millis(50)) {
            data.extend_from_slice(&chunk);
        }
        return ctx.print(&format!("{}  -\n", digest(&data))).map(|_| 0);
    }
    let mut status = 0;
    for f in files {
        let p = normalize(f);
        match ctx.with_state(|s| s.files.get(&p).map(|e| e.data.clone())) {
            Some(data) => ctx.print(&format!("{}  {f}\n", digest(&data)))?,
            None => {
                ctx.eprint(&format!("{name}: {f}: No such file or directory\n"))?;
                status = 1;
            }
        }
    }
    Ok(status)
}

/// Runs `A | B`: A's output becomes B's input, B writes to `io`. The shell lets only
/// the pipelines of [`is_frame_hash`] through (see `crate::shell`).
pub(super) fn pipeline(
    phone: &Arc<Shared>,
    parsed: &crate::shell::ParsedLine,
    io: &mut dyn Io,
    env: &mut BTreeMap<String, String>,
) -> i32 {
    let mut input = Vec::new();
    let mut status = 0;
    let last = parsed.commands.len().saturating_sub(1);
    for (i, cmd) in parsed.commands.iter().enumerate() {
        if i == last {
            // The last command reads what the one before wrote and writes to the stream.
            let mut feed = FeedIo {
                inner: &mut *io,
                input: std::mem::take(&mut input),
            };
            let mut ctx = Ctx {
                phone,
                io: &mut feed,
                env: &mut *env,
                drop_stdout: false,
                drop_stderr: false,
            };
            status = run(&mut ctx, &cmd.argv).unwrap_or(1);
        } else {
            let mut mem = MemIo {
                output: Vec::new(),
                input: std::mem::take(&mut input),
            };
            let mut ctx = Ctx {
                phone,
                io: &mut mem,
                env: &mut *env,
                drop_stdout: false,
                drop_stderr: false,
            };
            status = run(&mut ctx, &cmd.argv).unwrap_or(1);
            input = mem.output;
        }
    }
    status
}

/// Output to the stream, input from a buffer.
struct FeedIo<'a> {
    inner: &'a mut dyn Io,
    input: Vec<u8>,
}

impl Io for FeedIo<'_> {
    fn out(&mut self, data: &[u8]) -> io::Result<()> {
        self.inner.out(data)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
    fn read_input(&mut self, _timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        if self.input.is_empty() {
            Err(io::ErrorKind::UnexpectedEof.into())
        } else {
            Ok(Some(std::mem::take(&mut self.input)))
        }
    }
    fn closed(&self) -> bool {
        self.inner.closed()
    }
    fn can_follow(&self) -> bool {
        false
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// MD5 (RFC 1321).
fn md5(data: &[u8]) -> [u8; 16] {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32)
        .collect();
    let mut h: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_le_bytes());
    for chunk in msg.chunks_exact(64) {
        let mut m = [0u32; 16];
        for (w, b) in m.iter_mut().zip(chunk.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        let [mut a, mut b, mut c, mut d] = h;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S[i]));
        }
        h = [
            h[0].wrapping_add(a),
            h[1].wrapping_add(b),
            h[2].wrapping_add(c),
            h[3].wrapping_add(d),
        ];
    }
    let mut out = [0u8; 16];
    for (i, v) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_matches_rfc_1321_vectors() {
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(&md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }
}
