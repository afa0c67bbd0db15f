//! The stdio transport: newline-delimited JSON-RPC with the [`super::framing`]
//! checks in front of rmcp. Each line is checked; a readable message goes to the service,
//! an unreadable one is answered here (-32700 / -32600 / -32602 with its `id` when one
//! can be recovered), so no line that carries an `id` goes unanswered and a bad line never
//! ends the session. rmcp's own line codec cannot do this: it skips a line it cannot
//! decode without a reply.
//!
//! A line may be at most [`MAX_LINE`] bytes: a longer one is not buffered past that (it is
//! read to its end and dropped) and gets a -32700 reply, with its `id` when the part kept
//! shows one, so a client that never sends a newline cannot grow the server's memory.
//!
//! All output goes through one writer task, so replies written here and messages the
//! service sends never interleave within a line. What waits for that writer is bounded
//! ([`QUEUE_BYTES`]): when the client stops reading stdout, sending waits, and so does
//! reading stdin once a reply of the transport's own is owed, so a client that writes
//! without reading is slowed down instead of growing the server's memory.

use std::future::Future;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};

use super::framing::{self, Framed, INVALID_REQUEST, PARSE_ERROR};

/// The longest line read (16 MiB, four times the HTTP body limit's default).
pub(crate) const MAX_LINE: usize = 16 << 20;

/// How many bytes of output may wait for the writer (1 MiB). A longer message waits
/// until nothing else does and then goes alone.
pub(crate) const QUEUE_BYTES: usize = 1 << 20;

type Ack = oneshot::Sender<std::io::Result<()>>;

/// A message for the writer, holding its share of [`QUEUE_BYTES`] until written.
struct Queued {
    bytes: Vec<u8>,
    ack: Option<Ack>,
    _room: OwnedSemaphorePermit,
}

/// The writer task's queue, bounded by bytes.
#[derive(Clone)]
struct Outbox {
    tx: mpsc::UnboundedSender<Queued>,
    room: Arc<Semaphore>,
}

impl Outbox {
    /// Waits for room for `len` bytes (cancel-safe: nothing is lost if dropped).
    async fn room(&self, len: usize) -> std::io::Result<OwnedSemaphorePermit> {
        let want = u32::try_from(len.clamp(1, QUEUE_BYTES)).unwrap_or(u32::MAX);
        self.room
            .clone()
            .acquire_many_owned(want)
            .await
            .map_err(|_| std::io::ErrorKind::BrokenPipe.into())
    }

    /// Queues `bytes` in the room taken for them.
    fn put(
        &self,
        bytes: Vec<u8>,
        ack: Option<Ack>,
        room: OwnedSemaphorePermit,
    ) -> std::io::Result<()> {
        self.tx
            .send(Queued {
                bytes,
                ack,
                _room: room,
            })
            .map_err(|_| std::io::ErrorKind::BrokenPipe.into())
    }
}

/// Newline-delimited JSON-RPC over a reader and a writer (stdin and stdout).
pub struct LineTransport<R> {
    reader: BufReader<R>,
    /// The line being read; kept here so a `receive` dropped mid-line loses nothing.
    line: Vec<u8>,
    /// The line being read is longer than [`MAX_LINE`]: its rest is skipped.
    too_long: bool,
    /// A reply of the transport's own waiting for room in the queue; kept here so a
    /// `receive` dropped while it waits loses nothing.
    owed: Option<Vec<u8>>,
    out: Outbox,
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    /// Reads messages from `reader` and writes to `writer` (from a task it spawns).
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(reader: R, mut writer: W) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<Queued>();
        tokio::spawn(async move {
            while let Some(Queued { bytes, ack, _room }) = rx.recv().await {
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
            too_long: false,
            owed: None,
            out: Outbox {
                tx,
                room: Arc::new(Semaphore::new(QUEUE_BYTES)),
            },
        }
    }

    /// Owes an error reply of the transport's own; `receive` queues it before it reads on.
    fn answer(&mut self, reply: &Value) {
        let mut bytes = serde_json::to_vec(reply).unwrap_or_default();
        bytes.push(b'\n');
        self.owed = Some(bytes);
    }
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let bytes = serde_json::to_vec(&item).map_err(std::io::Error::other);
        let out = self.out.clone();
        async move {
            let mut bytes = bytes?;
            bytes.push(b'\n');
            let room = out.room(bytes.len()).await?;
            let (ack, done) = oneshot::channel();
            out.put(bytes, Some(ack), room)?;
            done.await
                .unwrap_or_else(|_| Err(std::io::ErrorKind::BrokenPipe.into()))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Backpressure: an owed reply is queued before anything more is read.
            // Cancel-safe: the reply stays in `self.owed` until there is room for it.
            if let Some(len) = self.owed.as_ref().map(Vec::len) {
                let room = self.out.room(len).await.ok()?;
                let bytes = self.owed.take()?;
                self.out.put(bytes, None, room).ok()?;
            }
            // Cancel-safe: what was read stays in `self.line` for the next call.
            let (taken, ended) = {
                let buf = self.reader.fill_buf().await.ok()?;
                if buf.is_empty() {
                    if self.line.is_empty() && !self.too_long {
                        return None;
                    }
                    (0, true)
                } else {
                    let (chunk, ended) = match buf.iter().position(|&b| b == b'\n') {
                        Some(i) => (&buf[..=i], true),
                        None => (buf, false),
                    };
                    if !self.too_long {
                        let room = MAX_LINE - self.line.len();
                        if chunk.len() > room {
                            self.line.extend_from_slice(&chunk[..room]);
                            self.too_long = true;
                        } else {
                            self.line.extend_from_slice(chunk);
                        }
                    }
                    (chunk.len(), ended)
                }
            };
            self.reader.consume(taken);
            if !ended {
                continue;
            }
            let line = std::mem::take(&mut self.line);
            if std::mem::take(&mut self.too_long) {
                let id = framing::recover_id(&line).unwrap_or(Value::Null);
                self.answer(&framing::error(
                    id,
                    PARSE_ERROR,
                    &format!("Parse error: the line is longer than {MAX_LINE} bytes"),
                ));
                continue;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that yields `head`, then `fill` bytes of filler, then `tail`.
    fn long_input(head: &[u8], fill: usize, tail: &[u8]) -> std::io::Cursor<Vec<u8>> {
        let mut v = head.to_vec();
        v.resize(head.len() + fill, b' ');
        v.extend_from_slice(tail);
        std::io::Cursor::new(v)
    }

    #[tokio::test]
    async fn a_line_past_the_cap_is_answered_and_the_next_one_served() {
        let head = br#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":""#;
        let tail = b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n";
        let input = long_input(head, MAX_LINE + 10, tail);
        let (out_w, mut out_r) = tokio::io::duplex(1 << 16);
        let mut t = LineTransport::new(input, out_w);
        // The long line is not passed on; the ping after it is.
        let next = t.receive().await.expect("the message after the long line");
        let v = serde_json::to_value(&next).unwrap();
        assert_eq!(v["id"], 8, "{v}");
        assert!(t.line.capacity() <= 2 * MAX_LINE);
        drop(t);
        let mut replies = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut out_r, &mut replies)
            .await
            .unwrap();
        let reply: Value = serde_json::from_str(replies.lines().next().unwrap()).unwrap();
        assert_eq!(reply["id"], 7, "{reply}");
        assert_eq!(reply["error"]["code"], PARSE_ERROR, "{reply}");
    }
}
