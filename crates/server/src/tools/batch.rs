//! `mobile_batch_commands`: several tool calls on one device in one request, each dispatched as its own call.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use serde_json::Value;

use super::{Failure, MobileServer, Outcome, text};
use crate::params::*;

#[tool_router(router = batch_router, vis = "pub(crate)")]
impl MobileServer {
    #[tool(
        name = "mobile_batch_commands",
        description = "Run several tool calls on one device in order, in one request. Each step is {name, arguments} without `device`. Stops at the first error unless stopOnError is false. Screenshots and nested batches are not allowed.",
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
        for (i, s) in p.steps.iter().enumerate() {
            if s.name == "mobile_batch_commands" || s.name == "mobile_take_screenshot" {
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
        let mut lines = Vec::new();
        let mut failed = false;
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
        for (i, (name, mut args)) in steps.into_iter().enumerate() {
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
            let resp = Box::pin(self.dispatch(req, ctx.clone())).await;
            let (ok, body) = match resp {
                Ok(CallToolResponse::Complete(r)) => {
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
            if !ok {
                failed = true;
                if p.stop_on_error {
                    lines.push("Stopped at the first failure (stopOnError).".into());
                    break;
                }
            }
        }
        let joined = lines.join("\n");
        if failed {
            Err(Failure(joined))
        } else {
            text(joined)
        }
    }
}
