//! The larger and smaller of two `f32`s, as `f32::max` and `f32::min` give them, written out.
//!
//! Rust's `max` returns the other operand when one is NaN, which wasm's `f32.max` does not
//! (it returns NaN), so in wasm `f32::max` and `f32::min` are calls to libm's `fmaxf` and
//! `fminf`. These compile to a comparison and a select: for the paths that compare a score or
//! a length per posting or per candidate (BM25, the ranked search).

/// `a.max(b)`, NaN included (the other operand), without a call in wasm.
#[inline]
pub(crate) fn max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b > a {
        b
    } else {
        a
    }
}

/// `a.min(b)`, NaN included (the other operand), without a call in wasm.
#[inline]
pub(crate) fn min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b < a {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// `max` and `min` are `f32::max` and `f32::min`, NaN and infinities included.
        #[test]
        fn max_and_min_are_the_standard_ones(a in proptest::num::f32::ANY, b in proptest::num::f32::ANY) {
            let same = |x: f32, y: f32| x.to_bits() == y.to_bits() || (x == y) || (x.is_nan() && y.is_nan());
            proptest::prop_assert!(same(max(a, b), a.max(b)), "max({a}, {b})");
            proptest::prop_assert!(same(min(a, b), a.min(b)), "min({a}, {b})");
        }
    }
}
