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
/// ```
/// use taridx::ReadOptions;
/// let options = ReadOptions::new().lenient(true);
/// assert!(!options.checks_header_sizes() && !options.checks_row_ids());
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

    /// True when `hdr_size` and `rec_size` are checked.
    #[must_use]
    pub const fn checks_header_sizes(&self) -> bool {
        self.header_sizes
    }

    /// True when row ids are checked.
    #[must_use]
    pub const fn checks_row_ids(&self) -> bool {
        self.row_ids
    }
}
