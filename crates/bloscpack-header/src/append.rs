//! Appending data in place, into the spare offset slots (feature `blosc`).

use alloc::vec::Vec;
use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use binfmt_core::bytes;
use binfmt_core::le::I64;

use crate::chunk::{Chunk, ChunkHeader};
use crate::error::{Error, Result};
use crate::header::{Config, Header, HeaderFields};
use crate::metadata::MetadataSection;
use crate::pack::{BloscArgs, ChunkCompressor};

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct AppendReport {
    /// Bytes appended.
    pub appended: u64,
    /// Chunks added (0 when everything fitted into the last chunk).
    pub new_chunks: u64,
    /// The header after the append.
    pub header: Header,
    /// The file's new length.
    pub file_len: u64,
}

/// Appends `data` to the Bloscpack file open in `file`, in place, as bloscpack's
/// `append` does: the last chunk is topped up to `chunk_size` and recompressed where it
/// was, further data goes into new chunks that use the spare offset slots, and the
/// header and offsets are updated. New chunks are compressed with `args`, whose
/// `typesize` is replaced by the file's (bloscpack's defaults: clevel 7, byte shuffle,
/// blosclz).
///
/// Stricter than bloscpack: the header, the sections, the order of the offsets and the
/// last chunk (Blosc header, size, digest) are checked first. Earlier chunks are not
/// read: run [`Bloscpack::verify`](crate::Bloscpack::verify) for a full check. When the
/// rewritten tail is shorter than the bytes it replaced, bytes after
/// [`AppendReport::file_len`] are stale: readers ignore them, and [`append_path`]
/// truncates the file there.
///
/// Everything is computed (and the space checked) before the first byte is written. If a
/// write then fails, the original bytes are written back before the error is returned,
/// so the file is unchanged unless that restore fails too (or the machine stops mid-way:
/// an in-place update cannot be made crash-atomic without copying the whole file). A
/// generic `file` cannot be shortened: if the failed append had already grown it, bytes
/// remain after the original end ([`append_path`] cuts them off).
///
/// Memory: the last chunk decompressed (up to the file's `chunk_size`), plus the new data
/// compressed; earlier chunks are never loaded.
///
/// # Errors
/// [`Error::CannotAppend`] for a file without offsets or with an unknown or zero chunk
/// size; [`Error::NotEnoughSpace`] when the spare slots are too few; any parse or digest
/// error of the parts read; [`Error::Io`].
pub fn append<F: Read + Write + Seek>(
    file: &mut F,
    data: &[u8],
    args: &BloscArgs,
) -> Result<AppendReport> {
    let plan = Plan::make(file, data, args)?;
    if data.is_empty() {
        return Ok(plan.report);
    }
    if let Err(e) = plan.write(file) {
        // Best effort: the error that matters is the first one.
        let _ = plan.restore(file);
        return Err(e);
    }
    Ok(plan.report)
}

/// [`append`] to the file at `path`, then syncs it to disk.
///
/// # Errors
/// As for [`append`].
pub fn append_path(path: impl AsRef<Path>, data: &[u8], args: &BloscArgs) -> Result<AppendReport> {
    let mut file = OpenOptions::new().read(true).write(true).open(path)?;
    let old_len = file.metadata()?.len();
    let report = match append(&mut file, data, args) {
        Ok(report) => report,
        Err(e) => {
            // `append` has written the old bytes back; a longer file also needs cutting.
            if file.metadata().is_ok_and(|m| m.len() > old_len) {
                let _ = file.set_len(old_len);
            }
            return Err(e);
        }
    };
    if report.file_len < old_len {
        // The rewritten tail is shorter than what it replaced: drop the stale bytes.
        file.set_len(report.file_len)?;
    }
    file.sync_all()?;
    Ok(report)
}

/// The bytes an append writes, and the bytes it replaces.
struct Plan {
    header: [u8; 32],
    old_header: [u8; 32],
    /// Where the first rewritten offsets entry is, and the entries before and after.
    offsets_at: u64,
    offsets: Vec<u8>,
    old_offsets: Vec<u8>,
    /// Where the rewritten tail (old last chunk onwards) starts, and its bytes.
    tail_at: u64,
    tail: Vec<u8>,
    old_tail: Vec<u8>,
    old_len: u64,
    report: AppendReport,
}

fn cannot(reason: &'static str) -> Error {
    Error::CannotAppend { reason }
}

fn read_at<F: Read + Seek>(
    file: &mut F,
    at: u64,
    len: u64,
    file_len: u64,
    what: &'static str,
) -> Result<Vec<u8>> {
    // Checked against the file's length first, so a length read from the file never sizes
    // an allocation beyond the file itself.
    let range = bytes::checked_range(at, len, file_len, what)?;
    let mut buf = alloc::vec![0u8; range.len()];
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(&mut buf)?;
    Ok(buf)
}

impl Plan {
    fn make<F: Read + Seek>(file: &mut F, data: &[u8], args: &BloscArgs) -> Result<Plan> {
        let file_len = file.seek(SeekFrom::End(0))?;
        let old_header = read_at(file, 0, 32, file_len, "header")?;
        let header = Header::parse_with(&old_header, Config::DEFAULT)?;
        if !header.has_offsets() {
            return Err(cannot(
                "it has no offsets section (bloscpack cannot append to it either)",
            ));
        }
        let (Some(chunk_size), Some(last_chunk), Some(nchunks)) =
            (header.chunk_size(), header.last_chunk(), header.nchunks())
        else {
            return Err(cannot("its chunk_size, last_chunk or nchunks is unknown"));
        };
        if chunk_size == 0 {
            return Err(cannot(
                "its chunk_size is 0 (an empty file); pack the data anew",
            ));
        }
        let mut pos = 32u64;
        if header.has_metadata() {
            let meta_head = read_at(file, pos, 32, file_len, "metadata header")?;
            let meta: &crate::raw::MetadataHeader =
                bytes::read(&meta_head, 0, "metadata header").map_err(|e| e.rebased(pos))?;
            // The section's length comes from its header (max_meta_size, the digest kind).
            let max = u64::from(meta.max_meta_size.get());
            let digest =
                crate::Checksum::from_id(meta.meta_checksum).map_or(0, crate::Checksum::size_u64);
            let len = 32 + max + digest;
            // Parsed at its real offset, so that errors name the right bytes.
            let mut section = alloc::vec![0u8; 32];
            section.extend_from_slice(&read_at(file, pos, len, file_len, "metadata section")?);
            MetadataSection::parse(&section, pos)?;
            pos += len;
        }
        let table_len = bytes::size_of_table(header.offsets_len(), 8, "offsets", pos)?;
        let table = read_at(file, pos, table_len, file_len, "offsets")?;
        let offsets_pos = pos;
        let entries: &[I64] = bytes::read_table(&table, 0, header.offsets_len(), "offsets")?;
        let chunks_at = pos + table_len;
        // Used entries: strictly increasing from the first chunk; spare ones: free.
        let mut expect_at_least = chunks_at;
        let used = usize::try_from(nchunks).unwrap_or(usize::MAX);
        for (i, e) in entries.iter().enumerate() {
            let index = u64::try_from(i).unwrap_or(u64::MAX);
            let at = offsets_pos + 8 * index;
            let v = e.get();
            if i < used {
                let ok = u64::try_from(v)
                    .is_ok_and(|v| v >= expect_at_least && (i > 0 || v == chunks_at));
                if !ok {
                    return Err(Error::OffsetMismatch {
                        offset: at,
                        index,
                        stored: v,
                        actual: expect_at_least,
                    });
                }
                expect_at_least = v.unsigned_abs() + 16;
            } else if v != -1 {
                return Err(Error::SpareSlotInUse {
                    offset: at,
                    index,
                    stored: v,
                });
            }
        }
        let last_index = nchunks - 1;
        let last_at = entries
            .get(used.saturating_sub(1))
            .map_or(chunks_at, |e| e.get().unsigned_abs());
        let head_bytes = read_at(file, last_at, 16, file_len, "chunk header")?;
        let chunk_header = ChunkHeader::read(&head_bytes, 0)?;
        chunk_header.check(last_at, last_index)?;
        let digest_len = header.checksum().size_u64();
        let chunk_len = u64::from(chunk_header.cbytes) + digest_len;
        let chunk_bytes = read_at(file, last_at, chunk_len, file_len, "chunk")?;
        let (blosc, digest) =
            chunk_bytes.split_at(usize::try_from(chunk_header.cbytes).unwrap_or(0));
        if chunk_header.nbytes != last_chunk {
            return Err(Error::ChunkSizeMismatch {
                offset: last_at + 4,
                index: last_index,
                nbytes: chunk_header.nbytes,
                expected: last_chunk,
                field: "last_chunk",
            });
        }
        let last = Chunk {
            index: last_index,
            offset: last_at,
            header: chunk_header,
            bytes: blosc,
            digest,
            checksum: header.checksum(),
        };
        last.verify()?;

        // What the new chunks hold: the old last chunk's data topped up, then the rest.
        let chunk = usize::try_from(chunk_size).unwrap_or(usize::MAX);
        let room = chunk - usize::try_from(last_chunk).unwrap_or(0);
        let (top_up, rest) = data.split_at(room.min(data.len()));
        let new_chunks = u64::try_from(rest.len().div_ceil(chunk)).unwrap_or(u64::MAX);
        if new_chunks > header.max_app_chunks() {
            return Err(Error::NotEnoughSpace {
                needed: new_chunks,
                available: header.max_app_chunks(),
            });
        }
        let new_last = if rest.is_empty() {
            last_chunk + u32::try_from(top_up.len()).unwrap_or(0)
        } else {
            u32::try_from(rest.len() - chunk * (rest.len().div_ceil(chunk) - 1)).unwrap_or(0)
        };
        let new_header = Header::new(HeaderFields {
            options: header.options(),
            checksum: header.checksum(),
            typesize: header.typesize(),
            chunk_size: Some(chunk_size),
            last_chunk: Some(new_last),
            nchunks: Some(nchunks + new_chunks),
            max_app_chunks: header.max_app_chunks() - new_chunks,
        })?;
        let mut header_bytes = new_header.to_bytes();
        // Keep the version (2 stays 2: bytes 24..32 stay 0 because no slot exists there).
        header_bytes[4] = header.version();
        let old_len = file_len;
        let mut report = AppendReport {
            appended: u64::try_from(data.len()).unwrap_or(u64::MAX),
            new_chunks,
            header: new_header,
            file_len,
        };
        if data.is_empty() {
            report.header = header;
            return Ok(Plan {
                header: header_bytes,
                old_header: [0; 32],
                offsets_at: 0,
                offsets: Vec::new(),
                old_offsets: Vec::new(),
                tail_at: 0,
                tail: Vec::new(),
                old_tail: Vec::new(),
                old_len,
                report,
            });
        }

        let mut args = *args;
        args.typesize = header.typesize().max(1);
        // The largest piece actually compressed, not chunk_size: a header may declare
        // 2 GiB chunks for a few bytes of data.
        let last_len = usize::try_from(last_chunk).unwrap_or(usize::MAX);
        let largest = if top_up.is_empty() {
            0
        } else {
            last_len + top_up.len()
        }
        .max(rest.len().min(chunk));
        let mut compressor = ChunkCompressor::new(&args, header.checksum(), largest)?;
        // A full last chunk stays as it is: the tail then starts after its digest.
        let rewrite_last = !top_up.is_empty();
        let (tail_at, first_index) = if rewrite_last {
            (last_at, last_index)
        } else {
            (last_at + chunk_len, nchunks)
        };
        let mut joined = Vec::new();
        if rewrite_last {
            let len = usize::try_from(last_chunk).unwrap_or(0);
            joined
                .try_reserve_exact(len + top_up.len())
                .map_err(|_| Error::OutOfMemory {
                    bytes: u64::from(last_chunk),
                })?;
            joined.resize(len, 0);
            last.decompress_into(&mut joined, 1)?;
            joined.extend_from_slice(top_up);
        }
        let first = Some(&joined[..]).filter(|_| rewrite_last);
        let mut tail = Vec::new();
        let mut offsets = Vec::new();
        for piece in first.into_iter().chain(rest.chunks(chunk)) {
            offsets.extend_from_slice(
                &(tail_at + u64::try_from(tail.len()).unwrap_or(0)).to_le_bytes(),
            );
            let (c, d) = compressor.compress(piece)?;
            tail.extend_from_slice(c);
            tail.extend_from_slice(d.as_bytes());
        }
        let offsets_at = offsets_pos + 8 * first_index;
        let old_offsets = table
            .get(usize::try_from(8 * first_index).unwrap_or(0)..)
            .unwrap_or(&[])
            .get(..offsets.len())
            .unwrap_or(&[])
            .to_vec();
        let old_tail = read_at(
            file,
            tail_at,
            file_len.saturating_sub(tail_at),
            file_len,
            "chunk",
        )?;
        report.file_len = tail_at + u64::try_from(tail.len()).unwrap_or(0);
        let mut old_header_bytes = [0u8; 32];
        old_header_bytes.copy_from_slice(&old_header);
        Ok(Plan {
            header: header_bytes,
            old_header: old_header_bytes,
            offsets_at,
            offsets,
            old_offsets,
            tail_at,
            tail,
            old_tail,
            old_len,
            report,
        })
    }

    fn write<F: Write + Seek>(&self, file: &mut F) -> Result<()> {
        // Data first, then the offsets that point at it, the header last.
        file.seek(SeekFrom::Start(self.tail_at))?;
        file.write_all(&self.tail)?;
        file.seek(SeekFrom::Start(self.offsets_at))?;
        file.write_all(&self.offsets)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&self.header)?;
        file.flush()?;
        Ok(())
    }

    fn restore<F: Write + Seek>(&self, file: &mut F) -> Result<()> {
        file.seek(SeekFrom::Start(self.tail_at))?;
        file.write_all(&self.old_tail)?;
        file.seek(SeekFrom::Start(self.offsets_at))?;
        file.write_all(&self.old_offsets)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&self.old_header)?;
        file.flush()?;
        let _ = self.old_len;
        Ok(())
    }
}
