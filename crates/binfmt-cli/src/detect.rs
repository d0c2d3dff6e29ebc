//! Format detection from a file's first bytes, never from its name.

use std::fmt;

/// How many leading bytes detection looks at (the TACO header's name ends at byte 41).
pub(crate) const HEAD_LEN: usize = 64;

/// The formats `binfmt` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Taco,
    Bloscpack,
    Kastore,
    Mldf,
    Taridx,
}

impl Format {
    /// The value of the `"format"` key in `binfmt inspect --json`.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Format::Taco => "taco",
            Format::Bloscpack => "bloscpack",
            Format::Kastore => "kastore",
            Format::Mldf => "mldf",
            Format::Taridx => "taridx",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The format whose signature `head` starts with. Each crate's `sniff` decides; the
/// signatures are distinct, so at most one matches.
pub(crate) fn detect(head: &[u8]) -> Option<Format> {
    type Sniff = fn(&[u8]) -> bool;
    let sniffers: [(Format, Sniff); 5] = [
        (Format::Taco, taco_header::sniff),
        (Format::Bloscpack, bloscpack_header::sniff),
        (Format::Kastore, kastore::sniff),
        (Format::Mldf, mldf::sniff),
        (Format::Taridx, taridx::sniff),
    ];
    sniffers
        .into_iter()
        .find(|(_, sniff)| sniff(head))
        .map(|(format, _)| format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_signature() {
        let mut taco = vec![0u8; 157];
        taco[..4].copy_from_slice(b"PK\x03\x04");
        taco[30..41].copy_from_slice(b"TACO_HEADER");
        assert_eq!(detect(&taco), Some(Format::Taco));
        assert_eq!(detect(b"blpk\x03"), Some(Format::Bloscpack));
        assert_eq!(detect(b"\x89KAS\r\n\x1a\n\x01\x00"), Some(Format::Kastore));
        assert_eq!(detect(b"\x89MLDF\r\n\x1a\n\x01"), Some(Format::Mldf));
        assert_eq!(detect(b"TARIDX\0\0\x01\x00"), Some(Format::Taridx));
        assert_eq!(detect(b"PK\x03\x04 an ordinary zip"), None);
        assert_eq!(detect(b""), None);
    }
}
