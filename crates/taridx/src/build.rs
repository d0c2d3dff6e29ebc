//! Indexing a fold of tar shards: strict mode and glzn-compat mode.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use binfmt_core::Kind;
use binfmt_core::bytes::to_u64;

use crate::error::{ErrorKind, Result};
use crate::key;
use crate::report::{NameExcerpt, Report, SkipReason, Skipped, Warning};
use crate::tar::{self, End, Event, GlznWalker, Member, Name, Walker};
use crate::write::{IndexFile, RowData};

/// The default of [`BuildOptions::max_diagnostics`].
pub(crate) const DEFAULT_MAX_DIAGNOSTICS: u64 = 100;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BuildOptions {
    mode: Mode,
    lossy_names: bool,
    max_diagnostics: u64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions::strict()
    }
}

impl BuildOptions {
    /// Strict mode, invalid UTF-8 names rejected (the default).
    #[must_use]
    pub const fn strict() -> Self {
        BuildOptions {
            mode: Mode::Strict,
            lossy_names: false,
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
        }
    }

    /// glzn-compat mode (names are always decoded lossily there, as glzn does).
    #[must_use]
    pub const fn glzn() -> Self {
        BuildOptions {
            mode: Mode::Glzn,
            lossy_names: true,
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
        }
    }

    /// How many skipped members and warnings of each kind the [`Report`] keeps (100 by
    /// default); the rest are counted (see [`Report::skipped_messages`]).
    #[must_use]
    pub const fn max_diagnostics(mut self, max: u64) -> Self {
        self.max_diagnostics = max;
        self
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

/// What one call of [`Writer::add`] did.
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

/// What a member's name gives, worked out once per distinct name.
#[derive(Debug, Clone, Copy)]
struct Decoded {
    /// The name is not UTF-8 and was decoded lossily.
    lossy: bool,
    /// Why a regular member of this name is skipped (empty stem, no extension), if it is.
    skip: Option<SkipReason>,
    /// The row key (extension id, index into `stems`), once a row has needed it.
    key: Option<(u16, usize)>,
}

/// Indexes the shards of a fold, one after the other, into an [`IndexFile`].
///
/// The shape every binfmt writer has: shards are added with [`add`](Writer::add), and
/// [`finish`](Writer::finish) returns a [`Finished`]: the index, which has the output
/// methods (`to_vec`, `write_to` for any `Write`, `write_to_path`), and the report of
/// what was indexed.
///
/// ```
/// use taridx::{BuildOptions, Index, Writer};
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
/// let mut writer = Writer::new(BuildOptions::strict());
/// writer.add("train_0000.tar", &shard)?;
/// let finished = writer.finish()?;
/// assert!(finished.report.warnings.is_empty());
/// let bytes = finished.index.to_vec()?;
/// let index = Index::parse(&bytes)?;
/// assert_eq!((index.n_rows(), index.n_stems()), (2, 1));
/// # Ok::<(), taridx::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Writer {
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

/// The old name of [`Writer`], kept for one release. (Its `finish` now returns a
/// `Result<Finished>`.)
#[deprecated(note = "renamed to Writer")]
pub type IndexBuilder = Writer;

/// What [`Writer::finish`] returns: the index and the report.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Finished {
    /// The index, ready to be written (`to_vec`, `write_to`, `write_to_path`).
    pub index: IndexFile,
    /// What was indexed, skipped and warned about.
    pub report: Report,
}

impl Writer {
    /// An empty writer.
    #[must_use]
    pub fn new(options: BuildOptions) -> Self {
        Writer {
            options,
            report: Report::new(options.max_diagnostics),
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

    /// A writer with another stem hash, to exercise many-way collisions in tests.
    #[cfg(test)]
    fn with_hasher(options: BuildOptions, hasher: fn(&str) -> u64) -> Self {
        Writer {
            hasher,
            ..Writer::new(options)
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
    /// Only headers are read; payloads are skipped by arithmetic. On error the writer
    /// is left with the rows of the shard's members before the error: discard it.
    ///
    /// # Errors
    /// Both modes: [`ErrorKind::Compressed`] for a gzip, bzip2, xz, zstd or lz4 file,
    /// [`ErrorKind::Newline`]. Strict mode: any tar error ([`ErrorKind::TarChecksum`],
    /// [`ErrorKind::TarTruncated`], …), [`ErrorKind::NameUtf8`],
    /// [`ErrorKind::TooManyShards`], [`ErrorKind::TooManyExtensions`]. glzn mode:
    /// [`ErrorKind::TarNumber`] for a size field that is not plain octal,
    /// [`ErrorKind::FidOverflow`].
    pub fn add(&mut self, name: impl Into<String>, data: &[u8]) -> Result<ShardStats> {
        let position = self.report.shards.len();
        self.report.shards.push(name.into());
        match self.options.mode {
            Mode::Strict => self.add_strict(position, data),
            Mode::Glzn => self.add_glzn(position, data),
        }
    }

    /// Renamed to [`Writer::add`].
    ///
    /// # Errors
    /// As [`Writer::add`].
    #[deprecated(note = "renamed to Writer::add")]
    pub fn add_shard(&mut self, name: impl Into<String>, data: &[u8]) -> Result<ShardStats> {
        self.add(name, data)
    }

    fn add_strict(&mut self, position: usize, data: &[u8]) -> Result<ShardStats> {
        let fid = u16::try_from(position).map_err(|_| {
            ErrorKind::TooManyShards {
                count: position.saturating_add(1),
            }
            .unlocated()
        })?;
        let mut stats = start_shard(data, fid)?;
        // Every member under one global pax `path` has the same name bytes: the name is
        // decoded, split and hashed once, not once per member. (Per shard: the bytes of
        // another shard may later lie at the same address.)
        let mut last: Option<(Name<'_>, Decoded)> = None;
        let mut walker = Walker::new(data, fid);
        for event in &mut walker {
            let member = match event? {
                Event::Member(m) => m,
                Event::RepeatedLongName { offset } => {
                    self.report
                        .warn(Warning::RepeatedLongName { shard: fid, offset });
                    continue;
                }
                // Its records reach the members through the walker.
                Event::GlobalHeader { .. } => continue,
            };
            stats.members += 1;
            let mut decoded = match last {
                Some((name, decoded)) if name.is_same(&member.name) => decoded,
                _ => self.decode(fid, &member)?,
            };
            if decoded.lossy {
                self.report.warn(Warning::LossyName {
                    shard: fid,
                    offset: member.offset,
                });
            }
            let reason = if member.sparse {
                Some(SkipReason::Sparse)
            } else if !member.is_regular() {
                Some(SkipReason::NotRegular {
                    typeflag: member.typeflag,
                })
            } else {
                decoded.skip
            };
            match reason {
                None => {
                    let (extid, stem) = match decoded.key {
                        Some(key) => key,
                        None => {
                            let key = self.key_of_member(fid, &member)?;
                            decoded.key = Some(key);
                            key
                        }
                    };
                    self.push_row(fid, member.offset, member.size, extid, stem);
                    stats.rows += 1;
                }
                Some(reason) => {
                    stats.skipped += 1;
                    self.report.skip(reason, || Skipped {
                        shard: fid,
                        offset: member.offset,
                        name: excerpt(&member.name),
                        reason,
                    });
                }
            }
            last = Some((member.name, decoded));
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
            Some(End::PartialBlock { offset, len }) => Some(Warning::PartialBlock {
                shard: fid,
                offset,
                len,
            }),
            _ => None,
        };
        if let Some(warning) = warning {
            self.report.warn(warning);
        }
        Ok(stats)
    }

    /// The basename of `member` as text: borrowed when it is UTF-8, decoded lossily
    /// (`true`) when lossy names are on, an error otherwise.
    fn basename<'m>(&self, fid: u16, member: &Member<'m>) -> Result<(Cow<'m, str>, bool)> {
        let basename = member.name.basename();
        if member.name.is_utf8() {
            Ok((
                Cow::Borrowed(core::str::from_utf8(basename).unwrap_or("")),
                false,
            ))
        } else if self.options.lossy_names {
            Ok((String::from_utf8_lossy(basename), true))
        } else {
            Err(ErrorKind::NameUtf8 { shard: fid }.at(member.offset))
        }
    }

    /// What `member`'s name gives, before any row needs its key.
    fn decode(&self, fid: u16, member: &Member<'_>) -> Result<Decoded> {
        let (basename, lossy) = self.basename(fid, member)?;
        let (stem, ext) = key::split_name(&basename);
        let skip = if stem.is_empty() {
            Some(SkipReason::EmptyStem)
        } else if ext.is_empty() {
            Some(SkipReason::NoExtension)
        } else {
            None
        };
        Ok(Decoded {
            lossy,
            skip,
            key: None,
        })
    }

    /// The row key of `member` (extension and stem added if new).
    fn key_of_member(&mut self, fid: u16, member: &Member<'_>) -> Result<(u16, usize)> {
        let (basename, _) = self.basename(fid, member)?;
        let (stem, ext) = key::split_name(&basename);
        self.key_of(fid, member.offset, stem, ext)
    }

    fn add_glzn(&mut self, position: usize, data: &[u8]) -> Result<ShardStats> {
        let fid = if position == 0 {
            0
        } else {
            match self.rows.last() {
                Some(last) => last
                    .fid
                    .checked_add(1)
                    .ok_or_else(|| ErrorKind::FidOverflow { shard: position }.unlocated())?,
                None => {
                    self.report.warn(Warning::UndefinedFid { position });
                    0
                }
            }
        };
        let mut stats = start_shard(data, fid)?;
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
        let (extid, stem) = self.key_of(fid, offset, stem, ext)?;
        self.push_row(fid, offset, size, extid, stem);
        Ok(())
    }

    /// The extension id and the stem's index for a member, both added if new.
    fn key_of(&mut self, fid: u16, offset: u64, stem: &str, ext: &str) -> Result<(u16, usize)> {
        if stem.contains('\n') || ext.contains('\n') {
            return Err(ErrorKind::Newline { shard: fid }.at(offset));
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
                    .map_err(|_| ErrorKind::TooManyExtensions { shard: fid }.at(offset))?;
                self.exts.push(String::from(ext.as_ref()));
                self.ext_ids.insert(String::from(ext.as_ref()), id);
                id
            }
        };
        let current = self.current.filter(|&i| {
            self.stems
                .get(i)
                .and_then(|s| self.arena.get(s.start..s.end))
                == Some(stem)
        });
        let stem = match current {
            Some(i) => i,
            None => self.stem_index(stem, fid, offset)?,
        };
        Ok((extid, stem))
    }

    /// Appends a row of the stem at index `stem`, tracking runs and possible duplicates.
    fn push_row(&mut self, fid: u16, offset: u64, size: u64, extid: u16, stem: usize) {
        if self.current != Some(stem) {
            self.current = Some(stem);
            self.runs += 1;
            self.run_exts.clear();
        }
        // Duplicates need a sort at the end only if one is possible at all.
        if self.run_exts.contains(&extid) || self.run_exts.len() >= 16 {
            self.maybe_duplicates = true;
        } else {
            self.run_exts.push(extid);
        }
        let (keyhash, crashid) = self
            .stems
            .get(stem)
            .map_or((0, 0), |s| (s.keyhash, s.crashid));
        self.rows.push(RowData {
            fid,
            offset,
            size,
            extid,
            crashid,
            keyhash,
        });
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
                    .ok_or_else(|| ErrorKind::TooManyCrashStems { shard: fid }.at(offset))?;
                self.crash.push(String::from(stem));
                id
            }
        };
        let index = self.stems.len();
        let index32 = u32::try_from(index)
            .ok()
            .filter(|&i| i != NONE)
            .ok_or_else(|| ErrorKind::TooManyCrashStems { shard: fid }.at(offset))?;
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

    /// The index and the report. Duplicate (stem, extension) pairs are found here.
    ///
    /// # Errors
    /// None today (every row was checked when its shard was added); the `Result` is the
    /// `finish` every binfmt writer has.
    pub fn finish(mut self) -> Result<Finished> {
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
                    let (stems, exts, arena) = (&self.stems, &self.exts, &self.arena);
                    self.report
                        .warn_with(Report::DUPLICATE, || Warning::Duplicate {
                            shard: r.fid,
                            offset: r.offset,
                            stem: NameExcerpt::new(
                                stem_text(stems, &self.by_hash, arena, r.keyhash, r.crashid)
                                    .as_bytes(),
                            ),
                            ext: NameExcerpt::new(
                                exts.get(usize::from(r.extid))
                                    .map_or(&[][..], |e| e.as_bytes()),
                            ),
                            first_shard: f.fid,
                        });
                }
            }
        }
        let n_stems = to_u64(self.stems.len());
        let contiguous = self.runs == n_stems;
        let file = IndexFile::from_parts(self.exts, self.crash, self.rows, n_stems, contiguous);
        Ok(Finished {
            index: file,
            report: self.report,
        })
    }
}

/// The text of the stem with this key.
fn stem_text<'s>(
    stems: &[Stem],
    by_hash: &BTreeMap<u64, u32>,
    arena: &'s str,
    keyhash: u64,
    crashid: u32,
) -> &'s str {
    let mut at = by_hash.get(&keyhash).copied().unwrap_or(NONE);
    while let Some(s) = stems.get(idx(at)) {
        if s.crashid == crashid {
            return arena.get(s.start..s.end).unwrap_or("");
        }
        at = s.next;
    }
    ""
}

/// A name for a diagnostic: its first bytes only, however long it is.
fn excerpt(name: &Name<'_>) -> NameExcerpt {
    if name.prefix().is_empty() {
        return NameExcerpt::new(name.name());
    }
    let mut joined = Vec::with_capacity(NameExcerpt::MAX_LEN + 4);
    for part in [name.prefix(), b"/", name.name()] {
        let room = (NameExcerpt::MAX_LEN + 4).saturating_sub(joined.len());
        joined.extend_from_slice(part.get(..room).unwrap_or(part));
    }
    let mut excerpt = NameExcerpt::new(&joined);
    excerpt.set_len(to_u64(name.len()));
    excerpt
}

/// The empty stats of shard `fid`, or an error for a compressed shard: its index would be
/// empty or garbage.
fn start_shard(data: &[u8], fid: u16) -> Result<ShardStats> {
    match tar::compression(data) {
        Some(compression) => Err(ErrorKind::Compressed {
            shard: fid,
            compression,
        }
        .at(0)),
        None => Ok(ShardStats {
            fid,
            members: 0,
            rows: 0,
            skipped: 0,
        }),
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
        let mut b = Writer::with_hasher(BuildOptions::strict(), short_hash);
        let stems: Vec<String> = (0..40).map(|i| alloc::format!("s{i}")).collect();
        for (i, stem) in stems.iter().enumerate() {
            let offset = u64::try_from(i).unwrap() * 1024;
            b.add_row(0, offset, 1, stem, "jpg").unwrap();
            // The same stem again later keeps its id.
            b.add_row(0, offset + 512, 1, stem, "cls").unwrap();
        }
        b.add_row(0, 1 << 20, 1, "s0", "png").unwrap();
        let file = b.finish().unwrap().index;
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
        let bytes = file.to_vec().unwrap();
        let index = Index::parse(&bytes).unwrap();
        let map = StemMap::build(&index).unwrap();
        assert_eq!(map.distinct_stems(), index.n_stems());
        for stem in &stems {
            let rows: Vec<_> = map
                .lookup_key(short_hash(stem), map.crashid_of(stem))
                .collect();
            let expected = if stem == "s0" { 3 } else { 2 };
            assert_eq!(rows.len(), expected, "{stem}");
        }
    }
}
