//! The one error type shared by every face of memdag.
//!
//! Each variant has a stable, upper-case [`Error::code`] (the JS `Error.code`) and belongs to one
//! [`ErrorKind`], which is the case of the WIT `variant error`. Codes never change meaning once
//! released; new ones may be added.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Everything that can go wrong in memdag. No operation panics; they return one of these.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// No record has this id.
    NotFound { id: String },
    /// A turn named parents that are not in the store. Nothing was written.
    UnknownParents { ids: Vec<String> },
    /// A caller-given id is already taken.
    DuplicateId { id: String },
    /// An argument is malformed or out of range.
    InvalidInput { message: String },
    /// A stored value could not be decoded: truncated, foreign, or failing its checksum.
    CorruptData { key: String, reason: String },
    /// A stored value was written by a newer format version than this build reads.
    UnsupportedVersion {
        key: String,
        found: u8,
        supported: u8,
    },
    /// A stored value cannot be opened with the key given: the store is encrypted and no key,
    /// or another key, was given; or a key was given for a store that is not encrypted. Nothing
    /// was loaded or written. See `memdag_format::seal`.
    Locked { key: String, reason: String },
    /// The host's storage failed to read or write.
    Storage { message: String },
    /// A host callback (embedder, LLM) failed or answered malformed output.
    Host { message: String },
    /// The store is already in use by a call that has not returned (a re-entrant call).
    Busy,
}

/// The coarse class of an error: the case of the WIT `variant error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    NotFound,
    InvalidInput,
    CorruptData,
    Locked,
    Storage,
    Host,
}

impl Error {
    /// The stable code of this error, e.g. `"UNKNOWN_PARENT"`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotFound { .. } => "NOT_FOUND",
            Error::UnknownParents { .. } => "UNKNOWN_PARENT",
            Error::DuplicateId { .. } => "DUPLICATE_ID",
            Error::InvalidInput { .. } => "INVALID_INPUT",
            Error::CorruptData { .. } => "CORRUPT_DATA",
            Error::UnsupportedVersion { .. } => "UNSUPPORTED_VERSION",
            Error::Locked { .. } => "LOCKED",
            Error::Storage { .. } => "STORAGE",
            Error::Host { .. } => "HOST",
            Error::Busy => "BUSY",
        }
    }

    /// The coarse class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::UnknownParents { .. }
            | Error::DuplicateId { .. }
            | Error::InvalidInput { .. }
            | Error::Busy => ErrorKind::InvalidInput,
            Error::CorruptData { .. } | Error::UnsupportedVersion { .. } => ErrorKind::CorruptData,
            Error::Locked { .. } => ErrorKind::Locked,
            Error::Storage { .. } => ErrorKind::Storage,
            Error::Host { .. } => ErrorKind::Host,
        }
    }

    /// The storage key this error concerns, when it concerns one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Error::CorruptData { key, .. }
            | Error::UnsupportedVersion { key, .. }
            | Error::Locked { key, .. } => Some(key),
            _ => None,
        }
    }

    /// Shorthand for [`Error::InvalidInput`].
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::InvalidInput {
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotFound { id } => write!(f, "no record with id {id:?}"),
            Error::UnknownParents { ids } => {
                write!(f, "unknown parent ids: {}", ids.join(", "))
            }
            Error::DuplicateId { id } => write!(f, "a record with id {id:?} already exists"),
            Error::InvalidInput { message } => write!(f, "invalid input: {message}"),
            Error::CorruptData { key, reason } => write!(f, "corrupt value at key {key:?}: {reason}"),
            Error::UnsupportedVersion { key, found, supported } => write!(
                f,
                "value at key {key:?} has format version {found}, this build reads up to {supported}"
            ),
            Error::Locked { key, reason } => write!(f, "locked: value at key {key:?}: {reason}"),
            Error::Storage { message } => write!(f, "storage failed: {message}"),
            Error::Host { message } => write!(f, "host callback failed: {message}"),
            Error::Busy => write!(f, "the store is busy with another call"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// The result type of memdag.
pub type Result<T, E = Error> = core::result::Result<T, E>;
