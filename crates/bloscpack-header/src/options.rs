//! How files are read: one [`ReadOptions`] for `parse_with`, [`verify`](crate::verify)
//! and the [`Reader`](crate::Reader).

/// How strictly, and how far, a file is read.
///
/// The default checks everything, reads format versions 2 and 3, and inflates metadata
/// of at most 16 MiB. [`ReadOptions::BLOSCPACK`] reads only version 3, as every bloscpack
/// release since 0.3.0 does.
///
/// Each setter `foo(value) -> Self` has a getter `get_foo()`, the rule of every
/// `ReadOptions` in the workspace (docs/architecture.md): the setter holds the option's
/// name, so the getter is the one place a `get_` prefix is used.
///
/// ```
/// use bloscpack_header::ReadOptions;
/// let strict = ReadOptions::new().accept_version_2(false).max_metadata_size(1 << 20);
/// assert!(!strict.get_accept_version_2());
/// assert_eq!(strict.get_max_metadata_size(), 1 << 20);
/// assert_eq!(ReadOptions::default(), ReadOptions::new());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    accept_version_2: bool,
    checksums: bool,
    max_metadata_size: u64,
    read_every_chunk: bool,
}

impl ReadOptions {
    /// Format versions 2 and 3, every digest checked by `verify`, metadata up to 16 MiB.
    #[must_use]
    pub const fn new() -> Self {
        ReadOptions {
            accept_version_2: true,
            checksums: true,
            max_metadata_size: 16 << 20,
            read_every_chunk: false,
        }
    }

    /// Only format version 3, like bloscpack 0.16.
    pub const BLOSCPACK: ReadOptions = ReadOptions::new().accept_version_2(false);

    /// Read format 2 (bloscpack 0.2, the seed RFC: bytes 24..32 reserved and zero, no
    /// metadata bit) as a format 3 file without spare slots. Default: true.
    #[must_use]
    pub const fn accept_version_2(mut self, accept: bool) -> Self {
        self.accept_version_2 = accept;
        self
    }

    /// Compare the metadata's and every chunk's digest in `verify` (and before
    /// decompressing, in the [`Reader`](crate::Reader)). Default: true.
    #[must_use]
    pub const fn checksums(mut self, check: bool) -> Self {
        self.checksums = check;
        self
    }

    /// The most bytes the metadata may inflate to (`meta_size`); larger metadata is a
    /// [`MetadataLimit`](crate::ErrorKind::MetadataLimit) error, before anything is
    /// inflated. A zlib stream of a few kilobytes can claim gigabytes. Default: 16 MiB,
    /// far above what bloscpack writes (a small JSON dict).
    #[must_use]
    pub const fn max_metadata_size(mut self, max: u64) -> Self {
        self.max_metadata_size = max;
        self
    }

    /// The caller will read every chunk after parsing (to unpack the file, or check its
    /// digests): over a cache, the chunks the offsets section names are announced for
    /// reading ahead ([`Data::prefetch`](binfmt_core::data::Data::prefetch)) before the
    /// parse walks their headers, so that the first windows of chunks arrive while the
    /// headers are fetched (one round trip less per window in flight, over a long link).
    /// Bytes in memory and local files are not affected. [`verify`](crate::verify) always
    /// does this. Default: false (`inspect` and a read of one chunk want only the
    /// headers).
    ///
    /// ```
    /// use bloscpack_header::ReadOptions;
    /// assert!(ReadOptions::new().read_every_chunk(true).get_read_every_chunk());
    /// ```
    #[must_use]
    pub const fn read_every_chunk(mut self, yes: bool) -> Self {
        self.read_every_chunk = yes;
        self
    }

    /// The value set by [`read_every_chunk`](ReadOptions::read_every_chunk).
    #[must_use]
    pub const fn get_read_every_chunk(&self) -> bool {
        self.read_every_chunk
    }

    /// The value set by [`accept_version_2`](ReadOptions::accept_version_2): whether
    /// format 2 is read.
    #[must_use]
    pub const fn get_accept_version_2(&self) -> bool {
        self.accept_version_2
    }

    /// The value set by [`checksums`](ReadOptions::checksums): whether digests are
    /// compared.
    #[must_use]
    pub const fn get_checksums(&self) -> bool {
        self.checksums
    }

    /// The value set by [`max_metadata_size`](ReadOptions::max_metadata_size): the
    /// metadata limit, in bytes.
    #[must_use]
    pub const fn get_max_metadata_size(&self) -> u64 {
        self.max_metadata_size
    }

    /// The earlier name of [`get_accept_version_2`](ReadOptions::get_accept_version_2).
    #[deprecated(note = "use ReadOptions::get_accept_version_2")]
    #[must_use]
    pub const fn version_2_accepted(&self) -> bool {
        self.get_accept_version_2()
    }

    /// The earlier name of [`get_checksums`](ReadOptions::get_checksums).
    #[deprecated(note = "use ReadOptions::get_checksums")]
    #[must_use]
    pub const fn checksums_checked(&self) -> bool {
        self.get_checksums()
    }

    /// The earlier name of [`get_max_metadata_size`](ReadOptions::get_max_metadata_size).
    #[deprecated(note = "use ReadOptions::get_max_metadata_size")]
    #[must_use]
    pub const fn metadata_limit(&self) -> u64 {
        self.get_max_metadata_size()
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::new()
    }
}
