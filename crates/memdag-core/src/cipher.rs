//! Encryption at rest: every stored value sealed with an AEAD and bound to its key. The core
//! seals with XChaCha20-Poly1305 (seal v1); a host with a native cipher seals with AES-256-GCM
//! (seal v2); the core opens both, so a store may mix them.
//!
//! The host gives a 32-byte master key ([`Cipher::new`]). memdag never makes, keeps or
//! derives one from a password: a host with a passphrase runs a password KDF (Argon2id,
//! PBKDF2) itself. A store opened with a [`Cipher`] ([`Store::load_with_cipher`](crate::Store::load_with_cipher)) seals every
//! value of its change sets ([`Store::take_changes`](crate::Store::take_changes)) and snapshots ([`Store::snapshot`](crate::Store::snapshot)), and
//! opens every value it loads; a store whose host seals ([`Store::load_host_sealed`](crate::Store::load_host_sealed)) writes
//! its change sets plain, for the host to seal. Keys are not sealed: a store's keys are `head`
//! and `seg/<generation>/<part>` (see [`crate::keys`]), which say nothing of the content.
//!
//! # Sealed value
//! ```text
//!              v1 (the core)              v2 (a host)
//! offset 0     4 bytes  magic b"MDAS"     the same (a plain value starts with b"MDAG", see envelope)
//! offset 4     1 byte   seal version 1    2
//! offset 5     8 bytes  key check         the same key check
//! offset 13    24-byte nonce              12-byte nonce
//! then         n bytes  ciphertext of the plain value (its whole envelope: magic, format
//!                       version, kind, checksum and body)
//! then         16 bytes Poly1305 tag      GCM tag
//! ```
//! v1 is XChaCha20-Poly1305 with a synthetic nonce; v2 is AES-256-GCM with a random one. For
//! both, the associated data is the 13 header bytes before the nonce, then the storage key in
//! UTF-8. So a value moved to another key, or with any byte changed, its version byte
//! included, fails to open; the error names the key. A sealed value is 53 (v1) or 41 (v2)
//! bytes longer than the plain one; segment parts are cut [`OVERHEAD`] bytes smaller, so a
//! sealed part still fits the host's value limit.
//!
//! # Keys
//! Four subkeys come from the master key by keyed BLAKE2b (the master key as the BLAKE2 key,
//! one 16-byte personalization per use): v1's AEAD key (32 bytes, `memdag.seal.aead`) and
//! nonce key (32 bytes, `memdag.seal.nonc`), v2's AES-256 key (32 bytes, `memdag.seal.aes2`),
//! and the key check (8 bytes, `memdag.seal.chck`). The key check tells a wrong key
//! ([`Error::Locked`]) from a damaged or moved value ([`Error::CorruptData`]); it reveals
//! whether two stores share a key, and nothing more. Separate subkeys keep the two AEADs
//! apart: nothing one seals is ever opened or forged with the other's key.
//!
//! # v1: nonces without a random source
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
//! # v2: a host's AES-GCM with random nonces
//! A host with a native AES-GCM (WebCrypto in browsers, workerd and Node; the JS package's
//! `pkg/seal.js`) takes [`Cipher::host_key`]: the v2 key and the 13 header bytes. It seals a
//! value as `header ‖ nonce ‖ AES-256-GCM(key, nonce, aad = header ‖ storage key, value)`
//! with a fresh 96-bit nonce from its cryptographic random source for every value, and opens
//! what starts with those header bytes itself, handing the core the keys it opened (see
//! [`crate::seal`]). Whatever it cannot open (another key, a failed tag, a cut value) it
//! hands over sealed, and the core opens or refuses it with its own errors. The core opens
//! v2 too, in software (a face without a host cipher: the CLI reading a store a browser
//! wrote), but never seals it: it has no random source.
//!
//! A repeated GCM nonce under one key reveals the XOR of two plaintexts and the GHASH key,
//! so the nonces bound how much one key may seal. With `q` values sealed under one master key,
//! the chance that any two share a nonce is below `q² / 2^97`: 2^-33 at `q` = 2^32 values,
//! the limit NIST SP 800-38D (8.3) sets for random 96-bit IVs. A flush seals the parts of its
//! new segment (at most 1 MiB each), those of at most one merge, and `head`: a few values for
//! one add, about 200 for a full rewrite of a 200 MB store. At a million values a day, 2^32
//! takes over 11,000 years; a host that comes near it changes the key (`set_cipher`, which
//! rewrites the store). The data bound is as far off: a value is at most 1 MiB (2^16 AES
//! blocks, far below GCM's 2^32 per message), and 2^32 such values keep the confidentiality
//! bound below 2^-32. A counter would need state shared by every writer of a store; a
//! synthetic nonce (v1's idea) would cost a second pass over each value.
//!
//! AES-GCM-SIV would give v1's property from one crate, but wasm has no AES instructions:
//! RustCrypto's constant-time software AES and POLYVAL are several times slower there than
//! ChaCha20 and BLAKE2b, which need only 32- and 64-bit arithmetic. That is also why v2 is the
//! host's to seal: its AES runs in the host, natively.
//!
//! # Cost
//! Sealing v1 is two passes over each value (the nonce's keyed hash, then the AEAD), opening
//! one. `node tests/bench/run-wasm.mjs --seal` (`memdag-bench --seal` natively) times a flush of a
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
//! from another key; with [`Error::UnsupportedVersion`] for a seal version above 2. Each error
//! names the storage key. A load that fails loads nothing, so nothing is written either.
//!
//! The [`Cipher`] depends only on [`crate::error`]; its boundary with the storage engine (which
//! values are sealed, opening what loads) is [`crate::seal`]. The module needs feature `std`.

use std::format;
use std::vec::Vec;

use core::fmt;

use aes_gcm::Aes256Gcm;
use blake2::digest::consts::{U24, U32, U8};
use blake2::digest::Mac;
use blake2::Blake2bMac;
use chacha20poly1305::aead::generic_array::GenericArray;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use crate::error::{Error, Result};

/// The four bytes that open every sealed value.
pub const MAGIC: [u8; 4] = *b"MDAS";
/// Seal v1: XChaCha20-Poly1305 with a synthetic nonce, what the core writes.
pub const SEAL_V1: u8 = 1;
/// Seal v2: AES-256-GCM with a random nonce, what a host with a native cipher writes.
pub const SEAL_V2: u8 = 2;
/// The newest seal version this build reads.
pub const SEAL_VERSION: u8 = SEAL_V2;
/// The length of a master key, in bytes.
pub const KEY_LEN: usize = 32;
const CHECK_LEN: usize = 8;
const TAG_LEN: usize = 16;
/// v1's nonce (XChaCha20).
const NONCE_V1: usize = 24;
/// v2's nonce (GCM's 96 bits).
pub const NONCE_V2: usize = 12;
/// The header bytes that are associated data: magic, version, key check.
pub const BOUND_LEN: usize = 4 + 1 + CHECK_LEN;
/// Bytes before the ciphertext of a v1 value.
pub const HEADER_LEN: usize = BOUND_LEN + NONCE_V1;
/// How many bytes longer a sealed value is than the plain one, at most (v1; v2 adds 41).
pub const OVERHEAD: usize = HEADER_LEN + TAG_LEN;
/// How many bytes longer a v2 value is than the plain one.
pub const OVERHEAD_V2: usize = BOUND_LEN + NONCE_V2 + TAG_LEN;

/// A master key, ready to seal and open values. Its subkeys are wiped when it is dropped.
#[derive(Clone)]
pub struct Cipher {
    aead: XChaCha20Poly1305,
    nonce_key: [u8; 32],
    aes_key: [u8; 32],
    check: [u8; CHECK_LEN],
}

/// What a host needs to seal and open v2 values itself (see the module docs): the AES-256 key
/// and the 13 header bytes every v2 value under this master key starts with. Wiped on drop.
pub struct HostKey {
    /// The AES-256-GCM key.
    pub key: [u8; 32],
    /// Magic, version 2 and the key check: the start of every v2 value, and the start of its
    /// associated data (then the storage key).
    pub header: [u8; BOUND_LEN],
}

impl fmt::Debug for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cipher { .. }")
    }
}

impl fmt::Debug for HostKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HostKey { .. }")
    }
}

/// Overwrites `bytes` with zeros in a way the compiler keeps.
fn wipe(bytes: &mut [u8]) {
    for b in bytes.iter_mut() {
        // SAFETY: a valid, aligned, exclusive reference.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
}

impl Drop for Cipher {
    fn drop(&mut self) {
        // The XChaCha20-Poly1305 instance wipes its own key on drop.
        wipe(&mut self.nonce_key);
        wipe(&mut self.aes_key);
    }
}

impl Drop for HostKey {
    fn drop(&mut self) {
        wipe(&mut self.key);
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

/// A 32-byte subkey of `key` for `persona`.
fn subkey(key: &[u8], persona: &[u8; 16]) -> [u8; 32] {
    let mut derived = keyed::<U32>(key, persona, &[]);
    let mut out = [0u8; 32];
    out.copy_from_slice(&derived);
    wipe(&mut derived);
    out
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
        let mut aead_key = subkey(key, b"memdag.seal.aead");
        let aead = XChaCha20Poly1305::new(GenericArray::from_slice(&aead_key));
        wipe(&mut aead_key);
        let mut check = [0u8; CHECK_LEN];
        check.copy_from_slice(&keyed::<U8>(key, b"memdag.seal.chck", &[]));
        Ok(Cipher {
            aead,
            nonce_key: subkey(key, b"memdag.seal.nonc"),
            aes_key: subkey(key, b"memdag.seal.aes2"),
            check,
        })
    }

    /// The bound header bytes of a value of seal `version`.
    fn bound(&self, version: u8) -> [u8; BOUND_LEN] {
        let mut out = [0u8; BOUND_LEN];
        out[..4].copy_from_slice(&MAGIC);
        out[4] = version;
        out[5..].copy_from_slice(&self.check);
        out
    }

    /// The v2 key and header, for a host that seals and opens v2 values with its own AES-GCM
    /// (see the module docs). Whoever holds it can read and forge every v2 value of stores
    /// with this master key, and nothing sealed v1.
    pub fn host_key(&self) -> HostKey {
        HostKey {
            key: self.aes_key,
            header: self.bound(SEAL_V2),
        }
    }

    /// Seals `value` for storage under `key` (seal v1).
    pub fn seal(&self, key: &str, value: &[u8]) -> Vec<u8> {
        let len = (key.len() as u32).to_le_bytes();
        let nonce = keyed::<U24>(
            &self.nonce_key,
            b"memdag.seal.siv1",
            &[&len, key.as_bytes(), value],
        );
        let mut out = Vec::with_capacity(OVERHEAD + value.len());
        out.extend_from_slice(&self.bound(SEAL_V1));
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

    /// Opens a value sealed for `key` (v1 or v2): the plain value, or a typed error naming
    /// `key`.
    pub fn open(&self, key: &str, sealed: &[u8]) -> Result<Vec<u8>> {
        if !is_sealed(sealed) {
            // Refused before any copy: a plain value where a sealed one belongs.
            return Err(not_sealed(key));
        }
        self.open_owned(key, sealed.to_vec())
    }

    /// [`Cipher::open`] in the value's own buffer: the plain value is decrypted where the
    /// sealed one was, so opening a store holds each value once, not sealed and opened at once.
    /// On an error the buffer is dropped (both AEADs check the tag before decrypting a byte).
    pub fn open_owned(&self, key: &str, mut sealed: Vec<u8>) -> Result<Vec<u8>> {
        let corrupt = |reason: &str| Error::CorruptData {
            key: key.into(),
            reason: reason.into(),
        };
        if !is_sealed(&sealed) {
            return Err(not_sealed(key));
        }
        let (nonce_len, least) = match sealed.get(4) {
            Some(&SEAL_V1) => (NONCE_V1, OVERHEAD),
            Some(&SEAL_V2) => (NONCE_V2, OVERHEAD_V2),
            Some(&found) => {
                return Err(Error::UnsupportedVersion {
                    key: key.into(),
                    found,
                    supported: SEAL_VERSION,
                })
            }
            None => return Err(corrupt("sealed value truncated")),
        };
        if sealed.len() < least {
            return Err(corrupt("sealed value truncated"));
        }
        if sealed[5..BOUND_LEN] != self.check {
            return Err(Error::Locked {
                key: key.into(),
                reason: "the value was encrypted with another key".into(),
            });
        }
        let start = BOUND_LEN + nonce_len;
        let end = sealed.len() - TAG_LEN;
        let (head, rest) = sealed.split_at_mut(start);
        let (body, tag) = rest.split_at_mut(end - start);
        let (bound, nonce) = head.split_at(BOUND_LEN);
        let aad = aad(bound, key);
        let opened = if bound[4] == SEAL_V1 {
            self.aead.decrypt_in_place_detached(
                XNonce::from_slice(nonce),
                &aad,
                body,
                GenericArray::from_slice(tag),
            )
        } else {
            // Made for the value and dropped after it: a store opened by its host holds few
            // v2 values the core opens itself, and the key schedule is wiped on drop.
            Aes256Gcm::new(GenericArray::from_slice(&self.aes_key)).decrypt_in_place_detached(
                GenericArray::from_slice(nonce),
                &aad,
                body,
                GenericArray::from_slice(tag),
            )
        };
        opened.map_err(|_| {
            corrupt("authentication failed: the value was altered, or moved from another key")
        })?;
        sealed.truncate(end);
        sealed.drain(..start);
        Ok(sealed)
    }
}

/// The error of a plain value given where a sealed one belongs.
fn not_sealed(key: &str) -> Error {
    Error::Locked {
        key: key.into(),
        reason: "the value is not encrypted, but a key was given".into(),
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
