//! Reading an index and its shards by range (object stores, HTTP, files): [`Reader`],
//! whose documentation holds the request plan.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::ops::Range;
use std::io;

use binfmt_core::source::{ByteSource, PastEnd, SourceError, from_io};
use binfmt_core::{IoError, Kind};

use crate::error::{ErrorKind, Result};
use crate::index::{Entry, Index};
use crate::key;
use crate::lookup::{Keys, Sample, StemMap};
use crate::names::Verifier;
use crate::options::ReadOptions;

/// An index and its shards read by range through [`ByteSource`]s (object stores, HTTP,
/// files), with a fixed request plan:
///
/// | operation | requests | dependent round trips |
/// |---|---|---|
/// | [`Reader::open`] | 1 on the index: the whole object (`read_head(u64::MAX)`), kept and viewed as an [`Index`] (a stream's first 64 bytes are checked first) | 1 |
/// | [`Reader::index`], [`Reader::lookup`], [`Reader::extension`] | none | 0 |
/// | [`Reader::sample`], [`Reader::members`] | 1 per member; the members in one shard in one `read_ranges` call | 1 per shard the members are in (1 for a sample in one shard) |
/// | [`Reader::get_many`] (several samples) | 1 per member of every sample; all members in one shard in one `read_ranges` call | 1 per shard touched (one call after the other) |
///
/// So a sample costs two dependent round trips from nothing (the index, then its
/// members), and one once the reader is open. A remote source runs the ranges of one
/// `read_ranges` call concurrently (and bounds how many are in flight).
///
/// The index is held whole (lookups need every row) and [`Reader::index`] is the one
/// [`Index`] view over those bytes, rebuilt in O(1) without checks: every accessor of
/// the index is the view's.
///
/// A member's request covers its extended headers, its own header and its payload (see
/// [`Verifier::member_range`]), so that its name is verified from the same bytes as the
/// payload is read from.
///
/// `S` is the shards' source type (one source per shard, in shard-id order). The index is
/// held in memory (32 bytes per row), with its lookup tables.
///
/// ```
/// use binfmt_core::source::Counting;
/// use taridx::{BuildOptions, Reader, Writer};
/// # fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
/// #     let mut out = Vec::new();
/// #     for (name, data) in members {
/// #         let mut h = [0u8; 512];
/// #         h[..name.len()].copy_from_slice(name.as_bytes());
/// #         h[100..107].copy_from_slice(b"0000644");
/// #         h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
/// #         h[156] = b'0';
/// #         h[257..263].copy_from_slice(b"ustar\0");
/// #         h[263..265].copy_from_slice(b"00");
/// #         h[148..156].copy_from_slice(b"        ");
/// #         let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
/// #         h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
/// #         out.extend_from_slice(&h);
/// #         out.extend_from_slice(data);
/// #         out.resize(out.len().div_ceil(512) * 512, 0);
/// #     }
/// #     out.resize(out.len() + 1024, 0);
/// #     out
/// # }
/// let shard = tar(&[("a.jpg", b"JPEG"), ("a.cls", b"7"), ("b.jpg", b"PNG?")]);
/// let mut writer = Writer::new(BuildOptions::strict());
/// writer.add("train_0000.tar", &shard)?;
/// let index = writer.finish()?.index.to_vec()?;
///
/// let (index, shard) = (Counting::new(&index[..]), Counting::new(&shard[..]));
/// let reader = Reader::open(&index, vec![&shard])?;
/// let members = reader.sample("a")?;
/// let payloads: Vec<&[u8]> = members.iter().map(|m| m.payload()).collect();
/// assert_eq!(payloads, [&b"JPEG"[..], b"7"]);
/// assert_eq!(index.stats().requests, 1);
/// assert_eq!(shard.stats().requests, 2); // one per member
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Debug)]
pub struct Reader<S> {
    /// A copy of the index's header, which [`Reader::index`] views with `bytes`.
    header: crate::raw::Header,
    bytes: Vec<u8>,
    options: ReadOptions,
    keys: Keys,
    verifier: Verifier,
    shards: Vec<S>,
    verify_names: bool,
}

/// A member read by a [`Reader`]: its row and its payload.
#[derive(Debug, Clone)]
pub struct Payload<'s> {
    entry: Entry,
    bytes: Cow<'s, [u8]>,
    payload_at: usize,
}

impl Payload<'_> {
    /// The member's row.
    #[must_use]
    pub fn entry(&self) -> &Entry {
        &self.entry
    }

    /// The payload.
    #[must_use]
    pub fn payload(&self) -> &[u8] {
        self.bytes.get(self.payload_at..).unwrap_or(&[])
    }

    /// The payload, owned (the source's buffer when it returned owned bytes, less the
    /// headers before the payload; otherwise a copy).
    #[must_use]
    pub fn into_payload(self) -> Vec<u8> {
        match self.bytes {
            Cow::Owned(mut v) => {
                v.drain(..self.payload_at.min(v.len()));
                v
            }
            Cow::Borrowed(b) => b.get(self.payload_at..).unwrap_or(&[]).to_vec(),
        }
    }
}

impl<S: ByteSource> Reader<S> {
    /// Reads the index from `index` (one request) with every check, and takes the shards'
    /// sources in shard-id order. Names are verified.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] from the source; the index's parse errors
    /// ([`Index::parse`]); [`ErrorKind::ExtId`]/[`ErrorKind::CrashId`] for a bad row.
    pub fn open<I: ByteSource + ?Sized>(index: &I, shards: Vec<S>) -> Result<Self> {
        Self::open_with(index, shards, &ReadOptions::new())
    }

    /// As [`open`](Self::open), with `options`.
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_with<I: ByteSource + ?Sized>(
        index: &I,
        shards: Vec<S>,
        options: &ReadOptions,
    ) -> Result<Self> {
        // A stream's magic is checked on its first bytes before the rest is read: an
        // index that is `/dev/zero` is refused at once, not read to the stream limit.
        // (Other sources read the whole index in one request.)
        if index.is_stream() {
            let head = index
                .read_head(binfmt_core::bytes::to_u64(crate::HEADER_SIZE))
                .map_err(IoError::from)?;
            if !crate::sniff(&head) {
                Index::parse_with(&head, options)?;
            }
        }
        let bytes = index
            .read_head(u64::MAX)
            .map_err(IoError::from)?
            .into_owned();
        let parsed = Index::parse_with(&bytes, options)?;
        let keys = StemMap::build(&parsed)?.into_keys();
        let verifier = Verifier::new(&parsed);
        let header = *parsed.header();
        Ok(Reader {
            header,
            bytes,
            options: *options,
            keys,
            verifier,
            shards,
            verify_names: true,
        })
    }

    /// Whether members are returned only when their name in the shard has the queried
    /// stem (on by default). Off, a lookup trusts the keyhash (see
    /// [`StemMap::lookup`]).
    #[must_use]
    pub fn verify_names(mut self, verify: bool) -> Self {
        self.verify_names = verify;
        self
    }

    /// The index.
    #[must_use]
    pub fn index(&self) -> Index<'_> {
        // The bytes were accepted by `parse_with` with these options when the reader was
        // opened: viewing them again needs no check.
        Index::reopen(&self.header, &self.bytes, &self.options)
    }

    /// The shards' sources.
    #[must_use]
    pub fn shards(&self) -> &[S] {
        &self.shards
    }

    /// The rows of the sample named by `query` (the stem rule applies), from the index
    /// alone: no request, names not verified.
    #[must_use]
    pub fn lookup(&self, query: &str) -> Sample<'_> {
        let index = self.index();
        let stem = key::stem(query);
        let crashid = self.keys.crashid_of(&index, stem);
        self.keys
            .lookup_key(index.raw_rows(), key::keyhash(stem), crashid)
    }

    /// The extension with id `extid`.
    #[must_use]
    pub fn extension(&self, extid: u16) -> Option<&str> {
        self.keys.extension(&self.index(), extid)
    }

    /// Every member of the sample named by `query` whose name verifies (or every row of
    /// it, without verification), in row order: one request per member, one
    /// `read_ranges` call per shard.
    ///
    /// # Errors
    /// As [`members`](Self::members).
    pub fn sample(&self, query: &str) -> Result<Vec<Payload<'_>>> {
        let entries: Vec<Entry> = self.lookup(query).collect();
        self.members(&entries, query)
    }

    /// The members of several samples, one list per key in the keys' order (each in row
    /// order, as [`sample`](Self::sample) returns them), read as one batch: every member
    /// of every key that lies in one shard is in one `read_ranges` call, so a remote
    /// source fetches them concurrently.
    ///
    /// ```
    /// # use binfmt_core::source::Counting;
    /// # use taridx::{BuildOptions, Reader, Writer};
    /// # fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
    /// #     let mut out = Vec::new();
    /// #     for (name, data) in members {
    /// #         let mut h = [0u8; 512];
    /// #         h[..name.len()].copy_from_slice(name.as_bytes());
    /// #         h[100..107].copy_from_slice(b"0000644");
    /// #         h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
    /// #         h[156] = b'0';
    /// #         h[257..263].copy_from_slice(b"ustar\0");
    /// #         h[263..265].copy_from_slice(b"00");
    /// #         h[148..156].copy_from_slice(b"        ");
    /// #         let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    /// #         h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    /// #         out.extend_from_slice(&h);
    /// #         out.extend_from_slice(data);
    /// #         out.resize(out.len().div_ceil(512) * 512, 0);
    /// #     }
    /// #     out.resize(out.len() + 1024, 0);
    /// #     out
    /// # }
    /// let shard = tar(&[("a.jpg", b"JPEG"), ("a.cls", b"7"), ("b.jpg", b"PNG?")]);
    /// let mut writer = Writer::new(BuildOptions::strict());
    /// writer.add("train_0000.tar", &shard)?;
    /// let index = writer.finish()?.index.to_vec()?;
    /// let shard = Counting::new(&shard[..]);
    /// let reader = Reader::open(&index[..], vec![&shard])?;
    /// let batch = reader.get_many(&["b", "nope", "a"])?;
    /// let sizes: Vec<usize> = batch.iter().map(Vec::len).collect();
    /// assert_eq!(sizes, [1, 0, 2]);
    /// assert_eq!(batch[0][0].payload(), b"PNG?");
    /// assert_eq!(shard.stats().requests, 3); // one per member, in one call
    /// # Ok::<(), taridx::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`members`](Self::members); an error fails the whole batch.
    pub fn get_many<Q: AsRef<str>>(&self, keys: &[Q]) -> Result<Vec<Vec<Payload<'_>>>> {
        let stems: Vec<&str> = keys.iter().map(|q| key::stem(q.as_ref())).collect();
        let mut wanted: Vec<(usize, Entry)> = Vec::new();
        for (k, q) in keys.iter().enumerate() {
            wanted.extend(self.lookup(q.as_ref()).map(|e| (k, e)));
        }
        let mut out: Vec<Vec<Payload<'_>>> = keys.iter().map(|_| Vec::new()).collect();
        for (k, payload) in self.fetch(&wanted, &stems)? {
            if let Some(list) = out.get_mut(k) {
                list.push(payload);
            }
        }
        Ok(out)
    }

    /// The members of `entries` whose names have `query`'s stem (all of them without
    /// verification), in the order given: one request per entry, one `read_ranges` call
    /// per shard.
    ///
    /// # Errors
    /// [`ErrorKind::NoShard`] for a shard id without a source; [`ErrorKind::Io`] from a
    /// source; [`Layout::Truncated`](binfmt_core::Layout::Truncated) when a shard ends
    /// before a member's payload does; damage in a member's own header blocks (see
    /// [`tar::member_at`](crate::tar::member_at)).
    pub fn members(&self, entries: &[Entry], query: &str) -> Result<Vec<Payload<'_>>> {
        let wanted: Vec<(usize, Entry)> = entries.iter().map(|e| (0, *e)).collect();
        let found = self.fetch(&wanted, &[key::stem(query)])?;
        Ok(found.into_iter().map(|(_, p)| p).collect())
    }

    /// The members `wanted` (each `(i, entry)` verified against `stems[i]`), in the order
    /// given, with their `i`: one `read_ranges` call per shard.
    fn fetch(
        &self,
        wanted: &[(usize, Entry)],
        stems: &[&str],
    ) -> Result<Vec<(usize, Payload<'_>)>> {
        let mut fids: Vec<u16> = wanted.iter().map(|(_, e)| e.fid).collect();
        fids.sort_unstable();
        fids.dedup();
        let mut found: Vec<(usize, usize, Payload<'_>)> = Vec::with_capacity(wanted.len());
        for fid in fids {
            let shard = self.shards.get(usize::from(fid)).ok_or_else(|| {
                let row = wanted
                    .iter()
                    .find(|(_, e)| e.fid == fid)
                    .map_or(0, |(_, e)| e.row);
                ErrorKind::NoShard {
                    row,
                    fid,
                    shards: self.shards.len(),
                }
                .unlocated()
            })?;
            let mine: Vec<(usize, &(usize, Entry))> = wanted
                .iter()
                .enumerate()
                .filter(|(_, (_, e))| e.fid == fid)
                .collect();
            let ranges = mine
                .iter()
                .map(|(_, (_, e))| self.range(e))
                .collect::<Result<Vec<Range<u64>>>>()?;
            let chunks = shard.read_ranges(&ranges).map_err(past_end)?;
            for (((at, (k, entry)), range), chunk) in mine.into_iter().zip(ranges).zip(chunks) {
                let stem = stems.get(*k).copied().unwrap_or_default();
                if self.verify_names
                    && !self
                        .verifier
                        .verify_window(entry, stem, &chunk, range.start)?
                {
                    continue;
                }
                let payload_at = entry
                    .payload_offset()
                    .and_then(|p| usize::try_from(p.saturating_sub(range.start)).ok())
                    .unwrap_or(usize::MAX);
                found.push((
                    at,
                    *k,
                    Payload {
                        entry: *entry,
                        bytes: chunk,
                        payload_at,
                    },
                ));
            }
        }
        found.sort_unstable_by_key(|(at, _, _)| *at);
        Ok(found.into_iter().map(|(_, k, p)| (k, p)).collect())
    }

    /// The bytes one member's request covers: its header blocks and payload (see
    /// [`Verifier::member_range`]), or the payload alone without verification.
    fn range(&self, entry: &Entry) -> Result<Range<u64>> {
        let range = if self.verify_names {
            self.verifier.member_range(entry)
        } else {
            entry
                .payload_offset()
                .zip(entry.payload_end())
                .map(|(s, e)| s..e)
        };
        range.ok_or_else(|| binfmt_core::Error::overflow("member payload", entry.offset).into())
    }
}

/// A source's error for a range past its end becomes the input's fault, at that range.
fn past_end(e: io::Error) -> crate::Error {
    let range = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<PastEnd>())
        .map(|p| p.range.clone());
    let err: SourceError = match range {
        Some(r) => from_io(e, r.start, r.end.saturating_sub(r.start), "member"),
        None => SourceError::Io(IoError::from(e)),
    };
    err.into()
}
