//! Keys as text: kastore keys are byte strings of any length (a 13 KB key of control
//! characters is a valid key), so showing one must neither copy it whole nor trust its
//! length.

use core::fmt::{self, Write as _};
use core::ops::ControlFlow;

use binfmt_core::text::{EscapedBytes, EscapedChar};

/// A key quoted in an error message: its first 40 bytes and its full length.
///
/// Errors do not borrow the input and do not allocate, so long keys are cut. It prints
/// between double quotes, escaped as [`KeyText`] does (the workspace's one escaper; a
/// quote inside the key is not escaped), with `…` when cut.
///
/// ```
/// use kastore::KeyExcerpt;
/// assert_eq!(KeyExcerpt::new(b"nodes/time").to_string(), "\"nodes/time\"");
/// let long = KeyExcerpt::new(&[b'x'; 50]);
/// assert_eq!((long.len(), long.as_bytes().len(), long.is_cut()), (50, 40, true));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyExcerpt {
    bytes: [u8; KeyExcerpt::CAPACITY],
    kept: u8,
    len: u64,
}

impl KeyExcerpt {
    const CAPACITY: usize = 40;

    /// Copies (the start of) `key`.
    #[must_use]
    pub fn new(key: &[u8]) -> KeyExcerpt {
        let mut bytes = [0u8; KeyExcerpt::CAPACITY];
        let kept = key.len().min(KeyExcerpt::CAPACITY);
        if let (Some(dst), Some(src)) = (bytes.get_mut(..kept), key.get(..kept)) {
            dst.copy_from_slice(src);
        }
        KeyExcerpt {
            bytes,
            kept: u8::try_from(kept).unwrap_or(0),
            len: binfmt_core::bytes::len_u64(key),
        }
    }

    /// The bytes kept (all of the key when it is 40 bytes or shorter).
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.kept)).unwrap_or(&[])
    }

    /// The length of the whole key.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for the empty key.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when [`as_bytes`](KeyExcerpt::as_bytes) is only the start of the key.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.len > u64::from(self.kept)
    }
}

impl fmt::Display for KeyExcerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        fmt::Display::fmt(&KeyText::new(self.as_bytes()), f)?;
        if self.is_cut() {
            f.write_char('…')?;
        }
        f.write_char('"')
    }
}

impl fmt::Debug for KeyExcerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A key shown as text, without copying it: escaped (the default) or lossy, whole or cut
/// to a number of characters.
///
/// * **Escaped** ([`KeyText::new`]): with the workspace's one escaper
///   ([`binfmt_core::text`]), so a key prints the same here as in `binfmt` and every other
///   crate: printable text as it is, `\n`, `\t`, `\e` for ESC, other control and format
///   characters as `\u{1}` or `\u{202e}`, a backslash as `\\`, and every byte that is not
///   part of valid UTF-8 as `\xNN`. Different keys always print differently.
/// * **Lossy** ([`KeyText::lossy`]): what `String::from_utf8_lossy` gives (U+FFFD for
///   each invalid sequence, nothing escaped), for JSON writers that escape themselves.
///
/// A display width taken from a key must be bounded by the caller: escaping can make a
/// 13 KB key 66,000 characters wide. [`KeyText::max_chars`] cuts the rendering (never
/// inside an escape), and [`KeyText::char_count`] measures it up to a bound, both without
/// allocating.
///
/// ```
/// use kastore::KeyText;
/// assert_eq!(KeyText::new(b"nodes/time").to_string(), "nodes/time");
/// assert_eq!(KeyText::new(b"a\x01\xffb\x1b").to_string(), "a\\u{1}\\xffb\\e");
/// assert_eq!(KeyText::new(b"a\x01\xffb").lossy().to_string(), "a\u{1}\u{fffd}b");
/// let long = [1u8; 13_000];
/// assert_eq!(KeyText::new(&long).char_count(usize::MAX), 65_000);
/// assert_eq!(KeyText::new(&long).max_chars(12).to_string(), "\\u{1}\\u{1}…");
/// assert_eq!(format!("{:<6}|", KeyText::new(b"ab")), "ab    |");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyText<'a> {
    key: &'a [u8],
    lossy: bool,
    max_chars: Option<usize>,
}

/// One step of a rendering: a character of the key as the escaper shows it, or (lossy) a
/// character as it is. A cut falls between pieces, so it never splits an escape.
#[derive(Clone, Copy)]
enum Piece {
    Escaped(EscapedChar),
    Plain(char),
}

impl Piece {
    fn char_count(self) -> usize {
        match self {
            Piece::Escaped(e) => e.char_count(),
            Piece::Plain(_) => 1,
        }
    }

    fn write_to(self, out: &mut dyn fmt::Write) -> fmt::Result {
        match self {
            Piece::Escaped(e) => e.write_to(out),
            Piece::Plain(c) => out.write_char(c),
        }
    }
}

impl<'a> KeyText<'a> {
    /// The escaped rendering of `key`, whole.
    #[must_use]
    pub const fn new(key: &'a [u8]) -> KeyText<'a> {
        KeyText {
            key,
            lossy: false,
            max_chars: None,
        }
    }

    /// The lossy rendering instead: U+FFFD for invalid UTF-8, nothing escaped.
    #[must_use]
    pub const fn lossy(mut self) -> KeyText<'a> {
        self.lossy = true;
        self
    }

    /// Prints at most `n` characters (at least 1): a longer rendering is cut to the
    /// characters and whole escapes that fit in `n - 1` characters, and `…`.
    #[must_use]
    pub const fn max_chars(mut self, n: usize) -> KeyText<'a> {
        self.max_chars = Some(n);
        self
    }

    /// The key's bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.key
    }

    /// The number of characters the whole rendering has, counted up to `bound` (the
    /// result is at most `bound`), so that measuring a huge key costs at most `bound`
    /// steps. Ignores [`max_chars`](KeyText::max_chars).
    #[must_use]
    pub fn char_count(&self, bound: usize) -> usize {
        let mut n = 0usize;
        let _ = self.render(&mut |piece| {
            n = n.saturating_add(piece.char_count());
            if n >= bound {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        n.min(bound)
    }

    /// Calls `each` with every piece of the whole rendering until it says stop.
    fn render(&self, each: &mut dyn FnMut(Piece) -> ControlFlow<()>) -> ControlFlow<()> {
        if !self.lossy {
            for e in EscapedBytes::new(self.key).chars() {
                each(Piece::Escaped(e))?;
            }
            return ControlFlow::Continue(());
        }
        for chunk in self.key.utf8_chunks() {
            for c in chunk.valid().chars() {
                each(Piece::Plain(c))?;
            }
            if !chunk.invalid().is_empty() {
                each(Piece::Plain(char::REPLACEMENT_CHARACTER))?;
            }
        }
        ControlFlow::Continue(())
    }

    /// With a limit of `limit` characters: `None` when the whole rendering fits, else the
    /// number of characters of the whole pieces that fit in `limit - 1` (before `…`).
    /// Walks at most `limit + 1` characters of the rendering.
    fn cut_at(&self, limit: usize) -> Option<usize> {
        let keep_max = limit.saturating_sub(1);
        let (mut total, mut kept, mut over) = (0usize, 0usize, false);
        let _ = self.render(&mut |piece| {
            total = total.saturating_add(piece.char_count());
            if total <= keep_max {
                kept = total;
            }
            if total > limit {
                over = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        over.then_some(kept)
    }

    /// The number of characters [`Display`](fmt::Display) writes (before padding),
    /// counted up to `bound` when the key is not cut.
    fn shown_len(&self, bound: usize) -> usize {
        match self.max_chars.map(|n| n.max(1)) {
            Some(n) => match self.cut_at(n) {
                Some(kept) => kept.saturating_add(1),
                None => self.char_count(n),
            },
            None => self.char_count(bound),
        }
    }

    /// Writes the rendering, cut as configured; returns how many characters it wrote.
    fn write(&self, out: &mut dyn fmt::Write) -> Result<usize, fmt::Error> {
        let cut = self.max_chars.and_then(|n| self.cut_at(n.max(1)));
        let keep = cut.unwrap_or(usize::MAX);
        let mut written = 0usize;
        let mut result = Ok(());
        let _ = self.render(&mut |piece| {
            let n = piece.char_count();
            if n > keep.saturating_sub(written) {
                return ControlFlow::Break(());
            }
            result = piece.write_to(out);
            written = written.saturating_add(n);
            if result.is_err() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        result?;
        if cut.is_some() {
            out.write_char('…')?;
            written = written.saturating_add(1);
        }
        Ok(written)
    }
}

impl fmt::Display for KeyText<'_> {
    /// Honours width and alignment (`{:<20}`) by counting characters, so that padding a
    /// column never needs the key copied into a `String`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(width) = f.width() else {
            return self.write(f).map(|_| ());
        };
        let len = self.shown_len(width);
        let pad = width.saturating_sub(len);
        let fill = f.fill();
        let (before, after) = match f.align() {
            Some(fmt::Alignment::Right) => (pad, 0),
            Some(fmt::Alignment::Center) => (pad / 2, pad - pad / 2),
            Some(fmt::Alignment::Left) | None => (0, pad),
        };
        for _ in 0..before {
            f.write_char(fill)?;
        }
        self.write(f)?;
        for _ in 0..after {
            f.write_char(fill)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn excerpts_print_quoted_escaped_and_cut() {
        assert_eq!(KeyExcerpt::new(b"nodes/time").to_string(), "\"nodes/time\"");
        assert_eq!(
            KeyExcerpt::new(b"a\0\xffb\x1b\\").to_string(),
            r#""a\u{0}\xffb\e\\""#
        );
        let long = [b'x'; 50];
        let k = KeyExcerpt::new(&long);
        assert!(k.is_cut());
        assert_eq!(k.len(), 50);
        assert_eq!(k.to_string(), std::format!("\"{}…\"", "x".repeat(40)));
        assert_eq!(
            KeyExcerpt::new("日本語".as_bytes()).to_string(),
            "\"日本語\""
        );
    }

    #[test]
    fn text_cuts_only_when_longer() {
        let t = KeyText::new(b"abcdef");
        assert_eq!(t.max_chars(6).to_string(), "abcdef");
        assert_eq!(t.max_chars(5).to_string(), "abcd…");
        assert_eq!(t.max_chars(0).to_string(), "…");
        assert_eq!(t.char_count(3), 3);
        assert_eq!(std::format!("{:>8}|", t.max_chars(5)), "   abcd…|");
        assert_eq!(std::format!("{:^4}|", KeyText::new(b"a")), " a  |");
        // A width never makes a long key print in full or get padded.
        assert_eq!(std::format!("{:<3}|", t.max_chars(5)), "abcd…|");
    }

    #[test]
    fn cuts_never_split_an_escape() {
        let t = KeyText::new(b"ab\x1b\x1b");
        assert_eq!(t.to_string(), r"ab\e\e");
        assert_eq!(t.max_chars(6).to_string(), r"ab\e\e");
        assert_eq!(t.max_chars(5).to_string(), r"ab\e…");
        assert_eq!(t.max_chars(4).to_string(), "ab…");
        // Padding counts what is shown: 3 characters, then 3 of fill.
        assert_eq!(std::format!("{:<6}|", t.max_chars(4)), "ab…   |");
        assert_eq!(
            KeyText::new("\u{202e}x".as_bytes())
                .max_chars(8)
                .to_string(),
            "…"
        );
    }

    #[test]
    fn invalid_bytes_are_escaped_or_replaced() {
        assert_eq!(KeyText::new(b"\xe6\x97").to_string(), "\\xe6\\x97");
        assert_eq!(KeyText::new(b"\xe6\x97").lossy().to_string(), "\u{fffd}");
        assert_eq!(KeyText::new(b"\xe6\x97").char_count(100), 8);
    }
}
