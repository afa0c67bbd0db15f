//! `mobile_batch_commands`: several tool calls on one device in one request, each dispatched as
//! its own call; screenshots among them return their images in order, and a `delay` step
//! waits (at most 10 s, `mobile_device::DelayMillis`).
//!
//! A batch is bounded: at most [`MAX_STEPS`] steps, at most [`MAX_TOTAL_DELAY_MS`] of
//! `delay` steps (both checked before anything runs), and [`BATCH_DEADLINE`] for the whole
//! run (a step still running then is stopped and reported). A failed batch says first
//! which step failed and why, then keeps what the earlier steps returned, images included.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use serde_json::Value;

use super::{Failure, MobileServer, Outcome, text};
use crate::params::*;

/// The name of the step that only waits.
const DELAY: &str = "delay";
/// The most steps a batch takes.
pub(crate) const MAX_STEPS: usize = 50;
/// The most all `delay` steps of a batch may wait together, in milliseconds.
const MAX_TOTAL_DELAY_MS: u128 = 30_000;
/// The longest a whole batch runs; a step still running then is stopped.
const BATCH_DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// A `delay` step's wait, checked before the batch runs.
fn delay_of(
    i: usize,
    args: Option<&serde_json::Map<String, Value>>,
) -> Result<std::time::Duration, Failure> {
    let args = Value::Object(args.cloned().unwrap_or_default());
    let p: DelayParams = serde_json::from_value(args).map_err(|e| {
        Failure(format!(
            "Step {} (delay) needs arguments {{\"duration\": MILLISECONDS}}: {e}",
            i + 1
        ))
    })?;
    Ok(p.duration.get())
}

#[tool_router(router = batch_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_batch_commands",
        description = "Run several tool calls on one device in order, in one request. Each step is {name, arguments} without `device`; a step {\"name\": \"delay\", \"arguments\": {\"duration\": MS}} waits up to 10000 ms. At most 50 steps, at most 30000 ms of delay steps in all, and 120 s for the whole batch. Screenshot steps return their images in order. Stops at the first error unless stopOnError is false; a failed batch says first which step failed and why, then what the earlier steps returned. Nested batches are not allowed.",
        annotations(
            title = "Batch",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn batch(
        &self,
        Parameters(p): Parameters<BatchParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Outcome {
        if p.steps.is_empty() {
            return Err(Failure("steps must hold at least one step".into()));
        }
        if p.steps.len() > MAX_STEPS {
            return Err(Failure(format!(
                "A batch takes at most {MAX_STEPS} steps, and this one has {}; split it into several batches. Nothing was done.",
                p.steps.len()
            )));
        }
        let mut total_delay: u128 = 0;
        for (i, s) in p.steps.iter().enumerate() {
            if s.name == DELAY {
                total_delay += delay_of(i, s.arguments.as_ref())?.as_millis();
                continue;
            }
            if s.name == "mobile_batch_commands" {
                return Err(Failure(format!(
                    "Step {} ({}) is not allowed in a batch; call it on its own",
                    i + 1,
                    s.name
                )));
            }
            if self.router.get(&s.name).is_none() {
                return Err(Failure(format!(
                    "Step {} names an unknown tool {:?}",
                    i + 1,
                    s.name
                )));
            }
        }
        if total_delay > MAX_TOTAL_DELAY_MS {
            return Err(Failure(format!(
                "The delay steps of a batch may wait {MAX_TOTAL_DELAY_MS} ms in all, and these wait {total_delay} ms; split the batch or wait less. Nothing was done."
            )));
        }
        let deadline = tokio::time::Instant::now() + BATCH_DEADLINE;
        let mut lines = Vec::new();
        let mut failures: Vec<String> = Vec::new();
        let mut steps: Vec<(String, serde_json::Map<String, Value>)> = p
            .steps
            .into_iter()
            .map(|s| (s.name, s.arguments.unwrap_or_default()))
            .collect();
        if p.list_elements_at_end {
            steps.push((
                "mobile_list_elements_on_screen".to_string(),
                Default::default(),
            ));
        }
        // Text and images in step order: the lines so far become a text block before
        // each step's images (one text block when no step returns an image).
        let mut content: Vec<ContentBlock> = Vec::new();
        let total = steps.len();
        for (i, (name, mut args)) in steps.into_iter().enumerate() {
            if name == DELAY {
                let wait = delay_of(i, Some(&args))?;
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = ctx.ct.cancelled() => {
                        return Err(Failure(format!("Cancelled during step {} (delay)", i + 1)));
                    }
                }
                lines.push(format!(
                    "Step {} (delay): waited {} ms",
                    i + 1,
                    wait.as_millis()
                ));
                continue;
            }
            // Only a tool that takes a device gets the batch's (listing devices takes none).
            let takes_device = self.router.get(&name).is_some_and(|t| {
                t.input_schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.contains_key("device"))
            });
            if takes_device {
                args.insert("device".into(), Value::String(p.device.clone()));
            }
            let req = CallToolRequestParams::new(name.clone()).with_arguments(args);
            let resp =
                match tokio::time::timeout_at(deadline, Box::pin(self.dispatch(req, ctx.clone())))
                    .await
                {
                    Ok(r) => r,
                    Err(_) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                        "stopped: the batch ran out of its {} s",
                        BATCH_DEADLINE.as_secs()
                    ))])
                    .into()),
                };
            let mut images = Vec::new();
            let (ok, body) = match resp {
                Ok(CallToolResponse::Complete(r)) => {
                    images.extend(
                        r.content
                            .iter()
                            .filter(|c| matches!(c, ContentBlock::Image(_)))
                            .cloned(),
                    );
                    let body = r
                        .content
                        .iter()
                        .filter_map(|c| match c {
                            ContentBlock::Text(t) => Some(t.text.clone()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    (r.is_error != Some(true), body)
                }
                Ok(_) => (
                    false,
                    "the step asked for input, which batches cannot give".to_string(),
                ),
                Err(e) => (false, e.message.to_string()),
            };
            lines.push(format!(
                "Step {} ({name}): {}{body}",
                i + 1,
                if ok { "" } else { "FAILED: " }
            ));
            if !images.is_empty() {
                content.push(ContentBlock::text(std::mem::take(&mut lines).join("\n")));
                content.extend(images);
            }
            if !ok {
                failures.push(format!(
                    "Step {} ({name}) failed: {}",
                    i + 1,
                    first_line(&body)
                ));
                if p.stop_on_error {
                    lines.push("Stopped at the first failure (stopOnError).".into());
                    break;
                }
            }
            if tokio::time::Instant::now() >= deadline && i + 1 < total {
                failures.push(format!(
                    "The batch ran out of its {} s after step {}; steps {} to {total} did not run",
                    BATCH_DEADLINE.as_secs(),
                    i + 1,
                    i + 2
                ));
                break;
            }
        }
        if !failures.is_empty() {
            // What failed comes first (an error text is cut from its end), then
            // everything the steps returned, in order, images included.
            if !lines.is_empty() {
                content.push(ContentBlock::text(lines.join("\n")));
            }
            let mut all = vec![ContentBlock::text(failures.join("\n"))];
            all.extend(content);
            return Ok(CallToolResult::error(all));
        }
        if content.is_empty() {
            return text(lines.join("\n"));
        }
        if !lines.is_empty() {
            content.push(ContentBlock::text(lines.join("\n")));
        }
        Ok(CallToolResult::success(content))
    }
}

/// The first line of a step's text (its reason, for the failure summary), at most 300
/// characters.
fn first_line(body: &str) -> String {
    let line = body.lines().next().unwrap_or("").trim();
    let n = line.chars().count();
    if n > 300 {
        format!("{}…", line.chars().take(300).collect::<String>())
    } else {
        line.to_string()
    }
}
