//! Reading input one line at a time without letting a line take all memory.
//!
//! [`read_line`] reads up to the next newline into a buffer, but never more than a cap: a
//! longer line is reported as [`Line::TooLong`] as soon as the cap is passed, with the rest of
//! the line still unread (an input such as `/dev/zero` never ends its line). A caller that
//! wants to go on (a server) drops the rest with [`skip_line`], which reads without keeping.

use std::io::{self, BufRead};

/// What [`read_line`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A line, in the buffer without its newline (the last line of the input may have none).
    Read,
    /// The line is longer than the cap; the buffer holds its first bytes, the rest is unread.
    TooLong,
    /// The input ended.
    End,
}

/// Reads the next line into `buf` (cleared first), at most `max` bytes of it.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    buf.clear();
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if buf.is_empty() {
                Line::End
            } else {
                Line::Read
            });
        }
        let (take, newline) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if buf.len() + take > max {
            let room = max - buf.len();
            buf.extend_from_slice(&chunk[..room]);
            input.consume(room);
            return Ok(Line::TooLong);
        }
        buf.extend_from_slice(&chunk[..take]);
        input.consume(take + usize::from(newline));
        if newline {
            return Ok(Line::Read);
        }
    }
}

/// Reads and drops the rest of the current line, its newline included.
pub fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                input.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_whole_and_a_long_one_is_cut_at_the_cap_and_skipped() {
        let text = b"one\n\nthree is long\nlast";
        // A reader with a small buffer, so lines cross chunk boundaries.
        let mut input = io::BufReader::with_capacity(2, &text[..]);
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        loop {
            match read_line(&mut input, &mut buf, 8).unwrap() {
                Line::End => break,
                Line::Read => lines.push(String::from_utf8(buf.clone()).unwrap()),
                Line::TooLong => {
                    assert_eq!(buf, b"three is");
                    lines.push("<too long>".into());
                    skip_line(&mut input).unwrap();
                }
            }
        }
        assert_eq!(lines, ["one", "", "<too long>", "last"]);
    }

    #[test]
    fn an_endless_line_stops_at_the_cap() {
        let mut zeros = io::BufReader::new(io::repeat(0));
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut zeros, &mut buf, 1 << 20).unwrap(),
            Line::TooLong
        );
        assert_eq!(buf.len(), 1 << 20);
    }
}
