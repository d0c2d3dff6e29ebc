//! Files: a fold's shards, reading and mapping, payloads, indexing shards from disk.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
#[cfg(feature = "mmap")]
use std::string::ToString;
use std::vec::Vec;

use crate::build::shard_suffix;
use crate::error::{Error, Result};
use crate::index::Entry;

/// The shards of fold `fold` in `dir`: files `<fold>_<suffix>.tar` (exactly one `_`),
/// ordered by suffix as bytes. Other files are ignored.
///
/// # Errors
/// [`Error::Io`] when the directory cannot be read.
pub fn fold_shards(dir: impl AsRef<Path>, fold: &str) -> Result<Vec<PathBuf>> {
    let dir = dir.as_ref();
    let fail = |e| Error::io(dir, e);
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
/// [`Error::Io`] when the directory cannot be read.
pub fn shards_of_index(index: impl AsRef<Path>) -> Result<Vec<PathBuf>> {
    let index = index.as_ref();
    let dir = match index.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fold = index.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    fold_shards(dir, fold)
}

/// Reads a whole file.
///
/// # Errors
/// [`Error::Io`].
pub fn read(path: impl AsRef<Path>) -> Result<Vec<u8>> {
    let path = path.as_ref();
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Memory-maps a file read-only (an index or a shard). The file must not be modified
/// while mapped; see `binfmt_core::mmap`.
///
/// # Errors
/// [`Error::Io`].
#[cfg(feature = "mmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mmap")))]
pub fn map(path: impl AsRef<Path>) -> Result<binfmt_core::mmap::Mmap> {
    let path = path.as_ref();
    binfmt_core::mmap::Mmap::open(path).map_err(|e| Error::io(path, e))
}

/// Indexes the given shards in order, each memory-mapped so that only the pages
/// holding headers are read.
///
/// # Errors
/// [`Error::Io`], and the indexer's errors (see [`IndexBuilder::add_shard`](crate::IndexBuilder::add_shard)).
#[cfg(feature = "mmap")]
#[cfg_attr(docsrs, doc(cfg(feature = "mmap")))]
pub fn index_shards(
    shards: &[PathBuf],
    options: crate::BuildOptions,
) -> Result<(crate::IndexFile, crate::Report)> {
    if shards.len() > 1 << 16 && options.mode() == crate::Mode::Strict {
        return Err(Error::TooManyShards {
            count: shards.len(),
        });
    }
    let mut builder = crate::IndexBuilder::new(options);
    for path in shards {
        let data = map(path)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        builder.add_shard(name, &data)?;
    }
    Ok(builder.finish())
}

/// Copies an entry's payload from its shard file to `out`, reading only the payload.
/// Returns the number of bytes copied (the entry's size).
///
/// # Errors
/// [`Error::Io`] for the shard; [`Error::Layout`] (truncated) when the shard is shorter
/// than the payload's end.
pub fn copy_payload(shard: impl AsRef<Path>, entry: &Entry, out: &mut impl Write) -> Result<u64> {
    let shard = shard.as_ref();
    let fail = |e| Error::io(shard, e);
    let mut file = File::open(shard).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    let start = entry.payload_offset().ok_or(binfmt_core::Error::Overflow {
        what: "member payload",
        offset: entry.offset,
    })?;
    let end = entry.payload_end().unwrap_or(u64::MAX);
    if end > len {
        return Err(binfmt_core::Error::Truncated {
            what: "member payload",
            offset: start,
            needed: entry.size,
            available: len.saturating_sub(start),
        }
        .into());
    }
    file.seek(SeekFrom::Start(start)).map_err(fail)?;
    let copied = io::copy(&mut (&mut file).take(entry.size), out).map_err(fail)?;
    if copied != entry.size {
        return Err(fail(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the shard shrank while its payload was read",
        )));
    }
    Ok(copied)
}
