//! The property names a serde struct reads, including aliases.
//!
//! serde-wasm-bindgen deserializes a struct by looking up each known name on the JS object, so
//! it never sees a misspelt property. [`field_names`] asks serde's derive for the list of
//! names it accepts, so input can be checked against it without a hand-kept copy.

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The names `T`'s derived `Deserialize` accepts, or an empty list if `T` is not a struct.
pub fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut names));
    names
}

/// A deserializer that records the field list of `deserialize_struct` and then gives up.
struct Probe<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(de::Error::custom("probed"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}
