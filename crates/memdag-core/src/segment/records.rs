//! The RECORDS section decoded by hand: the record shape the writer produces, read without
//! serde's per-field dispatch, with serde's decoder as the reference and the fallback.
//!
//! Opening a store decodes every live record, and decoding them through serde was the largest
//! part of a first open in wasm: 20 of 106 ms at 10k records in Node (`--cpu-prof`, self time
//! under `Memory.load`, 8 runs), most of it in code V8 had not optimized yet. A record is
//! written by rmp-serde as a map of its field names (see [`crate::segment`]); this module
//! reads that map directly, field by field, in one small function per shape.
//!
//! Only the forms the writer produces are read here: a map with string keys, each field once,
//! strings as `str`, integers as MessagePack integers, `f32`s as `float 32`, and no `item`
//! (a long-term memory item's metadata has a custom serde shape). Anything else, a damaged
//! byte included, makes this reader give up on that record, and serde's decoder
//! ([`crate::msgpack`]) reads it from the same position over the same bytes. So a record
//! decodes to what serde decodes, and a damaged one fails with serde's own message, byte
//! offsets included: the two are one decoder as far as any caller can tell (checked by the
//! differential tests in `tests/codec_format.rs`).
//!
//! This module knows the byte format only; it imports neither the store nor the index.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;

use crate::codec::undecodable;
use crate::error::Result;
use crate::msgpack;
use crate::record::{CompactNode, Record, Section, Step};

/// Decodes a RECORDS section (a MessagePack array of records); `key` is named in errors.
#[inline(never)]
pub fn decode_records(key: &str, bytes: &[u8]) -> Result<Vec<Record>> {
    let mut c = Cursor { bytes, at: 0 };
    let Some(count) = c.array() else {
        return crate::codec::from_msgpack(key, bytes);
    };
    let mut out = Vec::with_capacity(count.min(c.left()));
    for _ in 0..count {
        let start = c.at;
        match c.record() {
            Some(r) => out.push(r),
            None => {
                // Inside the array, as serde's decoder is when it reads an element.
                let mut reader = msgpack::Reader::resume(bytes, start, 1);
                let r = Record::deserialize(&mut reader).map_err(|e| undecodable(key, &e))?;
                out.push(r);
                c.at = reader.position();
            }
        }
    }
    Ok(out)
}

/// The record fields, by their bit in a record's set of fields read.
const ID: u16 = 1;
const SEQ: u16 = 1 << 1;
const THREAD: u16 = 1 << 2;
const USER: u16 = 1 << 3;
const CREATED_AT: u16 = 1 << 4;
const INPUT: u16 = 1 << 5;
const OUTPUT: u16 = 1 << 6;
const STEPS: u16 = 1 << 7;
const PARENTS: u16 = 1 << 8;
const TAGS: u16 = 1 << 9;
const IMPORTANCE: u16 = 1 << 10;
const COMPACT: u16 = 1 << 11;
const EMBEDDING: u16 = 1 << 12;
/// The fields serde requires: all but the optional ones (`compact`, `embedding`).
const REQUIRED: u16 =
    ID | SEQ | THREAD | USER | CREATED_AT | INPUT | OUTPUT | STEPS | PARENTS | TAGS | IMPORTANCE;

/// A position in the section's bytes. Every read returns `None` on a form it does not take,
/// leaving the record to serde.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn be<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    /// The element count of an array (`fix`, `m16`, `m32` = 0x90, 0xdc, 0xdd) or a map (0x80,
    /// 0xde, 0xdf).
    fn count(&mut self, fix: u8, m16: u8, m32: u8) -> Option<usize> {
        let b = self.byte()?;
        if b & 0xf0 == fix {
            Some((b & 0x0f) as usize)
        } else if b == m16 {
            Some(u16::from_be_bytes(self.be()?) as usize)
        } else if b == m32 {
            Some(u32::from_be_bytes(self.be()?) as usize)
        } else {
            None
        }
    }

    fn array(&mut self) -> Option<usize> {
        self.count(0x90, 0xdc, 0xdd)
    }

    fn map(&mut self) -> Option<usize> {
        self.count(0x80, 0xde, 0xdf)
    }

    /// A nil, consumed; false (and nothing consumed) for anything else.
    fn nil(&mut self) -> bool {
        let nil = self.bytes.get(self.at) == Some(&0xc0);
        self.at += usize::from(nil);
        nil
    }

    fn str(&mut self) -> Option<&'a str> {
        let b = self.byte()?;
        let n = match b {
            0xa0..=0xbf => (b & 0x1f) as usize,
            0xd9 => self.byte()? as usize,
            0xda => u16::from_be_bytes(self.be()?) as usize,
            0xdb => u32::from_be_bytes(self.be()?) as usize,
            _ => return None,
        };
        core::str::from_utf8(self.take(n)?).ok()
    }

    fn string(&mut self) -> Option<String> {
        self.str().map(String::from)
    }

    fn strings(&mut self) -> Option<Vec<String>> {
        let n = self.array()?;
        let mut out = Vec::with_capacity(n.min(self.left()));
        for _ in 0..n {
            out.push(self.string()?);
        }
        Some(out)
    }

    fn u64(&mut self) -> Option<u64> {
        let b = self.byte()?;
        Some(match b {
            0x00..=0x7f => b as u64,
            0xcc => self.byte()? as u64,
            0xcd => u16::from_be_bytes(self.be()?) as u64,
            0xce => u32::from_be_bytes(self.be()?) as u64,
            0xcf => u64::from_be_bytes(self.be()?),
            _ => return None,
        })
    }

    fn i64(&mut self) -> Option<i64> {
        let b = *self.bytes.get(self.at)?;
        match b {
            0x00..=0x7f | 0xcc..=0xcf => i64::try_from(self.u64()?).ok(),
            0xe0..=0xff => {
                self.at += 1;
                Some(b as i8 as i64)
            }
            0xd0..=0xd3 => {
                self.at += 1;
                Some(match b {
                    0xd0 => i8::from_be_bytes(self.be()?) as i64,
                    0xd1 => i16::from_be_bytes(self.be()?) as i64,
                    0xd2 => i32::from_be_bytes(self.be()?) as i64,
                    _ => i64::from_be_bytes(self.be()?),
                })
            }
            _ => None,
        }
    }

    fn f32(&mut self) -> Option<f32> {
        (self.byte()? == 0xca).then_some(())?;
        Some(f32::from_be_bytes(self.be()?))
    }

    fn bool(&mut self) -> Option<bool> {
        match self.byte()? {
            0xc2 => Some(false),
            0xc3 => Some(true),
            _ => None,
        }
    }

    /// Marks field `bit` as read; `None` when it was read before (serde refuses a duplicate).
    fn once(seen: &mut u16, bit: u16) -> Option<()> {
        (*seen & bit == 0).then(|| *seen |= bit)
    }

    /// A call per record, not inlined into the loop over the section: V8 optimizes a wasm
    /// function for its later calls only, and the loop's one call runs unoptimized to its end.
    #[inline(never)]
    fn record(&mut self) -> Option<Record> {
        let fields = self.map()?;
        let mut seen = 0u16;
        let mut r = Record {
            id: String::new(),
            seq: 0,
            thread: String::new(),
            user: String::new(),
            created_at: 0,
            input: String::new(),
            output: String::new(),
            steps: Vec::new(),
            parents: Vec::new(),
            tags: Vec::new(),
            importance: 0.0,
            compact: None,
            embedding: None,
            item: None,
        };
        for _ in 0..fields {
            let bit = match self.str()? {
                "id" => {
                    r.id = self.string()?;
                    ID
                }
                "seq" => {
                    r.seq = self.u64()?;
                    SEQ
                }
                "thread" => {
                    r.thread = self.string()?;
                    THREAD
                }
                "user" => {
                    r.user = self.string()?;
                    USER
                }
                "created_at" => {
                    r.created_at = self.i64()?;
                    CREATED_AT
                }
                "input" => {
                    r.input = self.string()?;
                    INPUT
                }
                "output" => {
                    r.output = self.string()?;
                    OUTPUT
                }
                "steps" => {
                    r.steps = self.steps()?;
                    STEPS
                }
                "parents" => {
                    r.parents = self.strings()?;
                    PARENTS
                }
                "tags" => {
                    r.tags = self.strings()?;
                    TAGS
                }
                "importance" => {
                    r.importance = self.f32()?;
                    IMPORTANCE
                }
                "compact" => {
                    r.compact = if self.nil() {
                        None
                    } else {
                        Some(self.compact()?)
                    };
                    COMPACT
                }
                "embedding" => {
                    r.embedding = if self.nil() {
                        None
                    } else {
                        Some(self.floats()?)
                    };
                    EMBEDDING
                }
                // `item` and any field this build does not know: serde's.
                _ => return None,
            };
            Self::once(&mut seen, bit)?;
        }
        (seen & REQUIRED == REQUIRED).then_some(r)
    }

    // The nested values (steps, a compact node, an embedding) are calls of their own, so that
    // `record` stays small: V8 optimizes it in the background while the open runs it
    // unoptimized, in about 56 ms when it held them all (7.4 KB), after most records were read.
    #[inline(never)]
    fn steps(&mut self) -> Option<Vec<Step>> {
        let n = self.array()?;
        let mut out = Vec::with_capacity(n.min(self.left()));
        for _ in 0..n {
            out.push(self.step()?);
        }
        Some(out)
    }

    /// A step: every field has a default.
    fn step(&mut self) -> Option<Step> {
        let fields = self.map()?;
        let mut seen = 0u16;
        let mut step = Step::default();
        for _ in 0..fields {
            let bit = match self.str()? {
                "tool" => {
                    step.tool = self.string()?;
                    1
                }
                "args" => {
                    step.args = self.string()?;
                    2
                }
                "result" => {
                    step.result = self.string()?;
                    4
                }
                "ok" => {
                    step.ok = self.bool()?;
                    8
                }
                _ => return None,
            };
            Self::once(&mut seen, bit)?;
        }
        Some(step)
    }

    /// A compact node: every field has a default.
    #[inline(never)]
    fn compact(&mut self) -> Option<CompactNode> {
        let fields = self.map()?;
        let mut seen = 0u16;
        let mut node = CompactNode::default();
        for _ in 0..fields {
            let bit = match self.str()? {
                "summary" => {
                    node.summary = self.string()?;
                    1
                }
                "sections" => {
                    let n = self.array()?;
                    node.sections = Vec::with_capacity(n.min(self.left()));
                    for _ in 0..n {
                        let section = self.section()?;
                        node.sections.push(section);
                    }
                    2
                }
                _ => return None,
            };
            Self::once(&mut seen, bit)?;
        }
        Some(node)
    }

    /// A compact node's section: every field has a default.
    fn section(&mut self) -> Option<Section> {
        let fields = self.map()?;
        let mut seen = 0u16;
        let mut section = Section::default();
        for _ in 0..fields {
            let bit = match self.str()? {
                "name" => {
                    section.name = self.string()?;
                    1
                }
                "text" => {
                    section.text = self.string()?;
                    2
                }
                _ => return None,
            };
            Self::once(&mut seen, bit)?;
        }
        Some(section)
    }

    #[inline(never)]
    fn floats(&mut self) -> Option<Vec<f32>> {
        let n = self.array()?;
        let mut out = Vec::with_capacity(n.min(self.left()));
        for _ in 0..n {
            out.push(self.f32()?);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn value<T: serde::Serialize>(v: T) -> Vec<u8> {
        rmp_serde::to_vec_named(&v).unwrap()
    }

    /// A one-record section whose record is a map of these raw fields.
    fn section(fields: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut out = vec![0x91, 0x80 | fields.len() as u8];
        for (name, bytes) in fields {
            out.extend(value(name));
            out.extend(bytes);
        }
        out
    }

    fn fields() -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("id", value("a")),
            ("seq", value(7u64)),
            ("thread", value("t")),
            ("user", value("u")),
            ("created_at", value(-5i64)),
            ("input", value("in")),
            ("output", value("out")),
            ("steps", value(Vec::<Step>::new())),
            ("parents", value(["p"])),
            ("tags", value(Vec::<String>::new())),
            ("importance", value(0.5f32)),
        ]
    }

    /// Whether the hand-written reader took the section's one record itself.
    fn taken_by_hand(section: &[u8]) -> bool {
        Cursor {
            bytes: section,
            at: 1,
        }
        .record()
        .is_some()
    }

    fn serde_decodes(section: &[u8]) -> Result<Vec<Record>> {
        crate::codec::from_msgpack("k", section)
    }

    #[test]
    fn the_writers_records_are_read_by_hand() {
        let record = Record {
            id: "r1".into(),
            seq: u64::MAX,
            thread: "t".into(),
            user: "ada".into(),
            created_at: i64::MIN,
            input: "记忆 ".repeat(50),
            output: "o".repeat(70_000),
            steps: vec![Step {
                tool: "search".into(),
                args: "{}".into(),
                result: "found".into(),
                ok: true,
            }],
            parents: vec!["p".into(); 20],
            tags: vec!["shared".into()],
            importance: 0.25,
            compact: Some(CompactNode {
                summary: "s".into(),
                sections: vec![Section {
                    name: "Goal".into(),
                    text: "x".into(),
                }],
            }),
            embedding: Some(vec![0.5, -1.0]),
            item: None,
        };
        let bytes = value(vec![record.clone(), record.clone()]);
        assert!(taken_by_hand(&bytes));
        assert_eq!(
            decode_records("k", &bytes).unwrap(),
            vec![record.clone(), record]
        );
    }

    /// Every form the writer does not produce is left to serde, which decides: the same
    /// records, or the same error, as serde's decoder alone.
    #[test]
    fn other_forms_are_left_to_serde() {
        let with = |name: &str, bytes: Vec<u8>| {
            let mut f = fields();
            f.iter_mut().find(|(n, _)| *n == name).unwrap().1 = bytes;
            section(&f)
        };
        let mut extra = fields();
        extra.push(("written_later", value(1)));
        let mut twice = fields();
        twice.push(("id", value("b")));
        let mut missing = fields();
        missing.retain(|(n, _)| *n != "user");
        let plain: Vec<Record> = serde_decodes(&section(&fields())).unwrap();
        let mut item = plain[0].clone();
        item.item = Some(Default::default());
        let cases: Vec<(&str, Vec<u8>, bool)> = vec![
            ("a signed seq", with("seq", vec![0xd0, 7]), true),
            ("an f64 importance", with("importance", value(0.5f64)), true),
            (
                "an integer importance",
                with("importance", value(1u8)),
                true,
            ),
            ("a field this build does not know", section(&extra), true),
            (
                "a record as an array",
                rmp_serde::to_vec(&plain).unwrap(),
                true,
            ),
            ("an item", value(vec![item]), true),
            ("a field twice", section(&twice), false),
            ("a missing field", section(&missing), false),
            (
                "a string that is not UTF-8",
                with("id", vec![0xa1, 0xff]),
                false,
            ),
        ];
        assert!(taken_by_hand(&section(&fields())));
        for (case, bytes, decodes) in cases {
            assert!(!taken_by_hand(&bytes), "{case}");
            let ours = decode_records("k", &bytes).map_err(|e| e.to_string());
            assert_eq!(
                ours,
                serde_decodes(&bytes).map_err(|e| e.to_string()),
                "{case}"
            );
            assert_eq!(ours.is_ok(), decodes, "{case}: {ours:?}");
        }
    }

    /// A record left to serde is read from where it starts, and the records after it are
    /// read by hand again.
    #[test]
    fn reading_by_hand_resumes_after_a_record_left_to_serde() {
        let mut bytes = vec![0x93];
        for _ in 0..3 {
            bytes.extend_from_slice(&section(&fields())[1..]);
        }
        let plain = decode_records("k", &bytes).unwrap();
        // The middle record's seq as a signed byte: serde's to read.
        let mut odd = vec![0x93];
        odd.extend_from_slice(&section(&fields())[1..]);
        let mut f = fields();
        f[1].1 = vec![0xd0, 7];
        odd.extend_from_slice(&section(&f)[1..]);
        odd.extend_from_slice(&section(&fields())[1..]);
        assert_eq!(decode_records("k", &odd).unwrap(), plain);
    }
}
