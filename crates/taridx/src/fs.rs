//! Files: a fold's shards, reading and mapping, payloads, indexing shards from disk, and
//! a [`Reader`] over files.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
#[cfg(feature = "mmap")]
use std::string::ToString;
use std::vec::Vec;

use binfmt_core::IoError;
use binfmt_core::source::FileSource;

use crate::build::shard_suffix;
use crate::error::Result;
use crate::index::Entry;
use crate::options::ReadOptions;
use crate::reader::Reader;

/// The shards of fold `fold` in `dir`: files `<fold>_<suffix>.tar` (exactly one `_`),
/// ordered by suffix as bytes. Other files are ignored.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io) when the directory cannot be read.
pub fn fold_shards(dir: impl AsRef<Path>, fold: &str) -> Result<Vec<PathBuf>> {
    let dir = dir.as_ref();
    let fail = |e| IoError::new(Some(dir.to_path_buf()), e);
    let mut found: Vec<(Vec<u8>, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(suffix) = shard_suffix(fold, name) {
            found.push((suffix.as_bytes().to_vec(), entry.path()));
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

/// The shards of the fold an index file belongs to: the index `DIR/FOLD.taridx` is
/// next to its shards `DIR/FOLD_*.tar`.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io) when the directory cannot be read.
pub fn shards_of_index(index: impl AsRef<Path>) -> Result<Vec<PathBuf>> {
    let index = index.as_ref();
    let dir = match index.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fold = index.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    fold_shards(dir, fold)
}

binfmt_core::fs_fns! {
    /// Reads a whole file (an index or a shard) with ordinary reads.
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the file.
    pub fn read;

    /// Memory-maps a file read-only (an index or a shard), so that only the pages that are
    /// used are read: the caller promises that the file is not truncated meanwhile (see
    /// `binfmt_core::mmap`; [`open`] reads with `pread` instead).
    ///
    /// # Errors
    /// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the file.
    pub fn map;
}

/// The [`Reader`] of an index file and the shards next to it (the index
/// `DIR/FOLD.taridx`, its shards `DIR/FOLD_*.tar`, see [`shards_of_index`]), with every
/// check: [`open_with`] with the default [`ReadOptions`]. The index is read once, whole;
/// each member with one positioned read.
///
/// ```no_run
/// let reader = taridx::fs::open("data/train.taridx")?;
/// for member in reader.sample("sample000001")? {
///     println!("{} bytes", member.payload().len());
/// }
/// # Ok::<(), taridx::Error>(())
/// ```
///
/// # Errors
/// As [`open_with`].
pub fn open(index: impl AsRef<Path>) -> Result<Reader<FileSource>> {
    open_with(index, &ReadOptions::new())
}

/// [`open`] with `options`: the index at `index` and the shards next to it.
///
/// # Errors
/// As [`shards_of_index`] and [`open_with_shards`].
pub fn open_with(index: impl AsRef<Path>, options: &ReadOptions) -> Result<Reader<FileSource>> {
    let index = index.as_ref();
    let shards = shards_of_index(index)?;
    open_with_shards(index, &shards, options)
}

/// A [`Reader`] over an index file and the shard files given, in the index's shard
/// order (positioned reads, no maps): the index is read whole, each member with one
/// read of its header blocks and payload. For shards that are not next to the index,
/// or not named after its fold; [`open_with`] finds them when they are.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the file that failed; the index's
/// parse errors (see [`Reader::open_with`]).
pub fn open_with_shards(
    index: impl AsRef<Path>,
    shards: &[PathBuf],
    options: &ReadOptions,
) -> Result<Reader<FileSource>> {
    let index = index.as_ref();
    let source = FileSource::open(index).map_err(IoError::at_path(index))?;
    let shards = shards
        .iter()
        .map(|p| FileSource::open(p).map_err(IoError::at_path(p)))
        .collect::<Result<Vec<_>, IoError>>()?;
    Reader::open_with(&source, shards, options)
}

/// The earlier name of [`open_with_shards`].
///
/// # Errors
/// As [`open_with_shards`].
#[deprecated(note = "use fs::open_with_shards (or fs::open_with for the shards next to the index)")]
pub fn open_reader(
    index: impl AsRef<Path>,
    shards: &[PathBuf],
    options: &ReadOptions,
) -> Result<Reader<FileSource>> {
    open_with_shards(index, shards, options)
}

/// Indexes the given shards in order, each memory-mapped so that only the pages
/// holding headers are read.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io), and the indexer's errors (see
/// [`Writer::add`](crate::Writer::add)). The index and the report are
/// [`Writer::finish`](crate::Writer::finish)'s.
#[cfg(feature = "mmap")]
pub fn index_shards(shards: &[PathBuf], options: crate::BuildOptions) -> Result<crate::Finished> {
    if shards.len() > 1 << 16 && options.mode() == crate::Mode::Strict {
        return Err(binfmt_core::Kind::unlocated(
            crate::ErrorKind::TooManyShards {
                count: shards.len(),
            },
        ));
    }
    let mut writer = crate::Writer::new(options);
    for path in shards {
        let data = map(path)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        writer.add(name, &data)?;
    }
    writer.finish()
}

/// Copies an entry's payload from its shard file to `out`, reading only the payload.
/// Returns the number of bytes copied (the entry's size).
///
/// Streams the payload (not its headers) without holding it in memory.
///
/// # Errors
/// [`ErrorKind::Io`](crate::ErrorKind::Io) naming the shard (a write error has no
/// path: it is `out`'s); [`ErrorKind::Layout`](crate::ErrorKind::Layout) (truncated)
/// when the shard is shorter than the payload's end.
pub fn copy_payload(shard: impl AsRef<Path>, entry: &Entry, out: &mut impl Write) -> Result<u64> {
    let shard = shard.as_ref();
    let fail = IoError::at_path(shard);
    let mut file = File::open(shard).map_err(IoError::at_path(shard))?;
    let len = file.metadata().map_err(IoError::at_path(shard))?.len();
    let start = entry
        .payload_offset()
        .ok_or_else(|| binfmt_core::Error::overflow("member payload", entry.offset))?;
    binfmt_core::bytes::checked_range(start, entry.size, len, "member payload")?;
    file.seek(SeekFrom::Start(start))
        .map_err(IoError::at_path(shard))?;
    // Read errors are the shard's, write errors `out`'s (a closed pipe is not the shard's
    // fault), so the copy is written out rather than `io::copy`.
    let mut reader = (&mut file).take(entry.size);
    let mut buf = std::vec![0u8; 64 * 1024];
    let mut copied = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(IoError::new(Some(shard.to_path_buf()), e).into()),
        };
        out.write_all(buf.get(..n).unwrap_or(&[]))
            .map_err(IoError::from)?;
        copied = copied.saturating_add(binfmt_core::bytes::to_u64(n));
    }
    if copied != entry.size {
        return Err(fail(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the shard shrank while its payload was read",
        ))
        .into());
    }
    Ok(copied)
}
