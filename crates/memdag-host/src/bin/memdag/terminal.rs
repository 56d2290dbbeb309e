//! Output that stored text cannot use to drive the terminal.
//!
//! Turns hold what users, models and tools wrote, which may carry terminal controls: ESC
//! sequences that move the cursor, recolour or retitle the window (OSC), BEL, a carriage
//! return that overwrites a line, or their 8-bit C1 forms (U+0080 to U+009F). [`Escaping`]
//! sits between the CLI and stdout and writes each such character visibly instead: `\x1b`
//! for a C0 control or DEL, `\u{9b}` for a C1 one, in human output; in JSON output (where
//! serde_json already escapes C0 inside strings) a `\u009b` escape, which keeps the JSON
//! valid and the same string. Newline and tab pass. [`escape`] does the same to one text, for
//! stderr.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Whether `c` is a control character that must not reach a terminal as it is.
fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{7f}'
}

/// How an escaped character is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `\x1b`, `\u{9b}`: read by people.
    Human,
    /// `\u001b`, `\u009b`: valid inside a JSON string.
    Json,
}

fn escaped(c: char, mode: Mode, out: &mut String) {
    let n = c as u32;
    let _ = match mode {
        Mode::Json => write!(out, "\\u{n:04x}"),
        Mode::Human if n < 0x80 => write!(out, "\\x{n:02x}"),
        Mode::Human => write!(out, "\\u{{{n:x}}}"),
    };
}

/// `text` with its control characters escaped for a person to read (see the module docs).
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_control(c) {
            escaped(c, Mode::Human, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes control characters on their way to `inner`.
pub struct Escaping<W: Write> {
    inner: W,
    mode: Mode,
    /// The first byte of a two-byte UTF-8 character cut off by the end of a write (the C1
    /// controls are `0xC2 0x80..=0x9F`).
    pending: Option<u8>,
}

impl<W: Write> Escaping<W> {
    pub fn new(inner: W, mode: Mode) -> Self {
        Escaping {
            inner,
            mode,
            pending: None,
        }
    }

    fn emit(&mut self, c: char) -> io::Result<()> {
        let mut s = String::new();
        escaped(c, self.mode, &mut s);
        self.inner.write_all(s.as_bytes())
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut plain_from = 0;
        for (i, &b) in buf.iter().enumerate() {
            if let Some(lead) = self.pending.take() {
                if (0x80..=0x9f).contains(&b) {
                    self.emit(char::from(b))?;
                } else {
                    self.inner.write_all(&[lead, b])?;
                }
                plain_from = i + 1;
                continue;
            }
            let control = (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f;
            if control || b == 0xc2 {
                self.inner.write_all(&buf[plain_from..i])?;
                plain_from = i + 1;
                if control {
                    self.emit(char::from(b))?;
                } else {
                    self.pending = Some(b);
                }
            }
        }
        self.inner.write_all(&buf[plain_from..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(lead) = self.pending.take() {
            self.inner.write_all(&[lead])?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(mode: Mode, parts: &[&[u8]]) -> String {
        let mut out = Escaping::new(Vec::new(), mode);
        for p in parts {
            out.write_all(p).unwrap();
        }
        out.flush().unwrap();
        String::from_utf8(out.inner).unwrap()
    }

    #[test]
    fn terminal_controls_are_written_visibly_and_text_is_kept() {
        let text = "ok\x1b[2J\x1b]0;pwned\x07 end\r\nnext\tcol \u{9b}31m é 记忆 \u{7f}";
        let human = through(Mode::Human, &[text.as_bytes()]);
        assert_eq!(
            human,
            "ok\\x1b[2J\\x1b]0;pwned\\x07 end\\x0d\nnext\tcol \\u{9b}31m é 记忆 \\x7f"
        );
        assert_eq!(escape(text), human);
        assert!(matches!(escape("plain é\n"), Cow::Borrowed(_)));
        // A C1 control cut between two writes is still caught; é (0xC3 0xA9) and the
        // no-break space (0xC2 0xA0) pass.
        let c1 = "a\u{9b}b\u{a0}c".as_bytes();
        assert_eq!(
            through(Mode::Human, &[&c1[..2], &c1[2..]]),
            "a\\u{9b}b\u{a0}c"
        );
        let json = through(Mode::Json, &[b"{\"t\":\"\xc2\x9b\"}"]);
        assert_eq!(json, "{\"t\":\"\\u009b\"}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["t"], "\u{9b}");
    }
}
