//! A validating JSON (RFC 8259) scanner, so that writers can refuse text that is not
//! JSON without a dependency on a JSON library.
//!
//! It builds nothing: nesting is tracked on a byte stack as long as the input's
//! nesting at most, so deep input cannot exhaust the call stack.

use alloc::vec::Vec;

use crate::error::ValueProblem;

/// Checks that `text` is one JSON value (RFC 8259), surrounded by optional whitespace.
///
/// # Errors
/// [`ValueProblem::NotJson`] with the reason and the byte offset of the first problem.
pub fn validate_json(text: &str) -> Result<(), ValueProblem> {
    Scanner {
        bytes: text.as_bytes(),
        at: 0,
    }
    .document()
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn fail<T>(&self, reason: &'static str) -> Result<T, ValueProblem> {
        Err(ValueProblem::NotJson {
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

    fn expect(&mut self, byte: u8, reason: &'static str) -> Result<(), ValueProblem> {
        if self.peek() == Some(byte) {
            self.bump();
            Ok(())
        } else {
            self.fail(reason)
        }
    }

    fn document(&mut self) -> Result<(), ValueProblem> {
        let mut stack: Vec<u8> = Vec::new();
        self.ws();
        'value: loop {
            // A value starts here.
            match self.peek() {
                Some(b'{') => {
                    self.bump();
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.bump();
                    } else {
                        stack.push(b'{');
                        self.key()?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.bump();
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.bump();
                    } else {
                        stack.push(b'[');
                        continue 'value;
                    }
                }
                Some(b'"') => self.string()?,
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
                        let close = if open == b'[' { b']' } else { b'}' };
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
    fn key(&mut self) -> Result<(), ValueProblem> {
        if self.peek() != Some(b'"') {
            return self.fail("expected a string key");
        }
        self.string()?;
        self.ws();
        self.expect(b':', "expected ':'")?;
        self.ws();
        Ok(())
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<(), ValueProblem> {
        let end = self.at.saturating_add(word.len());
        if self.bytes.get(self.at..end) == Some(word) {
            self.at = end;
            Ok(())
        } else {
            self.fail("invalid literal")
        }
    }

    fn string(&mut self) -> Result<(), ValueProblem> {
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

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        self.at.saturating_sub(start)
    }

    fn number(&mut self) -> Result<(), ValueProblem> {
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

#[cfg(test)]
mod tests {
    use super::validate_json;

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
            assert_eq!(validate_json(ok), Ok(()), "{ok}");
        }
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(validate_json(&deep), Ok(()));
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
            "NaN",
            "'a'",
        ] {
            assert!(validate_json(bad).is_err(), "{bad:?}");
        }
    }
}
