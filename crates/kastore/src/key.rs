//! Keys as text: kastore keys are byte strings of any length (a 13 KB key of control
//! characters is a valid key), so showing one must neither copy it whole nor trust its
//! length.

use core::fmt::{self, Write as _};
use core::ops::ControlFlow;

/// A key quoted in an error message: its first 40 bytes and its full length.
///
/// Errors do not borrow the input and do not allocate, so long keys are cut. It prints as
/// a quoted string, escaped as [`KeyText`] does, with `…` when cut.
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
/// * **Escaped** ([`KeyText::new`]): valid UTF-8 with Rust's debug escapes for control
///   characters, quotes and backslashes (`\n`, `\u{1}`, `\"`), and every byte that is not
///   part of valid UTF-8 as `\xNN`. Different keys always print differently.
/// * **Lossy** ([`KeyText::lossy`]): what `String::from_utf8_lossy` gives (U+FFFD for
///   each invalid sequence, nothing escaped), for JSON writers that escape themselves.
///
/// A display width taken from a key must be bounded by the caller: escaping can make a
/// 13 KB key 66,000 characters wide. [`KeyText::max_chars`] cuts the rendering, and
/// [`KeyText::char_count`] measures it up to a bound, both without allocating.
///
/// ```
/// use kastore::KeyText;
/// assert_eq!(KeyText::new(b"nodes/time").to_string(), "nodes/time");
/// assert_eq!(KeyText::new(b"a\x01\xffb").to_string(), "a\\u{1}\\xffb");
/// assert_eq!(KeyText::new(b"a\x01\xffb").lossy().to_string(), "a\u{1}\u{fffd}b");
/// let long = [1u8; 13_000];
/// assert_eq!(KeyText::new(&long).char_count(usize::MAX), 65_000);
/// assert_eq!(KeyText::new(&long).max_chars(12).to_string(), "\\u{1}\\u{1}\\…");
/// assert_eq!(format!("{:<6}|", KeyText::new(b"ab")), "ab    |");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyText<'a> {
    key: &'a [u8],
    lossy: bool,
    max_chars: Option<usize>,
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

    /// Prints at most `n` characters (at least 1): a longer rendering is cut to its first
    /// `n - 1` characters and `…`.
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
        let _ = self.render(&mut |_| {
            if n >= bound {
                return ControlFlow::Break(());
            }
            n += 1;
            ControlFlow::Continue(())
        });
        n
    }

    /// Calls `each` with every character of the whole rendering until it says stop.
    fn render(&self, each: &mut dyn FnMut(char) -> ControlFlow<()>) -> ControlFlow<()> {
        for chunk in self.key.utf8_chunks() {
            for c in chunk.valid().chars() {
                if self.lossy {
                    each(c)?;
                } else {
                    for e in c.escape_debug() {
                        each(e)?;
                    }
                }
            }
            if chunk.invalid().is_empty() {
                continue;
            }
            if self.lossy {
                each(char::REPLACEMENT_CHARACTER)?;
            } else {
                for &b in chunk.invalid() {
                    each('\\')?;
                    each('x')?;
                    each(hex_digit(b >> 4))?;
                    each(hex_digit(b & 0xf))?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Writes the rendering, cut as configured; returns how many characters it wrote.
    fn write(&self, out: &mut dyn fmt::Write) -> Result<usize, fmt::Error> {
        let limit = self.max_chars.map(|n| n.max(1));
        // Cut only when the rendering is longer than the limit: count one past it.
        let cut = limit.filter(|&n| self.char_count(n.saturating_add(1)) > n);
        let keep = cut.map_or(usize::MAX, |n| n - 1);
        let mut written = 0usize;
        let mut result = Ok(());
        let _ = self.render(&mut |c| {
            if written >= keep {
                return ControlFlow::Break(());
            }
            result = out.write_char(c);
            written += 1;
            if result.is_err() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        result?;
        if cut.is_some() {
            out.write_char('…')?;
            written += 1;
        }
        Ok(written)
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from_digit(u32::from(nibble), 16).unwrap_or('?')
}

impl fmt::Display for KeyText<'_> {
    /// Honours width and alignment (`{:<20}`) by counting characters, so that padding a
    /// column never needs the key copied into a `String`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(width) = f.width() else {
            return self.write(f).map(|_| ());
        };
        let len = match self.max_chars {
            Some(n) => self.char_count(n.max(1)),
            None => self.char_count(width),
        };
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
            KeyExcerpt::new(b"a\0\xffb\"").to_string(),
            "\"a\\0\\xffb\\\"\""
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
    fn invalid_bytes_are_escaped_or_replaced() {
        assert_eq!(KeyText::new(b"\xe6\x97").to_string(), "\\xe6\\x97");
        assert_eq!(KeyText::new(b"\xe6\x97").lossy().to_string(), "\u{fffd}");
        assert_eq!(KeyText::new(b"\xe6\x97").char_count(100), 8);
    }
}
