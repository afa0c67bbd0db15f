//! Which tools this server exposes: `--read-only`, `--allow-tools`, `--deny-tools`.
//! Deny wins over allow; read-only keeps only tools annotated `readOnlyHint: true`.
//! A refused call says which setting refused it.

use rmcp::model::Tool;

/// The settings that hide tools; the default hides none.
#[derive(Debug, Clone, Default)]
pub struct ToolPolicy {
    /// Only tools annotated read-only are exposed.
    pub read_only: bool,
    /// When set, only these tools (exact names) are exposed.
    pub allow: Option<Vec<String>>,
    /// These tools (exact names) are hidden, even when allowed.
    pub deny: Vec<String>,
}

impl ToolPolicy {
    /// `None` when the tool may be listed and called; otherwise why not.
    pub(crate) fn refusal(&self, tool: &Tool) -> Option<String> {
        let name = tool.name.as_ref();
        if self.deny.iter().any(|d| d == name) {
            return Some(format!(
                "the tool {name} is disabled on this server by --deny-tools"
            ));
        }
        if let Some(allow) = &self.allow
            && !allow.iter().any(|a| a == name)
        {
            return Some(format!(
                "the tool {name} is not in this server's --allow-tools list"
            ));
        }
        if self.read_only {
            let ro = tool
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false);
            if !ro {
                return Some(format!(
                    "the tool {name} changes the device, and this server runs with --read-only"
                ));
            }
        }
        None
    }
}
