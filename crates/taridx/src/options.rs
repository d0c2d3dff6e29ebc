//! How strictly an index is read: one options value for `Index::parse_with`, `verify`
//! and `Reader`.

/// Which checks reading an index performs. The default is every check of the format.
///
/// A lenient read (`lenient(true)`) is for salvaging files written by buggy tools: it
/// ignores `hdr_size` and `rec_size` and does not check row ids against the block counts
/// (rows with out-of-range ids then read as having no extension or crash stem).
/// Everything that bounds a memory access is checked whatever the options; `verify`
/// reports what a lenient read ignores as warnings.
///
/// Each setter `foo(value) -> Self` has a getter `get_foo()`, the rule of every
/// `ReadOptions` in the workspace (docs/architecture.md): the setter holds the option's
/// name, so the getter is the one place a `get_` prefix is used. [`lenient`] sets two
/// options, so [`get_lenient`] is true only when both checks are off.
///
/// [`lenient`]: ReadOptions::lenient
/// [`get_lenient`]: ReadOptions::get_lenient
///
/// ```
/// use taridx::ReadOptions;
/// let options = ReadOptions::new().lenient(true);
/// assert!(!options.get_header_sizes() && !options.get_row_ids());
/// assert!(options.get_lenient());
/// assert_eq!(ReadOptions::default(), ReadOptions::new());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    header_sizes: bool,
    row_ids: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::new()
    }
}

impl ReadOptions {
    /// Every check on.
    #[must_use]
    pub const fn new() -> Self {
        ReadOptions {
            header_sizes: true,
            row_ids: true,
        }
    }

    /// Whether `hdr_size` must be 64 and `rec_size` 32.
    #[must_use]
    pub const fn header_sizes(mut self, check: bool) -> Self {
        self.header_sizes = check;
        self
    }

    /// Whether every row's `extid` must be below `n_ext` and its `crashid` at most
    /// `n_crash` (checked when a row is decoded).
    #[must_use]
    pub const fn row_ids(mut self, check: bool) -> Self {
        self.row_ids = check;
        self
    }

    /// Both of the above off (`true`) or on (`false`).
    #[must_use]
    pub const fn lenient(self, lenient: bool) -> Self {
        self.header_sizes(!lenient).row_ids(!lenient)
    }

    /// The value set by [`header_sizes`](ReadOptions::header_sizes): true when
    /// `hdr_size` and `rec_size` are checked.
    #[must_use]
    pub const fn get_header_sizes(&self) -> bool {
        self.header_sizes
    }

    /// The value set by [`row_ids`](ReadOptions::row_ids): true when row ids are checked.
    #[must_use]
    pub const fn get_row_ids(&self) -> bool {
        self.row_ids
    }

    /// True when [`lenient(true)`](ReadOptions::lenient) holds: neither the header sizes
    /// nor the row ids are checked. False when either check is on.
    ///
    /// ```
    /// use taridx::ReadOptions;
    /// assert!(!ReadOptions::new().get_lenient());
    /// assert!(!ReadOptions::new().row_ids(false).get_lenient());
    /// assert!(ReadOptions::new().lenient(true).get_lenient());
    /// ```
    #[must_use]
    pub const fn get_lenient(&self) -> bool {
        !self.header_sizes && !self.row_ids
    }

    /// The earlier name of [`get_header_sizes`](ReadOptions::get_header_sizes).
    #[deprecated(note = "use ReadOptions::get_header_sizes")]
    #[must_use]
    pub const fn checks_header_sizes(&self) -> bool {
        self.get_header_sizes()
    }

    /// The earlier name of [`get_row_ids`](ReadOptions::get_row_ids).
    #[deprecated(note = "use ReadOptions::get_row_ids")]
    #[must_use]
    pub const fn checks_row_ids(&self) -> bool {
        self.get_row_ids()
    }
}
