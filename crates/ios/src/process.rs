//! Running `xcrun` and `idb`: argv arrays (never a shell), a deadline on every call,
//! stderr kept for errors, and the child killed if the call is dropped or times out.
//!
//! What a child prints is capped ([`STDOUT_CAP`], [`STDERR_CAP`]): a tool that prints
//! without end (a `log stream` where `log show` was meant, a broken wrapper) is killed
//! once it passes the cap, and the call fails, instead of filling the memory. Every
//! output here is parsed whole (JSON, plists, ndjson), so a cut one is an error.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use mobile_device::DeviceError;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

/// The most of a child's stdout a call takes: the largest outputs read here (a minute of
/// `log show` as ndjson, `listapps` of a full simulator) are a few MiB.
pub(crate) const STDOUT_CAP: usize = 32 << 20;

/// The most of a child's stderr a call keeps (it only words errors).
pub(crate) const STDERR_CAP: usize = 1 << 20;

/// What a finished child printed.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    /// Exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Output {
    pub(crate) fn success(&self) -> bool {
        self.code == Some(0)
    }

    pub(crate) fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs `program args…` with an optional stdin, waiting at most `timeout` if one is given.
/// Dropping the future kills the child and reaps it ([`Reaper`]), so a caller's deadline or a
/// cancelled call stops the tool too.
pub(crate) async fn run<S: AsRef<OsStr>>(
    program: &Path,
    args: &[S],
    stdin: Option<&[u8]>,
    env: &[(OsString, OsString)],
    timeout: Option<Duration>,
    what: &str,
) -> Result<Output, DeviceError> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    tracing::debug!(program = %program.display(), args = ?args.iter().map(|a| a.as_ref().to_string_lossy()).collect::<Vec<_>>(), "run");
    let spawned = cmd
        .spawn()
        .map_err(|e| DeviceError::backend(format!("could not run {}: {e}", program.display())))?;
    let mut guard = Reaper(Some(spawned));
    let child = guard.0.as_mut().expect("just spawned");
    let writer = match (stdin, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => {
            let bytes = bytes.to_vec();
            Some(tokio::spawn(async move {
                let _ = pipe.write_all(&bytes).await;
                let _ = pipe.shutdown().await;
            }))
        }
        _ => None,
    };
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(DeviceError::backend(format!(
            "{what}: the output of {} could not be read",
            program.display()
        )));
    };
    let outputs = async {
        tokio::try_join!(
            read_capped(stdout, STDOUT_CAP, "stdout"),
            read_capped(stderr, STDERR_CAP, "stderr")
        )
    };
    let waited = match timeout {
        Some(limit) => tokio::time::timeout(limit, outputs)
            .await
            .map_err(|_| limit),
        None => Ok(outputs.await),
    };
    let (stdout, stderr) = match waited {
        Ok(Ok(out)) => out,
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::FileTooLarge => {
            // Killed and reaped, so it stops printing now and leaves no zombie.
            let _ = child.kill().await;
            return Err(DeviceError::backend(format!(
                "{what}: {} {e}; it was stopped",
                program.display()
            )));
        }
        Ok(Err(e)) => {
            return Err(DeviceError::backend(format!(
                "{what}: waiting for {} failed: {e}",
                program.display()
            )));
        }
        Err(limit) => {
            return Err(DeviceError::Timeout {
                what: what.to_string(),
                after: limit,
            });
        }
    };
    let status = child.wait().await.map_err(|e| {
        DeviceError::backend(format!(
            "{what}: waiting for {} failed: {e}",
            program.display()
        ))
    })?;
    guard.0 = None;
    if let Some(w) = writer {
        let _ = w.await;
    }
    Ok(Output {
        code: status.code(),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

/// Kills a child whose call was dropped (a passed deadline, a cancelled call) and reaps
/// it on the runtime, so it leaves neither a running tool nor a zombie behind.
struct Reaper(Option<tokio::process::Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.start_kill();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let _ = child.wait().await;
                });
            }
        }
    }
}

/// Reads `from` to its end, at most `cap` bytes of it; more is a `FileTooLarge` error
/// that names the stream.
async fn read_capped(
    from: impl AsyncRead + Unpin,
    cap: usize,
    stream: &str,
) -> std::io::Result<Vec<u8>> {
    let mut got = Vec::new();
    // One byte past the cap tells a full output from a longer one.
    let n = from.take(cap as u64 + 1).read_to_end(&mut got).await?;
    if n > cap {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("printed more than {} MiB on {stream}", cap >> 20),
        ));
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_child_that_prints_without_end_is_killed_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!("echo $$ > '{}'; exec yes", pid_file.display());
        let e = run(
            Path::new("/bin/sh"),
            &["-c", &script],
            None,
            &[],
            None,
            "reading the log",
        )
        .await
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("printed more than 32 MiB on stdout") && text.contains("stopped"),
            "{text}"
        );
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let proc = Path::new("/proc").join(pid.trim());
        assert!(!proc.exists(), "the child {pid} was killed and reaped");
    }

    #[tokio::test]
    async fn endless_stderr_is_capped_too() {
        let e = run(
            Path::new("/bin/sh"),
            &["-c", "yes >&2"],
            None,
            &[],
            None,
            "listing apps",
        )
        .await
        .unwrap_err();
        assert!(e.to_string().contains("more than 1 MiB on stderr"), "{e}");
    }

    #[tokio::test]
    async fn output_below_the_caps_is_whole() {
        let out = run(
            Path::new("/bin/sh"),
            &["-c", "head -c 100000 /dev/zero; echo oops >&2; exit 3"],
            None,
            &[],
            None,
            "x",
        )
        .await
        .unwrap();
        assert_eq!(out.stdout.len(), 100_000);
        assert_eq!(out.stderr, "oops\n");
        assert_eq!(out.code, Some(3));
    }
}
