//! Decoding MessagePack into serde types: the reader behind every stored value the core opens.
//!
//! The core writes MessagePack with rmp-serde (`to_vec_named`: structs as maps of field
//! names, `None` and `()` as nil, unit variants as their name, other variants as a one-entry
//! map `{name: value}`). This module reads exactly that data model back, and what rmp-serde's
//! reader accepts besides (structs as arrays, a unit struct as `[]`), but it is built for
//! size. rmp-serde's reader compiles its whole marker dispatch into every type it decodes: in
//! the JS package that was 66 copies, about 300 KB of wasm code, most of the serde cost that
//! issue 28 measured. Here the bytes are parsed by non-generic code ([`Reader::head`],
//! [`Reader::skip`]) into a [`Head`], and the part compiled per type is one short `match`
//! that hands the head to the visitor.
//!
//! Input is untrusted (a store's bytes may be damaged): every length is checked against the
//! bytes that remain before anything is read or allocated, nesting is limited to
//! [`MAX_DEPTH`] levels, and nothing here panics. Bytes after the value are ignored, as
//! rmp-serde's `from_slice` ignores them.
//!
//! This module knows the byte format only; it imports nothing from the store.

use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

/// How deeply arrays and maps may nest (rmp-serde's limit too): deeper input is refused rather
/// than risk the stack.
pub const MAX_DEPTH: u16 = 1024;

/// Why bytes did not decode: a message for the error that names the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl de::StdError for DecodeError {}

impl de::Error for DecodeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DecodeError(message.to_string())
    }
}

type Result<T> = core::result::Result<T, DecodeError>;

/// Decodes one value of type `T` from the start of `bytes`.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    T::deserialize(&mut Reader::new(bytes))
}

/// One MessagePack item's header, with its payload when it is a scalar: what a visitor is
/// given. Arrays and maps carry their element counts; their elements follow in the input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Head<'de> {
    Nil,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    F32(f32),
    F64(f64),
    Str(&'de [u8]),
    Bin(&'de [u8]),
    Array(u32),
    Map(u32),
    /// An extension type (its tag); the core never writes one.
    Ext(i8),
}

/// A cursor over MessagePack bytes, and the serde `Deserializer` that reads from it.
pub struct Reader<'de> {
    bytes: &'de [u8],
    at: usize,
    depth: u16,
}

impl<'de> Reader<'de> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'de [u8]) -> Self {
        Reader {
            bytes,
            at: 0,
            depth: 0,
        }
    }

    /// A reader of `bytes` from byte `at`, inside `depth` levels of arrays and maps: where an
    /// earlier reader left off (see [`crate::segment`]'s record reader), so that its errors
    /// name the same byte offsets and its depth limit falls at the same level.
    pub fn resume(bytes: &'de [u8], at: usize, depth: u16) -> Self {
        Reader { bytes, at, depth }
    }

    /// How many bytes have been read.
    pub fn position(&self) -> usize {
        self.at
    }

    fn eof(&self) -> DecodeError {
        DecodeError(format!("unexpected end of input at byte {}", self.at))
    }

    fn take(&mut self, n: usize) -> Result<&'de [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| self.eof())?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn peek(&self) -> Result<u8> {
        self.bytes.get(self.at).copied().ok_or_else(|| self.eof())
    }

    fn length(&mut self, width: u8) -> Result<usize> {
        Ok(match width {
            1 => self.array::<1>()?[0] as usize,
            2 => u16::from_be_bytes(self.array()?) as usize,
            _ => u32::from_be_bytes(self.array()?) as usize,
        })
    }

    /// Reads the next item's header (and a scalar's payload).
    #[inline(never)]
    pub fn head(&mut self) -> Result<Head<'de>> {
        let marker = self.peek()?;
        self.at += 1;
        Ok(match marker {
            0x00..=0x7f => Head::Unsigned(marker as u64),
            0x80..=0x8f => Head::Map((marker & 0x0f) as u32),
            0x90..=0x9f => Head::Array((marker & 0x0f) as u32),
            0xa0..=0xbf => Head::Str(self.take((marker & 0x1f) as usize)?),
            0xc0 => Head::Nil,
            0xc2 => Head::Bool(false),
            0xc3 => Head::Bool(true),
            0xc4..=0xc6 => {
                let n = self.length(1 << (marker - 0xc4))?;
                Head::Bin(self.take(n)?)
            }
            0xc7..=0xc9 => {
                let n = self.length(1 << (marker - 0xc7))?;
                let tag = self.array::<1>()?[0] as i8;
                self.take(n)?;
                Head::Ext(tag)
            }
            0xca => Head::F32(f32::from_be_bytes(self.array()?)),
            0xcb => Head::F64(f64::from_be_bytes(self.array()?)),
            0xcc => Head::Unsigned(self.array::<1>()?[0] as u64),
            0xcd => Head::Unsigned(u16::from_be_bytes(self.array()?) as u64),
            0xce => Head::Unsigned(u32::from_be_bytes(self.array()?) as u64),
            0xcf => Head::Unsigned(u64::from_be_bytes(self.array()?)),
            0xd0 => Head::Signed(self.array::<1>()?[0] as i8 as i64),
            0xd1 => Head::Signed(i16::from_be_bytes(self.array()?) as i64),
            0xd2 => Head::Signed(i32::from_be_bytes(self.array()?) as i64),
            0xd3 => Head::Signed(i64::from_be_bytes(self.array()?)),
            0xd4..=0xd8 => {
                let tag = self.array::<1>()?[0] as i8;
                self.take(1 << (marker - 0xd4))?;
                Head::Ext(tag)
            }
            0xd9..=0xdb => {
                let n = self.length(1 << (marker - 0xd9))?;
                Head::Str(self.take(n)?)
            }
            0xdc | 0xdd => Head::Array(self.length(if marker == 0xdc { 2 } else { 4 })? as u32),
            0xde | 0xdf => Head::Map(self.length(if marker == 0xde { 2 } else { 4 })? as u32),
            0xe0..=0xff => Head::Signed(marker as i8 as i64),
            // 0xc1 is reserved: never valid.
            _ => {
                return Err(DecodeError(format!(
                    "reserved marker 0xc1 at byte {}",
                    self.at - 1
                )))
            }
        })
    }

    /// Skips the next item and everything nested in it, without recursion or allocation.
    #[inline(never)]
    pub fn skip(&mut self) -> Result<()> {
        let mut pending: u64 = 1;
        while pending > 0 {
            pending -= 1;
            match self.head()? {
                Head::Array(n) => pending += n as u64,
                Head::Map(n) => pending += 2 * n as u64,
                _ => {}
            }
        }
        Ok(())
    }

    fn enter(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(DecodeError(format!(
                "nested more than {MAX_DEPTH} levels deep at byte {}",
                self.at
            )));
        }
        self.depth += 1;
        Ok(())
    }

    /// Hands the next item to `visitor`. `bytes_as_seq`: a binary is visited as a sequence of
    /// its bytes (what a `Vec<u8>` asks for), as rmp-serde does.
    fn visit<V: Visitor<'de>>(&mut self, visitor: V, bytes_as_seq: bool) -> Result<V::Value> {
        match self.head()? {
            Head::Nil => visitor.visit_unit(),
            Head::Bool(b) => visitor.visit_bool(b),
            Head::Unsigned(n) => visitor.visit_u64(n),
            Head::Signed(n) => visitor.visit_i64(n),
            Head::F32(x) => visitor.visit_f32(x),
            Head::F64(x) => visitor.visit_f64(x),
            Head::Str(bytes) => match core::str::from_utf8(bytes) {
                Ok(s) => visitor.visit_borrowed_str(s),
                // As rmp-serde: bytes that are not UTF-8 may still fill a byte buffer.
                Err(e) => visitor
                    .visit_borrowed_bytes(bytes)
                    .map_err(|_: DecodeError| DecodeError(format!("string is not UTF-8: {e}"))),
            },
            Head::Bin(bytes) if bytes_as_seq => {
                visitor.visit_seq(de::value::SeqDeserializer::new(bytes.iter().copied()))
            }
            Head::Bin(bytes) => visitor.visit_borrowed_bytes(bytes),
            head @ (Head::Array(n) | Head::Map(n)) => {
                self.enter()?;
                let mut items = Items {
                    reader: self,
                    left: n,
                };
                let value = if matches!(head, Head::Map(_)) {
                    visitor.visit_map(&mut items)?
                } else {
                    visitor.visit_seq(&mut items)?
                };
                items.finish(n)?;
                Ok(value)
            }
            Head::Ext(tag) => Err(DecodeError(format!(
                "extension type {tag} is not part of the format"
            ))),
        }
    }
}

/// The elements of an array or the entries of a map, as serde reads them.
struct Items<'a, 'de> {
    reader: &'a mut Reader<'de>,
    left: u32,
}

impl Items<'_, '_> {
    /// Leaves the container: every element must have been read.
    fn finish(self, len: u32) -> Result<()> {
        if self.left != 0 {
            return Err(DecodeError(format!(
                "{} of {len} elements left unread",
                self.left
            )));
        }
        self.reader.depth -= 1;
        Ok(())
    }
}

impl<'de> Items<'_, 'de> {
    /// The next element (of a map: the next key or value), or `None` after the last.
    fn next<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.next(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        self.next(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.reader)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left as usize)
    }
}

/// An enum written as its variant's name (a unit variant), or as `{name: value}`.
struct Variant<'a, 'de> {
    reader: &'a mut Reader<'de>,
    /// Whether the variant came as a one-entry map, so a value follows its name.
    has_value: bool,
}

impl<'de> de::EnumAccess<'de> for Variant<'_, 'de> {
    type Error = DecodeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let name = seed.deserialize(&mut *self.reader)?;
        Ok((name, self))
    }
}

impl Variant<'_, '_> {
    /// A variant written as its bare name has no value for a newtype, tuple or struct variant.
    fn require_value(&self, expected: &'static str) -> Result<()> {
        if self.has_value {
            return Ok(());
        }
        Err(de::Error::invalid_type(
            de::Unexpected::UnitVariant,
            &expected,
        ))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = DecodeError;

    fn unit_variant(self) -> Result<()> {
        if self.has_value {
            match self.reader.head()? {
                Head::Nil => {}
                other => {
                    return Err(DecodeError(format!(
                        "unit variant holds a value ({other:?})"
                    )))
                }
            }
        }
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.require_value("newtype variant")?;
        seed.deserialize(self.reader)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.require_value("tuple variant")?;
        self.reader.visit(visitor, true)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.require_value("struct variant")?;
        self.reader.visit(visitor, true)
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit(visitor, false)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit(visitor, true)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.visit(visitor, true)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.visit(visitor, true)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.visit(visitor, true)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek()? == 0xc0 {
            self.at += 1;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        // rmp-serde writes a unit struct as `[]`; nil is accepted as well.
        if matches!(self.peek()?, 0xc0 | 0x90) {
            self.at += 1;
            visitor.visit_unit()
        } else {
            self.visit(visitor, false)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let marker = self.peek()?;
        let is_container = matches!(marker, 0x80..=0x9f | 0xdc..=0xdf);
        if !is_container {
            return visitor.visit_enum(Variant {
                reader: self,
                has_value: false,
            });
        }
        let len = match self.head()? {
            Head::Map(n) | Head::Array(n) => n,
            _ => 0,
        };
        if len != 1 {
            return Err(DecodeError(format!(
                "an enum is a one-entry map, not {len} entries"
            )));
        }
        self.enter()?;
        let value = visitor.visit_enum(Variant {
            reader: &mut *self,
            has_value: true,
        })?;
        self.depth -= 1;
        Ok(value)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip()?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit map identifier
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;
    use alloc::vec;
    use alloc::vec::Vec;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    enum Shape {
        Point,
        Circle(f64),
        Pair(u8, String),
        Rect { w: u32, h: i64 },
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Unit;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Wrapper(Vec<u16>);

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Everything {
        name: String,
        maybe: Option<Option<i32>>,
        shapes: Vec<Shape>,
        bytes: Vec<u8>,
        table: BTreeMap<String, f32>,
        unit: Unit,
        wrapper: Wrapper,
        pair: (bool, char),
        json: serde_json::Value,
        #[serde(default)]
        added_later: u64,
    }

    fn everything() -> Everything {
        Everything {
            name: "naïve 名字".into(),
            maybe: Some(Some(-7)),
            shapes: vec![
                Shape::Point,
                Shape::Circle(1.5),
                Shape::Pair(3, "x".into()),
                Shape::Rect {
                    w: 70_000,
                    h: -1 << 40,
                },
            ],
            bytes: vec![0, 255, 7],
            table: [("a".to_string(), 0.25f32), ("b".to_string(), -3.0)].into(),
            unit: Unit,
            wrapper: Wrapper(vec![1, 300, 65535]),
            pair: (true, '界'),
            json: serde_json::json!({"k": [1, -2, 3.5, null, "s", {"deep": true}]}),
            added_later: 0,
        }
    }

    #[test]
    fn reads_what_rmp_serde_writes_by_name_and_by_position() {
        let value = everything();
        let named = rmp_serde::to_vec_named(&value).unwrap();
        assert_eq!(from_slice::<Everything>(&named).unwrap(), value);
        let positional = rmp_serde::to_vec(&value).unwrap();
        assert_eq!(from_slice::<Everything>(&positional).unwrap(), value);
    }

    #[test]
    fn unknown_fields_are_skipped_and_missing_defaults_filled() {
        #[derive(Serialize)]
        struct Newer<'a> {
            name: &'a str,
            future: Vec<BTreeMap<String, Vec<u8>>>,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Older {
            name: String,
            #[serde(default)]
            count: u32,
        }
        let bytes = rmp_serde::to_vec_named(&Newer {
            name: "n",
            future: vec![[("x".to_string(), vec![1, 2])].into()],
        })
        .unwrap();
        let older: Older = from_slice(&bytes).unwrap();
        assert_eq!(
            older,
            Older {
                name: "n".into(),
                count: 0
            }
        );
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = rmp_serde::to_vec_named(&everything()).unwrap();
        for cut in 0..bytes.len() {
            assert!(
                from_slice::<Everything>(&bytes[..cut]).is_err(),
                "a value cut at byte {cut} of {} decoded",
                bytes.len()
            );
        }
    }

    #[test]
    fn a_length_beyond_the_input_is_refused_before_allocating() {
        // array32 claiming 4 billion elements, then nothing.
        let err = from_slice::<Vec<u64>>(&[0xdd, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
        assert!(err.to_string().contains("end of input"), "{err}");
        let err = from_slice::<String>(&[0xdb, 0xff, 0xff, 0xff, 0xff, b'a']).unwrap_err();
        assert!(err.to_string().contains("end of input"), "{err}");
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused() {
        let depth = MAX_DEPTH as usize + 1;
        let mut bytes = vec![0x91; depth];
        bytes.push(0xc0);
        let err = from_slice::<serde_json::Value>(&bytes).unwrap_err();
        assert!(err.to_string().contains("nested more than"), "{err}");
        // One level less decodes.
        assert!(from_slice::<serde_json::Value>(&bytes[1..]).is_ok());
        // Skipping is iterative: a deep unknown field costs no stack.
        #[derive(Deserialize)]
        struct Empty {}
        let mut skipped = vec![0x81, 0xa1, b'x'];
        skipped.extend(vec![0x91; 100_000]);
        skipped.push(0xc0);
        assert!(from_slice::<Empty>(&skipped).is_ok());
    }

    #[test]
    fn unread_elements_and_the_reserved_marker_are_errors() {
        // A two-element array where a one-field struct (by position) is expected.
        #[derive(Debug, Deserialize)]
        struct One {
            _a: u8,
        }
        assert!(from_slice::<One>(&[0x92, 1, 2]).is_err());
        assert!(from_slice::<u8>(&[0xc1]).is_err());
        assert!(from_slice::<Shape>(&[0x82, 0xa1, b'a', 1, 0xa1, b'b', 2]).is_err());
    }

    #[test]
    fn a_string_that_is_not_utf8_fills_bytes_but_not_text() {
        let bytes = [0xa2, 0xff, 0xfe];
        assert!(from_slice::<String>(&bytes).is_err());
        struct Raw(Vec<u8>);
        impl<'de> Deserialize<'de> for Raw {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Raw;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("bytes")
                    }
                    fn visit_bytes<E>(self, v: &[u8]) -> core::result::Result<Raw, E> {
                        Ok(Raw(v.to_vec()))
                    }
                }
                d.deserialize_bytes(V)
            }
        }
        assert_eq!(from_slice::<Raw>(&bytes).unwrap().0, vec![0xff, 0xfe]);
    }
}
