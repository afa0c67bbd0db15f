//! ARCHITECTURE.md's "Tool annotations" table against what the built binary lists: every
//! tool has a row, every row names a tool, and each row's hints and outputSchema column
//! are what `tools/list` reports.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use test_support::RawStdio;

const ARCHITECTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ARCHITECTURE.md");

/// readOnly, destructive, idempotent, openWorld, outputSchema.
type Row = [bool; 5];

/// The rows of the markdown table under the `## Tool annotations` heading, by tool.
fn documented(markdown: &str) -> BTreeMap<String, Row> {
    let section = markdown
        .split("\n## ")
        .find(|s| s.starts_with("Tool annotations"))
        .expect("ARCHITECTURE.md has a \"Tool annotations\" section");
    let mut lines = section
        .lines()
        .map(str::trim)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'));
    let cells = |line: &str| -> Vec<String> {
        line.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = cells(lines.next().expect("a table header"));
    assert_eq!(
        header,
        [
            "tool",
            "readOnly",
            "destructive",
            "idempotent",
            "openWorld",
            "outputSchema"
        ],
        "the table's columns"
    );
    let rule = cells(lines.next().expect("a table rule"));
    assert!(
        rule.iter()
            .all(|c| c.chars().all(|ch| ch == '-' || ch == ':')),
        "{rule:?}"
    );
    let mut rows = BTreeMap::new();
    for line in lines {
        let c = cells(line);
        assert_eq!(c.len(), 6, "row {line:?}");
        let tool = c[0].trim_matches('`').to_string();
        let mut row = [false; 5];
        for (i, v) in c[1..].iter().enumerate() {
            row[i] = match v.as_str() {
                "yes" => true,
                "no" => false,
                other => panic!("row {tool}: {other:?} is neither yes nor no"),
            };
        }
        assert!(
            rows.insert(tool.clone(), row).is_none(),
            "{tool} has two rows"
        );
    }
    rows
}

/// The same facts from a `tools/list` result.
fn listed(tools: &[Value]) -> BTreeMap<String, Row> {
    tools
        .iter()
        .map(|t| {
            let name = t["name"].as_str().expect("a tool name").to_string();
            let a = &t["annotations"];
            let hint = |k: &str| {
                a[k].as_bool()
                    .unwrap_or_else(|| panic!("{name} does not set {k}"))
            };
            let row = [
                hint("readOnlyHint"),
                hint("destructiveHint"),
                hint("idempotentHint"),
                hint("openWorldHint"),
                t.get("outputSchema").is_some(),
            ];
            (name, row)
        })
        .collect()
}

#[test]
fn architecture_table_matches_tools_list() {
    let markdown = std::fs::read_to_string(ARCHITECTURE).expect("read ARCHITECTURE.md");
    let doc = documented(&markdown);

    let mut server = RawStdio::start(crate::SERVER, &[], None);
    server.initialize();
    let reply = server.request(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    let result = &reply.last().expect("a tools/list response")["result"];
    let tools = result["tools"].as_array().expect("a tool list");
    assert!(result.get("nextCursor").is_none(), "tools/list is one page");
    let wire = listed(tools);

    let missing: Vec<&String> = wire.keys().filter(|k| !doc.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "tools without a row in ARCHITECTURE.md: {missing:?}"
    );
    let unknown: Vec<&String> = doc.keys().filter(|k| !wire.contains_key(*k)).collect();
    assert!(
        unknown.is_empty(),
        "rows in ARCHITECTURE.md for no tool: {unknown:?}"
    );
    for (tool, row) in &wire {
        assert_eq!(
            doc[tool], *row,
            "{tool}: ARCHITECTURE.md says [readOnly, destructive, idempotent, openWorld, outputSchema] = {:?}, tools/list says {row:?}",
            doc[tool]
        );
    }
}
