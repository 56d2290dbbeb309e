//! Size limits of what a store accepts: every field of a turn, its tags, parents and steps, and
//! the vector dimension.
//!
//! A turn over any limit is refused with `INVALID_INPUT` naming the field, before the store
//! changes. The faces check what they can before converting their input (the JS face compares
//! a string's UTF-16 length, a lower bound of its UTF-8 length, with
//! [`Limits::max_field_bytes`]), so an oversized value is refused before wasm memory is
//! allocated for it.
//!
//! The defaults, chosen so that a real turn never meets them while a runaway input (a 64 MB
//! page dump, a million tags) is refused early:
//!
//! | limit                 | default | why                                                       |
//! |-----------------------|---------|-----------------------------------------------------------|
//! | `max_field_bytes`     | 8 MiB   | one input, output, tool argument or result, summary       |
//! | `max_turn_bytes`      | 32 MiB  | all text of one turn                                      |
//! | `max_name_bytes`      | 1 KiB   | thread and user names                                     |
//! | `max_tags`            | 256     |                                                           |
//! | `max_tag_bytes`       | 256     | one tag                                                   |
//! | `max_parents`         | 1,024   | parents are de-duplicated in O(p log p)                   |
//! | `max_steps`           | 10,000  | tool calls in one turn's loop                             |
//! | `max_sections`        | 256     | sections of a compact node                                |
//! | `max_dimension`       | 8,192   | the widest common embedding models use 3,072 or 4,096     |
//!
//! Ids keep their own fixed bound, [`MAX_ID_LEN`](crate::record::MAX_ID_LEN), since storage
//! formats depend on it.

use alloc::format;
use alloc::string::String;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::record::{CompactNode, NewTurn};

/// The most a store accepts. Missing serde fields take the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Limits {
    /// The most bytes (UTF-8) of one text field.
    pub max_field_bytes: usize,
    /// The most bytes of all text fields of one turn together.
    pub max_turn_bytes: usize,
    /// The most bytes of a thread or user name.
    pub max_name_bytes: usize,
    /// The most tags of one turn.
    pub max_tags: usize,
    /// The most bytes of one tag.
    pub max_tag_bytes: usize,
    /// The most parents of one turn.
    pub max_parents: usize,
    /// The most tool-call steps of one turn.
    pub max_steps: usize,
    /// The most sections of one compact node.
    pub max_sections: usize,
    /// The widest embedding.
    pub max_dimension: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_field_bytes: 8 << 20,
            max_turn_bytes: 32 << 20,
            max_name_bytes: 1024,
            max_tags: 256,
            max_tag_bytes: 256,
            max_parents: 1024,
            max_steps: 10_000,
            max_sections: 256,
            max_dimension: 8192,
        }
    }
}

impl Limits {
    /// The longest list any limit allows: a face may refuse a longer array before reading it.
    pub fn max_list(&self) -> usize {
        self.max_tags
            .max(self.max_parents)
            .max(self.max_steps)
            .max(self.max_sections)
            .max(self.max_dimension)
    }

    /// Checks that every limit is at least 1, so a store can hold anything at all.
    pub fn validate(&self) -> Result<()> {
        let all = [
            self.max_field_bytes,
            self.max_turn_bytes,
            self.max_name_bytes,
            self.max_tags,
            self.max_tag_bytes,
            self.max_parents,
            self.max_steps,
            self.max_sections,
            self.max_dimension,
        ];
        if all.contains(&0) {
            return Err(Error::invalid("every limit must be at least 1"));
        }
        Ok(())
    }

    /// Checks a turn against every limit; the error names the first field over its limit.
    pub fn check_turn(&self, turn: &NewTurn) -> Result<()> {
        self.check_field(|| "input".into(), &turn.input)?;
        self.check_field(|| "output".into(), &turn.output)?;
        if turn.steps.len() > self.max_steps {
            return Err(over("steps", turn.steps.len(), self.max_steps, "maxSteps"));
        }
        let mut total = turn.input.len() + turn.output.len();
        for (i, s) in turn.steps.iter().enumerate() {
            self.check_field(|| format!("steps[{i}].tool"), &s.tool)?;
            self.check_field(|| format!("steps[{i}].args"), &s.args)?;
            self.check_field(|| format!("steps[{i}].result"), &s.result)?;
            total += s.tool.len() + s.args.len() + s.result.len();
        }
        if let Some(c) = &turn.compact {
            self.check_compact(c)?;
            total += c.summary.len();
            total += c
                .sections
                .iter()
                .map(|s| s.name.len() + s.text.len())
                .sum::<usize>();
        }
        if total > self.max_turn_bytes {
            return Err(Error::invalid(format!(
                "the turn's text is over the limit of {} bytes (maxTurnBytes)",
                self.max_turn_bytes
            )));
        }
        self.check_names_and_lists(
            &[("thread", &turn.thread), ("user", &turn.user)],
            &turn.tags,
            turn.parents.len(),
        )?;
        if let Some(e) = &turn.embedding {
            self.check_dimension(e.len())?;
        }
        Ok(())
    }

    /// Checks a new long-term memory item: its text fields, user, tags, sources and vector.
    pub fn check_item(&self, item: &crate::item::NewItem) -> Result<()> {
        self.check_field(|| "text".into(), &item.text)?;
        let optional = [
            ("subject", &item.subject),
            ("relation", &item.relation),
            ("object", &item.object),
            ("task", &item.task),
            ("tool", &item.tool),
        ];
        for (name, value) in optional {
            if let Some(v) = value {
                self.check_field(|| name.into(), v)?;
            }
        }
        self.check_names_and_lists(&[("user", &item.user)], &item.tags, item.sources.len())?;
        if let Some(e) = &item.embedding {
            self.check_dimension(e.len())?;
        }
        Ok(())
    }

    /// Checks names (thread, user), tags and the number of parents.
    fn check_names_and_lists(
        &self,
        names: &[(&str, &String)],
        tags: &[String],
        parents: usize,
    ) -> Result<()> {
        for (name, value) in names {
            if value.len() > self.max_name_bytes {
                return Err(Error::invalid(format!(
                    "{name} is {} bytes, over the limit of {} (maxNameBytes)",
                    value.len(),
                    self.max_name_bytes
                )));
            }
        }
        if tags.len() > self.max_tags {
            return Err(over("tags", tags.len(), self.max_tags, "maxTags"));
        }
        if let Some(t) = tags.iter().find(|t| t.len() > self.max_tag_bytes) {
            return Err(Error::invalid(format!(
                "a tag is {} bytes, over the limit of {} (maxTagBytes)",
                t.len(),
                self.max_tag_bytes
            )));
        }
        if parents > self.max_parents {
            return Err(over("parents", parents, self.max_parents, "maxParents"));
        }
        Ok(())
    }

    /// Checks a compact node's fields and sections.
    pub fn check_compact(&self, compact: &CompactNode) -> Result<()> {
        self.check_field(|| "compact.summary".into(), &compact.summary)?;
        if compact.sections.len() > self.max_sections {
            return Err(over(
                "compact.sections",
                compact.sections.len(),
                self.max_sections,
                "maxSections",
            ));
        }
        for (i, s) in compact.sections.iter().enumerate() {
            self.check_field(|| format!("compact.sections[{i}].name"), &s.name)?;
            self.check_field(|| format!("compact.sections[{i}].text"), &s.text)?;
        }
        Ok(())
    }

    /// Checks one text field; the name is only built for the error.
    fn check_field(&self, name: impl FnOnce() -> String, text: &str) -> Result<()> {
        if text.len() > self.max_field_bytes {
            return Err(Error::invalid(format!(
                "{} is {} bytes, over the limit of {} (maxFieldBytes)",
                name(),
                text.len(),
                self.max_field_bytes
            )));
        }
        Ok(())
    }

    /// Checks a vector's dimension.
    pub fn check_dimension(&self, dimension: usize) -> Result<()> {
        if dimension > self.max_dimension {
            return Err(over(
                "the embedding",
                dimension,
                self.max_dimension,
                "maxDimension",
            ));
        }
        Ok(())
    }
}

fn over(what: &str, n: usize, max: usize, name: &str) -> Error {
    Error::invalid(format!(
        "{what} has {n} entries, over the limit of {max} ({name})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn turn() -> NewTurn {
        NewTurn {
            thread: "t".into(),
            input: "hi".into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_normal_turn_passes() {
        Limits::default().check_turn(&turn()).unwrap();
    }

    #[test]
    fn each_limit_names_its_field() {
        let small = Limits {
            max_field_bytes: 4,
            max_turn_bytes: 10,
            max_name_bytes: 3,
            max_tags: 1,
            max_tag_bytes: 2,
            max_parents: 1,
            max_steps: 1,
            max_sections: 1,
            max_dimension: 2,
        };
        let cases: [(NewTurn, &str); 8] = [
            (
                NewTurn {
                    output: "12345".into(),
                    ..turn()
                },
                "output is 5 bytes",
            ),
            (
                NewTurn {
                    input: "1234".into(),
                    output: "1234".into(),
                    steps: vec![crate::record::Step {
                        tool: "1234".into(),
                        ..Default::default()
                    }],
                    ..turn()
                },
                "maxTurnBytes",
            ),
            (
                NewTurn {
                    user: "long".into(),
                    ..turn()
                },
                "user is 4 bytes",
            ),
            (
                NewTurn {
                    tags: vec!["a".into(), "b".into()],
                    ..turn()
                },
                "maxTags",
            ),
            (
                NewTurn {
                    tags: vec!["abc".into()],
                    ..turn()
                },
                "maxTagBytes",
            ),
            (
                NewTurn {
                    parents: vec!["a".into(), "b".into()],
                    ..turn()
                },
                "maxParents",
            ),
            (
                NewTurn {
                    steps: vec![Default::default(), Default::default()],
                    ..turn()
                },
                "maxSteps",
            ),
            (
                NewTurn {
                    embedding: Some(vec![0.5; 3]),
                    ..turn()
                },
                "maxDimension",
            ),
        ];
        for (t, expected) in cases {
            let e = small.check_turn(&t).unwrap_err();
            assert_eq!(e.code(), "INVALID_INPUT");
            let text = alloc::string::ToString::to_string(&e);
            assert!(text.contains(expected), "{text:?} should name {expected:?}");
        }
    }

    #[test]
    fn zero_limits_are_refused() {
        let l = Limits {
            max_tags: 0,
            ..Limits::default()
        };
        assert!(l.validate().is_err());
        Limits::default().validate().unwrap();
    }
}
