//! [`ValueBuf`]: a value with the bytes it was decoded from, as the ranged accesses of a
//! [`Dataset`](crate::Dataset) (and so a [`Reader`](crate::Reader)) hand them out.

use alloc::borrow::Cow;
use alloc::string::String;

use crate::error::ValueProblem;
use crate::slot::{self, Shape};
use crate::value::Value;

/// Checked text, without copying the bytes.
pub(crate) fn into_text(
    payload: Cow<'_, [u8]>,
) -> core::result::Result<Cow<'_, str>, ValueProblem> {
    match payload {
        Cow::Borrowed(b) => slot::utf8(b).map(Cow::Borrowed),
        Cow::Owned(v) => String::from_utf8(v)
            .map(Cow::Owned)
            .map_err(|e| ValueProblem::NotUtf8 {
                valid_up_to: e.utf8_error().valid_up_to(),
            }),
    }
}

/// A value read by [`Dataset::fetch`](crate::Dataset::fetch) (and so by a
/// [`Reader`](crate::Reader)), with the bytes it was decoded from: fetched from the
/// source (owned), or borrowed (bytes in memory, or held by the cache, such as the head).
///
/// Its rules were checked when it was read; [`ValueBuf::value`] hands out the
/// [`Value`] without checking anything again.
#[derive(Debug, Clone)]
pub struct ValueBuf<'r> {
    shape: Shape,
    bytes: Bytes<'r>,
}

#[derive(Debug, Clone)]
enum Bytes<'r> {
    Raw(Cow<'r, [u8]>),
    /// JSON and UTF-8 text, checked once.
    Text(Cow<'r, str>),
}

impl<'r> ValueBuf<'r> {
    /// A value decoded from `payload`, raw.
    pub(crate) fn raw(shape: Shape, payload: Cow<'r, [u8]>) -> Self {
        ValueBuf {
            shape,
            bytes: Bytes::Raw(payload),
        }
    }

    /// A value decoded from `text`, checked once.
    pub(crate) fn text(shape: Shape, text: Cow<'r, str>) -> Self {
        ValueBuf {
            shape,
            bytes: Bytes::Text(text),
        }
    }

    /// A value that needs no payload: its slot is kept only for unknown types.
    pub(crate) fn done(shape: Shape, slot: Cow<'r, [u8]>) -> Self {
        let bytes = if shape == Shape::Unknown {
            Bytes::Raw(slot)
        } else if shape.is_text() {
            Bytes::Text(Cow::Borrowed(""))
        } else {
            Bytes::Raw(Cow::Borrowed(&[]))
        };
        ValueBuf { shape, bytes }
    }

    /// The value.
    #[must_use]
    pub fn value(&self) -> Value<'_> {
        match &self.bytes {
            Bytes::Raw(b) => self.shape.with(b, ""),
            Bytes::Text(t) => self.shape.with(t.as_bytes(), t),
        }
    }

    /// The payload's bytes (an unknown type's slot; empty for null, INT and FLOAT).
    #[must_use]
    pub fn payload(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Raw(b) => b,
            Bytes::Text(t) => t.as_bytes(),
        }
    }

    /// The payload's bytes, without copying them.
    #[must_use]
    pub fn into_payload(self) -> Cow<'r, [u8]> {
        match self.bytes {
            Bytes::Raw(b) => b,
            Bytes::Text(Cow::Borrowed(t)) => Cow::Borrowed(t.as_bytes()),
            Bytes::Text(Cow::Owned(t)) => Cow::Owned(t.into_bytes()),
        }
    }
}

impl PartialEq for ValueBuf<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}
