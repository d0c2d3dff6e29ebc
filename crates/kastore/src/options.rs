//! How stores are read.

/// Options for every reader of this crate: [`Store::parse_with`](crate::Store::parse_with),
/// [`stores_with`](crate::stores_with), [`verify`](crate::verify), the
/// [`StreamReader`](crate::StreamReader) and the [`Reader`](crate::Reader).
///
/// The default checks every rule and accepts stores of any size. There is no switch for
/// the format's rules themselves (unsorted or duplicate keys are always errors: no writer
/// produces them and the reference readers disagree about what they mean), and bytes
/// after the last store are always accepted with a warning, as the reference readers
/// accept them.
///
/// Each setter `foo(value) -> Self` has a getter `get_foo()`, the rule of every
/// `ReadOptions` in the workspace (docs/architecture.md): the setter holds the option's
/// name, so the getter is the one place a `get_` prefix is used.
///
/// ```
/// use kastore::{ErrorKind, ReadOptions, Store};
/// let bytes = kastore::Writer::new().add("x", &[0u64; 100])?.to_vec()?;
/// let small = ReadOptions::new().max_store_size(512);
/// let e = Store::parse_with(&bytes, &small).unwrap_err();
/// assert!(matches!(e.kind(), ErrorKind::TooLarge { file_size: 936, limit: 512, .. }));
/// # Ok::<(), kastore::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    max_store_size: u64,
}

impl ReadOptions {
    /// Every check on, no size limit.
    #[must_use]
    pub const fn new() -> ReadOptions {
        ReadOptions {
            max_store_size: u64::MAX,
        }
    }

    /// The largest `file_size` accepted, in bytes (default: no limit). A larger store is
    /// [`ErrorKind::TooLarge`](crate::ErrorKind::TooLarge), reported right after its
    /// header has been checked, before anything else of it is read.
    ///
    /// A stream reader's memory already follows the bytes that really arrive, never what
    /// a header claims; this bounds honest-but-huge stores.
    #[must_use]
    pub const fn max_store_size(mut self, bytes: u64) -> ReadOptions {
        self.max_store_size = bytes;
        self
    }

    /// The value set by [`max_store_size`](ReadOptions::max_store_size): the largest
    /// `file_size` accepted, in bytes.
    ///
    /// ```
    /// let options = kastore::ReadOptions::new().max_store_size(512);
    /// assert_eq!(options.get_max_store_size(), 512);
    /// ```
    #[must_use]
    pub const fn get_max_store_size(&self) -> u64 {
        self.max_store_size
    }

    /// The earlier name of [`get_max_store_size`](ReadOptions::get_max_store_size).
    #[deprecated(note = "use ReadOptions::get_max_store_size")]
    #[must_use]
    pub const fn store_size_limit(&self) -> u64 {
        self.get_max_store_size()
    }
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions::new()
    }
}
