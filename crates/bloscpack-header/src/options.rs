//! How files are read: one [`ReadOptions`] for `parse_with`, [`verify`](crate::verify)
//! and the [`Reader`](crate::Reader).

/// How strictly, and how far, a file is read.
///
/// The default checks everything, reads format versions 2 and 3, and inflates metadata
/// of at most 16 MiB. [`ReadOptions::BLOSCPACK`] reads only version 3, as every bloscpack
/// release since 0.3.0 does.
///
/// ```
/// use bloscpack_header::ReadOptions;
/// let strict = ReadOptions::new().accept_version_2(false).max_metadata_size(1 << 20);
/// assert!(!strict.version_2_accepted());
/// assert_eq!(strict.metadata_limit(), 1 << 20);
/// assert_eq!(ReadOptions::default(), ReadOptions::new());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    accept_version_2: bool,
    checksums: bool,
    max_metadata_size: u64,
}

impl ReadOptions {
    /// Format versions 2 and 3, every digest checked by `verify`, metadata up to 16 MiB.
    #[must_use]
    pub const fn new() -> Self {
        ReadOptions {
            accept_version_2: true,
            checksums: true,
            max_metadata_size: 16 << 20,
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

    /// Whether format 2 is read.
    #[must_use]
    pub const fn version_2_accepted(&self) -> bool {
        self.accept_version_2
    }

    /// Whether digests are compared.
    #[must_use]
    pub const fn checksums_checked(&self) -> bool {
        self.checksums
    }

    /// The metadata limit, in bytes.
    #[must_use]
    pub const fn metadata_limit(&self) -> u64 {
        self.max_metadata_size
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::new()
    }
}
