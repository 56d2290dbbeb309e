//! The strict reading of an LLM answer: whole-answer refusals, then fact by fact.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Refusal, RefusalCode};
use crate::item::ItemKind;

/// What a fact asks memory to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Learn a new item.
    Add,
    /// Make a new version of `item`.
    Update,
    /// Add a new item that replaces `item`.
    Supersede,
    /// The fact is `item`: corroborate it.
    None,
}

/// A fact of an answer that passed every check of its own (see the module docs of
/// [`super`]); whether its item exists is checked by the caller, which knows the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Its index in the answer's `facts`.
    pub index: usize,
    pub op: Op,
    /// The turn it comes from: one of the batch's.
    pub source: String,
    /// Whom it is about, as the prompt names the batch's speakers; none: the source turn's.
    pub speaker: Option<String>,
    pub item: Option<String>,
    pub text: Option<String>,
    pub kind: ItemKind,
    pub subject: Option<String>,
    pub relation: Option<String>,
    pub object: Option<String>,
    pub confidence: Option<f32>,
}

/// An answer read: its facts, and the refusals (of the whole answer, or of single facts).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub facts: Vec<Fact>,
    pub refused: Vec<Refusal>,
    /// Whether the whole answer was refused (then `facts` is empty).
    pub whole: bool,
}

/// The fields a fact may have.
const FIELDS: [&str; 10] = [
    "op",
    "source",
    "speaker",
    "item",
    "text",
    "kind",
    "subject",
    "relation",
    "object",
    "confidence",
];

/// The JSON inside an answer: the whole answer, or the body of one ```` ``` ```` fence.
fn json_body(answer: &str) -> &str {
    let t = answer.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

/// Reads `answer` for batch number `batch`, whose turns are `sources`.
pub fn parse(answer: &str, batch: usize, sources: &[String]) -> Parsed {
    let refuse = |fact: Option<usize>, code: RefusalCode, message: String| Refusal {
        batch,
        fact,
        code,
        message,
    };
    let whole = |code, message| Parsed {
        facts: Vec::new(),
        refused: std::vec![refuse(None, code, message)],
        whole: true,
    };
    let value: Value = match serde_json::from_str(json_body(answer)) {
        Ok(v) => v,
        Err(e) => return whole(RefusalCode::NotJson, format!("the answer is not JSON: {e}")),
    };
    let Some(top) = value.as_object() else {
        return whole(
            RefusalCode::BadShape,
            "the answer is not a JSON object".into(),
        );
    };
    if let Some(k) = top.keys().find(|k| *k != "facts") {
        return whole(
            RefusalCode::BadShape,
            format!("unknown field {k:?} in the answer"),
        );
    }
    let Some(list) = top.get("facts").and_then(Value::as_array) else {
        return whole(
            RefusalCode::BadShape,
            "the answer has no \"facts\" array".into(),
        );
    };
    let mut out = Parsed::default();
    for (i, v) in list.iter().enumerate() {
        match fact(i, v, sources) {
            Ok(f) => out.facts.push(f),
            Err((code, message)) => out.refused.push(refuse(Some(i), code, message)),
        }
    }
    out
}

/// An optional string field: absent or null is none, a blank string none too.
fn text_field(o: &Map<String, Value>, name: &str) -> Result<Option<String>, (RefusalCode, String)> {
    match o.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().into())),
        Some(other) => Err((
            RefusalCode::BadFact,
            format!("{name} must be a string or null, not {other}"),
        )),
    }
}

fn fact(index: usize, v: &Value, sources: &[String]) -> Result<Fact, (RefusalCode, String)> {
    let Some(o) = v.as_object() else {
        return Err((RefusalCode::BadFact, "a fact must be a JSON object".into()));
    };
    if let Some(k) = o.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err((RefusalCode::BadFact, format!("unknown field {k:?}")));
    }
    let op = match o.get("op").and_then(Value::as_str) {
        Some("add") => Op::Add,
        Some("update") => Op::Update,
        Some("supersede") => Op::Supersede,
        Some("none") => Op::None,
        Some(other) => {
            return Err((
                RefusalCode::UnknownOp,
                format!("op {other:?} is none of add, update, supersede, none"),
            ))
        }
        None => return Err((RefusalCode::UnknownOp, "a fact needs an op".into())),
    };
    let source = text_field(o, "source")?.ok_or_else(|| {
        (
            RefusalCode::UnknownSource,
            "a fact needs a source turn".into(),
        )
    })?;
    if !sources.contains(&source) {
        return Err((
            RefusalCode::UnknownSource,
            format!("source {source:?} is not one of the batch's turns"),
        ));
    }
    let item = text_field(o, "item")?;
    if op != Op::Add && item.is_none() {
        return Err((
            RefusalCode::UnknownItem,
            format!("{} needs the item it is about", op_name(op)),
        ));
    }
    let text = text_field(o, "text")?;
    if op != Op::None && text.is_none() {
        return Err((
            RefusalCode::EmptyText,
            format!("{} needs a text", op_name(op)),
        ));
    }
    let kind = match text_field(o, "kind")? {
        None => ItemKind::Personal,
        Some(k) => ItemKind::parse(&k).ok_or_else(|| {
            (
                RefusalCode::BadFact,
                format!("kind {k:?} is none of personal, procedural, tool, fact"),
            )
        })?,
    };
    let confidence = match o.get("confidence") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => {
            let c = n.as_f64().unwrap_or(f64::NAN);
            if !(0.0..=1.0).contains(&c) {
                return Err((
                    RefusalCode::BadConfidence,
                    format!("confidence {c} is outside 0..=1"),
                ));
            }
            Some(c as f32)
        }
        Some(other) => {
            return Err((
                RefusalCode::BadFact,
                format!("confidence must be a number or null, not {other}"),
            ))
        }
    };
    Ok(Fact {
        index,
        op,
        source,
        speaker: text_field(o, "speaker")?,
        item,
        text,
        kind,
        subject: text_field(o, "subject")?,
        relation: text_field(o, "relation")?.map(|r| r.to_lowercase()),
        object: text_field(o, "object")?,
        confidence,
    })
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Add => "add",
        Op::Update => "update",
        Op::Supersede => "supersede",
        Op::None => "none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(answer: &str) -> (Vec<Option<usize>>, Vec<RefusalCode>, usize) {
        let p = parse(answer, 0, &["t1".into(), "t2".into()]);
        (
            p.refused.iter().map(|r| r.fact).collect(),
            p.refused.iter().map(|r| r.code).collect(),
            p.facts.len(),
        )
    }

    #[test]
    fn bad_facts_are_refused_one_by_one_and_the_rest_kept() {
        let answer = r#"```json
        {"facts": [
          {"op": "add", "source": "t1", "text": "Ada lives in Oslo", "kind": null, "confidence": 0.9},
          {"op": "add", "source": "t9", "text": "x"},
          {"op": "merge", "source": "t1", "text": "x"},
          {"op": "update", "source": "t2", "text": "x"},
          {"op": "add", "source": "t2", "text": "  "},
          {"op": "add", "source": "t2", "text": "y", "confidence": 3},
          {"op": "add", "source": "t2", "text": "y", "colour": "red"},
          {"op": "none", "source": "t2", "item": "m1"},
          "not an object"
        ]}
        ```"#;
        let (at, codes, kept) = codes(answer);
        assert_eq!(kept, 2);
        assert_eq!(
            at,
            [
                Some(1),
                Some(2),
                Some(3),
                Some(4),
                Some(5),
                Some(6),
                Some(8)
            ]
        );
        assert_eq!(
            codes,
            [
                RefusalCode::UnknownSource,
                RefusalCode::UnknownOp,
                RefusalCode::UnknownItem,
                RefusalCode::EmptyText,
                RefusalCode::BadConfidence,
                RefusalCode::BadFact,
                RefusalCode::BadFact
            ]
        );
    }

    #[test]
    fn an_answer_that_is_no_facts_object_is_refused_whole() {
        for (answer, code) in [
            ("Sure! Ada lives in Oslo.", RefusalCode::NotJson),
            ("[1, 2]", RefusalCode::BadShape),
            ("{\"items\": []}", RefusalCode::BadShape),
            ("{\"facts\": {}}", RefusalCode::BadShape),
        ] {
            let p = parse(answer, 3, &[]);
            assert!(p.whole, "{answer}");
            assert_eq!(p.refused[0].code, code, "{answer}");
            assert_eq!(p.refused[0].batch, 3);
        }
        assert!(!parse("{\"facts\": []}", 0, &[]).whole);
    }
}
