//! The host's error: what the component answered, or what went wrong around it.

use std::fmt;
use std::path::PathBuf;

use crate::MemoryError;

/// Everything a host call can fail with.
#[derive(Debug)]
pub enum Error {
    /// The component returned an error from the WIT `variant error`. Its message starts
    /// with a stable code, see [`Error::code`].
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
    /// The stable code of a component error (`"UNKNOWN_PARENT"`, `"NOT_FOUND"`, ...), taken
    /// from the start of its message; `None` for host-side errors.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Memory(e) => memory_message(e).split(':').next(),
            _ => None,
        }
    }
}

/// The message of any case of the WIT error.
pub fn memory_message(e: &MemoryError) -> &str {
    match e {
        MemoryError::NotFound(m)
        | MemoryError::InvalidInput(m)
        | MemoryError::CorruptData(m)
        | MemoryError::Locked(m)
        | MemoryError::Storage(m)
        | MemoryError::Host(m) => m,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Memory(e) => {
                let kind = match e {
                    MemoryError::NotFound(_) => "not-found",
                    MemoryError::InvalidInput(_) => "invalid-input",
                    MemoryError::CorruptData(_) => "corrupt-data",
                    MemoryError::Locked(_) => "locked",
                    MemoryError::Storage(_) => "storage",
                    MemoryError::Host(_) => "host",
                };
                write!(f, "{kind}: {}", memory_message(e))
            }
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
