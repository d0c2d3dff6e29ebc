//! Indexing a fold of tar shards: strict mode and glzn-compat mode.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::error::{Error, Result};
use crate::key;
use crate::tar::{End, Event, GlznWalker, Walker};
use crate::write::{IndexFile, RowData};

/// Which rules the indexer follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Mode {
    /// Regular files only, names resolved through every tar extension, checksums and
    /// truncation checked, shard ids equal to positions (docs/taridx.md, "Strict mode").
    #[default]
    Strict,
    /// Reproduces glzn's `.taridx` byte for byte, its bugs included: every header is a
    /// row, names come from the 100-byte name field only, and an empty shard shifts the
    /// shard ids of the shards after it.
    Glzn,
}

/// Options of the indexer: a small `Copy` value instead of boolean arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BuildOptions {
    mode: Mode,
    lossy_names: bool,
}

impl BuildOptions {
    /// Strict mode, invalid UTF-8 names rejected (the default).
    #[must_use]
    pub const fn strict() -> Self {
        BuildOptions {
            mode: Mode::Strict,
            lossy_names: false,
        }
    }

    /// glzn-compat mode (names are always decoded lossily there, as glzn does).
    #[must_use]
    pub const fn glzn() -> Self {
        BuildOptions {
            mode: Mode::Glzn,
            lossy_names: true,
        }
    }

    /// Strict mode only: replace invalid UTF-8 in names by U+FFFD (with a warning)
    /// instead of failing.
    #[must_use]
    pub const fn lossy_names(mut self, lossy: bool) -> Self {
        self.lossy_names = lossy;
        self
    }

    /// The mode.
    #[must_use]
    pub const fn mode(&self) -> Mode {
        self.mode
    }
}

/// Why strict mode left a member out of the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkipReason {
    /// A sparse member: its data is a sparse encoding, not the file's content.
    Sparse,
    /// Not a regular file (directory, link, device, FIFO, vendor type).
    NotRegular {
        /// The typeflag byte.
        typeflag: u8,
    },
    /// The basename has an empty stem (a dotfile, or a name ending in `/`).
    EmptyStem,
    /// The basename has no extension.
    NoExtension,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SkipReason::Sparse => f.write_str("sparse member: payload is not the file content"),
            SkipReason::NotRegular { typeflag: 0 } => f.write_str(
                "old-style directory (typeflag NUL, name ending in '/') is not a regular file",
            ),
            SkipReason::NotRegular { typeflag } => write!(
                f,
                "typeflag '{}' is not a regular file",
                char::from(typeflag).escape_default()
            ),
            SkipReason::EmptyStem => f.write_str("empty stem (dotfile or trailing slash)"),
            SkipReason::NoExtension => f.write_str("no extension"),
        }
    }
}

/// A member strict mode did not index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Skipped {
    /// The shard id.
    pub shard: u16,
    /// Offset of the member's header (the last of its chain).
    pub offset: u64,
    /// The resolved name (invalid UTF-8 replaced).
    pub name: String,
    /// Why.
    pub reason: SkipReason,
}

/// Something odd that did not stop indexing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Warning {
    /// The same (stem, extension) again; the row is kept.
    Duplicate {
        /// The shard of the repeated member.
        shard: u16,
        /// Offset of its header.
        offset: u64,
        /// Its stem.
        stem: String,
        /// Its extension.
        ext: String,
        /// The shard of the first member with this stem and extension.
        first_shard: u16,
    },
    /// The shard ends without end-of-archive blocks.
    NoEndMarker {
        /// The shard id.
        shard: u16,
        /// The shard's length.
        offset: u64,
    },
    /// The shard ends with a single zero block.
    LoneZeroBlock {
        /// The shard id.
        shard: u16,
        /// Offset of the zero block.
        offset: u64,
    },
    /// A single zero block is followed by data, which is not indexed (a concatenated
    /// archive? tar stops there too unless told to ignore zeros).
    ZeroBlockThenData {
        /// The shard id.
        shard: u16,
        /// Offset of the zero block.
        offset: u64,
    },
    /// Bytes follow the end-of-archive blocks; they are ignored.
    DataAfterMarker {
        /// The shard id.
        shard: u16,
        /// Offset of the first such byte.
        offset: u64,
    },
    /// A second GNU long name (or link) for one member; the last one is used.
    RepeatedLongName {
        /// The shard id.
        shard: u16,
        /// Offset of the repeated header.
        offset: u64,
    },
    /// A name with invalid UTF-8 was decoded lossily.
    LossyName {
        /// The shard id.
        shard: u16,
        /// Offset of the member's header.
        offset: u64,
    },
    /// glzn-compat mode: no row had been emitted when this shard started, so glzn's
    /// shard id (last row's id + 1) is undefined; 0 is used.
    UndefinedFid {
        /// The shard's position in the fold.
        position: usize,
    },
}

impl Warning {
    /// The shard (by position in the fold) the warning is about.
    #[must_use]
    pub fn shard(&self) -> usize {
        match *self {
            Warning::Duplicate { shard, .. }
            | Warning::NoEndMarker { shard, .. }
            | Warning::LoneZeroBlock { shard, .. }
            | Warning::ZeroBlockThenData { shard, .. }
            | Warning::DataAfterMarker { shard, .. }
            | Warning::RepeatedLongName { shard, .. }
            | Warning::LossyName { shard, .. } => usize::from(shard),
            Warning::UndefinedFid { position } => position,
        }
    }

    /// The byte offset in the shard, when the warning has one.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match *self {
            Warning::Duplicate { offset, .. }
            | Warning::NoEndMarker { offset, .. }
            | Warning::LoneZeroBlock { offset, .. }
            | Warning::ZeroBlockThenData { offset, .. }
            | Warning::DataAfterMarker { offset, .. }
            | Warning::RepeatedLongName { offset, .. }
            | Warning::LossyName { offset, .. } => Some(offset),
            Warning::UndefinedFid { .. } => None,
        }
    }

    /// The message, naming shards through `shard_name`.
    pub fn describe(&self, shard_name: impl Fn(usize) -> String) -> String {
        let text = match self {
            Warning::Duplicate {
                stem,
                ext,
                first_shard,
                ..
            } => alloc::format!(
                "duplicate member {stem}{}{ext} (also in {}); both rows are kept",
                if ext.is_empty() { "" } else { "." },
                shard_name(usize::from(*first_shard))
            ),
            Warning::NoEndMarker { .. } => String::from("no end-of-archive marker"),
            Warning::LoneZeroBlock { .. } => String::from("lone zero block at end of file"),
            Warning::ZeroBlockThenData { .. } => String::from(
                "zero block followed by data (concatenated archive?); the rest is not indexed",
            ),
            Warning::DataAfterMarker { .. } => {
                String::from("data after the end-of-archive marker is ignored")
            }
            Warning::RepeatedLongName { .. } => {
                String::from("more than one GNU long name for one member; the last one is used")
            }
            Warning::LossyName { .. } => {
                String::from("member name is not valid UTF-8; invalid bytes replaced by U+FFFD")
            }
            Warning::UndefinedFid { .. } => String::from(
                "glzn-compat: no row precedes this shard, so glzn's shard id is undefined; 0 is used",
            ),
        };
        match self.offset() {
            Some(offset) => alloc::format!("{}: byte {offset}: {text}", shard_name(self.shard())),
            None => alloc::format!("{}: {text}", shard_name(self.shard())),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(|i| alloc::format!("shard {i}")))
    }
}

/// What indexing reported besides the index itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// The shards' names, in fold order (position = strict shard id).
    pub shards: Vec<String>,
    /// Members left out (strict mode).
    pub skipped: Vec<Skipped>,
    /// Warnings, per shard in order, then duplicates in row order.
    pub warnings: Vec<Warning>,
}

impl Report {
    /// The name of the shard at `position`, or `"shard N"`.
    #[must_use]
    pub fn shard_name(&self, position: usize) -> String {
        self.shards
            .get(position)
            .cloned()
            .unwrap_or_else(|| alloc::format!("shard {position}"))
    }

    /// Every warning as a message naming its shard.
    pub fn warning_messages(&self) -> impl Iterator<Item = String> + '_ {
        self.warnings
            .iter()
            .map(|w| w.describe(|i| self.shard_name(i)))
    }
}

/// What one call of [`IndexBuilder::add_shard`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ShardStats {
    /// The shard id its rows got.
    pub fid: u16,
    /// Headers (glzn) or members (strict) seen.
    pub members: u64,
    /// Rows added.
    pub rows: u64,
    /// Members skipped (strict).
    pub skipped: u64,
}

#[derive(Debug, Clone, Copy)]
struct Stem {
    start: usize,
    end: usize,
    keyhash: u64,
    crashid: u32,
    /// The next stem with the same keyhash (a crash stem), or `NONE`.
    next: u32,
}

const NONE: u32 = u32::MAX;

fn idx(i: u32) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

/// Indexes the shards of a fold, one after the other, into an [`IndexFile`].
///
/// ```
/// use taridx::{BuildOptions, IndexBuilder, Index};
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
/// let shard = tar(&[("a.jpg", b"JPEG"), ("a.cls", b"7")]);
/// let mut builder = IndexBuilder::new(BuildOptions::strict());
/// builder.add_shard("train_0000.tar", &shard)?;
/// let (file, report) = builder.finish();
/// assert!(report.warnings.is_empty());
/// let bytes = file.to_bytes();
/// let index = Index::parse(&bytes)?;
/// assert_eq!((index.n_rows(), index.n_stems()), (2, 1));
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct IndexBuilder {
    options: BuildOptions,
    report: Report,
    rows: Vec<RowData>,
    exts: Vec<String>,
    ext_ids: BTreeMap<String, u16>,
    crash: Vec<String>,
    stems: Vec<Stem>,
    by_hash: BTreeMap<u64, u32>,
    arena: String,
    current: Option<usize>,
    run_exts: Vec<u16>,
    runs: u64,
    maybe_duplicates: bool,
    hasher: fn(&str) -> u64,
}

impl IndexBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new(options: BuildOptions) -> Self {
        IndexBuilder {
            options,
            report: Report::default(),
            rows: Vec::new(),
            exts: Vec::new(),
            ext_ids: BTreeMap::new(),
            crash: Vec::new(),
            stems: Vec::new(),
            by_hash: BTreeMap::new(),
            arena: String::new(),
            current: None,
            run_exts: Vec::new(),
            runs: 0,
            maybe_duplicates: false,
            hasher: key::keyhash,
        }
    }

    /// A builder with another stem hash, to exercise many-way collisions in tests.
    #[cfg(test)]
    fn with_hasher(options: BuildOptions, hasher: fn(&str) -> u64) -> Self {
        IndexBuilder {
            hasher,
            ..IndexBuilder::new(options)
        }
    }

    /// The options.
    #[must_use]
    pub fn options(&self) -> BuildOptions {
        self.options
    }

    /// Rows so far.
    #[must_use]
    pub fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// Indexes the next shard of the fold: `name` is for reports, `data` its bytes.
    ///
    /// Only headers are read; payloads are skipped by arithmetic. On error the builder
    /// is left with the rows of the shard's members before the error: discard it.
    ///
    /// # Errors
    /// Strict mode: any tar error ([`Error::TarChecksum`], [`Error::TarTruncated`], …),
    /// [`Error::NameUtf8`], [`Error::Newline`], [`Error::TooManyShards`],
    /// [`Error::TooManyExtensions`]. glzn mode: [`Error::TarNumber`] for a size field that
    /// is not plain octal, [`Error::Newline`], [`Error::FidOverflow`].
    pub fn add_shard(&mut self, name: impl Into<String>, data: &[u8]) -> Result<ShardStats> {
        let position = self.report.shards.len();
        self.report.shards.push(name.into());
        match self.options.mode {
            Mode::Strict => self.add_strict(position, data),
            Mode::Glzn => self.add_glzn(position, data),
        }
    }

    fn add_strict(&mut self, position: usize, data: &[u8]) -> Result<ShardStats> {
        let fid = u16::try_from(position).map_err(|_| Error::TooManyShards {
            count: position.saturating_add(1),
        })?;
        let mut stats = ShardStats {
            fid,
            members: 0,
            rows: 0,
            skipped: 0,
        };
        let mut walker = Walker::new(data, fid);
        for event in &mut walker {
            let member = match event? {
                Event::Member(m) => m,
                Event::RepeatedLongName { offset } => {
                    self.report
                        .warnings
                        .push(Warning::RepeatedLongName { shard: fid, offset });
                    continue;
                }
            };
            stats.members += 1;
            let basename: Cow<'_, str> = if member.name.is_utf8() {
                Cow::Borrowed(core::str::from_utf8(member.name.basename()).unwrap_or(""))
            } else if self.options.lossy_names {
                self.report.warnings.push(Warning::LossyName {
                    shard: fid,
                    offset: member.offset,
                });
                String::from_utf8_lossy(member.name.basename())
            } else {
                return Err(Error::NameUtf8 {
                    shard: fid,
                    offset: member.offset,
                });
            };
            let (stem, ext) = key::split_name(&basename);
            let reason = if member.sparse {
                Some(SkipReason::Sparse)
            } else if !member.is_regular() {
                Some(SkipReason::NotRegular {
                    typeflag: member.typeflag,
                })
            } else if stem.is_empty() {
                Some(SkipReason::EmptyStem)
            } else if ext.is_empty() {
                Some(SkipReason::NoExtension)
            } else {
                None
            };
            if let Some(reason) = reason {
                stats.skipped += 1;
                self.report.skipped.push(Skipped {
                    shard: fid,
                    offset: member.offset,
                    name: member.name.to_string_lossy(),
                    reason,
                });
                continue;
            }
            self.add_row(fid, member.offset, member.size, stem, ext)?;
            stats.rows += 1;
        }
        let warning = match walker.end() {
            Some(End::NoMarker { offset }) => Some(Warning::NoEndMarker { shard: fid, offset }),
            Some(End::LoneZeroBlock { offset }) => {
                Some(Warning::LoneZeroBlock { shard: fid, offset })
            }
            Some(End::ZeroBlockThenData { offset }) => {
                Some(Warning::ZeroBlockThenData { shard: fid, offset })
            }
            Some(End::DataAfterMarker { offset }) => {
                Some(Warning::DataAfterMarker { shard: fid, offset })
            }
            _ => None,
        };
        self.report.warnings.extend(warning);
        Ok(stats)
    }

    fn add_glzn(&mut self, position: usize, data: &[u8]) -> Result<ShardStats> {
        let fid = if position == 0 {
            0
        } else {
            match self.rows.last() {
                Some(last) => last
                    .fid
                    .checked_add(1)
                    .ok_or(Error::FidOverflow { shard: position })?,
                None => {
                    self.report
                        .warnings
                        .push(Warning::UndefinedFid { position });
                    0
                }
            }
        };
        let mut stats = ShardStats {
            fid,
            members: 0,
            rows: 0,
            skipped: 0,
        };
        for header in GlznWalker::new(data, fid) {
            let header = header?;
            stats.members += 1;
            let name = String::from_utf8_lossy(header.name);
            let (stem, ext) = key::split_name(&name);
            self.add_row(fid, header.offset, header.size, stem, ext)?;
            stats.rows += 1;
        }
        Ok(stats)
    }

    fn add_row(&mut self, fid: u16, offset: u64, size: u64, stem: &str, ext: &str) -> Result<()> {
        if stem.contains('\n') || ext.contains('\n') {
            return Err(Error::Newline { shard: fid, offset });
        }
        let ext = key::lowercase(ext);
        // Folds have a handful of extensions: a scan beats the map until there are many.
        let found = if self.exts.len() <= 16 {
            (0u16..)
                .zip(&self.exts)
                .find(|(_, e)| **e == *ext)
                .map(|(i, _)| i)
        } else {
            self.ext_ids.get(ext.as_ref()).copied()
        };
        let extid = match found {
            Some(id) => id,
            None => {
                let id = u16::try_from(self.exts.len())
                    .map_err(|_| Error::TooManyExtensions { shard: fid, offset })?;
                self.exts.push(String::from(ext.as_ref()));
                self.ext_ids.insert(String::from(ext.as_ref()), id);
                id
            }
        };
        let same = self
            .current
            .and_then(|i| self.stems.get(i))
            .is_some_and(|s| self.arena.get(s.start..s.end) == Some(stem));
        if !same {
            let i = self.stem_index(stem, fid, offset)?;
            self.current = Some(i);
            self.runs += 1;
            self.run_exts.clear();
        }
        // Duplicates need a sort at the end only if one is possible at all.
        if self.run_exts.contains(&extid) || self.run_exts.len() >= 16 {
            self.maybe_duplicates = true;
        } else {
            self.run_exts.push(extid);
        }
        let s = self.current.and_then(|i| self.stems.get(i)).copied();
        let (keyhash, crashid) = s.map_or((0, 0), |s| (s.keyhash, s.crashid));
        self.rows.push(RowData {
            fid,
            offset,
            size,
            extid,
            crashid,
            keyhash,
        });
        Ok(())
    }

    /// The stem's index, adding it (with its crash id) if it is new.
    fn stem_index(&mut self, stem: &str, fid: u16, offset: u64) -> Result<usize> {
        let keyhash = (self.hasher)(stem);
        let mut last = None;
        let mut at = self.by_hash.get(&keyhash).copied().unwrap_or(NONE);
        while let Some(s) = self.stems.get(idx(at)) {
            if self.arena.get(s.start..s.end) == Some(stem) {
                // Seen before, but not in the run just ended: not contiguous, and
                // possibly a duplicate of an earlier member.
                self.maybe_duplicates = true;
                return Ok(idx(at));
            }
            last = Some(idx(at));
            at = s.next;
        }
        let crashid = match last {
            None => 0,
            Some(_) => {
                let id = u32::try_from(self.crash.len() + 1)
                    .ok()
                    .filter(|&id| id != NONE)
                    .ok_or(Error::TooManyCrashStems { shard: fid, offset })?;
                self.crash.push(String::from(stem));
                id
            }
        };
        let index = self.stems.len();
        let index32 = u32::try_from(index)
            .ok()
            .filter(|&i| i != NONE)
            .ok_or(Error::TooManyCrashStems { shard: fid, offset })?;
        let start = self.arena.len();
        self.arena.push_str(stem);
        self.stems.push(Stem {
            start,
            end: self.arena.len(),
            keyhash,
            crashid,
            next: NONE,
        });
        match last.and_then(|l| self.stems.get_mut(l)) {
            Some(prev) => prev.next = index32,
            None => {
                self.by_hash.insert(keyhash, index32);
            }
        }
        Ok(index)
    }

    fn stem_text(&self, keyhash: u64, crashid: u32) -> &str {
        let mut at = self.by_hash.get(&keyhash).copied().unwrap_or(NONE);
        while let Some(s) = self.stems.get(idx(at)) {
            if s.crashid == crashid {
                return self.arena.get(s.start..s.end).unwrap_or("");
            }
            at = s.next;
        }
        ""
    }

    /// The index and the report. Duplicate (stem, extension) pairs are found here.
    #[must_use]
    pub fn finish(mut self) -> (IndexFile, Report) {
        if self.maybe_duplicates {
            let mut keys: Vec<(u64, u32, u16, usize)> = self
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| (r.keyhash, r.crashid, r.extid, i))
                .collect();
            keys.sort_unstable();
            let mut dups = Vec::new();
            let mut first = None;
            for pair in keys.windows(2) {
                if let [a, b] = pair {
                    if (a.0, a.1, a.2) == (b.0, b.1, b.2) {
                        let f = *first.get_or_insert(a.3);
                        dups.push((b.3, f));
                    } else {
                        first = None;
                    }
                }
            }
            dups.sort_unstable();
            for (row, first) in dups {
                if let (Some(r), Some(f)) = (self.rows.get(row), self.rows.get(first)) {
                    let warning = Warning::Duplicate {
                        shard: r.fid,
                        offset: r.offset,
                        stem: String::from(self.stem_text(r.keyhash, r.crashid)),
                        ext: self
                            .exts
                            .get(usize::from(r.extid))
                            .cloned()
                            .unwrap_or_default(),
                        first_shard: f.fid,
                    };
                    self.report.warnings.push(warning);
                }
            }
        }
        let n_stems = crate::len_u64(self.stems.len());
        let contiguous = self.runs == n_stems;
        let file = IndexFile::from_parts(self.exts, self.crash, self.rows, n_stems, contiguous);
        (file, self.report)
    }
}

/// The suffix of a shard file name of fold `fold`: `"train_0003.tar"` → `Some("0003")`.
///
/// A shard is `<fold>_<suffix>.tar` whose name without `.tar` has exactly one `_`.
///
/// ```
/// assert_eq!(taridx::shard_suffix("train", "train_0003.tar"), Some("0003"));
/// assert_eq!(taridx::shard_suffix("train", "train_a_b.tar"), None);
/// assert_eq!(taridx::shard_suffix("train", "val_0000.tar"), None);
/// ```
#[must_use]
pub fn shard_suffix<'n>(fold: &str, file_name: &'n str) -> Option<&'n str> {
    let base = file_name.strip_suffix(".tar")?;
    let (head, suffix) = base.split_once('_')?;
    (head == fold && !suffix.contains('_')).then_some(suffix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Index, StemMap};

    fn short_hash(stem: &str) -> u64 {
        key::keyhash(stem) & 0xf
    }

    #[test]
    fn many_way_collisions_get_crash_ids_in_first_seen_order() {
        let mut b = IndexBuilder::with_hasher(BuildOptions::strict(), short_hash);
        let stems: Vec<String> = (0..40).map(|i| alloc::format!("s{i}")).collect();
        for (i, stem) in stems.iter().enumerate() {
            let offset = u64::try_from(i).unwrap() * 1024;
            b.add_row(0, offset, 1, stem, "jpg").unwrap();
            // The same stem again later keeps its id.
            b.add_row(0, offset + 512, 1, stem, "cls").unwrap();
        }
        b.add_row(0, 1 << 20, 1, "s0", "png").unwrap();
        let (file, _) = b.finish();
        assert_eq!(file.n_stems(), 40);
        assert!(!file.is_contiguous());
        // With at most 16 hash values, every stem beyond the first of its value is a crash
        // stem, numbered as first seen.
        let values: alloc::collections::BTreeSet<u64> =
            stems.iter().map(|s| short_hash(s)).collect();
        assert_eq!(file.crash_stems().len(), 40 - values.len());
        let mut seen = alloc::collections::BTreeMap::new();
        let mut next = 1;
        for (row, stem) in file.rows().iter().zip(stems.iter().flat_map(|s| [s, s])) {
            let h = short_hash(stem);
            let expect = match seen.get(stem) {
                Some(&id) => id,
                None => {
                    let id = if seen.keys().any(|s: &&String| short_hash(s) == h) {
                        next += 1;
                        next - 1
                    } else {
                        0
                    };
                    seen.insert(stem, id);
                    id
                }
            };
            assert_eq!((row.keyhash, row.crashid), (h, expect), "{stem}");
            if expect > 0 {
                assert_eq!(
                    &file.crash_stems()[usize::try_from(expect).unwrap() - 1],
                    stem
                );
            }
        }
        let bytes = file.to_bytes();
        let index = Index::parse(&bytes).unwrap();
        let map = StemMap::build(&index).unwrap();
        map.check_header().unwrap();
        for stem in &stems {
            let rows: Vec<_> = map
                .lookup_key(short_hash(stem), map.crashid_of(stem))
                .collect();
            let expected = if stem == "s0" { 3 } else { 2 };
            assert_eq!(rows.len(), expected, "{stem}");
        }
    }
}
