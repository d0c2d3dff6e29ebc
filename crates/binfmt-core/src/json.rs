//! A validating JSON scanner: checks that text is one JSON value, building nothing.
//!
//! Formats that embed JSON (MLDF's JSON fields, Bloscpack's metadata) check it with this
//! scanner rather than a JSON library, in `no_std`. Nesting is tracked on a byte stack as
//! deep as the input's nesting, so deep input cannot exhaust the call stack, and the time
//! is linear in the text.
//!
//! ```
//! use binfmt_core::json::{Dialect, validate};
//! assert!(validate(r#"{"shape": [2, 3]}"#, Dialect::Strict).is_ok());
//! // Python's json.dumps writes NaN and Infinity by default; RFC 8259 has neither.
//! assert!(validate("[NaN, -Infinity]", Dialect::Strict).is_err());
//! assert!(validate("[NaN, -Infinity]", Dialect::Python).is_ok());
//! ```

use alloc::vec::Vec;
use core::fmt;

/// Which JSON is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// RFC 8259 exactly.
    Strict,
    /// RFC 8259 plus the three words Python's `json` module writes for non-finite floats:
    /// `NaN`, `Infinity` and `-Infinity`.
    Python,
}

/// Why a text is not JSON, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonError {
    /// What is wrong (`"unterminated string"`).
    pub reason: &'static str,
    /// The byte offset of the problem in the text.
    pub at: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {} of the JSON text", self.reason, self.at)
    }
}

impl core::error::Error for JsonError {}

/// Checks that `text` is one JSON value of `dialect`, surrounded by optional whitespace.
///
/// # Errors
/// The first problem, with its byte offset in `text`.
pub fn validate(text: &str, dialect: Dialect) -> Result<(), JsonError> {
    Scanner {
        bytes: text.as_bytes(),
        at: 0,
        dialect,
    }
    .document()
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    dialect: Dialect,
}

impl Scanner<'_> {
    fn fail<T>(&self, reason: &'static str) -> Result<T, JsonError> {
        Err(JsonError {
            reason,
            at: self.at,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn bump(&mut self) {
        self.at = self.at.saturating_add(1);
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    fn expect(&mut self, byte: u8, reason: &'static str) -> Result<(), JsonError> {
        if self.peek() == Some(byte) {
            self.bump();
            Ok(())
        } else {
            self.fail(reason)
        }
    }

    fn document(&mut self) -> Result<(), JsonError> {
        let mut stack: Vec<u8> = Vec::new();
        self.ws();
        'value: loop {
            // A value starts here.
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.bump();
                    self.ws();
                    if self.peek() == Some(closing(open)) {
                        self.bump();
                    } else {
                        stack.push(open);
                        if open == b'{' {
                            self.key()?;
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => self.string()?,
                Some(b'N' | b'I') if self.dialect == Dialect::Python => self.non_finite()?,
                Some(b'-')
                    if self.dialect == Dialect::Python
                        && self.bytes.get(self.at.saturating_add(1)) == Some(&b'I') =>
                {
                    self.bump();
                    self.non_finite()?;
                }
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(_) => return self.fail("unexpected character"),
                None => return self.fail("unexpected end of text"),
            }
            // A value ended: close containers or move to the next element.
            loop {
                self.ws();
                match stack.last() {
                    None => {
                        return if self.at == self.bytes.len() {
                            Ok(())
                        } else {
                            self.fail("text after the value")
                        };
                    }
                    Some(&open) => {
                        let close = closing(open);
                        match self.peek() {
                            Some(b',') => {
                                self.bump();
                                self.ws();
                                if open == b'{' {
                                    self.key()?;
                                }
                                continue 'value;
                            }
                            Some(c) if c == close => {
                                self.bump();
                                stack.pop();
                            }
                            _ => return self.fail("expected ',' or a closing bracket"),
                        }
                    }
                }
            }
        }
    }

    /// `"key" :` followed by whitespace.
    fn key(&mut self) -> Result<(), JsonError> {
        if self.peek() != Some(b'"') {
            return self.fail("expected a string key");
        }
        self.string()?;
        self.ws();
        self.expect(b':', "expected ':'")?;
        self.ws();
        Ok(())
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<(), JsonError> {
        let end = self.at.saturating_add(word.len());
        if self.bytes.get(self.at..end) == Some(word) {
            self.at = end;
            Ok(())
        } else {
            self.fail("invalid literal")
        }
    }

    fn string(&mut self) -> Result<(), JsonError> {
        self.bump(); // the opening quote
        loop {
            match self.peek() {
                None => return self.fail("unterminated string"),
                Some(b'"') => {
                    self.bump();
                    return Ok(());
                }
                Some(b'\\') => {
                    self.bump();
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.bump();
                        }
                        Some(b'u') => {
                            self.bump();
                            for _ in 0..4 {
                                if !self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                                    return self.fail("invalid \\u escape");
                                }
                                self.bump();
                            }
                        }
                        _ => return self.fail("invalid escape"),
                    }
                }
                Some(c) if c < 0x20 => return self.fail("control character in a string"),
                Some(_) => self.bump(),
            }
        }
    }

    /// `NaN` or `Infinity` (after an optional `-`, already consumed), as Python's
    /// `json` module writes and reads them.
    fn non_finite(&mut self) -> Result<(), JsonError> {
        if self.peek() == Some(b'N') {
            self.literal(b"NaN")
        } else {
            self.literal(b"Infinity")
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        self.at.saturating_sub(start)
    }

    fn number(&mut self) -> Result<(), JsonError> {
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => self.bump(),
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.fail("invalid number"),
        }
        if self.peek() == Some(b'.') {
            self.bump();
            if self.digits() == 0 {
                return self.fail("invalid number");
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.bump();
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.bump();
            }
            if self.digits() == 0 {
                return self.fail("invalid number");
            }
        }
        Ok(())
    }
}

/// The byte that closes the container `open` (`{` or `[`) opens.
fn closing(open: u8) -> u8 {
    if open == b'{' { b'}' } else { b']' }
}

#[cfg(test)]
mod tests {
    use super::{Dialect, validate};

    #[test]
    fn accepts_json() {
        for ok in [
            "0",
            "-0.5e+10",
            " true ",
            "null",
            "\"a\\u00e9\\n\"",
            "[]",
            "{}",
            "[1, [2, {\"a\": [null]}], \"x\"]",
            "{\"k\": {\"n\": {}}, \"l\": []}\n",
            "\"héllo\"",
        ] {
            assert_eq!(validate(ok, Dialect::Strict), Ok(()), "{ok}");
            assert_eq!(validate(ok, Dialect::Python), Ok(()), "{ok}");
        }
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(validate(&deep, Dialect::Strict), Ok(()));
    }

    #[test]
    fn rejects_what_is_not_json() {
        for bad in [
            "",
            " ",
            "01",
            "1.",
            ".5",
            "+1",
            "tru",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "{a:1}",
            "[1 2]",
            "\"\\x\"",
            "\"a",
            "\"\t\"",
            "1 2",
            "[",
            "]",
            "'a'",
            "nan",
            "-NaN",
            "Inf",
            "+Infinity",
            "-",
            "-I",
        ] {
            assert!(validate(bad, Dialect::Strict).is_err(), "{bad:?}");
            assert!(validate(bad, Dialect::Python).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn python_words_only_in_the_python_dialect() {
        for word in [
            "NaN",
            "Infinity",
            "-Infinity",
            "{\"a\": [1, NaN, -Infinity]}",
        ] {
            assert!(validate(word, Dialect::Strict).is_err(), "{word}");
            assert_eq!(validate(word, Dialect::Python), Ok(()), "{word}");
        }
    }
}
