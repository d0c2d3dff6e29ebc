//! The writer: bytes gathered, then packed with [`PackOptions`] (feature `blosc`).

use alloc::borrow::Cow;
use alloc::vec::Vec;
use std::io::Write;
use std::path::Path;

use crate::error::Result;
use crate::pack::{PackOptions, out_of_memory};

/// Packs bytes into a Bloscpack file, with the shape every binfmt writer has: bytes are
/// added with [`add`](Writer::add), then written with [`finish`](Writer::finish),
/// [`to_vec`](Writer::to_vec), [`write_to`](Writer::write_to) (any `Write`) or
/// [`write_to_path`](Writer::write_to_path).
///
/// A Bloscpack header states the chunk count and the last chunk's size, and chunks are cut
/// from the input as a whole, so nothing is written before every byte is known: the
/// writer keeps what it is given (borrowed slices stay borrowed) and packs it all at
/// once. One added slice is packed where it lies; several are joined into one buffer
/// first. For data already in one slice, the [`PackOptions`] methods (`to_vec(data)`,
/// `write_to(data, out)`, …) do the same without a writer.
///
/// ```
/// use bloscpack_header::{Bloscpack, PackOptions, UnpackOptions, Writer};
/// # fn main() -> Result<(), bloscpack_header::Error> {
/// let mut writer = Writer::new(PackOptions { chunk_size: 4, ..PackOptions::default() });
/// writer.add(&b"hello, "[..]).add(b"world".to_vec());
/// let file = writer.finish()?;
/// let pack = Bloscpack::parse(&file)?;
/// assert_eq!(pack.nchunks(), 3);
/// assert_eq!(pack.unpack_to_vec(&UnpackOptions::DEFAULT)?, b"hello, world");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Writer<'a> {
    options: PackOptions,
    pieces: Vec<Cow<'a, [u8]>>,
}

impl<'a> Writer<'a> {
    /// A writer with no data yet (it writes the file of empty input: one empty chunk).
    #[must_use]
    pub fn new(options: PackOptions) -> Self {
        Writer {
            options,
            pieces: Vec::new(),
        }
    }

    /// The options.
    #[must_use]
    pub fn options(&self) -> &PackOptions {
        &self.options
    }

    /// The number of bytes added so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pieces
            .iter()
            .fold(0usize, |n, p| n.saturating_add(p.len()))
    }

    /// True when no byte was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(|p| p.is_empty())
    }

    /// Appends `data` (a borrowed slice, kept borrowed, or an owned `Vec<u8>`) to the
    /// bytes to pack.
    pub fn add(&mut self, data: impl Into<Cow<'a, [u8]>>) -> &mut Self {
        let data = data.into();
        if !data.is_empty() {
            self.pieces.push(data);
        }
        self
    }

    /// Every byte added, in one slice: borrowed when there is at most one piece, joined
    /// otherwise.
    fn data(&self) -> Result<Cow<'_, [u8]>> {
        match self.pieces.as_slice() {
            [] => Ok(Cow::Borrowed(&[])),
            [one] => Ok(Cow::Borrowed(one)),
            many => {
                let len = self.len();
                let mut joined = Vec::new();
                joined
                    .try_reserve_exact(len)
                    .map_err(|_| out_of_memory(len))?;
                for piece in many {
                    joined.extend_from_slice(piece);
                }
                Ok(Cow::Owned(joined))
            }
        }
    }

    /// Ends the writer and returns the file: [`Writer::to_vec`] for the last time, the
    /// one `finish` every binfmt writer has.
    ///
    /// # Errors
    /// As [`PackOptions::to_vec`].
    pub fn finish(self) -> Result<Vec<u8>> {
        self.to_vec()
    }

    /// The file, in memory ([`PackOptions::to_vec`]).
    ///
    /// # Errors
    /// As [`PackOptions::to_vec`].
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        self.options.to_vec(&self.data()?)
    }

    /// Writes the file to `out`, which need not seek, and returns its size
    /// ([`PackOptions::write_to`]: every chunk is compressed before the first byte is
    /// written).
    ///
    /// # Errors
    /// As [`PackOptions::write_to`].
    pub fn write_to<W: Write>(&self, out: W) -> Result<u64> {
        self.options.write_to(&self.data()?, out)
    }

    /// Writes the file to the file at `path`, replacing it atomically, and returns its
    /// size ([`PackOptions::write_to_path`]).
    ///
    /// # Errors
    /// As [`PackOptions::write_to_path`]; `path` is untouched on error.
    pub fn write_to_path(&self, path: impl AsRef<Path>) -> Result<u64> {
        self.options.write_to_path(&self.data()?, path)
    }
}
