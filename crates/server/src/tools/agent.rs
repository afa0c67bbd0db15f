//! The agent loop inside one call: after an action, wait for the screen to settle and
//! report what it shows; find the element a ref or a selector names, by identity, on the
//! screen as it is now.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use mobile_device::{Device, DeviceError, Element, OutputFormat, ScreenshotOptions, excerpt};
use mobile_screenshot as screenshot;
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use serde_json::json;

use super::{Failure, MobileServer, Outcome};
use crate::observe::{RefindError, diff, refind};
use crate::params::{AfterAction, Observe, Selector};
use crate::selector::short;
use crate::settle::{DEFAULT_GAP, DEFAULT_SETTLE, SettleConfig, Settled, settle};

/// The longest settle wait a call may ask for.
const MAX_SETTLE: Duration = Duration::from_secs(30);

/// A hash of an element list (the settle signal where a device has no frame hash).
fn list_hash(elements: &[Element]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(elements)
        .unwrap_or_default()
        .hash(&mut h);
    format!("{:016x}", h.finish())
}

impl MobileServer {
    /// Waits until the screen of `d` stops changing, at most `timeout`.
    pub(super) async fn settle_screen(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        timeout: Duration,
    ) -> Result<Settled, Failure> {
        let cfg = SettleConfig {
            timeout,
            gap: DEFAULT_GAP,
        };
        let signal = match d.screen_fingerprint().await {
            Err(DeviceError::Unsupported { .. }) => "element list",
            _ => "frame hash",
        };
        let work = async {
            Ok(if signal == "frame hash" {
                settle(cfg, signal, || async {
                    d.screen_fingerprint().await.map_err(|e| e.to_string())
                })
                .await
            } else {
                settle(cfg, signal, || async {
                    d.list_elements()
                        .await
                        .map(|l| list_hash(&l))
                        .map_err(|e| e.to_string())
                })
                .await
            })
        };
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
    pub(super) async fn after_action(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        first: String,
        after: &AfterAction,
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
        let settled = if timeout.is_zero() {
            None
        } else {
            Some(self.settle_screen(ctx, d, timeout).await?)
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
                match self.run(ctx, "listing elements", d.list_elements()).await {
                    Ok(now) => {
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
                            structured["changes"] = json!(changes);
                        }
                        self.observed.record(d.id(), &now);
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

    /// The element a ref names, found again by identity on the screen as it is now.
    /// A ref from the device's last observation is matched by identity (so an element
    /// that moved is acted on where it is now); one the server never showed is looked up
    /// on the fresh list as before. Gone or ambiguous: refused, with the fresh candidates.
    pub(super) async fn element_for_ref(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        reference: &str,
    ) -> Result<Element, Failure> {
        let wanted = if reference.starts_with('@') {
            reference.to_string()
        } else {
            format!("@{reference}")
        };
        let now = self.run(ctx, "listing elements", d.list_elements()).await?;
        self.resolve_ref(d, &wanted, &now)
    }

    /// [`Self::element_for_ref`] on a list already read: the element `wanted` (with its
    /// `@`) names in the device's last observation, found again in `now`.
    pub(super) fn resolve_ref(
        &self,
        d: &Arc<dyn Device>,
        wanted: &str,
        now: &[Element],
    ) -> Result<Element, Failure> {
        let wanted = wanted.to_string();
        let before = self.observed.last(d.id());
        let Some(before) = before.filter(|o| o.elements.iter().any(|e| e.reference == wanted))
        else {
            return now.iter().find(|e| e.reference == wanted).cloned().ok_or_else(|| {
                self.observed.record(d.id(), now);
                Failure(format!(
                    "No element {} on the current screen ({} elements). The screen may have changed: call mobile_list_elements_on_screen again",
                    excerpt(&wanted),
                    now.len()
                ))
            });
        };
        match refind(&before.elements, &wanted, now) {
            Ok(e) => Ok(e.clone()),
            Err(why) => {
                let old = before
                    .elements
                    .iter()
                    .find(|e| e.reference == wanted)
                    .map(short)
                    .unwrap_or_default();
                self.observed.record(d.id(), now);
                let why = match why {
                    RefindError::Gone => "is no longer on screen",
                    RefindError::Ambiguous => "cannot be told apart from look-alikes now",
                    RefindError::Unknown => "is unknown",
                };
                Err(Failure(format!(
                    "{wanted} was {old} in your last look at the screen, and it {why}; nothing was done. The screen now ({} elements): {}",
                    now.len(),
                    candidates(now)
                )))
            }
        }
    }

    /// The one element a selector names on the screen now.
    pub(super) async fn element_for_selector(
        &self,
        ctx: &RequestContext<RoleServer>,
        d: &Arc<dyn Device>,
        sel: &Selector,
    ) -> Result<Element, Failure> {
        let now = self.run(ctx, "listing elements", d.list_elements()).await?;
        let found = sel.find(&now).cloned();
        if found.is_err() {
            // The refusal lists refs from this list: they name its elements.
            self.observed.record(d.id(), &now);
        }
        found.map_err(Failure)
    }
}

/// Up to 15 elements, short form, for a refusal.
pub(super) fn candidates(now: &[Element]) -> String {
    let mut s: Vec<String> = now.iter().take(15).map(short).collect();
    if now.len() > 15 {
        s.push(format!("…{} more", now.len() - 15));
    }
    s.join("; ")
}
