//! Which tools this server exposes: `--read-only`, `--allow-tools`, `--deny-tools`.
//! Deny wins over allow; read-only keeps only tools annotated `readOnlyHint: true`.
//! A refused call says which setting refused it. A name in either list that is no tool
//! stops the server at start ([`ToolPolicy::check_names`]): a deny list with a typo must
//! never leave the tool it meant exposed.

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
    /// Refuses names in `--allow-tools` / `--deny-tools` that are not in `known` (the
    /// server's tool names), naming each with the nearest tool name.
    pub fn check_names(&self, known: &[String]) -> Result<(), String> {
        let mut bad = Vec::new();
        let lists = [
            ("--allow-tools", self.allow.as_deref().unwrap_or_default()),
            ("--deny-tools", self.deny.as_slice()),
        ];
        for (flag, names) in lists {
            for n in names.iter().filter(|n| !known.contains(n)) {
                let near = known
                    .iter()
                    .min_by_key(|k| crate::agent::distance(n, k))
                    .map(|k| format!(" (did you mean {k}?)"))
                    .unwrap_or_default();
                bad.push(format!("{flag}: no tool is named {n:?}{near}"));
            }
        }
        if bad.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{}. The tools are: {}",
            bad.join("; "),
            known.join(", ")
        ))
    }

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
