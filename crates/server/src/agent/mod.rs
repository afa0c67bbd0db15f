//! The agent loop: what lets an agent act and see the result in one call, and name what
//! it saw.
//!
//! After an action the server waits until the screen stops changing (`mobile_device::settle`,
//! under the call's deadline) and reports what it shows ([`observe`]: the change list since the agent's last look, the
//! whole list or a screenshot). Every element list the tools show or act on is numbered
//! here ([`refs`]: `@eN` refs given by the server alone, kept by an element while it stays
//! on screen). An action's target is a ref, a selector ([`selector`]) or x,y, resolved on
//! one element list ([`aim`]); `mobile_wait_for` ([`wait`]) and clipped or annotated
//! screenshots ([`marked`]) read the screen the same way. An action's look-up and the action
//! are one step on a device ([`turn`]).
//!
//! Not for: talking to a device (the `Device` trait does that, under the deadline of
//! `tools/`), or the tools' own wording of their first line.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use mobile_device::{
    Device, Element, OutputFormat, ScreenFingerprint, ScreenshotOptions, SettleSignal, excerpt,
};
use mobile_screenshot as screenshot;
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use serde_json::json;

use crate::params::{AfterAction, Observe};
use crate::tools::{Failure, MobileServer, Outcome};
use mobile_device::settle::{DEFAULT_SETTLE, Settled, settle_device};
use observe::diff;
use selector::short;

mod aim;
mod marked;
mod observe;
mod record;
mod refs;
mod selector;
mod turn;
mod wait;

pub(crate) use aim::{Aim, Lookup, coord};
pub(crate) use observe::Observations;
pub(crate) use record::{MAX_STEPS as MAX_RECORDED, Recorder};
pub(crate) use selector::distance;
pub(crate) use turn::Turns;

/// The longest settle wait a call may ask for.
const MAX_SETTLE: Duration = Duration::from_secs(30);

impl MobileServer {
    /// Waits until the screen of `d` stops changing, at most `timeout`.
    pub(crate) async fn settle_screen(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        timeout: Duration,
    ) -> Result<Settled, Failure> {
        let work = async { Ok(settle_device(d.as_ref(), timeout).await) };
        self.bounded(
            ctx,
            "waiting for the screen to settle",
            timeout + self.options.timeout,
            work,
        )
        .await
    }

    /// The result of an action: `first` (the action's own line, unchanged), then, as
    /// `after` asks, whether the screen settled and what it shows now.
    pub(crate) async fn after_action(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        first: String,
        after: &AfterAction,
    ) -> Outcome {
        self.after_action_seen(ctx, d, first, after, None).await
    }

    /// [`Self::after_action`] for an action whose target was found on `lookup`: when the
    /// screen comes to rest on the frame that list is known to show, the list is still
    /// what the screen shows and is not read again.
    pub(crate) async fn after_action_seen(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        first: String,
        after: &AfterAction,
        lookup: Option<Lookup>,
    ) -> Outcome {
        self.observe_after(ctx, d, first, after, lookup, None).await
    }

    /// [`Self::after_action`] for typing: when the change list since the agent's last
    /// look is empty, the result says the text may have gone nowhere. `input text` on
    /// Android injects key events whatever has the focus (AOSP `InputShellCommand`), so a
    /// phone with no focused field, or locked, takes them without an error; a field that
    /// took the text shows it in the next element list (a password field, masked or
    /// not, may not).
    pub(crate) async fn after_typing(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        first: String,
        after: &AfterAction,
    ) -> Outcome {
        let note = "Nothing on screen changed after typing: if no field had the focus (or the phone is locked) the text went nowhere. Tap the field first (mobile_list_elements_on_screen shows which is focused); a password field may not show what it holds.";
        self.observe_after(ctx, d, first, after, None, Some(note))
            .await
    }

    /// The result after an action (see [`Self::after_action`]); `unchanged` is a line
    /// added when the change list is empty.
    async fn observe_after(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        first: String,
        after: &AfterAction,
        lookup: Option<Lookup>,
        unchanged: Option<&str>,
    ) -> Outcome {
        // `observe: "none"` is the bare action (as the peer performs it): no wait unless
        // settleTimeoutMs asks for one.
        let default = if after.observe == Some(Observe::None) {
            Duration::ZERO
        } else {
            DEFAULT_SETTLE
        };
        let timeout = after
            .settle_timeout_ms
            .map(|ms| Duration::from_millis(ms.max(0.0) as u64).min(MAX_SETTLE))
            .unwrap_or(default);
        // The action happened: a wait that fails (the phone stalls, the deadline passes)
        // is reported in the result, never in place of it.
        let settled = if timeout.is_zero() {
            None
        } else {
            let start = std::time::Instant::now();
            Some(match self.settle_screen(ctx, d, timeout).await {
                Ok(s) => s,
                Err(Failure(e)) => Settled::unchecked(start, e),
            })
        };
        let mut blocks = vec![ContentBlock::text(first)];
        let mut lines: Vec<String> = settled.iter().map(Settled::render).collect();
        let mut structured = json!({});
        if let Some(s) = &settled {
            structured["settle"] = json!(s);
        }
        match after.observe.unwrap_or_default() {
            Observe::None => {}
            Observe::Changes | Observe::Elements => {
                match self.observe_list(ctx, d, settled.as_ref(), lookup).await {
                    Ok((now, paired)) => {
                        let before = self.observed.last(d.id());
                        if after.observe == Some(Observe::Elements) {
                            let list = crate::output::ElementList {
                                elements: now.clone(),
                            };
                            lines.push(list.render_text());
                            structured["elements"] = json!(now);
                        } else {
                            let changes =
                                diff(before.as_ref().map(|o| o.elements.as_slice()), &now);
                            lines.push(changes.render());
                            if let Some(note) = unchanged.filter(|_| changes.is_empty()) {
                                lines.push(note.to_string());
                            }
                            structured["changes"] = json!(changes);
                        }
                        self.recorder.observed(d.id(), &now);
                        self.observed.record_paired(d.id(), &now, paired);
                    }
                    Err(Failure(e)) => lines.push(format!("Could not list the elements: {e}")),
                }
            }
            Observe::Screenshot => {
                let opts = ScreenshotOptions {
                    max_size: Some(screenshot::DEFAULT_MAX_SIZE),
                    scale: None,
                    format: OutputFormat::Jpeg {
                        quality: screenshot::DEFAULT_JPEG_QUALITY,
                    },
                };
                match self.capture(ctx, d, opts).await {
                    Ok((img, screen)) => {
                        lines.push(img.coordinate_mapping(screen));
                        let data = base64::engine::general_purpose::STANDARD.encode(&img.bytes);
                        if !lines.is_empty() {
                            blocks.push(ContentBlock::text(lines.join("\n")));
                            lines.clear();
                        }
                        blocks.push(ContentBlock::image(data, img.mime_type));
                    }
                    Err(Failure(e)) => lines.push(format!("Could not take a screenshot: {e}")),
                }
            }
        }
        if !lines.is_empty() {
            blocks.push(ContentBlock::text(lines.join("\n")));
        }
        let mut r = CallToolResult::success(blocks);
        if structured.as_object().is_some_and(|o| !o.is_empty()) {
            r.structured_content = Some(structured);
        }
        Ok(r)
    }

    /// The element list an action's observation shows, and the frame hash it is known to
    /// show: `lookup` again if the screen rested on the frame it was paired with, else a
    /// dump; a dump read between two equal hashes (the settled one and one more) is paired.
    async fn observe_list(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        settled: Option<&Settled>,
        lookup: Option<Lookup>,
    ) -> Result<(Vec<Element>, Option<ScreenFingerprint>), Failure> {
        let rested = settled
            .filter(|s| s.settled)
            .and_then(|s| s.last.clone())
            .filter(|fp| fp.signal() != SettleSignal::ElementList);
        if let (Some(l), Some(fp)) = (lookup, rested.as_ref())
            && l.paired.as_ref() == Some(fp)
        {
            return Ok((l.elements, rested));
        }
        let now = self.elements(ctx, d).await?;
        let Some(fp) = rested else {
            return Ok((now, None));
        };
        let after = self
            .run(ctx, "fingerprinting the screen", async {
                Ok(d.screen_fingerprint().await)
            })
            .await?;
        let paired = (after.ok().as_ref() == Some(&fp)).then_some(fp);
        Ok((now, paired))
    }

    /// The element `wanted` (with its `@`) names in `now` (the screen as it is now,
    /// numbered by [`Self::elements`]; `paired`: the frame hash that list is known to
    /// show). Refs are given by the keys an element is known by (`refs`), so the element
    /// with that ref now is the one the agent named, wherever it has moved. A ref given
    /// earlier whose element is gone, or can no longer be told from look-alikes, is
    /// refused with the fresh candidates, and
    /// `now` becomes the agent's last look (it was shown their refs).
    pub(crate) fn resolve_ref(
        &self,
        d: &Arc<dyn Device>,
        wanted: &str,
        now: &[Element],
        paired: Option<&ScreenFingerprint>,
    ) -> Result<Element, Failure> {
        if let Some(e) = now.iter().find(|e| e.reference == wanted) {
            return Ok(e.clone());
        }
        let former = self.observed.former(d.id(), wanted, now);
        self.observed.record_paired(d.id(), now, paired.cloned());
        Err(Failure(match former {
            Some(f) => {
                let why = if f.ambiguous {
                    "cannot be told apart from look-alikes now"
                } else {
                    "is no longer on screen"
                };
                format!(
                    "{wanted} was {} when you last saw it, and it {why}; nothing was done. The screen now ({} elements): {}",
                    f.what,
                    now.len(),
                    candidates(now)
                )
            }
            None => format!(
                "No element {} on the current screen ({} elements). The screen may have changed: call mobile_list_elements_on_screen again",
                excerpt(wanted),
                now.len()
            ),
        }))
    }
}

/// Up to 15 elements, short form, for a refusal.
pub(crate) fn candidates(now: &[Element]) -> String {
    let mut s: Vec<String> = now.iter().take(15).map(short).collect();
    if now.len() > 15 {
        s.push(format!("…{} more", now.len() - 15));
    }
    s.join("; ")
}
