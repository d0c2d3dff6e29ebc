//! A member of an archive as a listing shows it, and safe ways to print its name.

use core::fmt;
use core::ops::Range;

use crate::central::CentralEntry;
use crate::header::FLAG_UTF8;

/// A member of the archive: its central-directory entry, with the offset of its data
/// worked out from its local header.
///
/// Member names are bytes from the file. Print them with [`Member::name_escaped`] (or
/// [`Member::name_lossy`] where the output is not a terminal): a name may hold terminal
/// escape sequences or bidirectional-text controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member<'a> {
    index: u64,
    name: &'a [u8],
    flags: u16,
    method: u16,
    crc32: u32,
    size: u64,
    compressed_size: u64,
    local_header_offset: u64,
    data_offset: u64,
}

impl<'a> Member<'a> {
    pub(crate) fn new(entry: &CentralEntry<'a>, data_offset: u64) -> Self {
        Member {
            index: entry.index,
            name: entry.name,
            flags: entry.flags(),
            method: entry.method(),
            crc32: entry.crc32(),
            size: entry.size,
            compressed_size: entry.compressed_size,
            local_header_offset: entry.local_header_offset,
            data_offset,
        }
    }

    /// Position in the central directory (0 is `TACO_HEADER`).
    #[must_use]
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The name's bytes, as stored.
    #[must_use]
    pub fn name(&self) -> &'a [u8] {
        self.name
    }

    /// The name as text, if it is UTF-8 (names written by tacozip and binfmt are). It
    /// may still hold control characters: see [`Member::name_escaped`].
    #[must_use]
    pub fn name_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.name).ok()
    }

    /// The name as text, with invalid UTF-8 replaced by U+FFFD. Control characters are
    /// kept: for a terminal, use [`Member::name_escaped`].
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn name_lossy(&self) -> alloc::borrow::Cow<'a, str> {
        alloc::string::String::from_utf8_lossy(self.name)
    }

    /// The name for display on a terminal: printable text as it is, everything that
    /// could change what a terminal shows escaped (see [`EscapedName`]).
    ///
    /// ```
    /// # use taco_header::{Archive, Entries, Writer, WriterOptions};
    /// let mut writer = Writer::new(Entries::new());
    /// writer.options(WriterOptions::new().verbatim_names(true));
    /// writer.add_bytes("red\u{1b}[31m.txt", b"x".to_vec());
    /// let bytes = writer.to_vec()?;
    /// let archive = Archive::parse(&bytes)?;
    /// let member = archive.members().nth(1).unwrap()?;
    /// assert_eq!(member.name_escaped().to_string(), r"red\e[31m.txt");
    /// # Ok::<(), taco_header::Error>(())
    /// ```
    #[must_use]
    pub fn name_escaped(&self) -> EscapedName<'a> {
        EscapedName(self.name)
    }

    /// The general-purpose flags.
    #[must_use]
    pub fn flags(&self) -> u16 {
        self.flags
    }

    /// True when the UTF-8 flag (bit 11) is set.
    #[must_use]
    pub fn is_utf8_flagged(&self) -> bool {
        self.flags & FLAG_UTF8 != 0
    }

    /// Compression method (0 = stored).
    #[must_use]
    pub fn method(&self) -> u16 {
        self.method
    }

    /// CRC-32 of the uncompressed data, as the central directory states it.
    #[must_use]
    pub fn crc32(&self) -> u32 {
        self.crc32
    }

    /// Uncompressed size.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Size as stored (equal to `size` for a stored member).
    #[must_use]
    pub fn compressed_size(&self) -> u64 {
        self.compressed_size
    }

    /// Offset of the member's local header.
    #[must_use]
    pub fn local_header_offset(&self) -> u64 {
        self.local_header_offset
    }

    /// Offset of the member's stored data: read `compressed_size` bytes from here.
    #[must_use]
    pub fn data_offset(&self) -> u64 {
        self.data_offset
    }

    /// The byte range of the stored data (`data_offset..data_offset + compressed_size`,
    /// saturating). It is not checked against the file: `verify` does that.
    #[must_use]
    pub fn data_range(&self) -> Range<u64> {
        self.data_offset..self.data_offset.saturating_add(self.compressed_size)
    }
}

/// A member name, displayed so that it cannot act on a terminal, with the workspace's one
/// escaper ([`binfmt_core::text::EscapedBytes`]), so that a name prints the same here as in
/// `binfmt` and every other crate: printable characters as they are; backslash as `\\`;
/// `\n`, `\r`, `\t`, `\e` for ESC; other control characters (C0, DEL, C1, so every escape
/// sequence) and the Unicode format characters that reorder or hide displayed text
/// (bidirectional embeddings, overrides, isolates and marks, zero-width characters) as
/// `\u{…}`; bytes that are not UTF-8 as `\xNN`. Different names always display differently.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct EscapedName<'a>(&'a [u8]);

impl fmt::Display for EscapedName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&binfmt_core::text::EscapedBytes::new(self.0), f)
    }
}

impl fmt::Debug for EscapedName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    fn escaped(bytes: &[u8]) -> std::string::String {
        EscapedName(bytes).to_string()
    }

    #[test]
    fn names_cannot_reach_the_terminal_raw() {
        assert_eq!(escaped(b"DATA/plain.txt"), "DATA/plain.txt");
        assert_eq!(escaped("ñandú_日本".as_bytes()), "ñandú_日本");
        assert_eq!(escaped(b"\x1b]0;title\x07x"), r"\e]0;title\u{7}x");
        assert_eq!(escaped("a\u{9b}b".as_bytes()), r"a\u{9b}b");
        assert_eq!(escaped("gnp.\u{202e}exe".as_bytes()), r"gnp.\u{202e}exe");
        assert_eq!(
            escaped("zero\u{200b}width".as_bytes()),
            r"zero\u{200b}width"
        );
        assert_eq!(escaped(b"bad\xff\xfe"), r"bad\xff\xfe");
        assert_eq!(escaped(b"new\nline\ttab\x7f"), r"new\nline\ttab\u{7f}");
        // The escapes are unambiguous: a literal backslash is doubled.
        assert_eq!(escaped(br"a\xff"), r"a\\xff");
        assert_ne!(escaped(br"a\xff"), escaped(b"a\xff"));
    }
}
