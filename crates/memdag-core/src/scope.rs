//! Whose memory a call may read: the one rule for a user that a caller names.
//!
//! A read names a user or names none:
//! - **none** is the explicit, store-wide choice: every user's records (an admin view, a
//!   single-user app). In the library faces it is a missing `user`; the CLI commands that
//!   serve an agent (`mcp`, `call-tool`) ask for it by name (`--all-users`);
//! - **a user** sees their own records and those tagged [`SHARED_TAG`](crate::record::SHARED_TAG)
//!   ([`Record::visible_to`](crate::Record::visible_to)).
//!
//! A name that is empty or only whitespace names nobody. It is [`Error::InvalidInput`], never
//! "every user": a launcher line such as `memdag mcp --user "$TENANT"` with the variable unset
//! must fail, not serve every tenant. Every face passes the user it was given to the core
//! unchanged (`Some("")` stays `Some("")`), and the core's entry points check it here.

use alloc::format;

use crate::error::{Error, Result};

/// `user` as a read's scope: `None` (every user) as it is, a named user if the name is valid,
/// else [`Error::InvalidInput`].
pub fn user_scope(user: Option<&str>) -> Result<Option<&str>> {
    match user {
        None => Ok(None),
        Some(u) => check_user(u).map(Some),
    }
}

/// A named user: [`Error::InvalidInput`] when the name is empty or only whitespace (it would
/// name nobody).
pub fn check_user(user: &str) -> Result<&str> {
    if user.trim().is_empty() {
        return Err(Error::invalid(format!(
            "user {user:?} names nobody: name a user, or leave the user out to read every user's memory"
        )));
    }
    Ok(user)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_or_blank_user_is_invalid_and_none_is_store_wide() {
        assert_eq!(user_scope(None), Ok(None));
        assert_eq!(user_scope(Some("ada")), Ok(Some("ada")));
        assert_eq!(user_scope(Some(" ada ")), Ok(Some(" ada ")));
        for blank in ["", " ", "\t\n", "\u{3000}"] {
            assert_eq!(
                user_scope(Some(blank)).unwrap_err().code(),
                "INVALID_INPUT",
                "{blank:?}"
            );
        }
    }
}
