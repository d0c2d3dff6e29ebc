//! The owned index and its byte-exact serialization.

use alloc::string::String;
use alloc::vec::Vec;

use binfmt_core::Kind;
use binfmt_core::bytes::to_u64;
use binfmt_core::le::{U16, U32, U64};
use zerocopy::IntoBytes;

use crate::error::{Block, ErrorKind, Result};
use crate::index::{HEADER_LEN, Index, ROW_LEN};
use crate::raw::{self, FLAG_CONTIGUOUS, MAGIC, ROW_SIZE, VERSION};

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
/// Built by [`Writer`](crate::Writer) from tar shards, or by
/// [`IndexFile::new`] from rows of your own. Everything is validated when the value is
/// made, so writing cannot fail for a reason of ours (only the writer's I/O can), and the
/// bytes are a pure function of the contents (deterministic).
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
    /// [`ErrorKind::InvalidText`] for an extension or crash stem containing `\n`, or more
    /// than 65,536 extensions / 4,294,967,295 crash stems; [`ErrorKind::InvalidRow`] for
    /// a row whose extid or crashid is out of range.
    pub fn new(exts: Vec<String>, crash: Vec<String>, rows: Vec<RowData>) -> Result<Self> {
        check_texts(&exts, Block::Extensions, 1 << 16)?;
        check_texts(&crash, Block::CrashStems, u64::from(u32::MAX))?;
        let n_ext = exts.len();
        let n_crash = crash.len();
        for (i, r) in (0u64..).zip(&rows) {
            if usize::from(r.extid) >= n_ext {
                return Err(ErrorKind::InvalidRow {
                    row: i,
                    reason: "extension id is not below the number of extensions",
                }
                .unlocated());
            }
            if usize::try_from(r.crashid).map_or(true, |c| c > n_crash) {
                return Err(ErrorKind::InvalidRow {
                    row: i,
                    reason: "crash id is above the number of crash stems",
                }
                .unlocated());
            }
        }
        let (n_stems, runs) =
            crate::verify::stem_counts(rows.iter().map(|r| (r.keyhash, r.crashid)));
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
    /// As [`IndexFile::new`], and [`ErrorKind::ExtId`]/[`ErrorKind::CrashId`] from the
    /// rows.
    pub fn from_index<'d, D: binfmt_core::data::Data<'d>>(index: &Index<'d, D>) -> Result<Self> {
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
        HEADER_LEN
            .saturating_add(self.ext_block_len())
            .saturating_add(self.crash_block_len())
            .saturating_add(to_u64(self.rows.len()).saturating_mul(ROW_LEN))
    }

    /// The 64-byte header.
    #[must_use]
    pub fn header(&self) -> raw::Header {
        let off_crash = HEADER_LEN.saturating_add(self.ext_block_len());
        let off_arr = off_crash.saturating_add(self.crash_block_len());
        let mut magic = [0u8; 8];
        magic.copy_from_slice(MAGIC);
        raw::Header {
            magic,
            major: U16::new(VERSION.major),
            minor: U16::new(VERSION.minor),
            rec_size: U16::new(u16::try_from(ROW_SIZE).unwrap_or(u16::MAX)),
            hdr_size: U16::new(u16::try_from(raw::HEADER_SIZE).unwrap_or(u16::MAX)),
            n_stems: U64::new(self.n_stems),
            n_rows: U64::new(to_u64(self.rows.len())),
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
        let mut buf = [0u8; ROW_SIZE * 256];
        for chunk in self.rows.chunks(256) {
            let mut n = 0;
            for (slot, row) in buf.chunks_exact_mut(ROW_SIZE).zip(chunk) {
                slot.copy_from_slice(row.to_raw().as_bytes());
                n += ROW_SIZE;
            }
            sink(buf.get(..n).unwrap_or(&[]))?;
        }
        Ok(())
    }

    /// The file's bytes.
    ///
    /// # Errors
    /// None today (an `IndexFile` is valid by construction); the `Result` is the one
    /// shape every binfmt writer has.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(usize::try_from(self.encoded_len()).unwrap_or(0));
        let _ = self.emit(|piece| {
            out.extend_from_slice(piece);
            Ok::<(), core::convert::Infallible>(())
        });
        Ok(out)
    }

    /// Writes the file's bytes to `out` (unbuffered writers get a few large writes: the
    /// header, the blocks, rows 256 at a time) and returns how many were written.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] with the writer's error.
    #[cfg(feature = "std")]
    pub fn write_to<W: std::io::Write>(&self, mut out: W) -> Result<u64> {
        let mut written = 0u64;
        self.emit(|piece| {
            out.write_all(piece)?;
            written = written.saturating_add(to_u64(piece.len()));
            Ok::<(), std::io::Error>(())
        })
        .and_then(|()| out.flush())
        .map_err(binfmt_core::IoError::from)?;
        Ok(written)
    }

    /// Writes the index to `path` as `std::fs::write` would, but atomically: through
    /// [`binfmt_core::output::Output`] (an existing file is replaced; a new file appears
    /// whole or not at all; a FIFO or device is streamed into). Returns the bytes written.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] naming `path`.
    #[cfg(feature = "std")]
    pub fn write_to_path(&self, path: impl AsRef<std::path::Path>) -> Result<u64> {
        use binfmt_core::output::{Output, OutputOptions};
        let path = path.as_ref();
        let named = |e| binfmt_core::IoError::new(Some(path.to_path_buf()), e);
        let mut out = Output::create(path, &OutputOptions::new().replace(true)).map_err(named)?;
        let written = self
            .write_to(std::io::BufWriter::with_capacity(1 << 16, &mut out))
            .map_err(|e| match e.into_kind() {
                ErrorKind::Io(io) => named(io.source).into(),
                other => other.unlocated(),
            })?;
        out.commit().map_err(named)?;
        Ok(written)
    }
}

fn joined_len(texts: &[String]) -> u64 {
    let chars: u64 = texts.iter().map(|t| to_u64(t.len())).sum();
    chars.saturating_add(to_u64(texts.len().saturating_sub(1)))
}

fn check_texts(texts: &[String], block: Block, max: u64) -> Result<()> {
    if to_u64(texts.len()) > max {
        return Err(ErrorKind::InvalidText {
            block,
            entry: max,
            reason: "more entries than the header's count field and the rows' id field can hold",
        }
        .unlocated());
    }
    for (i, t) in (0u64..).zip(texts) {
        if t.contains('\n') {
            return Err(ErrorKind::InvalidText {
                block,
                entry: i,
                reason: "contains '\\n', the separator of the text block",
            }
            .unlocated());
        }
    }
    Ok(())
}
