//! The host's error: what the component answered, or what went wrong around it.

use std::fmt;
use std::path::PathBuf;

use crate::{ErrorCode, MemoryError};

/// Everything a host call can fail with.
#[derive(Debug)]
pub enum Error {
    /// The component returned an error: the WIT `error` record with its stable code (see
    /// [`Error::code`]), message, and the storage key or record ids it concerns.
    Memory(MemoryError),
    /// No component file was found; `tried` lists where it was looked for.
    ComponentNotFound {
        /// The paths checked, in order.
        tried: Vec<PathBuf>,
    },
    /// A call ran into one of the runtime's [`crate::Limits`] and was stopped by a trap. The
    /// [`crate::Memory`] stays usable: its next call runs on a fresh instance.
    Limit {
        /// Which limit.
        kind: crate::LimitKind,
        /// Wasmtime's description of the trap.
        message: String,
    },
    /// Wasmtime failed: the component did not compile, link or instantiate, or it trapped
    /// for another reason than a limit.
    Runtime(wasmtime::Error),
    /// A host file operation failed outside a component call (e.g. opening a [`crate::DirKv`]).
    Io(std::io::Error),
}

impl Error {
    /// The stable code of a component error (`"UNKNOWN_PARENT"`, `"NOT_FOUND"`, ...), the same
    /// as the JS package's `Error.code`; `None` for host-side errors.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            Error::Memory(e) => Some(code_name(e.code)),
            _ => None,
        }
    }

    /// A component-style error made by the host (a CLI's own "no such record").
    pub fn memory(code: ErrorCode, message: impl Into<String>) -> Error {
        Error::Memory(MemoryError {
            code,
            message: message.into(),
            key: None,
            ids: Vec::new(),
        })
    }
}

/// The stable name of a WIT error code: `NOT_FOUND`, `UNKNOWN_PARENT`, ...
pub fn code_name(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::NotFound => "NOT_FOUND",
        ErrorCode::UnknownParent => "UNKNOWN_PARENT",
        ErrorCode::DuplicateId => "DUPLICATE_ID",
        ErrorCode::InvalidInput => "INVALID_INPUT",
        ErrorCode::CorruptData => "CORRUPT_DATA",
        ErrorCode::UnsupportedVersion => "UNSUPPORTED_VERSION",
        ErrorCode::Locked => "LOCKED",
        ErrorCode::Storage => "STORAGE",
        ErrorCode::Host => "HOST",
        ErrorCode::Busy => "BUSY",
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Memory(e) => write!(f, "{}: {}", code_name(e.code), e.message),
            Error::ComponentNotFound { tried } => {
                write!(
                    f,
                    "memdag_component.wasm not found; build it with scripts/build-component.sh"
                )?;
                write!(
                    f,
                    " or pass --component PATH / set MEMDAG_COMPONENT. Tried:"
                )?;
                for p in tried {
                    write!(f, "\n  {}", p.display())?;
                }
                Ok(())
            }
            Error::Limit { kind, message } => {
                write!(f, "the component hit its {kind} and was stopped: {message}")
            }
            Error::Runtime(e) => write!(f, "wasmtime: {e:#}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<MemoryError> for Error {
    fn from(e: MemoryError) -> Self {
        Error::Memory(e)
    }
}

impl From<wasmtime::Error> for Error {
    fn from(e: wasmtime::Error) -> Self {
        Error::Runtime(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
