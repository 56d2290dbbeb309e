//! Encryption at rest: every stored value sealed with XChaCha20-Poly1305 and bound to its key.
//!
//! The host gives a 32-byte master key ([`Cipher::new`]). memdag never makes, keeps or
//! derives one from a password: a host with a passphrase runs a password KDF (Argon2id,
//! PBKDF2) itself. A store opened with a [`Cipher`] ([`Store::load_with_cipher`](crate::Store::load_with_cipher)) seals every
//! value of its change sets ([`Store::take_changes`](crate::Store::take_changes)) and snapshots ([`Store::snapshot`](crate::Store::snapshot)), and
//! opens every value it loads. Keys are not sealed: a v2 store's keys are `head` and
//! `seg/<generation>/<part>` (see [`crate::keys`]), which say nothing of the content.
//!
//! # Sealed value
//! ```text
//! offset 0       4 bytes  magic b"MDAS" (a plain value starts with b"MDAG", see envelope)
//! offset 4       1 byte   seal version: 1 = XChaCha20-Poly1305, BLAKE2b synthetic nonce
//! offset 5       8 bytes  key check: the same for every value sealed with one master key
//! offset 13     24 bytes  nonce
//! offset 37      n bytes  ciphertext of the plain value (its whole envelope: magic,
//!                         format version, kind, checksum and body)
//! offset 37 + n 16 bytes  Poly1305 tag
//! ```
//! The associated data is the 13 header bytes before the nonce, then the storage key in
//! UTF-8. So a value moved to another key, or with any byte changed, fails to open; the error
//! names the key. A sealed value is [`OVERHEAD`] (53) bytes longer than the plain one; segment
//! parts are cut that much smaller, so a sealed part still fits the host's value limit.
//!
//! # Keys
//! Three subkeys come from the master key by keyed BLAKE2b (the master key as the BLAKE2 key,
//! one 16-byte personalization per use): the AEAD key (32 bytes, `memdag.seal.aead`), the
//! nonce key (32 bytes, `memdag.seal.nonc`) and the key check (8 bytes, `memdag.seal.chck`).
//! The key check tells a wrong key ([`Error::Locked`]) from a damaged or moved value
//! ([`Error::CorruptData`]); it reveals whether two stores share a key, and nothing more.
//!
//! # Nonces without a random source
//! The core reads no clock and no random source, so nonces are synthetic (the SIV idea of
//! RFC 5297): the nonce of a value is BLAKE2b-192, keyed with the nonce key and personalized
//! `memdag.seal.siv1`, of the storage key's length (u32 LE), the key and the plain value. A nonce repeats only for the same key
//! and the same value, giving the same sealed bytes; two different values never share one
//! (but for a 192-bit PRF collision). A counter or the segment generation would not be safe:
//! a generation is written again with other content after a crash before its commit, by a
//! second writer, or when a change set is requeued, and a repeated XChaCha20-Poly1305 nonce
//! reveals the XOR of two plaintexts and lets tags be forged. The price is one keyed-hash
//! pass over each value when sealing (opening is one pass), and that equal values under one
//! key have equal sealed bytes: it shows only that a value was rewritten unchanged.
//!
//! AES-GCM-SIV would give the same property from one crate, but wasm has no AES instructions:
//! RustCrypto's constant-time software AES and POLYVAL are several times slower there than
//! ChaCha20 and BLAKE2b, which need only 32- and 64-bit arithmetic.
//!
//! # Cost
//! Sealing is two passes over each value (the nonce's keyed hash, then the AEAD), opening one.
//! `node tests/bench/run-wasm.mjs --seal` (`memdag-bench --seal` natively) times a flush of a
//! whole store and a cold open, plain and sealed, in one run; the node script then prints the
//! floor under any cipher: what native AEADs (OpenSSL through `node:crypto`, one thread) take
//! over the same bytes. At 100,000 records (207.2 MB stored) on a quiet 2-core machine, in
//! wasm (opt-level 3, simd128): a flush took 1339 ms plain and 2021 ms sealed (x1.51), an
//! open 553 and 1028 ms (x1.86). Native
//! ChaCha20-Poly1305 would add 127 ms to the flush and 138 ms to the open (x1.10, x1.25),
//! native AES-256-GCM (AES-NI, VAES) 114 and 106 ms (x1.09, x1.19). So no cipher inside the
//! wasm can bring an open of this many bytes to x1.2: RustCrypto's ChaCha20 and Poly1305 have
//! no wasm SIMD backend and run at about 440 MB/s together there, BLAKE2b at about 770 MB/s,
//! and even the native floor is at x1.2. What can: fewer bytes to open (int8 vectors; f32
//! vectors are three quarters of the image), an open that decrypts on another thread while it
//! decodes, or a host cipher (WebCrypto's AES-GCM, native AES under Wasmtime).
//!
//! # Errors
//! Opening a value fails with [`Error::Locked`] when the store is sealed and no key was given,
//! when it was sealed with another key, or when a key was given for a store that is not
//! encrypted; with [`Error::CorruptData`] when a sealed value was altered, truncated or moved
//! from another key. Each error names the storage key. A load that fails loads nothing, so
//! nothing is written either.
//!
//! The [`Cipher`] depends only on [`crate::error`]; its boundary with the storage engine (which
//! values are sealed, opening what loads) is [`crate::seal`]. The module needs feature `std`.

use std::format;
use std::vec::Vec;

use core::fmt;

use blake2::digest::consts::{U24, U32, U8};
use blake2::digest::Mac;
use blake2::Blake2bMac;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{Tag, XChaCha20Poly1305, XNonce};

use crate::error::{Error, Result};

/// The four bytes that open every sealed value.
pub const MAGIC: [u8; 4] = *b"MDAS";
/// The seal version this build writes and reads.
pub const SEAL_VERSION: u8 = 1;
/// The length of a master key, in bytes.
pub const KEY_LEN: usize = 32;
const CHECK_LEN: usize = 8;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
/// The header bytes that are associated data: magic, version, key check.
const BOUND_LEN: usize = 4 + 1 + CHECK_LEN;
/// Bytes before the ciphertext.
pub const HEADER_LEN: usize = BOUND_LEN + NONCE_LEN;
/// How many bytes longer a sealed value is than the plain one.
pub const OVERHEAD: usize = HEADER_LEN + TAG_LEN;

/// A master key, ready to seal and open values. Its subkeys are wiped when it is dropped.
#[derive(Clone)]
pub struct Cipher {
    aead: XChaCha20Poly1305,
    nonce_key: [u8; 32],
    check: [u8; CHECK_LEN],
}

impl fmt::Debug for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cipher { .. }")
    }
}

impl Drop for Cipher {
    fn drop(&mut self) {
        // The AEAD wipes its own key on drop.
        for b in self.nonce_key.iter_mut() {
            // SAFETY: a valid, aligned, exclusive reference.
            unsafe { core::ptr::write_volatile(b, 0) };
        }
    }
}

/// A keyed BLAKE2b of `parts`, with `persona` as the personalization.
fn keyed<N>(
    key: &[u8],
    persona: &[u8; 16],
    parts: &[&[u8]],
) -> blake2::digest::Output<Blake2bMac<N>>
where
    N: blake2::digest::generic_array::ArrayLength<u8>
        + blake2::digest::typenum::IsLessOrEqual<blake2::digest::consts::U64>,
    blake2::digest::typenum::LeEq<N, blake2::digest::consts::U64>: blake2::digest::typenum::NonZero,
{
    let mut mac = Blake2bMac::<N>::new_with_salt_and_personal(key, &[], persona)
        .expect("a key of at most 64 bytes and a 16-byte personalization");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes()
}

impl Cipher {
    /// A cipher from a 32-byte master key; any other length is [`Error::InvalidInput`].
    pub fn new(key: &[u8]) -> Result<Cipher> {
        if key.len() != KEY_LEN {
            return Err(Error::invalid(format!(
                "an encryption key must be {KEY_LEN} bytes, got {}",
                key.len()
            )));
        }
        let mut aead_key = keyed::<U32>(key, b"memdag.seal.aead", &[]);
        let aead = XChaCha20Poly1305::new(&aead_key);
        aead_key.iter_mut().for_each(|b| *b = 0);
        let mut nonce_key = [0u8; 32];
        nonce_key.copy_from_slice(&keyed::<U32>(key, b"memdag.seal.nonc", &[]));
        let mut check = [0u8; CHECK_LEN];
        check.copy_from_slice(&keyed::<U8>(key, b"memdag.seal.chck", &[]));
        Ok(Cipher {
            aead,
            nonce_key,
            check,
        })
    }

    /// Seals `value` for storage under `key`.
    pub fn seal(&self, key: &str, value: &[u8]) -> Vec<u8> {
        let len = (key.len() as u32).to_le_bytes();
        let nonce = keyed::<U24>(
            &self.nonce_key,
            b"memdag.seal.siv1",
            &[&len, key.as_bytes(), value],
        );
        let mut out = Vec::with_capacity(OVERHEAD + value.len());
        out.extend_from_slice(&MAGIC);
        out.push(SEAL_VERSION);
        out.extend_from_slice(&self.check);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(value);
        let (header, body) = out.split_at_mut(HEADER_LEN);
        let tag = self
            .aead
            .encrypt_in_place_detached(
                XNonce::from_slice(&header[BOUND_LEN..]),
                &aad(&header[..BOUND_LEN], key),
                body,
            )
            .expect("XChaCha20-Poly1305 seals any value shorter than 256 GiB");
        out.extend_from_slice(&tag);
        out
    }

    /// Opens a value sealed for `key`: the plain value, or a typed error naming `key`.
    pub fn open(&self, key: &str, sealed: &[u8]) -> Result<Vec<u8>> {
        let corrupt = |reason: &str| Error::CorruptData {
            key: key.into(),
            reason: reason.into(),
        };
        if !is_sealed(sealed) {
            return Err(Error::Locked {
                key: key.into(),
                reason: "the value is not encrypted, but a key was given".into(),
            });
        }
        if sealed.len() < OVERHEAD {
            return Err(corrupt("sealed value truncated"));
        }
        if sealed[4] != SEAL_VERSION {
            return Err(Error::UnsupportedVersion {
                key: key.into(),
                found: sealed[4],
                supported: SEAL_VERSION,
            });
        }
        if sealed[5..BOUND_LEN] != self.check {
            return Err(Error::Locked {
                key: key.into(),
                reason: "the value was encrypted with another key".into(),
            });
        }
        let (header, rest) = sealed.split_at(HEADER_LEN);
        let (body, tag) = rest.split_at(rest.len() - TAG_LEN);
        let mut plain = body.to_vec();
        self.aead
            .decrypt_in_place_detached(
                XNonce::from_slice(&header[BOUND_LEN..]),
                &aad(&header[..BOUND_LEN], key),
                &mut plain,
                Tag::from_slice(tag),
            )
            .map_err(|_| {
                corrupt("authentication failed: the value was altered, or moved from another key")
            })?;
        Ok(plain)
    }
}

/// The associated data: the bound header bytes, then the storage key.
fn aad(bound: &[u8], key: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(bound.len() + key.len());
    aad.extend_from_slice(bound);
    aad.extend_from_slice(key.as_bytes());
    aad
}

/// Whether `value` is a sealed value (by its magic).
pub fn is_sealed(value: &[u8]) -> bool {
    value.len() >= MAGIC.len() && value[..MAGIC.len()] == MAGIC
}
