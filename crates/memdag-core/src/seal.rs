//! Encryption at rest, the storage engine's side: a store opened with a [`Cipher`]
//! ([`Store::load_with_cipher`]) seals every value of its change sets
//! ([`Store::take_changes`]) and snapshots ([`Store::snapshot`]), and opens every value it
//! loads. The sealed value, the keys and the nonces are described in [`crate::cipher`]. The
//! module needs feature `std`.

use std::string::{String, ToString};
use std::vec::Vec;

use crate::codec::Change;
use crate::error::{Error, Result};
use crate::keys::{self, HEAD_KEY};
use crate::segment::MIN_PART_BYTES;
use crate::storage::Values;
use crate::store::Store;

pub use crate::cipher::{is_sealed, Cipher, HEADER_LEN, KEY_LEN, MAGIC, OVERHEAD, SEAL_VERSION};

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
        let entries: Vec<(K, V)> = entries.into_iter().collect();
        let mut store = Store::with_values(&entries, cipher.as_ref(), |values| {
            Store::load_values(values).map_err(|e| with_damage_listed(e, values))
        })?;
        store.persist.cipher = cipher;
        Ok(store)
    }

    /// Runs `f` on the core's values among `entries`, each opened with `cipher` when given.
    pub(crate) fn with_values<K, V, T>(
        entries: &[(K, V)],
        cipher: Option<&Cipher>,
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
                let opened = open_all(c, &entries);
                let values: Values = opened
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str(),
                            v.as_ref().map(Vec::as_slice).map_err(Clone::clone),
                        )
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
    pub fn set_cipher(&mut self, cipher: Option<Cipher>) {
        let old: Vec<String> = self
            .segments()
            .iter()
            .flat_map(|s| s.keys().collect::<Vec<_>>())
            .collect();
        self.prepare_to_replace(old.iter().map(String::as_str));
        self.persist.cipher = cipher;
    }

    /// Whether this store seals what it writes.
    pub fn is_encrypted(&self) -> bool {
        self.persist.cipher.is_some()
    }

    /// The largest plain segment part, so that a sealed one still fits the part size.
    pub(crate) fn plain_part_bytes(&self) -> usize {
        match self.persist.cipher {
            Some(_) => (self.persist.part_bytes - OVERHEAD).max(MIN_PART_BYTES),
            None => self.persist.part_bytes,
        }
    }

    /// Seals the values of a change set, when this store is encrypted.
    pub(crate) fn seal_changes(&self, changes: &mut [Change]) {
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

/// Opens every value with `cipher`, each to its plain bytes or the error it gave (a plain
/// value: locked, as a key was given); the open raises an error only for a value it needs. A
/// value the chosen commit names that fails here was altered, whatever the error says (see
/// `storage::load`): a commit only ever names values sealed as it is.
fn open_all<K: AsRef<str>, V: AsRef<[u8]>>(
    cipher: &Cipher,
    entries: &[&(K, V)],
) -> Vec<(String, Result<Vec<u8>>)> {
    entries
        .iter()
        .map(|(k, v)| {
            let (key, value) = (k.as_ref(), v.as_ref());
            let plain = if is_sealed(value) {
                cipher.open(key, value)
            } else {
                Err(Error::Locked {
                    key: key.into(),
                    reason: "the store is not encrypted, but a key was given".into(),
                })
            };
            (key.to_string(), plain)
        })
        .collect()
}
