//! Encryption at rest, the storage engine's side: a store opened with a [`Cipher`]
//! ([`Store::load_with_cipher`]) seals every value of its change sets
//! ([`Store::take_changes`]) and snapshots ([`Store::snapshot`]), and opens every value it
//! loads. The sealed value, the keys and the nonces are described in [`crate::cipher`].
//!
//! # A host that seals
//! A host with a native AES-GCM seals and opens seal v2 itself ([`Cipher::host_key`]), so that
//! no byte of a large store goes through a cipher in wasm. It opens such a store with
//! [`Store::load_host_sealed`], naming the keys whose values it opened: those are taken as
//! given. Every other value of the store must be sealed and opens with the cipher, as in any
//! sealed store: a v1 value the core wrote, or one the host could not open (sealed with
//! another key, altered, moved), which then fails with the core's own error, only if the open
//! needs it. So a plain value put where a sealed one belongs is refused as before: the host
//! names only what it opened, and the core never takes an unnamed plain value. The store then
//! writes its change sets plain and the host seals each value before storing it; its
//! snapshots, an export and not a store, are still sealed by the core (v1).
//!
//! The module needs feature `std`.

use std::string::String;
use std::vec::Vec;

use crate::codec::Change;
use crate::error::{Error, Result};
use crate::keys::{self, HEAD_KEY};
use crate::segment::MIN_PART_BYTES;
use crate::storage::{host_opened, load_owned_values, HostOpened, OwnedValues, Values};
use crate::store::Store;

pub use crate::cipher::{
    is_sealed, Cipher, HostKey, BOUND_LEN, HEADER_LEN, KEY_LEN, MAGIC, NONCE_V2, OVERHEAD,
    OVERHEAD_V2, SEAL_V1, SEAL_V2, SEAL_VERSION,
};

/// A plain open's corrupt-data error, with every damaged value and block of the store listed
/// (a salvaging open finds them): the error still names the first bad key.
fn with_damage_listed(e: Error, values: &Values) -> Error {
    let Error::CorruptData { key, reason } = e else {
        return e;
    };
    let listed = crate::storage::damage_of(values)
        .filter(|d| !d.is_empty())
        .map(|d| {
            format!(
                "; the store has {}. Nothing was opened or changed: open it salvaging (`memdag \
                 salvage`, `salvage: true`) to keep everything intact",
                d.summary()
            )
        })
        .unwrap_or_default();
    Error::CorruptData {
        key,
        reason: format!("{reason}{listed}"),
    }
}

// The boundary with the storage engine: sealing change sets and snapshots, opening what loads.

impl Store {
    /// Opens a store as [`Store::load`] does, opening its sealed values with `cipher`; the
    /// store keeps the cipher and seals everything it writes with it. With `None` the store
    /// must not be encrypted. An empty store (no entries) opens with any cipher and becomes
    /// an encrypted one. Fails with [`Error::Locked`] naming `head` for a missing, wrong or
    /// unexpected key, and with [`Error::CorruptData`] naming the key of a value that was
    /// altered or moved; nothing is loaded then.
    pub fn load_with_cipher<K, V, I>(entries: I, cipher: Option<Cipher>) -> Result<Store>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        Store::load_sealed(entries, cipher, None)
    }

    /// Opens a store whose host seals and opens seal v2 itself (see the module docs):
    /// `opened` names the keys whose values in `entries` the host opened, given plain; every
    /// other value of the store must be sealed, and opens with `cipher`. The store's change
    /// sets are plain from then on: the host seals each value before storing it. Errors as
    /// [`Store::load_with_cipher`], whose are also those of a value the host could not open.
    pub fn load_host_sealed<K, V, I, S>(
        entries: I,
        cipher: Cipher,
        opened: impl IntoIterator<Item = S>,
    ) -> Result<Store>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
        S: AsRef<str>,
    {
        Store::load_sealed(entries, Some(cipher), host_opened(opened))
    }

    /// [`Store::load_with_cipher`], or with `opened` [`Store::load_host_sealed`], over entries
    /// it takes, for a host whose entries are copies made for the open (the JS face's, the
    /// component's). Each value is freed once the open has read it (see `storage::owned`),
    /// and each sealed value is opened in its own buffer ([`Cipher::open_owned`]), so the open
    /// holds each stored byte once, and not to its end, where the borrowing forms hold every
    /// value (sealed and opened) beside the store they build. Opens and fails as they do.
    pub fn load_owned<S: AsRef<str>>(
        entries: Vec<(String, Vec<u8>)>,
        cipher: Option<Cipher>,
        opened: Option<impl IntoIterator<Item = S>>,
    ) -> Result<Store> {
        let opened = opened.and_then(|keys| cipher.is_some().then(|| host_opened(keys)).flatten());
        let by_host = |k: &str| opened.as_ref().is_some_and(|o| o.contains(k));
        let values: OwnedValues = entries
            .into_iter()
            .filter(|(k, _)| keys::is_core_key(k))
            .map(|(k, v)| {
                let value = match cipher.as_ref() {
                    Some(c) if !by_host(&k) => open_one_owned(c, &k, v),
                    _ => Ok(v),
                };
                (k, value)
            })
            .collect();
        let mut store = load_owned_values(values, with_damage_listed)?;
        store.persist.cipher = cipher;
        store.persist.host_seals = opened.is_some();
        Ok(store)
    }

    fn load_sealed<K, V, I>(entries: I, cipher: Option<Cipher>, opened: HostOpened) -> Result<Store>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        let entries: Vec<(K, V)> = entries.into_iter().collect();
        let mut store = Store::with_values(&entries, cipher.as_ref(), &opened, |values| {
            Store::load_values(values).map_err(|e| with_damage_listed(e, values))
        })?;
        store.persist.cipher = cipher;
        store.persist.host_seals = opened.is_some();
        Ok(store)
    }

    /// Runs `f` on the core's values among `entries`, each opened with `cipher` when given
    /// but those the host opened (`opened`), which are taken as they are.
    pub(crate) fn with_values<K, V, T>(
        entries: &[(K, V)],
        cipher: Option<&Cipher>,
        opened: &HostOpened,
        f: impl FnOnce(&Values) -> Result<T>,
    ) -> Result<T>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
    {
        let entries: Vec<&(K, V)> = entries
            .iter()
            .filter(|(k, _)| keys::is_core_key(k.as_ref()))
            .collect();
        match cipher {
            None => {
                let values: Values = entries
                    .iter()
                    .map(|(k, v)| (k.as_ref(), Ok(v.as_ref())))
                    .collect();
                f(&values)
            }
            Some(c) => {
                let by_host = |k: &str| opened.as_ref().is_some_and(|o| o.contains(k));
                // The core's own openings; `None` for a value the host opened.
                let unsealed: Vec<Option<Result<Vec<u8>>>> = entries
                    .iter()
                    .map(|(k, v)| {
                        (!by_host(k.as_ref())).then(|| open_one(c, k.as_ref(), v.as_ref()))
                    })
                    .collect();
                let values: Values = entries
                    .iter()
                    .zip(&unsealed)
                    .map(|((k, v), u)| {
                        let value = match u {
                            None => Ok(v.as_ref()),
                            Some(r) => r.as_ref().map(Vec::as_slice).map_err(Clone::clone),
                        };
                        (k.as_ref(), value)
                    })
                    .collect();
                f(&values)
            }
        }
    }

    /// [`Store::keys_to_read`] for a store that may be encrypted: `head_bytes` is opened with
    /// `cipher` first. Errors as [`Store::load_with_cipher`].
    pub fn keys_to_read_with_cipher(
        head_bytes: &[u8],
        cipher: Option<&Cipher>,
    ) -> Result<Vec<String>> {
        match cipher {
            None => Store::keys_to_read(head_bytes),
            Some(c) => Store::keys_to_read(&c.open(HEAD_KEY, head_bytes)?),
        }
    }

    /// [`Store::keys_ahead`] for a store that may be encrypted.
    pub fn keys_ahead_with_cipher(
        head_bytes: &[u8],
        cipher: Option<&Cipher>,
    ) -> Result<Vec<String>> {
        match cipher {
            None => Store::keys_ahead(head_bytes),
            Some(c) => Store::keys_ahead(&c.open(HEAD_KEY, head_bytes)?),
        }
    }

    /// Seals this store's change sets with `cipher` from now on (`None`: plain values) and
    /// makes the next change set rewrite the whole store with it: every value under new
    /// generations, then the commit, then the deletion of every older key. So it encrypts a
    /// plain store, changes the key of an encrypted one, or decrypts one. A crash before that
    /// commit leaves the store as it was, under the old key.
    /// The core seals from then on (v1), also in a store whose host sealed.
    pub fn set_cipher(&mut self, cipher: Option<Cipher>) {
        let old: Vec<String> = self
            .segments()
            .iter()
            .flat_map(|s| s.keys().collect::<Vec<_>>())
            .collect();
        self.prepare_to_replace(old.iter().map(String::as_str));
        self.persist.cipher = cipher;
        self.persist.host_seals = false;
    }

    /// Whether this store seals what it writes.
    pub fn is_encrypted(&self) -> bool {
        self.persist.cipher.is_some()
    }

    /// Whether the host seals what this store writes ([`Store::load_host_sealed`]): its change
    /// sets are plain then.
    pub fn host_seals(&self) -> bool {
        self.persist.host_seals
    }

    /// The largest plain segment part, so that a sealed one still fits the part size.
    pub(crate) fn plain_part_bytes(&self) -> usize {
        match self.persist.cipher {
            Some(_) => (self.persist.part_bytes - OVERHEAD).max(MIN_PART_BYTES),
            None => self.persist.part_bytes,
        }
    }

    /// Seals the values of a change set, when this store is encrypted and its host does not
    /// seal them itself.
    pub(crate) fn seal_changes(&self, changes: &mut [Change]) {
        if self.persist.host_seals {
            return;
        }
        if let Some(c) = &self.persist.cipher {
            for change in changes {
                if let Some(value) = &mut change.value {
                    *value = c.seal(&change.key, value);
                }
            }
        }
    }

    /// Seals the values of a snapshot, when this store is encrypted.
    pub(crate) fn seal_entries(&self, entries: &mut [(String, Vec<u8>)]) {
        if let Some(c) = &self.persist.cipher {
            for (key, value) in entries {
                *value = c.seal(key, value);
            }
        }
    }
}

/// Opens a value with `cipher`, to its plain bytes or the error it gave (a plain value:
/// locked, as a key was given); the open raises an error only for a value it needs. A value
/// the chosen commit names that fails here was altered, whatever the error says (see
/// `storage::load`): a commit only ever names values sealed as it is.
fn open_one(cipher: &Cipher, key: &str, value: &[u8]) -> Result<Vec<u8>> {
    if is_sealed(value) {
        cipher.open(key, value)
    } else {
        Err(plain_in_sealed(key))
    }
}

/// [`open_one`] in the value's own buffer.
fn open_one_owned(cipher: &Cipher, key: &str, value: Vec<u8>) -> Result<Vec<u8>> {
    if is_sealed(&value) {
        cipher.open_owned(key, value)
    } else {
        Err(plain_in_sealed(key))
    }
}

/// The error of a plain value in a store opened with a key.
fn plain_in_sealed(key: &str) -> Error {
    Error::Locked {
        key: key.into(),
        reason: "the store is not encrypted, but a key was given".into(),
    }
}
