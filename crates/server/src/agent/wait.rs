//! `mobile_wait_for`: wait, bounded, until an element is there or gone, a text appears, the
//! screen has settled or an app is in front; the matching elements come back with refs.

use std::time::{Duration, Instant};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use serde_json::json;

use super::candidates;
use super::selector::short;
use crate::params::{MatchMode, Selector, WaitForParams, WaitUntil};
use crate::tools::{Failure, MobileServer, Outcome, structured};

/// Default bound of a wait.
const DEFAULT_WAIT: Duration = Duration::from_secs(10);
/// Longest wait a call may ask for.
const MAX_WAIT: Duration = Duration::from_secs(60);
/// Time between two looks at the screen.
const POLL: Duration = Duration::from_millis(150);

#[tool_router(router = wait_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_wait_for",
        description = "Wait until something is true on the device, then return: until \"exists\" or \"gone\" (an element by text, id or label), \"text_appears\" (any element's text contains `text`), \"settled\" (the screen stopped changing) or \"app_in_front\" (packageName). Returns the matching elements with refs; gives up after timeoutMs (default 10000).",
        annotations(
            title = "Wait for",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn wait_for(
        &self,
        Parameters(p): Parameters<WaitForParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        let timeout = p
            .timeout_ms
            .map(|ms| Duration::from_millis(ms.max(0.0) as u64).min(MAX_WAIT))
            .unwrap_or(DEFAULT_WAIT);
        let sel = match p.until {
            WaitUntil::TextAppears => Selector {
                text: Some(
                    p.selector
                        .text
                        .clone()
                        .ok_or_else(|| Failure::from("until \"text_appears\" needs `text`"))?,
                ),
                id: None,
                label: None,
                match_mode: Some(MatchMode::Contains),
            },
            WaitUntil::Exists | WaitUntil::Gone if !p.selector.given() => {
                return Err("until \"exists\" or \"gone\" needs `text`, `id` or `label`".into());
            }
            _ => p.selector.clone(),
        };
        let d = self.device(&ctx, &p.device).await?;
        let start = Instant::now();
        if p.until == WaitUntil::Settled {
            let s = self.settle_screen(&ctx, &d, timeout).await?;
            return structured(s.render(), &json!({"met": s.settled, "settle": s}));
        }
        if p.until == WaitUntil::AppInFront {
            let want = p
                .package_name
                .clone()
                .ok_or_else(|| Failure::from("until \"app_in_front\" needs `packageName`"))?;
            loop {
                let fg = self
                    .run(&ctx, "reading the foreground app", d.foreground_app())
                    .await?;
                let ms = start.elapsed().as_millis() as u64;
                if fg.package_name == want {
                    return structured(
                        format!("{want} is in front (after {ms} ms)"),
                        &json!({"met": true, "waitedMs": ms, "foreground": fg}),
                    );
                }
                if start.elapsed() + POLL > timeout {
                    return Err(Failure(format!(
                        "{want} was not in front within {ms} ms; {} is",
                        fg.package_name
                    )));
                }
                tokio::time::sleep(POLL).await;
            }
        }
        loop {
            let now = self.elements(&ctx, &d).await?;
            let hits: Vec<_> = now.iter().filter(|e| sel.matches(e)).cloned().collect();
            let ms = start.elapsed().as_millis() as u64;
            let met = match p.until {
                WaitUntil::Gone => hits.is_empty(),
                _ => !hits.is_empty(),
            };
            if met || start.elapsed() + POLL > timeout {
                self.observed.record(d.id(), &now);
            }
            if met {
                let text = match p.until {
                    WaitUntil::Gone => sel.text.clone(),
                    _ => hits
                        .first()
                        .and_then(|e| e.text.clone())
                        .filter(|t| !t.is_empty()),
                };
                let id = match p.until {
                    WaitUntil::Gone => sel.id.clone(),
                    _ => hits.first().and_then(|e| e.identifier.clone()),
                };
                let exact =
                    p.until != WaitUntil::Gone || sel.match_mode != Some(MatchMode::Contains);
                let action = if exact && (text.is_some() || id.is_some()) {
                    mobile_flow::RecordedAction::Wait {
                        text,
                        id: id.filter(|_| text_none(&sel, &hits, p.until)),
                        gone: p.until == WaitUntil::Gone,
                        timeout_ms: timeout.as_millis() as u64,
                    }
                } else {
                    mobile_flow::RecordedAction::Other {
                        what: "a wait for an element to go, named by a part of its text".into(),
                    }
                };
                self.record(&d, action, None, None);
                let head = match p.until {
                    WaitUntil::Gone => {
                        format!("Gone after {ms} ms ({} elements on screen)", now.len())
                    }
                    _ => format!("Found {} after {ms} ms:", hits.len()),
                };
                let mut text = head;
                for e in &hits {
                    text.push('\n');
                    text.push_str(&short(e));
                }
                return structured(
                    text,
                    &json!({"met": true, "waitedMs": ms, "elements": hits}),
                );
            }
            if start.elapsed() + POLL > timeout {
                let what = match p.until {
                    WaitUntil::Gone => format!(
                        "still there after {ms} ms: {}",
                        hits.iter().map(short).collect::<Vec<_>>().join("; ")
                    ),
                    _ => format!(
                        "not found within {ms} ms. The screen now ({} elements): {}",
                        now.len(),
                        candidates(&now)
                    ),
                };
                return Err(Failure(format!("Waited for the element: {what}")));
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

/// Whether a recorded wait names its element by id (it has no text to name it by).
fn text_none(sel: &Selector, hits: &[mobile_device::Element], until: WaitUntil) -> bool {
    match until {
        WaitUntil::Gone => sel.text.is_none(),
        _ => hits
            .first()
            .is_none_or(|e| e.text.as_deref().is_none_or(str::is_empty)),
    }
}
