//! The hashes of memdag: FNV-1a (64-bit) for ids; CRC-32 for format-v1 values and a word
//! checksum for format-v2 values; a word hash for in-memory dedup keys.
//!
//! All but the word hash are frozen: their outputs are part of the storage format (derived
//! ids, blob ids, value checksums), so they must give the same bits on every platform and in
//! every version. This module depends on nothing else in the core.

/// 64-bit FNV-1a: tiny, stable across platforms and versions, enough for content ids.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;

    /// A hasher in its initial state.
    pub const fn new() -> Self {
        Fnv(Self::OFFSET)
    }

    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// Feeds one byte.
    pub fn write_u8(&mut self, b: u8) {
        self.write(&[b]);
    }

    /// The hash of what was fed.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// FNV-1a of one byte string.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv::new();
    h.write(bytes);
    h.finish()
}

/// The id of a blob holding `text`: `b` and 16 hex digits of the FNV-1a of the text, so the
/// same text always gets the same id. Stable across platforms and versions.
pub fn blob_id(text: &str) -> alloc::string::String {
    alloc::format!("b{:016x}", fnv1a(text.as_bytes()))
}

/// CRC-32 (IEEE 802.3, reflected), slice-by-8: about 8× the byte-at-a-time loop, which was a
/// fifth of the time of opening a large store.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let lo = crc ^ u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let hi = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        crc = CRC_TABLES[7][(lo & 0xff) as usize]
            ^ CRC_TABLES[6][((lo >> 8) & 0xff) as usize]
            ^ CRC_TABLES[5][((lo >> 16) & 0xff) as usize]
            ^ CRC_TABLES[4][(lo >> 24) as usize]
            ^ CRC_TABLES[3][(hi & 0xff) as usize]
            ^ CRC_TABLES[2][((hi >> 8) & 0xff) as usize]
            ^ CRC_TABLES[1][((hi >> 16) & 0xff) as usize]
            ^ CRC_TABLES[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        crc = CRC_TABLES[0][((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

const CRC_TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut s = 1;
        while s < 8 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            s += 1;
        }
        i += 1;
    }
    t
};

/// Bytes of one call of [`mix_words`]: a multiple of 8.
const CHECKSUM_BLOCK: usize = 16 * 1024;

/// The multiplier of the word steps (the checksum's and the word hash's).
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// The word steps of [`checksum32`] over `words` (a multiple of 8 bytes long).
#[inline(never)]
fn mix_words(mut h: u64, words: &[u8]) -> u64 {
    for w in words.chunks_exact(8) {
        let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        h = (h ^ w).wrapping_mul(MIX);
        h ^= h >> 29;
    }
    h
}

/// The checksum of format-v2 values: 64-bit words mixed with a multiply and a shift, folded to
/// 32 bits. Every step is a bijection of the state for a given word, so a change confined to
/// one word always changes the result; other random damage goes unseen with odds of 2⁻³²,
/// like CRC-32. It reads 8 bytes a step where CRC-32 reads one: opening a large store in wasm
/// spent a tenth of its time in CRC-32.
pub fn checksum32(bytes: &[u8]) -> u32 {
    let mut h: u64 = 0x6d64_6167_7632_0000 ^ bytes.len() as u64;
    // In blocks, each a call of its own: a wasm engine that compiles cold code first and
    // optimizes a function only for its next call (V8) optimizes the block loop after a few
    // blocks of the first value, where one loop over a 1 MiB value would run cold throughout.
    let mut blocks = bytes.chunks_exact(CHECKSUM_BLOCK);
    for block in &mut blocks {
        h = mix_words(h, block);
    }
    finish(h, blocks.remainder())
}

/// The lane steps of [`checksum32_lanes`] over `words` (a multiple of 32 bytes long): each
/// 32 bytes are four words, the `i`th word stepped into lane `i` as [`mix_words`] steps its
/// one chain.
#[inline(never)]
fn mix_lanes(mut lanes: [u64; 4], words: &[u8]) -> [u64; 4] {
    for w in words.chunks_exact(32) {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let at = 8 * i;
            let word = u64::from_le_bytes([
                w[at],
                w[at + 1],
                w[at + 2],
                w[at + 3],
                w[at + 4],
                w[at + 5],
                w[at + 6],
                w[at + 7],
            ]);
            let v = (*lane ^ word).wrapping_mul(MIX);
            *lane = v ^ (v >> 29);
        }
    }
    lanes
}

/// The checksum of format-v7 values: [`checksum32`]'s step over four independent lanes, so
/// the four multiplies of 32 bytes run side by side where [`checksum32`]'s one chain waits on
/// each (3.2x as fast over 19 MB in wasm, 1.6x over 189 MB, where memory bandwidth bounds
/// it). The words of each whole 32 bytes go to the lanes in turn; then the four lanes, and the
/// bytes after the last whole 32, are stepped into one chain as [`checksum32`] steps its words,
/// and folded to 32 bits as it folds. Each step is a bijection of its state for a given word,
/// and of the word for a given state, so a change confined to one word always changes the
/// 64-bit state, as in [`checksum32`].
pub fn checksum32_lanes(bytes: &[u8]) -> u32 {
    let seed: u64 = 0x6d64_6167_7637_0000 ^ bytes.len() as u64;
    let mut lanes = [
        seed,
        seed ^ MIX,
        seed ^ MIX.rotate_left(16),
        seed ^ MIX.rotate_left(32),
    ];
    // In blocks, each a call of its own, for the reason `checksum32` gives.
    let mut blocks = bytes.chunks_exact(CHECKSUM_BLOCK);
    for block in &mut blocks {
        lanes = mix_lanes(lanes, block);
    }
    let tail = blocks.remainder();
    let whole = tail.len() - tail.len() % 32;
    lanes = mix_lanes(lanes, &tail[..whole]);
    let mut h = seed;
    for lane in lanes {
        h = mix_words(h, &lane.to_le_bytes());
    }
    finish(h, &tail[whole..])
}

/// Steps the bytes after the last whole block of lanes or words into `h` (a last partial word
/// padded with zeros, its length in its top byte), then folds the state to 32 bits.
fn finish(mut h: u64, rest: &[u8]) -> u32 {
    let whole = rest.len() - rest.len() % 8;
    h = mix_words(h, &rest[..whole]);
    let rest = &rest[whole..];
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        last[7] = rest.len() as u8 | 0x80;
        h = mix_words(h, &last);
    }
    h = h.wrapping_mul(MIX);
    (h ^ (h >> 32)) as u32
}

/// A 64-bit hash of byte strings, eight bytes a step, for in-memory equality keys only (never
/// stored, so it may change between versions). FNV-1a reads one byte a step; hashing every
/// record's text with it was a tenth of building the search index when opening a store.
#[derive(Debug, Clone, Copy)]
pub struct WordHash(u64);

impl Default for WordHash {
    fn default() -> Self {
        Self::new()
    }
}

impl WordHash {
    /// A hasher in its initial state.
    pub const fn new() -> Self {
        WordHash(0x6d64_6167_636f_6e74)
    }

    /// Feeds one byte string; its length is fed too, so `("ab", "c")` and `("a", "bc")` differ.
    pub fn write(&mut self, bytes: &[u8]) {
        // The word steps are the checksum's.
        let whole = bytes.len() - bytes.len() % 8;
        self.0 = mix_words(self.0, &bytes[..whole]);
        let mut last = [0u8; 8];
        last[..bytes.len() - whole].copy_from_slice(&bytes[whole..]);
        self.0 = mix_words(self.0, &last);
        self.0 = mix_words(self.0, &(bytes.len() as u64).to_le_bytes());
    }

    /// The hash of what was fed.
    pub fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(MIX);
        h ^ (h >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FROZEN_EMPTY: u32 = 0xca0d_1330;
    const FROZEN_TEXT: u32 = 0xd91e_aee4;
    const FROZEN_LANES_EMPTY: u32 = 0x08cb_744e;
    const FROZEN_LANES_TEXT: u32 = 0x41ba_b0db;
    const FROZEN_LANES_300: u32 = 0xdfd0_39af;

    fn crc32_bytewise(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc = CRC_TABLES[0][((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
        }
        !crc
    }

    #[test]
    fn crc32_matches_the_standard_check_value_and_the_bytewise_loop() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
        let data: alloc::vec::Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 3) as u8).collect();
        for len in 0..data.len() {
            assert_eq!(
                crc32(&data[..len]),
                crc32_bytewise(&data[..len]),
                "len {len}"
            );
        }
    }

    #[test]
    fn checksum32_sees_every_single_bit_flip_and_every_cut() {
        let data: alloc::vec::Vec<u8> = (0..257u32).map(|i| (i * 31 + 7) as u8).collect();
        let sum = checksum32(&data);
        for at in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[at] ^= 1 << bit;
                assert_ne!(checksum32(&d), sum, "flip at {at}.{bit}");
            }
        }
        for len in 0..data.len() {
            assert_ne!(checksum32(&data[..len]), sum, "cut at {len}");
        }
        // Frozen: the values are part of the storage format.
        assert_eq!(checksum32(b""), FROZEN_EMPTY);
        assert_eq!(checksum32(b"memdag segment part"), FROZEN_TEXT);
    }

    #[test]
    fn checksum32_lanes_sees_every_single_bit_flip_and_every_cut() {
        let data: alloc::vec::Vec<u8> = (0..300u32).map(|i| (i * 31 + 7) as u8).collect();
        let sum = checksum32_lanes(&data);
        for at in 0..data.len() {
            for bit in 0..8 {
                let mut d = data.clone();
                d[at] ^= 1 << bit;
                assert_ne!(checksum32_lanes(&d), sum, "flip at {at}.{bit}");
            }
        }
        for len in 0..data.len() {
            assert_ne!(checksum32_lanes(&data[..len]), sum, "cut at {len}");
        }
        // Two words trading places, within a lane or across lanes, are seen too.
        for (a, b) in [(0, 8), (0, 32), (16, 48), (40, 48)] {
            let mut d = data.clone();
            for i in 0..8 {
                d.swap(a + i, b + i);
            }
            assert_ne!(checksum32_lanes(&d), sum, "words at {a} and {b} swapped");
        }
        assert_ne!(checksum32_lanes(&data), checksum32(&data));
        // Frozen: the values are part of the storage format (v7).
        assert_eq!(checksum32_lanes(b""), FROZEN_LANES_EMPTY);
        assert_eq!(checksum32_lanes(b"memdag segment part"), FROZEN_LANES_TEXT);
        assert_eq!(checksum32_lanes(&data), FROZEN_LANES_300);
    }

    /// The lane checksum as one loop over the bytes, as format v7 defines it.
    fn checksum32_lanes_one_loop(bytes: &[u8]) -> u32 {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let step = |h: u64, w: u64| {
            let v = (h ^ w).wrapping_mul(K);
            v ^ (v >> 29)
        };
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
        let seed = 0x6d64_6167_7637_0000 ^ bytes.len() as u64;
        let mut lanes = [
            seed,
            seed ^ K,
            seed ^ K.rotate_left(16),
            seed ^ K.rotate_left(32),
        ];
        let whole = bytes.len() - bytes.len() % 32;
        for (i, w) in bytes[..whole].chunks_exact(8).enumerate() {
            lanes[i % 4] = step(lanes[i % 4], word(w));
        }
        let mut h = lanes.iter().fold(seed, |h, &lane| step(h, lane));
        let mut rest = bytes[whole..].chunks_exact(8);
        for w in &mut rest {
            h = step(h, word(w));
        }
        let last = rest.remainder();
        if !last.is_empty() {
            let mut pad = [0u8; 8];
            pad[..last.len()].copy_from_slice(last);
            pad[7] = last.len() as u8 | 0x80;
            h = step(h, u64::from_le_bytes(pad));
        }
        h = h.wrapping_mul(K);
        (h ^ (h >> 32)) as u32
    }

    #[test]
    fn checksum32_lanes_in_blocks_equals_the_one_loop_definition() {
        let data: alloc::vec::Vec<u8> = (0..3 * CHECKSUM_BLOCK as u32 + 77)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let b = CHECKSUM_BLOCK;
        for len in [
            0,
            7,
            8,
            31,
            32,
            33,
            39,
            40,
            b - 1,
            b,
            b + 1,
            b + 31,
            b + 32,
            2 * b + 5,
            data.len(),
        ] {
            assert_eq!(
                checksum32_lanes(&data[..len]),
                checksum32_lanes_one_loop(&data[..len]),
                "{len}"
            );
        }
    }

    #[test]
    fn fnv_matches_published_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn word_hash_separates_boundaries_and_sees_every_byte() {
        let of = |parts: &[&[u8]]| {
            let mut h = WordHash::new();
            parts.iter().for_each(|p| h.write(p));
            h.finish()
        };
        assert_ne!(of(&[b"ab", b"c"]), of(&[b"a", b"bc"]));
        assert_ne!(of(&[b""]), of(&[b"\0"]));
        assert_eq!(of(&[b"same text"]), of(&[b"same text"]));
        let base: alloc::vec::Vec<u8> = (0..40u8).collect();
        for i in 0..base.len() {
            let mut changed = base.clone();
            changed[i] ^= 1;
            assert_ne!(of(&[&base]), of(&[&changed]), "byte {i}");
        }
    }

    /// The checksum as one loop over the words, as format v2 defines it.
    fn checksum32_one_loop(bytes: &[u8]) -> u32 {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h: u64 = 0x6d64_6167_7632_0000 ^ bytes.len() as u64;
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            h = (h ^ u64::from_le_bytes(w.try_into().unwrap())).wrapping_mul(K);
            h ^= h >> 29;
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            last[7] = rest.len() as u8 | 0x80;
            h = (h ^ u64::from_le_bytes(last)).wrapping_mul(K);
            h ^= h >> 29;
        }
        h = h.wrapping_mul(K);
        (h ^ (h >> 32)) as u32
    }

    #[test]
    fn checksum32_in_blocks_equals_the_one_loop_definition() {
        let data: alloc::vec::Vec<u8> = (0..3 * CHECKSUM_BLOCK as u32 + 77)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let b = CHECKSUM_BLOCK;
        for len in [0, 7, 8, 9, b - 1, b, b + 1, b + 8, 2 * b + 5, data.len()] {
            assert_eq!(
                checksum32(&data[..len]),
                checksum32_one_loop(&data[..len]),
                "{len}"
            );
        }
    }
}
