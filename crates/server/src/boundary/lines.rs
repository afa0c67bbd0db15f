//! The stdio transport: newline-delimited JSON-RPC with the [`framing`](super::framing)
//! checks in front of rmcp. Each line is checked; a readable message goes to the service,
//! an unreadable one is answered here (-32700 / -32600 / -32602 with its `id` when one
//! can be recovered), so no line that carries an `id` goes unanswered and a bad line never
//! ends the session. rmcp's own line codec cannot do this: it skips a line it cannot
//! decode without a reply.
//!
//! All output goes through one writer task, so replies written here and messages the
//! service sends never interleave within a line.

use std::future::Future;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use super::framing::{self, Framed, INVALID_REQUEST};

type Ack = oneshot::Sender<std::io::Result<()>>;

/// Newline-delimited JSON-RPC over a reader and a writer (stdin and stdout).
pub struct LineTransport<R> {
    reader: BufReader<R>,
    /// The line being read; kept here so a `receive` dropped mid-line loses nothing.
    line: Vec<u8>,
    out: mpsc::UnboundedSender<(Vec<u8>, Option<Ack>)>,
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    /// Reads messages from `reader` and writes to `writer` (from a task it spawns).
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(reader: R, mut writer: W) -> Self {
        let (out, mut rx) = mpsc::unbounded_channel::<(Vec<u8>, Option<Ack>)>();
        tokio::spawn(async move {
            while let Some((bytes, ack)) = rx.recv().await {
                let r = async {
                    writer.write_all(&bytes).await?;
                    writer.flush().await
                }
                .await;
                let failed = r.is_err();
                if let Some(ack) = ack {
                    let _ = ack.send(r);
                }
                if failed {
                    break;
                }
            }
        });
        LineTransport {
            reader: BufReader::new(reader),
            line: Vec::new(),
            out,
        }
    }

    /// Queues an error reply of the transport's own.
    fn answer(&self, reply: &Value) {
        let mut bytes = serde_json::to_vec(reply).unwrap_or_default();
        bytes.push(b'\n');
        let _ = self.out.send((bytes, None));
    }
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let queued = serde_json::to_vec(&item)
            .map_err(std::io::Error::other)
            .and_then(|mut bytes| {
                bytes.push(b'\n');
                let (ack, done) = oneshot::channel();
                self.out
                    .send((bytes, Some(ack)))
                    .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
                Ok(done)
            });
        async move {
            queued?
                .await
                .unwrap_or_else(|_| Err(std::io::ErrorKind::BrokenPipe.into()))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Cancel-safe: what was read stays in `self.line` for the next call.
            let n = self.reader.read_until(b'\n', &mut self.line).await.ok()?;
            if n == 0 && self.line.is_empty() {
                return None;
            }
            let line = std::mem::take(&mut self.line);
            let trimmed = line.trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            match framing::check(trimmed) {
                Framed::Message(message) => return Some(*message),
                Framed::Reply(reply) => self.answer(&reply),
                Framed::Batch => self.answer(&framing::error(
                    Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: batches are not supported; send one message per line",
                )),
                Framed::Drop => {}
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        std::future::ready(Ok(()))
    }
}
