//! What follows a store: nothing, a further store, or bytes that the readers ignore.
//!
//! The reference readers (and tskit) read one store and never look past its `file_size`,
//! so a file with anything after its store loads. Stores may also follow one another
//! (a stream of stores). So the bytes after a store are:
//!
//! * a **further store**, when they begin with a store that parses in full (its own
//!   trailing bytes are then judged the same way);
//! * otherwise **trailing bytes**: accepted, and reported as one warning
//!   ([`ErrorKind::TrailingBytes`]) at the first of them. When they begin with the kastore
//!   magic (a further store cut short or damaged), the warning says so and is followed by
//!   a second warning, that would-be store's first problem, so that a user can tell a
//!   damaged second store from padding.

use core::iter::FusedIterator;

use binfmt_core::{Kind, bytes};

use crate::check;
use crate::error::{Error, ErrorKind};
use crate::options::ReadOptions;
use crate::raw::MAGIC;

/// What `rest`, the bytes after a store, holds.
#[derive(Debug)]
pub(crate) enum After {
    /// No bytes.
    Nothing,
    /// A valid store of this many bytes.
    Store(u64),
    /// Bytes that are not a store; offsets count from the first of them.
    Trailing {
        len: u64,
        /// The first problem of the would-be store, when the bytes begin like one.
        store_like: Option<Error>,
    },
}

/// Classifies `rest`.
pub(crate) fn classify(rest: &[u8], options: &ReadOptions) -> After {
    if rest.is_empty() {
        return After::Nothing;
    }
    let len = bytes::len_u64(rest);
    let begins_like_a_store = rest.starts_with(MAGIC) || MAGIC.starts_with(rest);
    match check::first_problem(rest, options) {
        Ok((checked, _)) => After::Store(checked.info.file_size),
        Err(e) => After::Trailing {
            len,
            store_like: begins_like_a_store.then_some(e),
        },
    }
}

/// The warnings about bytes after a store; see [`Store::warnings`](crate::Store::warnings).
///
/// At most two: [`ErrorKind::TrailingBytes`], then, when those bytes begin like a store,
/// that store's first problem.
#[derive(Debug, Default)]
pub struct Warnings {
    first: Option<Error>,
    second: Option<Error>,
}

impl Warnings {
    /// No warnings.
    pub(crate) fn none() -> Warnings {
        Warnings::default()
    }

    /// The warnings for `rest`, which starts at byte `at` of the input.
    pub(crate) fn after(rest: &[u8], at: u64, options: &ReadOptions) -> Warnings {
        Warnings::of(classify(rest, options), at)
    }

    /// The warnings for `len` trailing bytes at byte `at` of the input, with the first
    /// problem of the store they begin like (its offset counted from the input's start).
    pub(crate) fn trailing(at: u64, len: u64, store_like: Option<Error>) -> Warnings {
        Warnings {
            first: Some(
                ErrorKind::TrailingBytes {
                    len,
                    store_like: store_like.is_some(),
                }
                .at(at),
            ),
            second: store_like,
        }
    }

    /// The warnings for a classification of the bytes at byte `at` of the input.
    pub(crate) fn of(after: After, at: u64) -> Warnings {
        match after {
            After::Nothing | After::Store(_) => Warnings::none(),
            After::Trailing { len, store_like } => Warnings {
                first: Some(
                    ErrorKind::TrailingBytes {
                        len,
                        store_like: store_like.is_some(),
                    }
                    .at(at),
                ),
                second: store_like.map(|e| e.rebased(at)),
            },
        }
    }
}

impl Iterator for Warnings {
    type Item = Error;

    fn next(&mut self) -> Option<Error> {
        self.first.take().or_else(|| self.second.take())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::from(self.first.is_some()) + usize::from(self.second.is_some());
        (n, Some(n))
    }
}

impl ExactSizeIterator for Warnings {}
impl FusedIterator for Warnings {}
