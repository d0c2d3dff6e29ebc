//! Walking the headers of a tar shard held in memory (a slice or a memory map).
//!
//! [`Walker`] follows the strict rules: checksums checked, octal and base-256 numbers,
//! pax (`x`, `g`) and GNU long names (`L`, `K`) merged into the member they describe,
//! old GNU sparse maps skipped, truncation reported as an error, and the ways an archive
//! can end told apart. [`GlznWalker`] reproduces glzn's scanner, bugs included. Both only
//! look at headers: a payload is skipped by arithmetic, never read, so with a memory map
//! the pages of large payloads are never touched.
//!
//! [`member_at`] resolves one member's name from its own header blocks only (its header
//! and the extended headers directly before it), for name verification in O(1).

use core::fmt;

use binfmt_core::{Kind, bytes, field_offset};

use crate::error::{ErrorKind, Result, TarPart};
use crate::index::BLOCK;
use crate::raw::{OldGnuTail, SparseExtension, TarHeader};
use crate::text::EscapedBytes;

const SIZE_AT: u64 = field_offset!(TarHeader, size);
const CHKSUM_AT: u64 = field_offset!(TarHeader, chksum);
const TAIL_AT: u64 = field_offset!(TarHeader, prefix);

/// The name of a tar member, borrowed from the shard.
///
/// A POSIX ustar name is stored in two fields and joined with `/`; every other source
/// (pax `path`, GNU long name, the plain name field) is one piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name<'a> {
    prefix: &'a [u8],
    name: &'a [u8],
}

impl<'a> Name<'a> {
    fn single(name: &'a [u8]) -> Self {
        Name { prefix: &[], name }
    }

    /// The ustar prefix (empty unless the name came from prefix + name).
    #[must_use]
    pub fn prefix(&self) -> &'a [u8] {
        self.prefix
    }

    /// The name (after the prefix and its `/`, if any).
    #[must_use]
    pub fn name(&self) -> &'a [u8] {
        self.name
    }

    /// The text after the last `/` of the full name.
    #[must_use]
    pub fn basename(&self) -> &'a [u8] {
        match self.name.iter().rposition(|&b| b == b'/') {
            Some(i) => self.name.get(i + 1..).unwrap_or(&[]),
            // prefix + "/" + name: the last slash is the joining one.
            None => self.name,
        }
    }

    /// True when the full name ends in `/`.
    #[must_use]
    pub fn ends_with_slash(&self) -> bool {
        match self.name.last() {
            Some(&b) => b == b'/',
            None => !self.prefix.is_empty(),
        }
    }

    /// Both parts are valid UTF-8 (so the joined name is).
    #[must_use]
    pub fn is_utf8(&self) -> bool {
        core::str::from_utf8(self.prefix).is_ok() && core::str::from_utf8(self.name).is_ok()
    }

    /// The length of the full name in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        match self.prefix.len() {
            0 => self.name.len(),
            n => n.saturating_add(1).saturating_add(self.name.len()),
        }
    }

    /// True when the name is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when `self` and `other` are the same bytes of the same shard (not merely
    /// equal): every member under one global pax `path` has the same name in this sense,
    /// so that its decoding can be done once.
    #[must_use]
    pub fn is_same(&self, other: &Name<'_>) -> bool {
        let same = |a: &[u8], b: &[u8]| core::ptr::eq(a, b);
        same(self.prefix, other.prefix) && same(self.name, other.name)
    }

    /// The full name, invalid UTF-8 replaced by U+FFFD.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn to_string_lossy(&self) -> alloc::string::String {
        let mut s = alloc::string::String::new();
        if !self.prefix.is_empty() {
            s.push_str(&alloc::string::String::from_utf8_lossy(self.prefix));
            s.push('/');
        }
        s.push_str(&alloc::string::String::from_utf8_lossy(self.name));
        s
    }
}

impl fmt::Display for Name<'_> {
    /// The full name, escaped: control characters as `\e` or `\u{9b}`, invalid UTF-8 as `\xff`
    /// (see [`Escaped`](crate::Escaped)).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.prefix.is_empty() {
            fmt::Display::fmt(&EscapedBytes::new(self.prefix), f)?;
            f.write_str("/")?;
        }
        fmt::Display::fmt(&EscapedBytes::new(self.name), f)
    }
}

/// A tar member (a real entry, after its pax and long-name headers are merged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Member<'a> {
    /// Offset of the member's own header: the last header of its chain, so that the
    /// payload starts at `offset + 512` unless sparse extension blocks intervene.
    pub offset: u64,
    /// Where its data starts (after any old GNU sparse extension blocks).
    pub data_offset: u64,
    /// Data size: pax `size` if given, else the header's size field.
    pub size: u64,
    /// The typeflag byte.
    pub typeflag: u8,
    /// The resolved name.
    pub name: Name<'a>,
    /// An old GNU sparse member (`S`) or one with pax `GNU.sparse.*` keys: its data is a
    /// sparse encoding, not the file's content.
    pub sparse: bool,
}

impl Member<'_> {
    /// A regular file: typeflag `0`, NUL or `7`, except a NUL-typed name ending in `/`
    /// (an old-style directory).
    #[must_use]
    pub fn is_regular(&self) -> bool {
        match self.typeflag {
            b'0' | b'7' => true,
            0 => !self.name.ends_with_slash(),
            _ => false,
        }
    }
}

/// How a shard ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum End {
    /// Two zero blocks (and possibly more zero blocks after them): the normal end.
    Marker {
        /// Offset of the first zero block.
        offset: u64,
    },
    /// The end-of-archive blocks are followed by other bytes, which are ignored.
    DataAfterMarker {
        /// Offset of the first byte after the zero blocks.
        offset: u64,
    },
    /// The file ends right after a member: no end-of-archive marker.
    NoMarker {
        /// The file's length.
        offset: u64,
    },
    /// A single zero block and then the end of the file.
    LoneZeroBlock {
        /// Offset of the zero block.
        offset: u64,
    },
    /// A single zero block followed by data (a concatenated archive?), which is ignored.
    ZeroBlockThenData {
        /// Offset of the zero block.
        offset: u64,
    },
    /// Fewer than 512 bytes follow the last member (no end-of-archive marker): they are
    /// ignored, as GNU tar ignores a partial block at the end of an archive.
    PartialBlock {
        /// Offset of the first such byte.
        offset: u64,
        /// How many bytes there are (1 to 511).
        len: u64,
    },
}

impl End {
    /// True for a clean end (two zero blocks and nothing but zero blocks after them).
    #[must_use]
    pub fn is_clean(&self) -> bool {
        matches!(self, End::Marker { .. })
    }
}

/// What the walker yields: members, and oddities worth a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A member.
    Member(Member<'a>),
    /// A second GNU long name (or long link) before one member; the last one is used.
    RepeatedLongName {
        /// Offset of the repeated `L`/`K` header.
        offset: u64,
    },
    /// A global pax header (`g`): its records apply to every later member (a `path` in
    /// it names them all).
    GlobalHeader {
        /// Offset of the `g` header.
        offset: u64,
    },
}

/// A pax value that can also be deleted (an empty value deletes, per POSIX).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Val<T> {
    #[default]
    Unset,
    Deleted,
    Set(T),
}

impl<T: Copy> Val<T> {
    fn over(self, base: Self) -> Self {
        match self {
            Val::Unset => base,
            other => other,
        }
    }
    fn get(self) -> Option<T> {
        match self {
            Val::Set(v) => Some(v),
            _ => None,
        }
    }
}

/// The pax keys the indexer cares about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pax<'a> {
    path: Val<&'a [u8]>,
    size: Val<u64>,
    sparse_name: Val<&'a [u8]>,
    sparse: bool,
}

impl<'a> Pax<'a> {
    fn over(self, base: Self) -> Self {
        Pax {
            path: self.path.over(base.path),
            size: self.size.over(base.size),
            sparse_name: self.sparse_name.over(base.sparse_name),
            sparse: self.sparse || base.sparse,
        }
    }
}

/// The strict walker over one shard's bytes. See the [module docs](self).
///
/// Iterate to get [`Event`]s; an `Err` ends the walk. When the iterator returns `None`,
/// [`Walker::end`] tells how the archive ended.
#[derive(Debug, Clone)]
pub struct Walker<'a> {
    data: &'a [u8],
    /// The offset in the shard of `data[0]` (0 unless the walker reads a window).
    base: u64,
    shard: u16,
    /// The offset in the shard of the next header.
    pos: u64,
    global: Pax<'a>,
    pending: Pax<'a>,
    long_name: Option<&'a [u8]>,
    long_link: bool,
    done: bool,
    end: Option<End>,
}

impl<'a> Walker<'a> {
    /// A walker over `data`, the whole shard whose id (for errors) is `shard`.
    #[must_use]
    pub fn new(data: &'a [u8], shard: u16) -> Self {
        Walker::window(data, 0, shard)
    }

    /// A walker over `window`, the bytes of shard `shard` from offset `base` on, starting
    /// there; offsets (and errors) are the shard's.
    pub(crate) fn window(window: &'a [u8], base: u64, shard: u16) -> Self {
        Walker {
            data: window,
            base,
            shard,
            pos: base,
            global: Pax::default(),
            pending: Pax::default(),
            long_name: None,
            long_link: false,
            done: false,
            end: None,
        }
    }

    /// How the archive ended; `None` while walking or after an error.
    #[must_use]
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// The offset in the shard of the end of the bytes we have.
    fn len(&self) -> u64 {
        self.base.saturating_add(bytes::len_u64(self.data))
    }

    /// `len` bytes at shard offset `at`.
    fn bytes_at(&self, at: u64, len: u64, what: &'static str) -> Result<&'a [u8]> {
        let rel = at.saturating_sub(self.base);
        Ok(bytes::slice(self.data, rel, len, what).map_err(|e| e.rebased(self.base))?)
    }

    /// The structure `T` at shard offset `at`.
    fn read_at<T>(&self, at: u64, what: &'static str) -> Result<&'a T>
    where
        T: zerocopy::FromBytes + zerocopy::KnownLayout + zerocopy::Immutable + zerocopy::Unaligned,
    {
        let rel = at.saturating_sub(self.base);
        Ok(bytes::read(self.data, rel, what).map_err(|e| e.rebased(self.base))?)
    }

    fn is_zero_block(&self, at: u64) -> bool {
        self.bytes_at(at, BLOCK, "block")
            .is_ok_and(|b| b.iter().all(|&x| x == 0))
    }

    fn finish(&mut self, end: End) -> Option<Result<Event<'a>>> {
        self.done = true;
        self.end = Some(end);
        None
    }

    fn fail(&mut self, e: crate::Error) -> Option<Result<Event<'a>>> {
        self.done = true;
        Some(Err(e))
    }

    /// Classifies the end once a zero block is found at `at`.
    fn end_at(&self, at: u64) -> End {
        let len = self.len();
        let next = at.saturating_add(BLOCK);
        if next >= len {
            return End::LoneZeroBlock { offset: at };
        }
        if !self.is_zero_block(next) {
            return End::ZeroBlockThenData { offset: at };
        }
        let mut p = next.saturating_add(BLOCK);
        while self.is_zero_block(p) {
            p = p.saturating_add(BLOCK);
        }
        if p < len {
            End::DataAfterMarker { offset: p }
        } else {
            End::Marker { offset: at }
        }
    }

    fn step(&mut self) -> Result<Option<Event<'a>>, Step> {
        let (shard, pos, len) = (self.shard, self.pos, self.len());
        if pos >= len {
            // Also when the last member's padding is missing: its data was complete.
            return Err(Step::End(End::NoMarker { offset: len }));
        }
        let Ok(block) = self.bytes_at(pos, BLOCK, "tar header") else {
            // GNU tar drops a partial block at the end of an archive, and so do we.
            return Err(Step::End(End::PartialBlock {
                offset: pos,
                len: len - pos,
            }));
        };
        if block.iter().all(|&b| b == 0) {
            return Err(Step::End(self.end_at(pos)));
        }
        let header: &TarHeader = self.read_at(pos, "tar header").map_err(Step::Fail)?;
        check_checksum(block, header, shard, pos).map_err(Step::Fail)?;
        let field_size =
            number(&header.size, shard, pos.saturating_add(SIZE_AT), "size").map_err(Step::Fail)?;
        let typeflag = header.typeflag;
        let data_start = pos.saturating_add(BLOCK);
        match typeflag {
            b'x' | b'g' | b'L' | b'K' => {
                let data = self
                    .bytes_at(data_start, field_size, "extended header")
                    .map_err(|_| {
                        Step::Fail(
                            ErrorKind::TarTruncated {
                                shard,
                                part: TarPart::ExtendedHeader,
                                end: data_start.saturating_add(field_size),
                                len,
                            }
                            .at(pos),
                        )
                    })?;
                let mut event = None;
                match typeflag {
                    b'x' => {
                        let pending = self.pending;
                        self.pending =
                            parse_pax(data, pending, shard, data_start).map_err(Step::Fail)?;
                    }
                    b'g' => {
                        let global = self.global;
                        self.global =
                            parse_pax(data, global, shard, data_start).map_err(Step::Fail)?;
                        event = Some(Event::GlobalHeader { offset: pos });
                    }
                    b'L' => {
                        if self.long_name.is_some() {
                            event = Some(Event::RepeatedLongName { offset: pos });
                        }
                        self.long_name = Some(until_nul(data));
                    }
                    _ => {
                        if self.long_link {
                            event = Some(Event::RepeatedLongName { offset: pos });
                        }
                        self.long_link = true;
                    }
                }
                self.pos = next_header(data_start, field_size);
                Ok(event)
            }
            _ => {
                let pax = self.pending.over(self.global);
                let size = pax.size.get().unwrap_or(field_size);
                let name = if let Some(n) = pax.sparse_name.get() {
                    Name::single(n)
                } else if let Some(p) = pax.path.get() {
                    Name::single(p)
                } else if let Some(l) = self.long_name {
                    Name::single(l)
                } else {
                    let prefix = until_nul(&header.prefix);
                    if &header.magic == b"ustar\0" && &header.version == b"00" && !prefix.is_empty()
                    {
                        Name {
                            prefix,
                            name: until_nul(&header.name),
                        }
                    } else {
                        Name::single(until_nul(&header.name))
                    }
                };
                let mut data_offset = data_start;
                if typeflag == b'S' {
                    data_offset = self.skip_sparse_extensions(pos, data_start)?;
                }
                let end = data_offset.checked_add(size).filter(|&e| e <= len);
                let Some(_) = end else {
                    return Err(Step::Fail(
                        ErrorKind::TarTruncated {
                            shard,
                            part: TarPart::Member,
                            end: data_offset.saturating_add(size),
                            len,
                        }
                        .at(pos),
                    ));
                };
                self.pos = next_header(data_offset, size);
                self.pending = Pax::default();
                self.long_name = None;
                self.long_link = false;
                Ok(Some(Event::Member(Member {
                    offset: pos,
                    data_offset,
                    size,
                    typeflag,
                    name,
                    sparse: typeflag == b'S' || pax.sparse,
                })))
            }
        }
    }

    /// Skips the extension blocks of an old GNU sparse header; returns where data starts.
    fn skip_sparse_extensions(&self, header_at: u64, mut at: u64) -> Result<u64, Step> {
        let tail: &OldGnuTail = self
            .read_at(header_at.saturating_add(TAIL_AT), "sparse header")
            .map_err(Step::Fail)?;
        let mut extended = tail.isextended != 0;
        while extended {
            let ext: &SparseExtension = self.read_at(at, "sparse map").map_err(|_| {
                Step::Fail(
                    ErrorKind::TarTruncated {
                        shard: self.shard,
                        part: TarPart::SparseMap,
                        end: at.saturating_add(BLOCK),
                        len: self.len(),
                    }
                    .at(header_at),
                )
            })?;
            extended = ext.isextended != 0;
            at = at.saturating_add(BLOCK);
        }
        Ok(at)
    }
}

enum Step {
    End(End),
    Fail(crate::Error),
}

impl<'a> Iterator for Walker<'a> {
    type Item = Result<Event<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.step() {
                Ok(Some(event)) => return Some(Ok(event)),
                Ok(None) => {}
                Err(Step::End(end)) => return self.finish(end),
                Err(Step::Fail(e)) => return self.fail(e),
            }
        }
        None
    }
}

impl core::iter::FusedIterator for Walker<'_> {}

/// Where the next header starts after `size` data bytes at `start` (data is padded to
/// 512 bytes). Saturates: a position past the end simply ends the walk.
fn next_header(start: u64, size: u64) -> u64 {
    let blocks = size.div_ceil(BLOCK);
    start.saturating_add(blocks.saturating_mul(BLOCK))
}

/// The bytes before the first NUL.
fn until_nul(field: &[u8]) -> &[u8] {
    match field.iter().position(|&b| b == 0) {
        Some(i) => field.get(..i).unwrap_or(field),
        None => field,
    }
}

/// Octal text up to the first NUL, surrounding spaces allowed, empty = 0.
fn octal(field: &[u8]) -> Option<u64> {
    let text = until_nul(field).trim_ascii_start();
    let text = match text.iter().rposition(|&b| b != b' ') {
        Some(i) => text.get(..=i).unwrap_or(text),
        None => &[],
    };
    text.iter().try_fold(0u64, |n, &c| {
        if (b'0'..=b'7').contains(&c) {
            n.checked_mul(8)?.checked_add(u64::from(c - b'0'))
        } else {
            None
        }
    })
}

/// A numeric header field: octal, or GNU base-256 when the first byte has bit 7 set.
fn number(field: &[u8], shard: u16, offset: u64, name: &'static str) -> Result<u64> {
    let bad = || ErrorKind::TarNumber { shard, field: name }.at(offset);
    match field.split_first() {
        Some((&first, rest)) if first & 0x80 != 0 => {
            if first == 0xff {
                return Err(ErrorKind::TarNegative { shard, field: name }.at(offset));
            }
            rest.iter()
                .try_fold(u64::from(first & 0x7f), |n, &b| {
                    n.checked_mul(256)?.checked_add(u64::from(b))
                })
                .ok_or_else(bad)
        }
        _ => octal(field).ok_or_else(bad),
    }
}

fn check_checksum(block: &[u8], header: &TarHeader, shard: u16, offset: u64) -> Result<()> {
    let stored = octal(&header.chksum).ok_or_else(|| {
        ErrorKind::TarNumber {
            shard,
            field: "checksum",
        }
        .at(offset.saturating_add(CHKSUM_AT))
    })?;
    // Sum the whole block (a loop the compiler vectorises), then count the checksum field
    // as eight spaces instead of its bytes.
    let sum = |bytes: &[u8]| bytes.iter().map(|&b| u32::from(b)).sum::<u32>();
    let unsigned = u64::from(sum(block) - sum(&header.chksum) + 8 * 32);
    if stored == unsigned {
        return Ok(());
    }
    // Some historical writers summed signed chars: each byte ≥ 0x80 counts 256 less.
    let high = |bytes: &[u8]| bytes.iter().map(|&b| u32::from(b >> 7)).sum::<u32>();
    let high = i64::from(high(block) - high(&header.chksum));
    let signed = i64::try_from(unsigned).unwrap_or(i64::MAX) - 256 * high;
    if i64::try_from(stored).is_ok_and(|s| s == signed) {
        Ok(())
    } else {
        Err(ErrorKind::TarChecksum {
            shard,
            stored,
            unsigned,
            signed,
        }
        .at(offset))
    }
}

/// Merges the records of a pax extended header (`"%d %s=%s\n"`) into `pax`.
fn parse_pax<'a>(data: &'a [u8], mut pax: Pax<'a>, shard: u16, base: u64) -> Result<Pax<'a>> {
    let mut pos = 0usize;
    let bad = |at: usize, reason| {
        ErrorKind::Pax { shard, reason }.at(base.saturating_add(bytes::to_u64(at)))
    };
    while let Some(rest) = data.get(pos..) {
        if rest.is_empty() || rest.iter().all(|&b| b == 0) {
            break; // some writers pad the data with NULs
        }
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || rest.get(digits) != Some(&b' ') {
            return Err(bad(
                pos,
                "a record does not start with its decimal length and a space",
            ));
        }
        let len = rest
            .get(..digits)
            .and_then(|d| core::str::from_utf8(d).ok())
            .and_then(|d| d.parse::<usize>().ok())
            .ok_or_else(|| bad(pos, "record length does not fit"))?;
        let record = rest
            .get(..len)
            .filter(|r| len > digits + 1 && r.last() == Some(&b'\n'))
            .ok_or_else(|| {
                bad(
                    pos,
                    "a record's length does not end at a newline within the header",
                )
            })?;
        let body = record.get(digits + 1..len - 1).unwrap_or(&[]);
        let eq = body
            .iter()
            .position(|&b| b == b'=')
            .ok_or_else(|| bad(pos, "a record has no '='"))?;
        let (key, value) = (
            body.get(..eq).unwrap_or(&[]),
            body.get(eq + 1..).unwrap_or(&[]),
        );
        let val = |v: &'a [u8]| {
            if v.is_empty() {
                Val::Deleted
            } else {
                Val::Set(v)
            }
        };
        match key {
            b"path" => pax.path = val(value),
            b"GNU.sparse.name" => {
                pax.sparse = true;
                pax.sparse_name = val(value);
            }
            b"size" => {
                pax.size = if value.is_empty() {
                    Val::Deleted
                } else {
                    let n = core::str::from_utf8(value)
                        .ok()
                        .filter(|v| v.bytes().all(|b| b.is_ascii_digit()))
                        .and_then(|v| v.parse::<u64>().ok())
                        .ok_or_else(|| bad(pos, "size is not a decimal number"))?;
                    Val::Set(n)
                };
            }
            k if k.starts_with(b"GNU.sparse.") => pax.sparse = true,
            _ => {}
        }
        pos += len;
    }
    Ok(pax)
}

/// A compressed file recognised by its magic bytes (see [`compression`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// gzip (`1f 8b 08`): `.tar.gz`, `.tgz`.
    Gzip,
    /// bzip2 (`BZh1`…`BZh9`): `.tar.bz2`.
    Bzip2,
    /// xz (`fd 37 7a 58 5a 00`): `.tar.xz`.
    Xz,
    /// Zstandard (`28 b5 2f fd`): `.tar.zst`.
    Zstd,
    /// LZ4 frame (`04 22 4d 18`): `.tar.lz4`.
    Lz4,
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
            Compression::Lz4 => "lz4",
        })
    }
}

/// The compression a shard's first bytes show, if any: a compressed tar is not a tar,
/// and its index would be empty or garbage.
///
/// `None` when `head` starts with a valid tar header, whatever its first bytes (a
/// member may be named `BZh9…`).
///
/// ```
/// use taridx::tar::{Compression, compression};
/// assert_eq!(compression(b"\x1f\x8b\x08\x00rest of a gzip stream"), Some(Compression::Gzip));
/// assert_eq!(compression(b"\x28\xb5\x2f\xfd..."), Some(Compression::Zstd));
/// assert_eq!(compression(&[0u8; 1024]), None);
/// ```
#[must_use]
pub fn compression(head: &[u8]) -> Option<Compression> {
    let found = match head {
        [0x1f, 0x8b, 0x08, ..] => Compression::Gzip,
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
        [0xfd, b'7', b'z', b'X', b'Z', 0, ..] => Compression::Xz,
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
        [0x04, 0x22, 0x4d, 0x18, ..] => Compression::Lz4,
        _ => return None,
    };
    let is_tar = bytes::slice(head, 0, BLOCK, "tar header")
        .ok()
        .zip(bytes::read::<TarHeader>(head, 0, "tar header").ok())
        .is_some_and(|(block, header)| check_checksum(block, header, 0, 0).is_ok());
    (!is_tar).then_some(found)
}

/// How far before its own header [`member_at`] looks for a member's extended headers
/// (pax `x`/`g`, GNU `L`/`K`): 1 MiB, far more than any real writer's.
pub const MAX_CHAIN: u64 = 1 << 20;

/// `MAX_CHAIN` in blocks: the size of `member_at`'s bit set.
const MAX_CHAIN_BLOCKS: usize = 2048;
const _: () = assert!(MAX_CHAIN == BLOCK * MAX_CHAIN_BLOCKS as u64);

/// Where the extended headers of the member whose header is at `offset` can start, when
/// the previous indexed member of its shard ends at `lower` (its data padded to 512; 0
/// for the first): `lower`, but at most [`MAX_CHAIN`] before `offset`, and not after it.
#[must_use]
pub fn chain_start(lower: u64, offset: u64) -> u64 {
    lower.max(offset.saturating_sub(MAX_CHAIN)).min(offset)
}

/// The member whose own header is at `offset`, resolved from its header blocks only: that
/// header and the extended headers (pax `x`/`g`, GNU `L`/`K`) directly before it, no
/// earlier than `lower` (see [`chain_start`]).
///
/// `window` is the bytes of shard `shard` from offset `base` on; it must reach from
/// `chain_start(lower, offset)` (or `base`, if later) to the end of the member's data.
///
/// The region from `lower` (where the previous indexed member's data ends) to `offset` is
/// walked forward with the strict walker's rules, as the indexer walked it, past the
/// members the index skipped (directories, names without an extension), so a global pax
/// header anywhere in the region is seen. If that walk fails (damage in another member
/// of the region) or cannot be made (a region longer than [`MAX_CHAIN`]), the member's
/// extended headers are found backwards instead: the longest unbroken run of valid
/// extended headers whose data ends exactly at `offset`. Either way the cost is O(1) in
/// the shard's size and damage elsewhere in the shard does not matter.
///
/// A `path` that a global pax header set before `lower` is not seen (GNU tar and Python's
/// tarfile would give that name to every later member; no real writer does so).
///
/// Returns `Ok(None)` when no member header starts at `offset` (an end-of-archive block,
/// an extended header).
///
/// # Errors
/// [`ErrorKind::TarHeaderTruncated`] when the window ends before the header does; the
/// strict walker's errors for the header and the extended headers directly before it
/// ([`ErrorKind::TarChecksum`], [`ErrorKind::Pax`], [`ErrorKind::TarTruncated`] when the
/// window ends before the member's data, …).
pub fn member_at(
    window: &[u8],
    base: u64,
    offset: u64,
    lower: u64,
    shard: u16,
) -> Result<Option<Member<'_>>> {
    let end = base.saturating_add(bytes::len_u64(window));
    if offset < base || end.saturating_sub(offset) < BLOCK {
        return Err(ErrorKind::TarHeaderTruncated {
            shard,
            available: end.saturating_sub(offset),
        }
        .at(offset));
    }
    let floor = chain_start(lower, offset).max(base);
    if floor == lower && floor < offset {
        // The whole region is in the window: the indexer's walk, if nothing in it is
        // damaged.
        if let Ok(Some(member)) = walk_to(window, base, floor, offset, shard) {
            return Ok(Some(member));
        }
    }
    // reach[k]: an unbroken run of extended headers from k blocks before `offset` ends
    // exactly at `offset`. Blocks are visited from `offset` backwards, so a header's
    // successor has been classified before the header itself.
    let blocks = usize::try_from((offset - floor) / BLOCK)
        .unwrap_or(usize::MAX)
        .min(MAX_CHAIN_BLOCKS);
    let mut reach = [0u64; MAX_CHAIN_BLOCKS / 64 + 1];
    let mut start = offset;
    for k in 1..=blocks {
        let p = offset - bytes::to_u64(k) * BLOCK;
        let Some(next) = extended_header_end(window, base, p) else {
            continue;
        };
        let joins = next == offset
            || (next < offset
                && usize::try_from((offset - next) / BLOCK)
                    .ok()
                    .is_some_and(|j| bit(&reach, j)));
        if joins {
            if let Some(word) = reach.get_mut(k / 64) {
                *word |= 1 << (k % 64);
            }
            start = p;
        }
    }
    walk_to(window, base, start, offset, shard)
}

/// Walks from shard offset `start` to the member at `offset`, past the members before it
/// (directories and other members the index skips): `None` if the walk passes `offset`.
fn walk_to(
    window: &[u8],
    base: u64,
    start: u64,
    offset: u64,
    shard: u16,
) -> Result<Option<Member<'_>>> {
    let from = usize::try_from(start - base)
        .ok()
        .and_then(|i| window.get(i..))
        .unwrap_or(&[]);
    for event in Walker::window(from, start, shard) {
        if let Event::Member(m) = event?
            && m.offset >= offset
        {
            return Ok((m.offset == offset).then_some(m));
        }
    }
    Ok(None)
}

fn bit(set: &[u64], i: usize) -> bool {
    set.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// Where the data of the extended header (`x`, `g`, `L`, `K`) at shard offset `p` ends,
/// padded: `None` unless a valid one (checksum, size) is there.
fn extended_header_end(window: &[u8], base: u64, p: u64) -> Option<u64> {
    let rel = p.checked_sub(base)?;
    let header: &TarHeader = bytes::read(window, rel, "").ok()?;
    if !matches!(header.typeflag, b'x' | b'g' | b'L' | b'K') {
        return None;
    }
    let block = bytes::slice(window, rel, BLOCK, "").ok()?;
    check_checksum(block, header, 0, p).ok()?;
    let size = number(&header.size, 0, p, "size").ok()?;
    Some(next_header(p.saturating_add(BLOCK), size))
}

/// One header as glzn's scanner sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct GlznHeader<'a> {
    /// Offset of the header.
    pub offset: u64,
    /// The size field, parsed as glzn does.
    pub size: u64,
    /// The name field up to its first NUL (glzn decodes it lossily).
    pub name: &'a [u8],
}

/// glzn's scanner: every header is an entry, the first zero block (or fewer than 512
/// bytes left) ends the shard, nothing is checked, and a size field that is not plain
/// octal (base-256 included) is an error, as it aborts glzn's indexing.
#[derive(Debug, Clone)]
pub struct GlznWalker<'a> {
    data: &'a [u8],
    shard: u16,
    pos: u64,
    done: bool,
}

impl<'a> GlznWalker<'a> {
    /// A walker over `data`, the whole shard whose id (for errors) is `shard`.
    #[must_use]
    pub fn new(data: &'a [u8], shard: u16) -> Self {
        GlznWalker {
            data,
            shard,
            pos: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for GlznWalker<'a> {
    type Item = Result<GlznHeader<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let pos = self.pos;
        let header = match bytes::read::<TarHeader>(self.data, pos, "tar header") {
            Ok(h) if !is_zero(h) => h,
            _ => {
                self.done = true;
                return None;
            }
        };
        let size_field = until_nul(&header.size);
        let size = size_field.trim_ascii().iter().try_fold(0u64, |n, &c| {
            if (b'0'..=b'7').contains(&c) {
                n.checked_mul(8)?.checked_add(u64::from(c - b'0'))
            } else {
                None
            }
        });
        let Some(size) = size else {
            self.done = true;
            return Some(Err(ErrorKind::TarNumber {
                shard: self.shard,
                field: "size",
            }
            .at(pos.saturating_add(SIZE_AT))));
        };
        self.pos = next_header(pos.saturating_add(BLOCK), size);
        Some(Ok(GlznHeader {
            offset: pos,
            size,
            name: until_nul(&header.name),
        }))
    }
}

impl core::iter::FusedIterator for GlznWalker<'_> {}

fn is_zero(h: &TarHeader) -> bool {
    zerocopy::IntoBytes::as_bytes(h).iter().all(|&b| b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(octal(b"0000644\0"), Some(0o644));
        assert_eq!(octal(b"  644 \0xx"), Some(0o644));
        assert_eq!(octal(b"\0\0\0"), Some(0));
        assert_eq!(octal(b"777777777777"), Some(0o777_777_777_777));
        assert_eq!(octal(b"12 3"), None);
        assert_eq!(octal(b"9"), None);
        let mut b256 = [0u8; 12];
        b256[0] = 0x80;
        b256[10] = 0x03;
        b256[11] = 0xe8;
        assert_eq!(number(&b256, 0, 0, "size").unwrap(), 1000);
        b256[0] = 0xff;
        assert!(matches!(
            number(&b256, 0, 0, "size").map_err(crate::Error::into_kind),
            Err(ErrorKind::TarNegative { .. })
        ));
        b256[0] = 0x81;
        assert!(matches!(
            number(&b256, 0, 0, "size").map_err(crate::Error::into_kind),
            Err(ErrorKind::TarNumber { .. })
        ));
    }

    fn header(name: &[u8], signed: bool) -> [u8; 1024] {
        let mut h = [0u8; 1024];
        h[..name.len()].copy_from_slice(name);
        h[124..135].copy_from_slice(b"00000000001");
        h[156] = b'0';
        h[148..156].copy_from_slice(b"        ");
        let sum: i64 = h[..512]
            .iter()
            .map(|&b| {
                if signed {
                    i64::from(b as i8)
                } else {
                    i64::from(b)
                }
            })
            .sum();
        let text = std::format!("{sum:06o}\0 ");
        h[148..156].copy_from_slice(text.as_bytes());
        h
    }

    #[test]
    fn checksums_may_be_unsigned_or_signed_sums() {
        for signed in [false, true] {
            let h = header("caf\u{e9}.jpg".as_bytes(), signed);
            let events: std::vec::Vec<_> = Walker::new(&h, 0).collect();
            assert!(
                matches!(events[..], [Ok(Event::Member(Member { size: 1, .. }))]),
                "{signed}"
            );
        }
        let mut h = header(b"a.jpg", false);
        h[0] = b'b';
        let e = Walker::new(&h, 3).next().unwrap().unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::TarChecksum { shard: 3, .. }));
        assert_eq!(e.offset(), Some(0));
    }

    #[test]
    fn pax_records() {
        let data = b"29 path=long/name/sample.jpg\n11 size=42\n";
        let pax = parse_pax(data, Pax::default(), 0, 0).unwrap();
        assert_eq!(pax.path, Val::Set(&b"long/name/sample.jpg"[..]));
        assert_eq!(pax.size, Val::Set(42));
        assert!(!pax.sparse);
        assert!(parse_pax(b"5 a=b\n", Pax::default(), 0, 0).is_err());
        assert!(parse_pax(b"x", Pax::default(), 0, 0).is_err());
        assert!(parse_pax(b"99 path=a\n", Pax::default(), 0, 0).is_err());
        assert!(parse_pax(b"11 size=4x\n", Pax::default(), 0, 0).is_err());
        let deleted = parse_pax(b"8 path=\n", pax, 0, 0).unwrap();
        assert_eq!(deleted.path, Val::Deleted);
        assert!(
            parse_pax(b"22 GNU.sparse.major=1\n", Pax::default(), 0, 0)
                .unwrap()
                .sparse
        );
    }
}
