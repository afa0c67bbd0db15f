//! The YAML documents of a flow file as a small tree whose every node knows its line.
//!
//! Built from `saphyr-parser`'s events (each carries its span), so that every error the
//! flow reader gives can name the line it is about. Scalars stay text (a flow's numbers and
//! booleans are read where their meaning is known); anchors and aliases are refused, since
//! Maestro's flows do not use them and a refusal is clearer than a guess.

use saphyr_parser::{Event, Parser};

/// One node and the (1-based) line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub line: usize,
    pub value: Value,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `~`, `null` or nothing.
    Null,
    /// A scalar, as written (quotes removed).
    Text(String),
    /// A list.
    Seq(Vec<Node>),
    /// A map, its keys in order, each with its line.
    Map(Vec<(String, usize, Node)>),
}

impl Node {
    /// A short name of what the node is, for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "nothing",
            Value::Text(_) => "a value",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a map",
        }
    }
}

/// A YAML syntax error, with its line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyntaxError {
    pub line: usize,
    pub message: String,
}

/// The documents of `text`, in order.
pub(crate) fn documents(text: &str) -> Result<Vec<Node>, SyntaxError> {
    let mut events = Vec::new();
    for ev in Parser::new_from_str(text) {
        match ev {
            Ok((event, span)) => events.push((event, span.start.line())),
            Err(e) => {
                return Err(SyntaxError {
                    line: e.marker().line(),
                    message: e.info().to_string(),
                });
            }
        }
    }
    let mut docs = Vec::new();
    let mut it = events.into_iter().peekable();
    while let Some((ev, line)) = it.next() {
        match ev {
            Event::DocumentStart(_) => {
                let node = match it.peek() {
                    Some((Event::DocumentEnd, l)) => Node {
                        line: *l,
                        value: Value::Null,
                    },
                    _ => build(&mut it)?,
                };
                docs.push(node);
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
            _ => {
                return Err(SyntaxError {
                    line,
                    message: "unexpected YAML outside a document".into(),
                });
            }
        }
    }
    Ok(docs)
}

type Events<'a> = std::iter::Peekable<std::vec::IntoIter<(Event<'a>, usize)>>;

fn build(it: &mut Events<'_>) -> Result<Node, SyntaxError> {
    let Some((ev, line)) = it.next() else {
        return Err(SyntaxError {
            line: 0,
            message: "the YAML ends in the middle of a value".into(),
        });
    };
    let value = match ev {
        Event::Scalar(text, style, anchor, _) => {
            no_anchor(anchor, line)?;
            let plain = matches!(style, saphyr_parser::ScalarStyle::Plain);
            if plain && matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL") {
                Value::Null
            } else {
                Value::Text(text.into_owned())
            }
        }
        Event::SequenceStart(anchor, _) => {
            no_anchor(anchor, line)?;
            let mut items = Vec::new();
            loop {
                if matches!(it.peek(), Some((Event::SequenceEnd, _))) {
                    it.next();
                    break;
                }
                items.push(build(it)?);
            }
            Value::Seq(items)
        }
        Event::MappingStart(anchor, _) => {
            no_anchor(anchor, line)?;
            let mut entries: Vec<(String, usize, Node)> = Vec::new();
            loop {
                if matches!(it.peek(), Some((Event::MappingEnd, _))) {
                    it.next();
                    break;
                }
                let key = build(it)?;
                let Value::Text(name) = key.value else {
                    return Err(SyntaxError {
                        line: key.line,
                        message: format!("a key must be a name, not {}", key.kind()),
                    });
                };
                if entries.iter().any(|(k, _, _)| *k == name) {
                    return Err(SyntaxError {
                        line: key.line,
                        message: format!("the key `{name}` is given twice"),
                    });
                }
                let value = build(it)?;
                entries.push((name, key.line, value));
            }
            Value::Map(entries)
        }
        Event::Alias(_) => {
            return Err(SyntaxError {
                line,
                message: "YAML aliases (`*name`) are not supported in flows".into(),
            });
        }
        other => {
            return Err(SyntaxError {
                line,
                message: format!("unexpected YAML event {other:?}"),
            });
        }
    };
    Ok(Node { line, value })
}

fn no_anchor(anchor: usize, line: usize) -> Result<(), SyntaxError> {
    if anchor == 0 {
        Ok(())
    } else {
        Err(SyntaxError {
            line,
            message: "YAML anchors (`&name`) are not supported in flows".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_know_their_lines() {
        let docs = documents("appId: a.b\n---\n- back\n- tapOn:\n    text: OK\n").unwrap();
        assert_eq!(docs.len(), 2);
        let Value::Seq(items) = &docs[1].value else {
            panic!("{docs:?}")
        };
        assert_eq!(items[0].line, 3);
        let Value::Map(m) = &items[1].value else {
            panic!()
        };
        assert_eq!(m[0].0, "tapOn");
        assert_eq!(m[0].1, 4);
        let Value::Map(inner) = &m[0].2.value else {
            panic!()
        };
        assert_eq!(inner[0].1, 5);
        assert_eq!(inner[0].2.value, Value::Text("OK".into()));
    }

    #[test]
    fn a_repeated_key_and_a_syntax_error_name_their_lines() {
        let e = documents("appId: a\nappId: b\n").unwrap_err();
        assert_eq!(e.line, 2, "{e:?}");
        let e = documents("appId: a\n---\n- tapOn: [\n").unwrap_err();
        assert!(e.line >= 3, "{e:?}");
    }
}
