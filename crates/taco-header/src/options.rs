//! What a read checks: the one options value of [`Header::parse_with`],
//! [`Archive::parse_with`], [`Reader::open_with`] and [`verify`].
//!
//! [`Header::parse_with`]: crate::Header::parse_with
//! [`Archive::parse_with`]: crate::Archive::parse_with
//! [`Reader::open_with`]: crate::Reader::open_with
//! [`verify`]: crate::verify()

/// What reading an archive checks. The default checks everything.
///
/// * [`checksums`](ReadOptions::checksums): compute CRC-32s. On parse, the header's CRC
///   (and, for a whole archive, that it agrees with the central directory's copy); in
///   [`verify`](crate::verify()), also every stored member's data. Off for hot paths that
///   already trust the bytes (a checksummed transport), or to list a damaged archive.
/// * [`lenient`](ReadOptions::lenient): accept any header tacozip 0.13's `parse_header`
///   accepts: only the signature, the name and the count ≤ 7 are required, and the
///   payload is read at byte 41 whatever the other fields say. What the strict checks
///   would have said becomes warnings ([`Header::warnings`](crate::Header::warnings), and
///   `verify` reports them at [`Severity::Warning`](crate::Severity::Warning)). The ZIP
///   structure around the header is checked either way.
///
/// Each setter `foo(value) -> Self` has a getter `get_foo()`, the rule of every
/// `ReadOptions` in the workspace (docs/architecture.md): the setter holds the option's
/// name, so the getter is the one place a `get_` prefix is used.
///
/// tacozip's own `parse_header`, exactly: `ReadOptions::new().lenient(true).checksums(false)`.
///
/// ```
/// use taco_header::{Entries, Header, ReadOptions};
/// let mut bytes = Entries::new().to_header_bytes();
/// bytes[8] = 8; // "deflated": tacozip reads it anyway
/// assert!(Header::parse(&bytes).is_err());
/// let tacozip = ReadOptions::new().lenient(true).checksums(false);
/// let header = Header::parse_with(&bytes, &tacozip)?;
/// assert_eq!(header.warnings().count(), 1);
/// # Ok::<(), taco_header::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    checksums: bool,
    lenient: bool,
}

impl ReadOptions {
    /// Every check on: checksums computed, strict header.
    #[must_use]
    pub const fn new() -> Self {
        ReadOptions {
            checksums: true,
            lenient: false,
        }
    }

    /// Whether CRC-32s are computed and compared (default: true).
    #[must_use]
    pub const fn checksums(mut self, checksums: bool) -> Self {
        self.checksums = checksums;
        self
    }

    /// Whether the header need only pass tacozip's checks (default: false).
    #[must_use]
    pub const fn lenient(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }

    /// The value set by [`checksums`](ReadOptions::checksums): true when CRC-32s are
    /// computed.
    ///
    /// ```
    /// assert!(taco_header::ReadOptions::new().get_checksums());
    /// ```
    #[must_use]
    pub const fn get_checksums(&self) -> bool {
        self.checksums
    }

    /// The value set by [`lenient`](ReadOptions::lenient): true when the header need only
    /// pass tacozip's checks.
    ///
    /// ```
    /// assert!(taco_header::ReadOptions::new().lenient(true).get_lenient());
    /// ```
    #[must_use]
    pub const fn get_lenient(&self) -> bool {
        self.lenient
    }

    /// The earlier name of [`get_checksums`](ReadOptions::get_checksums).
    #[deprecated(note = "use ReadOptions::get_checksums")]
    #[must_use]
    pub const fn checks_checksums(&self) -> bool {
        self.get_checksums()
    }

    /// The earlier name of [`get_lenient`](ReadOptions::get_lenient).
    #[deprecated(note = "use ReadOptions::get_lenient")]
    #[must_use]
    pub const fn is_lenient(&self) -> bool {
        self.get_lenient()
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::new()
    }
}
