//! What a reader checks beyond what it must.

/// Which optional checks [`Dataset::parse_with`](crate::Dataset::parse_with),
/// [`Reader::open_with`](crate::Reader::open_with) and [`verify`](crate::verify) run on a
/// checksummed file.
///
/// The default runs every check. The header CRC of a checksummed file is always
/// checked (it covers 69 bytes that every read needs anyway). Turning the other two off
/// makes opening O(F) and access free of CRC work; [`verify`](crate::verify) then checks
/// the structure and every rule but no CRC beyond the header's.
///
/// Each setter `foo(value) -> Self` has a getter `get_foo()`, the rule of every
/// `ReadOptions` in the workspace (docs/architecture.md): the setter holds the option's
/// name, so the getter is the one place a `get_` prefix is used. [`checksums`] sets two
/// options, so [`get_checksums`] is true only when both are on.
///
/// [`checksums`]: ReadOptions::checksums
/// [`get_checksums`]: ReadOptions::get_checksums
///
/// ```
/// use mldf::ReadOptions;
/// // What `binfmt inspect` uses: structure only.
/// const STRUCTURE: ReadOptions = ReadOptions::new().checksums(false);
/// assert!(!STRUCTURE.get_item_checksums() && !STRUCTURE.get_index_checksum());
/// // Check each item as it is read, but do not read the whole index at open.
/// let lazy = ReadOptions::new().index_checksum(false);
/// assert!(lazy.get_item_checksums() && !lazy.get_index_checksum());
/// assert!(!lazy.get_checksums()); // both must be on
/// assert_eq!(ReadOptions::default(), ReadOptions::new());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    index_checksum: bool,
    item_checksums: bool,
    max_memory: u64,
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
            index_checksum: true,
            item_checksums: true,
            max_memory: Self::DEFAULT_MAX_MEMORY,
        }
    }

    /// The most metadata a [`crate::Reader`] keeps in memory by default: 256 MiB.
    pub const DEFAULT_MAX_MEMORY: u64 = 256 << 20;

    /// The most bytes of metadata (the head, the descriptors, the allocation table when
    /// item CRCs are checked) that a [`crate::Reader`]'s cache may hold; opening a file
    /// that needs more fails with an `OutOfMemory` I/O error, never an abort. Values
    /// and the pieces the index CRC reads are not held. Input in memory needs no cache.
    ///
    /// ```
    /// let options = mldf::ReadOptions::new().memory_limit(1 << 20);
    /// assert_eq!(options.get_memory_limit(), 1 << 20);
    /// assert_eq!(
    ///     mldf::ReadOptions::new().get_memory_limit(),
    ///     mldf::ReadOptions::DEFAULT_MAX_MEMORY
    /// );
    /// ```
    #[must_use]
    pub const fn memory_limit(mut self, bytes: u64) -> Self {
        self.max_memory = bytes;
        self
    }

    /// The value set by [`memory_limit`](ReadOptions::memory_limit): the most bytes a
    /// reader's cache may hold.
    #[must_use]
    pub const fn get_memory_limit(&self) -> u64 {
        self.max_memory
    }

    /// The earlier name of [`get_memory_limit`](ReadOptions::get_memory_limit).
    #[deprecated(note = "use ReadOptions::get_memory_limit")]
    #[must_use]
    pub const fn max_memory(&self) -> u64 {
        self.get_memory_limit()
    }

    /// Both optional CRC checks, the index CRC and the item CRCs, on or off.
    #[must_use]
    pub const fn checksums(self, on: bool) -> Self {
        self.index_checksum(on).item_checksums(on)
    }

    /// Whether opening checks the index CRC. It covers the descriptors, the metadata
    /// table and the allocation table, so opening reads all three once.
    #[must_use]
    pub const fn index_checksum(mut self, on: bool) -> Self {
        self.index_checksum = on;
        self
    }

    /// Whether each access checks the CRC of the item it returns (a binary search of
    /// the allocation table and one pass over the payload). Opening then also checks the
    /// allocation table's order, which the search relies on, and a [`crate::Reader`]
    /// fetches the table at open.
    #[must_use]
    pub const fn item_checksums(mut self, on: bool) -> Self {
        self.item_checksums = on;
        self
    }

    /// True when [`checksums(true)`](ReadOptions::checksums) holds: both the index CRC
    /// and the item CRCs are checked. False when either is off (see
    /// [`get_index_checksum`](ReadOptions::get_index_checksum) and
    /// [`get_item_checksums`](ReadOptions::get_item_checksums) for which).
    ///
    /// ```
    /// use mldf::ReadOptions;
    /// assert!(ReadOptions::new().get_checksums());
    /// assert!(!ReadOptions::new().item_checksums(false).get_checksums());
    /// ```
    #[must_use]
    pub const fn get_checksums(&self) -> bool {
        self.index_checksum && self.item_checksums
    }

    /// The value set by [`index_checksum`](ReadOptions::index_checksum): whether the
    /// index CRC is checked.
    #[must_use]
    pub const fn get_index_checksum(&self) -> bool {
        self.index_checksum
    }

    /// The value set by [`item_checksums`](ReadOptions::item_checksums): whether item
    /// CRCs are checked.
    #[must_use]
    pub const fn get_item_checksums(&self) -> bool {
        self.item_checksums
    }

    /// The earlier name of [`get_index_checksum`](ReadOptions::get_index_checksum).
    #[deprecated(note = "use ReadOptions::get_index_checksum")]
    #[must_use]
    pub const fn checks_index(&self) -> bool {
        self.get_index_checksum()
    }

    /// The earlier name of [`get_item_checksums`](ReadOptions::get_item_checksums).
    #[deprecated(note = "use ReadOptions::get_item_checksums")]
    #[must_use]
    pub const fn checks_items(&self) -> bool {
        self.get_item_checksums()
    }
}
