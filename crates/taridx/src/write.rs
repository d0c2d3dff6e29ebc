//! The owned index and its byte-exact serialization.

use alloc::string::String;
use alloc::vec::Vec;

use binfmt_core::le::{U16, U32, U64};
use zerocopy::IntoBytes;

use crate::error::{Block, Error, Result};
use crate::index::{FLAG_CONTIGUOUS, HEADER_SIZE, Index, MAGIC, ROW_SIZE, VERSION};
use crate::raw;

/// One row of an owned index, in native integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RowData {
    /// Shard id.
    pub fid: u16,
    /// Offset of the tar header immediately before the payload.
    pub offset: u64,
    /// Payload size.
    pub size: u64,
    /// Extension id.
    pub extid: u16,
    /// Crash id (0 = canonical).
    pub crashid: u32,
    /// XXH64 (seed 0) of the stem.
    pub keyhash: u64,
}

impl RowData {
    fn to_raw(self) -> raw::Row {
        raw::Row {
            fid: U16::new(self.fid),
            offset: U64::new(self.offset),
            size: U64::new(self.size),
            extid: U16::new(self.extid),
            crashid: U32::new(self.crashid),
            keyhash: U64::new(self.keyhash),
        }
    }
}

/// A complete, valid index in memory, ready to be written.
///
/// Built by [`IndexBuilder`](crate::IndexBuilder) from tar shards, or by
/// [`IndexFile::new`] from rows of your own. Everything is validated when the value is
/// made, so writing cannot fail for a reason of ours, and the bytes are a pure function
/// of the contents (deterministic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFile {
    exts: Vec<String>,
    crash: Vec<String>,
    rows: Vec<RowData>,
    n_stems: u64,
    contiguous: bool,
}

impl IndexFile {
    /// An index of `rows` with the extension table `exts` and the crash stems `crash`
    /// (crash id k is `crash[k - 1]`). `n_stems` and flag bit 0 are computed from the rows.
    ///
    /// # Errors
    /// [`Error::InvalidText`] for an extension or crash stem containing `\n`, or more
    /// than 65,536 extensions / 4,294,967,295 crash stems; [`Error::InvalidRow`] for a
    /// row whose extid or crashid is out of range.
    pub fn new(exts: Vec<String>, crash: Vec<String>, rows: Vec<RowData>) -> Result<Self> {
        check_texts(&exts, Block::Extensions, 1 << 16)?;
        check_texts(&crash, Block::CrashStems, u64::from(u32::MAX))?;
        let n_ext = exts.len();
        let n_crash = crash.len();
        for (i, r) in (0u64..).zip(&rows) {
            if usize::from(r.extid) >= n_ext {
                return Err(Error::InvalidRow {
                    row: i,
                    reason: "extension id is not below the number of extensions",
                });
            }
            if usize::try_from(r.crashid).map_or(true, |c| c > n_crash) {
                return Err(Error::InvalidRow {
                    row: i,
                    reason: "crash id is above the number of crash stems",
                });
            }
        }
        let (n_stems, runs) = count_stems(rows.iter().map(|r| (r.keyhash, r.crashid)));
        Ok(IndexFile {
            exts,
            crash,
            rows,
            n_stems,
            contiguous: runs == n_stems,
        })
    }

    /// Built by the indexer, which keeps every invariant and knows the counts.
    pub(crate) fn from_parts(
        exts: Vec<String>,
        crash: Vec<String>,
        rows: Vec<RowData>,
        n_stems: u64,
        contiguous: bool,
    ) -> Self {
        IndexFile {
            exts,
            crash,
            rows,
            n_stems,
            contiguous,
        }
    }

    /// A copy of a parsed index (its rows are checked).
    ///
    /// # Errors
    /// As [`IndexFile::new`], and [`Error::ExtId`]/[`Error::CrashId`] from the rows.
    pub fn from_index(index: &Index<'_>) -> Result<Self> {
        let rows = index
            .entries()
            .map(|e| {
                e.map(|e| RowData {
                    fid: e.fid,
                    offset: e.offset,
                    size: e.size,
                    extid: e.extid,
                    crashid: e.crashid,
                    keyhash: e.keyhash,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Self::new(
            index.extensions().map(String::from).collect(),
            index.crash_stems().map(String::from).collect(),
            rows,
        )
    }

    /// The extensions in id order.
    #[must_use]
    pub fn extensions(&self) -> &[String] {
        &self.exts
    }

    /// The crash stems (crash id k is element k − 1).
    #[must_use]
    pub fn crash_stems(&self) -> &[String] {
        &self.crash
    }

    /// The rows in order.
    #[must_use]
    pub fn rows(&self) -> &[RowData] {
        &self.rows
    }

    /// The number of distinct stems.
    #[must_use]
    pub fn n_stems(&self) -> u64 {
        self.n_stems
    }

    /// Flag bit 0: every stem's rows are contiguous.
    #[must_use]
    pub fn is_contiguous(&self) -> bool {
        self.contiguous
    }

    fn ext_block_len(&self) -> u64 {
        joined_len(&self.exts)
    }

    fn crash_block_len(&self) -> u64 {
        joined_len(&self.crash)
    }

    /// The size of the file in bytes.
    #[must_use]
    pub fn encoded_len(&self) -> u64 {
        HEADER_SIZE
            .saturating_add(self.ext_block_len())
            .saturating_add(self.crash_block_len())
            .saturating_add(crate::len_u64(self.rows.len()).saturating_mul(ROW_SIZE))
    }

    /// The 64-byte header.
    #[must_use]
    pub fn header(&self) -> raw::Header {
        let off_crash = HEADER_SIZE.saturating_add(self.ext_block_len());
        let off_arr = off_crash.saturating_add(self.crash_block_len());
        let mut magic = [0u8; 8];
        magic.copy_from_slice(MAGIC);
        raw::Header {
            magic,
            major: U16::new(VERSION.major),
            minor: U16::new(VERSION.minor),
            rec_size: U16::new(32),
            hdr_size: U16::new(64),
            n_stems: U64::new(self.n_stems),
            n_rows: U64::new(crate::len_u64(self.rows.len())),
            // Both counts were bounded when the value was made.
            n_ext: U32::new(u32::try_from(self.exts.len()).unwrap_or(u32::MAX)),
            n_crash: U32::new(u32::try_from(self.crash.len()).unwrap_or(u32::MAX)),
            off_crash: U64::new(off_crash),
            off_arr: U64::new(off_arr),
            flags: if self.contiguous { FLAG_CONTIGUOUS } else { 0 },
            reserved: [0; 7],
        }
    }

    /// Calls `sink` with consecutive pieces of the file's bytes.
    fn emit<E>(
        &self,
        mut sink: impl FnMut(&[u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        sink(self.header().as_bytes())?;
        for block in [&self.exts, &self.crash] {
            for (i, text) in block.iter().enumerate() {
                if i > 0 {
                    sink(b"\n")?;
                }
                sink(text.as_bytes())?;
            }
        }
        // Rows go out in batches, so a writer sees few, large writes.
        let mut buf = [0u8; 32 * 256];
        for chunk in self.rows.chunks(256) {
            let mut n = 0;
            for (slot, row) in buf.chunks_exact_mut(32).zip(chunk) {
                slot.copy_from_slice(row.to_raw().as_bytes());
                n += 32;
            }
            sink(buf.get(..n).unwrap_or(&[]))?;
        }
        Ok(())
    }

    /// The file's bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(usize::try_from(self.encoded_len()).unwrap_or(0));
        let _ = self.emit(|piece| {
            out.extend_from_slice(piece);
            Ok::<(), core::convert::Infallible>(())
        });
        out
    }

    /// Writes the file's bytes to `out`.
    ///
    /// # Errors
    /// The writer's errors.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn write_to<W: std::io::Write>(&self, mut out: W) -> std::io::Result<()> {
        self.emit(|piece| out.write_all(piece))?;
        out.flush()
    }

    /// Writes the index to `path` atomically: a temporary file beside it, synced and
    /// renamed over it, so `path` holds either its old contents or the whole new index.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn write_to_path(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        let fail = |e| Error::io(path, e);
        let mut file = binfmt_core::atomic::AtomicFile::create(path).map_err(fail)?;
        self.write_to(std::io::BufWriter::with_capacity(1 << 16, &mut file))
            .map_err(fail)?;
        file.commit().map_err(fail)
    }
}

fn joined_len(texts: &[String]) -> u64 {
    let chars: u64 = texts.iter().map(|t| crate::len_u64(t.len())).sum();
    chars.saturating_add(crate::len_u64(texts.len().saturating_sub(1)))
}

fn check_texts(texts: &[String], block: Block, max: u64) -> Result<()> {
    if crate::len_u64(texts.len()) > max {
        return Err(Error::InvalidText {
            block,
            entry: max,
            reason: "more entries than the header's count field and the rows' id field can hold",
        });
    }
    for (i, t) in (0u64..).zip(texts) {
        if t.contains('\n') {
            return Err(Error::InvalidText {
                block,
                entry: i,
                reason: "contains '\\n', the separator of the text block",
            });
        }
    }
    Ok(())
}

/// The number of distinct `(keyhash, crashid)` keys and of runs of equal keys in order.
pub(crate) fn count_stems(keys: impl Iterator<Item = (u64, u32)>) -> (u64, u64) {
    let mut all: Vec<(u64, u32)> = Vec::new();
    let mut runs = 0u64;
    let mut prev = None;
    for key in keys {
        if prev != Some(key) {
            runs += 1;
            all.push(key);
            prev = Some(key);
        }
    }
    all.sort_unstable();
    all.dedup();
    (crate::len_u64(all.len()), runs)
}
