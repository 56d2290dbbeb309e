//! Vector arithmetic: dot product, normalization and the cosine distance.
//!
//! Vectors are stored as the host gave them, each with its inverse norm, so that a store keeps
//! one copy of each vector: the cosine similarity of a normalized query `q` and a stored `v` is
//! `dot(q, v) · ‖v‖⁻¹`, and of two stored vectors `dot(a, b) · ‖a‖⁻¹ · ‖b‖⁻¹`. The portable
//! dot product keeps 16 independent accumulators so the compiler turns it into SIMD code
//! natively; on wasm32 built with `+simd128` an explicit `f32x4` path runs instead (four
//! vectors of four lanes). Both sum in a fixed order, so results reproduce.

use std::format;
use std::vec::Vec;

use crate::error::{Error, Result};

/// Lanes of the portable dot product.
const LANES: usize = 16;

/// The dot product of two equally long vectors.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::dot(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        portable_dot(a, b)
    }
}

/// The portable dot product, which the compiler vectorizes.
#[inline]
pub fn portable_dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; LANES];
    let chunks = n / LANES;
    for c in 0..chunks {
        let x = &a[c * LANES..c * LANES + LANES];
        let y = &b[c * LANES..c * LANES + LANES];
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    let mut tail = 0.0;
    for i in chunks * LANES..n {
        tail += a[i] * b[i];
    }
    let mut s = 0.0;
    for v in acc {
        s += v;
    }
    s + tail
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

    /// The dot product with wasm SIMD: four `f32x4` accumulators over 16 floats a step.
    #[inline]
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let chunks = n / 16;
        let mut acc = [f32x4_splat(0.0); 4];
        for c in 0..chunks {
            let base = c * 16;
            for (j, slot) in acc.iter_mut().enumerate() {
                let i = base + j * 4;
                // SAFETY: i + 4 <= chunks * 16 <= n, the length of both slices; v128_load
                // has no alignment requirement.
                let (x, y) = unsafe {
                    (
                        v128_load(a.as_ptr().add(i) as *const v128),
                        v128_load(b.as_ptr().add(i) as *const v128),
                    )
                };
                *slot = f32x4_add(*slot, f32x4_mul(x, y));
            }
        }
        let v = f32x4_add(f32x4_add(acc[0], acc[1]), f32x4_add(acc[2], acc[3]));
        let mut s = f32x4_extract_lane::<0>(v)
            + f32x4_extract_lane::<1>(v)
            + f32x4_extract_lane::<2>(v)
            + f32x4_extract_lane::<3>(v);
        for i in chunks * 16..n {
            s += a[i] * b[i];
        }
        s
    }
}

/// Stored vectors whose norm is larger are refused: it keeps a stored vector's inverse norm a
/// normal `f32` with room to spare, and no embedding model comes near it.
pub const MAX_NORM: f64 = 1e30;

/// The cosine similarity of two vectors given with their inverse norms. Components so large
/// that the `f32` dot product overflows are scaled first, in `f64`.
#[inline]
pub fn scaled_similarity(a: &[f32], inv_a: f32, b: &[f32], inv_b: f32) -> f32 {
    let d = dot(a, b);
    if d.is_finite() {
        d * inv_a * inv_b
    } else {
        wide_similarity(a, inv_a, b, inv_b)
    }
}

#[cold]
#[inline(never)]
fn wide_similarity(a: &[f32], inv_a: f32, b: &[f32], inv_b: f32) -> f32 {
    let (ia, ib) = (f64::from(inv_a), f64::from(inv_b));
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * ia * f64::from(*y) * ib)
        .sum::<f64>() as f32
}

/// The norm of `v`, in `f64`, in one pass; an [`Error::InvalidInput`] for an empty, non-finite
/// or zero vector. (The squares of finite `f32`s cannot overflow an `f64` sum, so a sum that is
/// not finite means a component is not.)
fn checked_norm(v: &[f32]) -> Result<f64> {
    if v.is_empty() {
        return Err(Error::invalid("embedding must not be empty"));
    }
    // Four independent sums: one chain of dependent f64 additions made this a visible part of
    // opening a store, which computes every stored vector's norm.
    let mut sums = [0f64; 4];
    let chunks = v.chunks_exact(4);
    let tail = chunks.remainder();
    for c in chunks {
        for (sum, x) in sums.iter_mut().zip(c) {
            *sum += f64::from(*x) * f64::from(*x);
        }
    }
    for x in tail {
        sums[0] += f64::from(*x) * f64::from(*x);
    }
    let norm = ((sums[0] + sums[1]) + (sums[2] + sums[3])).sqrt();
    if !norm.is_finite() {
        return Err(Error::invalid("embedding must contain only finite numbers"));
    }
    if norm <= 1e-12 {
        return Err(Error::invalid("embedding must not be the zero vector"));
    }
    Ok(norm)
}

/// The inverse norm of a vector that can be stored: what [`normalized`] accepts, with a norm
/// of at most [`MAX_NORM`]; an [`Error::InvalidInput`] saying why not.
pub fn check_storable(v: &[f32]) -> Result<f32> {
    let norm = checked_norm(v)?;
    if norm > MAX_NORM {
        return Err(Error::invalid(format!(
            "embedding's norm is above {MAX_NORM:e}; scale it down"
        )));
    }
    Ok((1.0 / norm) as f32)
}

/// [`check_storable`] without the reason.
pub fn inverse_norm(v: &[f32]) -> Option<f32> {
    check_storable(v).ok()
}

/// A normalized copy of `v`. NaN, infinite, empty and zero vectors are an
/// [`Error::InvalidInput`].
pub fn normalized(v: &[f32]) -> Result<Vec<f32>> {
    let norm = checked_norm(v)?;
    Ok(v.iter().map(|x| (f64::from(*x) / norm) as f32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive_for_all_lengths() {
        for n in [1usize, 7, 16, 31, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() < 1e-3, "n={n}");
        }
    }

    #[test]
    fn bad_vectors_are_refused() {
        assert!(normalized(&[]).is_err());
        assert!(normalized(&[0.0, 0.0]).is_err());
        assert!(normalized(&[f32::NAN, 1.0]).is_err());
        let v = normalized(&[3.0, 4.0]).unwrap();
        assert!((dot(&v, &v) - 1.0).abs() < 1e-6);
        for bad in [&[][..], &[0.0, 0.0], &[f32::NAN, 1.0], &[1e31, 0.0]] {
            assert!(inverse_norm(bad).is_none(), "{bad:?}");
            assert!(check_storable(bad).is_err(), "{bad:?}");
        }
        assert_eq!(inverse_norm(&[3.0, 4.0]), Some(0.2));
        check_storable(&[1e29, 1.0]).unwrap();
    }

    #[test]
    fn scaled_similarity_is_the_cosine_even_when_the_dot_overflows() {
        let a = [3.0f32, 4.0];
        let b = [4.0f32, 3.0];
        let sim = scaled_similarity(&a, 0.2, &b, 0.2);
        assert!((sim - 0.96).abs() < 1e-6, "{sim}");
        let big = [3e29f32, 4e29];
        let inv = inverse_norm(&big).unwrap();
        let sim = scaled_similarity(&big, inv, &big, inv);
        assert!((sim - 1.0).abs() < 1e-5, "{sim}");
    }
}
