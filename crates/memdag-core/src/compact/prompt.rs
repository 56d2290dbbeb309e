//! The compaction prompt: instructions, the previous note (incremental mode), and the turn.
//!
//! The turn is quoted in XML-like tags so the model can tell data from instructions. Long parts
//! are cut to fixed token caps (head and tail kept), and a turn with very many steps keeps its
//! first and last ones, so the prompt stays bounded whatever the turn's size.

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use super::{detect_language, render, SECTIONS, SUMMARY};
use crate::record::{CompactNode, Record, Step};
use crate::tokens::TokenCounter;

/// Token cap of the input and of the output quoted in a prompt.
pub const MAX_TEXT_TOKENS: usize = 2000;
/// Token cap of one step's arguments.
pub const MAX_ARGS_TOKENS: usize = 300;
/// Token cap of one step's result.
pub const MAX_RESULT_TOKENS: usize = 600;
/// Steps quoted from the start and from the end of a long tool loop.
pub const HEAD_STEPS: usize = 20;
/// See [`HEAD_STEPS`].
pub const TAIL_STEPS: usize = 40;

/// What each section should hold, as told to the LLM.
const GUIDE: [(&str, &str); 7] = [
    (SUMMARY, "One sentence: what the turn did and how it ended."),
    ("Goal", "What the user wanted from this turn."),
    (
        "Constraints",
        "Requirements, limits and preferences stated by the user or discovered.",
    ),
    (
        "Progress",
        "What was done and what it produced, as short bullet points.",
    ),
    ("Key Decisions", "Choices made, and why."),
    ("Next Steps", "What remains to be done."),
    (
        "Critical Context",
        "Exact file paths, function names, error messages, ids, commands and values needed later.",
    ),
];

/// The full prompt for compacting `record`, updating `previous` when given.
pub fn build_prompt(record: &Record, previous: Option<&CompactNode>) -> String {
    debug_assert_eq!(GUIDE.len(), SECTIONS.len() + 1);
    let language = detect_language(record);
    let mut p = String::with_capacity(4096);
    p.push_str(
        "You are compacting one turn of an AI agent's work into a memory note. The note replaces \
         the turn's tool-call log whenever the agent later recalls this turn, so keep everything \
         needed to continue the work and drop the rest.\n\n",
    );
    let _ = writeln!(
        p,
        "Write the note in {}. Keep the headings exactly as written below, in English. Copy file \
         paths, function names, identifiers, commands and error messages verbatim.\n",
        language.instruction()
    );
    p.push_str("Answer with Markdown: exactly these headings, in this order, with nothing before the first one. ");
    let _ = writeln!(
        p,
        "Write \"{}\" under a heading that has nothing to report.\n",
        language.none()
    );
    for (name, guide) in GUIDE {
        let _ = writeln!(p, "## {name}\n{guide}");
    }
    p.push('\n');
    if let Some(prev) = previous {
        p.push_str(
            "A previous note exists for this work. Update it with what the turn below adds: keep \
             what still holds, revise what changed, add what is new, and remove what is done or \
             no longer true.\n<previous_note>\n",
        );
        p.push_str(&render(prev));
        p.push_str("\n</previous_note>\n\n");
    }
    quote_turn(&mut p, record);
    p
}

/// Appends the turn, quoted and capped.
fn quote_turn(p: &mut String, r: &Record) {
    let c = TokenCounter::default();
    let _ = writeln!(
        p,
        "<turn id=\"{}\" thread=\"{}\" user=\"{}\">",
        r.id, r.thread, r.user
    );
    let _ = writeln!(
        p,
        "<input>\n{}\n</input>",
        cap(&c, &r.input, MAX_TEXT_TOKENS)
    );
    if !r.steps.is_empty() {
        p.push_str("<steps>\n");
        let n = r.steps.len();
        for (i, step) in r.steps.iter().enumerate() {
            if n > HEAD_STEPS + TAIL_STEPS && i == HEAD_STEPS {
                let _ = writeln!(p, "<omitted steps=\"{}\"/>", n - HEAD_STEPS - TAIL_STEPS);
            }
            if n > HEAD_STEPS + TAIL_STEPS && (HEAD_STEPS..n - TAIL_STEPS).contains(&i) {
                continue;
            }
            quote_step(p, &c, i + 1, step);
        }
        p.push_str("</steps>\n");
    }
    let _ = writeln!(
        p,
        "<output>\n{}\n</output>",
        cap(&c, &r.output, MAX_TEXT_TOKENS)
    );
    p.push_str("</turn>\n");
}

fn quote_step(p: &mut String, c: &TokenCounter, n: usize, s: &Step) {
    let status = if s.ok { "ok" } else { "error" };
    let _ = writeln!(
        p,
        "<step n=\"{n}\" tool=\"{}\" status=\"{status}\">",
        s.tool
    );
    let _ = writeln!(p, "<args>{}</args>", cap(c, &s.args, MAX_ARGS_TOKENS));
    let _ = writeln!(
        p,
        "<result>{}</result>",
        cap(c, &s.result, MAX_RESULT_TOKENS)
    );
    p.push_str("</step>\n");
}

/// `text` within `max` tokens: whole, or its head and tail around an omission mark.
pub(crate) fn cap(c: &TokenCounter, text: &str, max: usize) -> String {
    let total = c.count(text);
    if total <= max {
        return text.into();
    }
    let head = c.truncate(text, max * 2 / 3);
    let tail = c.truncate_start(&text[head.len()..], max / 3);
    format!(
        "{head}\n[… {} tokens omitted …]\n{tail}",
        total.saturating_sub(max)
    )
}
