//! Running `xcrun` and `idb`: argv arrays (never a shell), a deadline on every call,
//! stderr kept for errors, and the child killed if the call is dropped or times out.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use mobile_device::DeviceError;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

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
/// Dropping the future kills the child (`kill_on_drop`), so a caller's deadline or a
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
    let mut child = cmd
        .spawn()
        .map_err(|e| DeviceError::backend(format!("could not run {}: {e}", program.display())))?;
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
    let waited = match timeout {
        Some(limit) => tokio::time::timeout(limit, child.wait_with_output())
            .await
            .map_err(|_| limit),
        None => Ok(child.wait_with_output().await),
    };
    let out = match waited {
        Ok(Ok(out)) => out,
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
    if let Some(w) = writer {
        let _ = w.await;
    }
    Ok(Output {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}
