//! int8 scalar quantization of unit vectors, with a scale per dimension.
//!
//! A [`Quantizer`] is trained once on a sample of a store's unit vectors: the step of
//! dimension `d` is `s_d = max|u_d| / 127` over the sample (with a floor, so a dimension the
//! sample never used still has a step). A unit vector `u` is stored as the codes
//! `c_d = round(u_d / s_d)`, clamped to ±127, and read back as `s_d · c_d`: each component is
//! off by at most `s_d / 2`, and by more only where it lies outside the sample's range (it
//! saturates). Per-dimension steps matter for real embeddings, whose dimensions differ in
//! range by several times.
//!
//! A query is not quantized to int8: it is folded with the steps into 16-bit integers,
//! `q16_d = round(q_d · s_d / f)`, with one factor `f` per query chosen so that no sum of
//! products can leave an `i32` ([`query_max`]). Its dot product with the codes of a node is then
//! an integer one, `f · Σ q16_d · c_d ≈ q · (s ⊙ c)`, which wasm SIMD computes eight lanes at
//! a time (`i32x4.dot_i16x8_s`) and which the compiler vectorizes natively.

use std::vec::Vec;

/// The largest code.
pub const CODE_MAX: i32 = 127;

/// The steps of a store's vectors, one per dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantizer {
    steps: Vec<f32>,
    /// `steps[d]²`: the weights of the dot product of two nodes' codes.
    squares: Vec<f32>,
}

/// A query folded with a quantizer's steps, ready for [`dot_codes`].
#[derive(Debug, Clone, Default)]
pub struct QueryCodes {
    pub q16: Vec<i16>,
    /// What one unit of `Σ q16 · c` is worth.
    pub factor: f32,
}

/// The largest `|q16_d|` a query of `dim` dimensions gets: `dim · max · 127` stays below
/// `i32::MAX`, so an integer dot product never overflows, whatever the order of its sums.
/// 32,767 up to 516 dimensions; 5,504 at 3,072.
pub fn query_max(dim: usize) -> i32 {
    let bound = i32::MAX as i64 / (dim.max(1) as i64 * i64::from(CODE_MAX));
    bound.clamp(1, i64::from(i16::MAX)) as i32
}

impl Quantizer {
    /// Steps trained on `sample`, unit vectors of `dim` floats each.
    pub fn train<'a>(dim: usize, sample: impl Iterator<Item = &'a [f32]>) -> Self {
        let mut max = vec![0f32; dim];
        for u in sample {
            for (m, x) in max.iter_mut().zip(u) {
                let a = x.abs();
                if a.is_finite() && a > *m {
                    *m = a;
                }
            }
        }
        // A dimension the sample never (or hardly) used gets a step of at least 1/32 of the
        // widest dimension's, so a later vector that uses it saturates less.
        let widest = max.iter().copied().fold(0f32, f32::max);
        let floor = if widest > 0.0 { widest / 32.0 } else { 1.0 };
        let steps: Vec<f32> = max
            .iter()
            .map(|&m| m.max(floor) / CODE_MAX as f32)
            .collect();
        Quantizer::from_steps(steps)
    }

    /// The quantizer of stored steps (each finite and positive: the commit's check).
    pub fn from_steps(steps: Vec<f32>) -> Self {
        let squares = steps.iter().map(|s| s * s).collect();
        Quantizer { steps, squares }
    }

    /// The steps, one per dimension.
    pub fn steps(&self) -> &[f32] {
        &self.steps
    }

    /// The dimension.
    pub fn dim(&self) -> usize {
        self.steps.len()
    }

    /// Appends the codes of a unit vector to `out`.
    pub fn quantize(&self, unit: &[f32], out: &mut Vec<i8>) {
        out.extend(unit.iter().zip(&self.steps).map(|(x, s)| {
            // Clamped to ±127, so the cast through i32 (one instruction in wasm) loses nothing;
            // NaN cannot reach here (stored vectors are finite), and would cast to 0.
            round_small((x / s).clamp(-(CODE_MAX as f32), CODE_MAX as f32)) as i32 as i8
        }));
    }

    /// Appends the unit vector the codes stand for (not quite of norm 1) to `out`.
    pub fn dequantize(&self, codes: &[i8], out: &mut Vec<f32>) {
        out.extend(
            codes
                .iter()
                .zip(&self.steps)
                .map(|(&c, s)| f32::from(c) * s),
        );
    }

    /// The inverse norm of what `codes` stand for; 0 for all-zero codes.
    pub fn inverse_norm(&self, codes: &[i8]) -> f32 {
        // Eight independent f32 sums ([`square_lanes`], two SIMD lanes of four): one
        // chain of dependent f64 additions was a tenth of an int8 store's first open in wasm
        // (`push_codes`, 24 ms of a 10k open's `--cpu-prof`), which computes every node's.
        // A term is at most 127² · s² (under 1 for a unit vector's steps), and a lane sums
        // dim/8 of them, so f32 loses nothing that matters to a score.
        let whole = codes.len() / 8 * 8;
        let lanes = square_lanes(&codes[..whole], &self.squares[..whole]);
        let mut sq: f64 = lanes.iter().map(|&x| f64::from(x)).sum();
        for (&c, &w) in codes[whole..].iter().zip(&self.squares[whole..]) {
            sq += f64::from(c) * f64::from(c) * f64::from(w);
        }
        if sq > 0.0 {
            (1.0 / sq.sqrt()) as f32
        } else {
            0.0
        }
    }

    /// Folds a unit query into `out`, for [`dot_codes`].
    pub fn query_into(&self, q: &[f32], out: &mut QueryCodes) {
        let max = max_abs_product(q, &self.steps);
        let top = query_max(self.steps.len()) as f32;
        out.factor = if max > 0.0 { max / top } else { 1.0 };
        let scale = 1.0 / out.factor;
        out.q16.clear();
        out.q16.extend(
            q.iter()
                .zip(&self.steps)
                // Through i32: a float-to-i16 cast saturates by comparisons in wasm, while
                // float-to-i32 is one instruction (`i32.trunc_sat_f32_s`, four lanes in SIMD),
                // and the value is a whole number within ±top already.
                .map(|(x, s)| round_small((x * s * scale).clamp(-top, top)) as i32 as i16),
        );
    }

    /// `Σ s_d² · a_d · b_d`: the dot product of what two nodes' codes stand for.
    pub fn dot_pair(&self, a: &[i8], b: &[i8]) -> f32 {
        const LANES: usize = 16;
        let n = a.len().min(b.len()).min(self.squares.len());
        let mut acc = [0f32; LANES];
        let chunks = n / LANES;
        for c in 0..chunks {
            let at = c * LANES;
            for i in 0..LANES {
                acc[i] += f32::from(a[at + i]) * f32::from(b[at + i]) * self.squares[at + i];
            }
        }
        let mut tail = 0.0;
        for i in chunks * LANES..n {
            tail += f32::from(a[i]) * f32::from(b[i]) * self.squares[i];
        }
        acc.iter().sum::<f32>() + tail
    }
}

/// The largest `|a_d · b_d|`; 0 when empty. Eight lanes compared by hand: `f32::max` is a libm
/// call (`fmaxf`) in wasm, whose own `max` differs on NaN, and an insert at int8 folds a node
/// into a query for every node it measures against others, so that call alone was an eighth of
/// an int8 ingest in wasm (1.0 of 8.8 s at 10k records, `--cpu-prof`), with the fold around it
/// a third more. The products are finite: stored vectors and steps are.
#[inline]
fn max_abs_product(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let whole = n / 8 * 8;
    let mut lanes = [0f32; 8];
    for (x, y) in a[..whole].chunks_exact(8).zip(b[..whole].chunks_exact(8)) {
        for ((lane, x), y) in lanes.iter_mut().zip(x).zip(y) {
            let p = (x * y).abs();
            *lane = if p > *lane { p } else { *lane };
        }
    }
    let mut max = 0f32;
    for p in lanes.iter().copied().chain(
        a[whole..n]
            .iter()
            .zip(&b[whole..n])
            .map(|(x, y)| (x * y).abs()),
    ) {
        max = if p > max { p } else { max };
    }
    max
}

/// Lane `l` of eight: `Σ c_d² · w_d` over the `d ≡ l (mod 8)`, in `d` order, for `codes` a
/// whole number of eights long.
#[inline]
fn square_lanes(codes: &[i8], squares: &[f32]) -> [f32; 8] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::square_lanes(codes, squares)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        portable_square_lanes(codes, squares)
    }
}

/// The portable `square_lanes`, which the compiler vectorizes natively. In wasm it took
/// each code out of its vector to convert it alone (`i8x16.extract_lane_s`): a twentieth of
/// opening an int8 store, which computes every node's inverse norm.
#[inline]
pub fn portable_square_lanes(codes: &[i8], squares: &[f32]) -> [f32; 8] {
    let mut lanes = [0f32; 8];
    for (c, w) in codes.chunks_exact(8).zip(squares.chunks_exact(8)) {
        for ((lane, &c), &w) in lanes.iter_mut().zip(c).zip(w) {
            let c = f32::from(c);
            *lane += c * c * w;
        }
    }
    lanes
}

/// `x` rounded to the nearest integer, ties to even, for `|x| < 2²²`: adding and taking away
/// `1.5 · 2²³` leaves no fraction bits. `f32::round` is a libm call on x86-64 without SSE4.1
/// (the default target), and inserts at int8 round two vectors' worth of floats per node
/// measured.
#[inline]
fn round_small(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (x + MAGIC) - MAGIC
}

/// `Σ q16_d · c_d`, exact in `i32` when `|q16| ≤` [`query_max`].
#[inline]
pub fn dot_codes(q16: &[i16], codes: &[i8]) -> i32 {
    debug_assert_eq!(q16.len(), codes.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::dot_codes(q16, codes)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        portable_dot_codes(q16, codes)
    }
}

/// The portable [`dot_codes`], which the compiler vectorizes.
#[inline]
pub fn portable_dot_codes(q16: &[i16], codes: &[i8]) -> i32 {
    const LANES: usize = 16;
    let n = q16.len().min(codes.len());
    let (a, b) = (&q16[..n], &codes[..n]);
    let mut acc = [0i32; LANES];
    let chunks = n / LANES;
    for c in 0..chunks {
        let x = &a[c * LANES..c * LANES + LANES];
        let y = &b[c * LANES..c * LANES + LANES];
        for i in 0..LANES {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let mut s = 0i32;
    for i in chunks * LANES..n {
        s += i32::from(a[i]) * i32::from(b[i]);
    }
    for v in acc {
        s += v;
    }
    s
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

    /// Eight codes a step, squared as i16 (`127² < 2¹⁵`, and so is `(-128)²`), widened and
    /// converted four at a time: each product is the portable one's (`c²` is exact in `f32`),
    /// summed in the same order in each lane.
    #[inline]
    pub fn square_lanes(codes: &[i8], squares: &[f32]) -> [f32; 8] {
        let n = codes.len().min(squares.len()) / 8 * 8;
        let (mut lo, mut hi) = (f32x4_splat(0.0), f32x4_splat(0.0));
        for i in (0..n).step_by(8) {
            // SAFETY: i + 8 <= n, within both slices; these loads have no alignment
            // requirement.
            unsafe {
                let c = i16x8_load_extend_i8x8(codes.as_ptr().add(i));
                let c2 = i16x8_mul(c, c);
                let w0 = v128_load(squares.as_ptr().add(i) as *const v128);
                let w1 = v128_load(squares.as_ptr().add(i + 4) as *const v128);
                let f0 = f32x4_convert_u32x4(u32x4_extend_low_u16x8(c2));
                let f1 = f32x4_convert_u32x4(u32x4_extend_high_u16x8(c2));
                lo = f32x4_add(lo, f32x4_mul(f0, w0));
                hi = f32x4_add(hi, f32x4_mul(f1, w1));
            }
        }
        [
            f32x4_extract_lane::<0>(lo),
            f32x4_extract_lane::<1>(lo),
            f32x4_extract_lane::<2>(lo),
            f32x4_extract_lane::<3>(lo),
            f32x4_extract_lane::<0>(hi),
            f32x4_extract_lane::<1>(hi),
            f32x4_extract_lane::<2>(hi),
            f32x4_extract_lane::<3>(hi),
        ]
    }

    /// Eight codes a step, sign-extended to i16 as they load, multiplied and summed in pairs.
    #[inline]
    pub fn dot_codes(q16: &[i16], codes: &[i8]) -> i32 {
        let n = q16.len().min(codes.len());
        let chunks = n / 16;
        let (mut a0, mut a1) = (i32x4_splat(0), i32x4_splat(0));
        for c in 0..chunks {
            let i = c * 16;
            // SAFETY: i + 16 <= chunks * 16 <= n, the length of both slices; these loads have
            // no alignment requirement.
            unsafe {
                let q0 = v128_load(q16.as_ptr().add(i) as *const v128);
                let q1 = v128_load(q16.as_ptr().add(i + 8) as *const v128);
                let c0 = i16x8_load_extend_i8x8(codes.as_ptr().add(i));
                let c1 = i16x8_load_extend_i8x8(codes.as_ptr().add(i + 8));
                a0 = i32x4_add(a0, i32x4_dot_i16x8(q0, c0));
                a1 = i32x4_add(a1, i32x4_dot_i16x8(q1, c1));
            }
        }
        let v = i32x4_add(a0, a1);
        let mut s = i32x4_extract_lane::<0>(v)
            + i32x4_extract_lane::<1>(v)
            + i32x4_extract_lane::<2>(v)
            + i32x4_extract_lane::<3>(v);
        for i in chunks * 16..n {
            s += i32::from(q16[i]) * i32::from(codes[i]);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes find the largest product wherever it is, tail included.
    #[test]
    fn max_abs_product_finds_the_largest_at_every_place() {
        for n in [0usize, 1, 7, 8, 9, 17, 384] {
            for at in 0..n {
                let a: Vec<f32> = (0..n).map(|d| if d == at { -3.0 } else { 0.5 }).collect();
                let b = vec![2.0f32; n];
                assert_eq!(max_abs_product(&a, &b), 6.0, "n {n} at {at}");
            }
            assert_eq!(max_abs_product(&vec![0.0; n], &vec![1.0; n]), 0.0);
        }
    }

    /// The eight-lane sum is the one-chain sum within rounding, at every length (a tail of 0
    /// to 7 codes too), and all-zero codes have none.
    #[test]
    fn inverse_norm_matches_one_sum_at_every_length() {
        for dim in [1usize, 3, 4, 5, 8, 383, 384, 385] {
            let steps: Vec<f32> = (0..dim).map(|d| 0.001 + (d % 7) as f32 * 0.0007).collect();
            let q = Quantizer::from_steps(steps.clone());
            let codes: Vec<i8> = (0..dim).map(|d| ((d * 37) % 255) as i8).collect();
            let one: f64 = codes
                .iter()
                .zip(&steps)
                .map(|(&c, &s)| f64::from(c) * f64::from(c) * f64::from(s * s))
                .sum();
            let want = (1.0 / one.sqrt()) as f32;
            let got = q.inverse_norm(&codes);
            assert!(
                (got - want).abs() <= want * 1e-6,
                "dim {dim}: {got} vs {want}"
            );
            assert_eq!(q.inverse_norm(&vec![0; dim]), 0.0);
        }
    }

    #[test]
    fn round_small_rounds_to_nearest() {
        for (x, want) in [
            (0.4f32, 0.0),
            (0.6, 1.0),
            (-0.6, -1.0),
            (126.7, 127.0),
            (-32766.6, -32767.0),
        ] {
            assert_eq!(round_small(x), want, "{x}");
        }
        for i in -1000..1000 {
            let x = i as f32 * 0.37;
            assert!((round_small(x) - x).abs() <= 0.5, "{x}");
            assert_eq!(round_small(x).fract(), 0.0);
        }
    }

    #[test]
    fn query_max_keeps_every_sum_inside_i32() {
        assert_eq!(query_max(384), 32_767);
        for dim in [1usize, 384, 516, 517, 1536, 3072, 1 << 20] {
            let m = i64::from(query_max(dim));
            assert!(m >= 1);
            assert!(m * dim as i64 * 127 <= i64::from(i32::MAX), "dim {dim}");
        }
    }
}
