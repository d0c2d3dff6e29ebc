//! What indexing reports besides the index: skipped members and warnings, kept up to a
//! limit per kind and counted beyond it, with names cut short and shown escaped.
//!
//! A shard can make the same diagnostic for every member (a global pax header giving
//! every member one name without an extension; a million members all duplicates), so a
//! report keeps the first [`BuildOptions::max_diagnostics`](crate::BuildOptions::max_diagnostics)
//! of each kind and counts the rest; its messages end with one `… and K more` line per
//! kind. A name is kept as a [`NameExcerpt`] of at most [`NameExcerpt::MAX_LEN`] bytes.
//! So a report's memory and its messages do not grow with the shard.

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::text::Escaped;

/// Up to [`NameExcerpt::MAX_LEN`] bytes of a name (or a stem, an extension) from a shard,
/// for diagnostics: invalid UTF-8 is replaced by U+FFFD, and `Display` escapes control
/// characters (see [`Escaped`]) and marks a cut name with `…`.
///
/// ```
/// use taridx::NameExcerpt;
/// let name = NameExcerpt::new("evil\x1b]0;pwned\x07.jpg".as_bytes());
/// assert_eq!(name.to_string(), r"evil\e]0;pwned\u{7}.jpg");
/// assert_eq!(name.as_str(), "evil\x1b]0;pwned\x07.jpg");
/// let long = NameExcerpt::new(&[b'a'; 1000]);
/// assert!(long.is_cut() && long.len() == 1000 && long.as_str().len() == NameExcerpt::MAX_LEN);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NameExcerpt {
    text: String,
    len: u64,
    cut: bool,
}

impl NameExcerpt {
    /// The most bytes of a name a diagnostic keeps.
    pub const MAX_LEN: usize = 256;

    /// The first bytes of `name` (at most [`MAX_LEN`](Self::MAX_LEN) after decoding,
    /// cut on a character boundary).
    #[must_use]
    pub fn new(name: &[u8]) -> Self {
        // A UTF-8 character is at most 4 bytes: decoding MAX_LEN + 3 bytes gives at least
        // MAX_LEN bytes of text unless the name is shorter.
        let head = name.get(..Self::MAX_LEN + 3).unwrap_or(name);
        let mut text = String::from_utf8_lossy(head).into_owned();
        let whole = text.len();
        let mut keep = Self::MAX_LEN.min(whole);
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
        text.truncate(keep);
        NameExcerpt {
            text,
            len: binfmt_core::bytes::len_u64(name),
            cut: keep < whole || head.len() < name.len(),
        }
    }

    /// Says that the name is `len` bytes long (for a name joined from parts that were
    /// cut before decoding).
    pub(crate) fn set_len(&mut self, len: u64) {
        if len > self.len {
            self.cut = true;
        }
        self.len = len;
    }

    /// The kept text, raw (not escaped): for output that is not a terminal (JSON).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The length of the whole name in bytes.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the name is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when the name is longer than what is kept.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.cut
    }
}

impl fmt::Display for NameExcerpt {
    /// The text escaped, with `…` when it is cut.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Escaped::new(&self.text), f)?;
        if self.is_cut() {
            f.write_str("…")?;
        }
        Ok(())
    }
}

impl PartialEq<str> for NameExcerpt {
    fn eq(&self, other: &str) -> bool {
        !self.is_cut() && self.text == other
    }
}

impl PartialEq<&str> for NameExcerpt {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
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

impl SkipReason {
    /// The reason's kind, for the cap and the summary line (typeflags are one kind).
    fn kind(&self) -> usize {
        match self {
            SkipReason::Sparse => 0,
            SkipReason::NotRegular { .. } => 1,
            SkipReason::EmptyStem => 2,
            SkipReason::NoExtension => 3,
        }
    }
}

const SKIP_KINDS: [&str; 4] = [
    "sparse members",
    "members that are not regular files",
    "members with an empty stem",
    "members without an extension",
];

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
                // A byte from the file: shown as the one escaper shows a one-byte name.
                binfmt_core::text::EscapedBytes::new(&[typeflag])
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
    /// The resolved name (invalid UTF-8 replaced, cut to [`NameExcerpt::MAX_LEN`] bytes).
    pub name: NameExcerpt,
    /// Why.
    pub reason: SkipReason,
}

impl Skipped {
    /// The message, naming the shard through `shard_name`:
    /// `SHARD: byte N: "NAME": REASON`, the name escaped.
    pub fn describe(&self, shard_name: impl Fn(usize) -> String) -> String {
        alloc::format!(
            "{}: byte {}: \"{}\": {}",
            Escaped::new(&shard_name(usize::from(self.shard))),
            self.offset,
            self.name,
            self.reason
        )
    }
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(|i| alloc::format!("shard {i}")))
    }
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
        stem: NameExcerpt,
        /// Its extension.
        ext: NameExcerpt,
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
    /// Fewer than 512 bytes follow the last member, without an end-of-archive marker;
    /// they are ignored (GNU tar ignores them too).
    PartialBlock {
        /// The shard id.
        shard: u16,
        /// Offset of the first such byte.
        offset: u64,
        /// How many bytes there are (1 to 511).
        len: u64,
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

const WARNING_KINDS: [&str; 9] = [
    "duplicate members",
    "shards without an end-of-archive marker",
    "shards ending with a lone zero block",
    "zero blocks followed by data",
    "shards with data after the end-of-archive marker",
    "partial blocks at the end of a shard",
    "repeated GNU long names",
    "names that are not valid UTF-8",
    "undefined glzn shard ids",
];

impl Warning {
    /// The warning's kind, for the cap and the summary line.
    fn kind(&self) -> usize {
        match self {
            Warning::Duplicate { .. } => 0,
            Warning::NoEndMarker { .. } => 1,
            Warning::LoneZeroBlock { .. } => 2,
            Warning::ZeroBlockThenData { .. } => 3,
            Warning::DataAfterMarker { .. } => 4,
            Warning::PartialBlock { .. } => 5,
            Warning::RepeatedLongName { .. } => 6,
            Warning::LossyName { .. } => 7,
            Warning::UndefinedFid { .. } => 8,
        }
    }

    /// The shard (by position in the fold) the warning is about.
    #[must_use]
    pub fn shard(&self) -> usize {
        self.place().0
    }

    /// The byte offset in the shard, when the warning has one.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        self.place().1
    }

    /// [`shard`](Self::shard) and [`offset`](Self::offset).
    fn place(&self) -> (usize, Option<u64>) {
        match *self {
            Warning::Duplicate { shard, offset, .. }
            | Warning::NoEndMarker { shard, offset, .. }
            | Warning::LoneZeroBlock { shard, offset, .. }
            | Warning::ZeroBlockThenData { shard, offset, .. }
            | Warning::DataAfterMarker { shard, offset, .. }
            | Warning::PartialBlock { shard, offset, .. }
            | Warning::RepeatedLongName { shard, offset, .. }
            | Warning::LossyName { shard, offset, .. } => (usize::from(shard), Some(offset)),
            Warning::UndefinedFid { position } => (position, None),
        }
    }

    /// The message, naming shards through `shard_name`: `SHARD: byte N: MESSAGE`, with
    /// names escaped.
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
                Escaped::new(&shard_name(usize::from(*first_shard)))
            ),
            Warning::NoEndMarker { .. } => "no end-of-archive marker".to_owned(),
            Warning::LoneZeroBlock { .. } => "lone zero block at end of file".to_owned(),
            Warning::ZeroBlockThenData { .. } => {
                "zero block followed by data (concatenated archive?); the rest is not indexed"
                    .to_owned()
            }
            Warning::DataAfterMarker { .. } => {
                "data after the end-of-archive marker is ignored".to_owned()
            }
            Warning::PartialBlock { len, .. } => alloc::format!(
                "{len} bytes after the last member, less than a 512-byte block and no end-of-archive marker, are ignored (as GNU tar does)"
            ),
            Warning::RepeatedLongName { .. } => {
                "more than one GNU long name for one member; the last one is used".to_owned()
            }
            Warning::LossyName { .. } => {
                "member name is not valid UTF-8; invalid bytes replaced by U+FFFD".to_owned()
            }
            Warning::UndefinedFid { .. } => {
                "glzn-compat: no row precedes this shard, so glzn's shard id is undefined; 0 is used"
                    .to_owned()
            }
        };
        let shard = Escaped::new(&shard_name(self.shard())).to_string();
        match self.offset() {
            Some(offset) => alloc::format!("{shard}: byte {offset}: {text}"),
            None => alloc::format!("{shard}: {text}"),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(|i| alloc::format!("shard {i}")))
    }
}

/// What indexing reported besides the index itself.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// The shards' names, in fold order (position = strict shard id).
    pub shards: Vec<String>,
    /// Members left out (strict mode): the first
    /// [`max_diagnostics`](crate::BuildOptions::max_diagnostics) of each reason kind.
    pub skipped: Vec<Skipped>,
    /// Warnings, per shard in order, then duplicates in row order: the first
    /// [`max_diagnostics`](crate::BuildOptions::max_diagnostics) of each kind.
    pub warnings: Vec<Warning>,
    /// Per skip-reason kind: (kept, counted beyond the cap).
    skip_counts: [(u64, u64); 4],
    /// Per warning kind: (kept, counted beyond the cap).
    warning_counts: [(u64, u64); 9],
    cap: u64,
}

impl Default for Report {
    fn default() -> Self {
        Report::new(crate::build::DEFAULT_MAX_DIAGNOSTICS)
    }
}

impl Report {
    pub(crate) fn new(cap: u64) -> Self {
        Report {
            shards: Vec::new(),
            skipped: Vec::new(),
            warnings: Vec::new(),
            skip_counts: [(0, 0); 4],
            warning_counts: [(0, 0); 9],
            cap,
        }
    }

    /// Records a skipped member; `make` runs only while its kind is under the cap.
    pub(crate) fn skip(&mut self, reason: SkipReason, make: impl FnOnce() -> Skipped) {
        if admit(self.skip_counts.get_mut(reason.kind()), self.cap) {
            self.skipped.push(make());
        }
    }

    /// Records a warning (see [`skip`](Self::skip)).
    pub(crate) fn warn(&mut self, warning: Warning) {
        self.warn_with(warning.kind(), || warning);
    }

    /// The kind number of duplicate warnings, for [`warn_with`](Self::warn_with).
    pub(crate) const DUPLICATE: usize = 0;

    /// Records a warning of `kind`, made only while the kind is under the cap.
    pub(crate) fn warn_with(&mut self, kind: usize, make: impl FnOnce() -> Warning) {
        if admit(self.warning_counts.get_mut(kind), self.cap) {
            self.warnings.push(make());
        }
    }

    /// Every skipped member, kept or only counted.
    #[must_use]
    pub fn skipped_count(&self) -> u64 {
        total(&self.skip_counts)
    }

    /// Every warning, kept or only counted.
    #[must_use]
    pub fn warning_count(&self) -> u64 {
        total(&self.warning_counts)
    }

    /// The name of the shard at `position`, or `"shard N"` (raw: escape it for a
    /// terminal).
    #[must_use]
    pub fn shard_name(&self, position: usize) -> String {
        self.shards
            .get(position)
            .cloned()
            .unwrap_or_else(|| alloc::format!("shard {position}"))
    }

    /// Every kept skipped member as a message naming its shard
    /// (`SHARD: byte N: "NAME": REASON`), then one `… and K more KIND` line per kind over
    /// the cap. Names are escaped.
    pub fn skipped_messages(&self) -> impl Iterator<Item = String> + '_ {
        self.skipped
            .iter()
            .map(|s| s.describe(|i| self.shard_name(i)))
            .chain(more_lines(&SKIP_KINDS, &self.skip_counts))
    }

    /// Every kept warning as a message naming its shard, then one `… and K more KIND`
    /// line per kind over the cap. Names are escaped.
    pub fn warning_messages(&self) -> impl Iterator<Item = String> + '_ {
        self.warnings
            .iter()
            .map(|w| w.describe(|i| self.shard_name(i)))
            .chain(more_lines(&WARNING_KINDS, &self.warning_counts))
    }
}

/// Counts one diagnostic against its kind's (kept, counted beyond the cap): true when it
/// is kept, that is while the kind is under `cap`.
fn admit(count: Option<&mut (u64, u64)>, cap: u64) -> bool {
    let Some(count) = count else {
        return false;
    };
    if count.0 < cap {
        count.0 += 1;
        true
    } else {
        count.1 = count.1.saturating_add(1);
        false
    }
}

/// Every diagnostic of the kinds `counts` counts, kept or only counted.
fn total(counts: &[(u64, u64)]) -> u64 {
    counts.iter().fold(0u64, |n, (kept, more)| {
        n.saturating_add(*kept).saturating_add(*more)
    })
}

/// One `… and K more KIND` line per kind over the cap.
fn more_lines<'a>(
    kinds: &'a [&'static str],
    counts: &'a [(u64, u64)],
) -> impl Iterator<Item = String> + 'a {
    kinds
        .iter()
        .zip(counts)
        .filter(|(_, (_, more))| *more > 0)
        .map(|(kind, (_, more))| alloc::format!("… and {more} more {kind}"))
}
