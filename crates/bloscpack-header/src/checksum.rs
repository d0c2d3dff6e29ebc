//! The nine digest kinds, shared by the chunk digests and the metadata digest.

use core::fmt;
use core::str::FromStr;

use sha2::Digest as _;

/// A digest kind, identified in the file by a byte (0..=8).
///
/// The id numbering and the digest encodings are bloscpack's: Adler-32 and CRC-32 are
/// stored as little-endian `u32`, the others as the raw digest bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Checksum {
    /// No digest (0 bytes).
    None,
    /// zlib's Adler-32 (4 bytes). bloscpack's default.
    #[default]
    Adler32,
    /// CRC-32, IEEE polynomial, as zlib computes it (4 bytes).
    Crc32,
    /// MD5 (16 bytes).
    Md5,
    /// SHA-1 (20 bytes).
    Sha1,
    /// SHA-224 (28 bytes).
    Sha224,
    /// SHA-256 (32 bytes).
    Sha256,
    /// SHA-384 (48 bytes).
    Sha384,
    /// SHA-512 (64 bytes).
    Sha512,
}

impl Checksum {
    /// Every kind, in id order.
    pub const ALL: [Checksum; 9] = [
        Checksum::None,
        Checksum::Adler32,
        Checksum::Crc32,
        Checksum::Md5,
        Checksum::Sha1,
        Checksum::Sha224,
        Checksum::Sha256,
        Checksum::Sha384,
        Checksum::Sha512,
    ];

    /// The kind with id `id`, or `None` for an id above 8.
    #[must_use]
    pub const fn from_id(id: u8) -> Option<Checksum> {
        Some(match id {
            0 => Checksum::None,
            1 => Checksum::Adler32,
            2 => Checksum::Crc32,
            3 => Checksum::Md5,
            4 => Checksum::Sha1,
            5 => Checksum::Sha224,
            6 => Checksum::Sha256,
            7 => Checksum::Sha384,
            8 => Checksum::Sha512,
            _ => return None,
        })
    }

    /// The id stored in the file.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Checksum::None => 0,
            Checksum::Adler32 => 1,
            Checksum::Crc32 => 2,
            Checksum::Md5 => 3,
            Checksum::Sha1 => 4,
            Checksum::Sha224 => 5,
            Checksum::Sha256 => 6,
            Checksum::Sha384 => 7,
            Checksum::Sha512 => 8,
        }
    }

    /// bloscpack's name for the kind: `"None"`, `"adler32"`, `"crc32"`, `"md5"`, `"sha1"`,
    /// `"sha224"`, `"sha256"`, `"sha384"`, `"sha512"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Checksum::None => "None",
            Checksum::Adler32 => "adler32",
            Checksum::Crc32 => "crc32",
            Checksum::Md5 => "md5",
            Checksum::Sha1 => "sha1",
            Checksum::Sha224 => "sha224",
            Checksum::Sha256 => "sha256",
            Checksum::Sha384 => "sha384",
            Checksum::Sha512 => "sha512",
        }
    }

    /// The number of digest bytes stored after each chunk (and after the metadata).
    #[must_use]
    pub const fn size(self) -> usize {
        match self {
            Checksum::None => 0,
            Checksum::Adler32 | Checksum::Crc32 => 4,
            Checksum::Md5 => 16,
            Checksum::Sha1 => 20,
            Checksum::Sha224 => 28,
            Checksum::Sha256 => 32,
            Checksum::Sha384 => 48,
            Checksum::Sha512 => 64,
        }
    }

    /// [`size`](Checksum::size) as `u64`, for offset arithmetic.
    #[must_use]
    pub const fn size_u64(self) -> u64 {
        // Lossless: at most 64.
        self.size() as u64
    }

    /// The digest of `data`, encoded as the file stores it.
    #[must_use]
    pub fn compute(self, data: &[u8]) -> DigestBytes {
        let mut out = DigestBytes {
            bytes: [0; DigestBytes::MAX],
            len: 0,
        };
        match self {
            Checksum::None => {}
            Checksum::Adler32 => out.set(&adler32(data).to_le_bytes()),
            Checksum::Crc32 => out.set(&crc32fast::hash(data).to_le_bytes()),
            Checksum::Md5 => out.set(&md5::Md5::digest(data)),
            Checksum::Sha1 => out.set(&sha1::Sha1::digest(data)),
            Checksum::Sha224 => out.set(&sha2::Sha224::digest(data)),
            Checksum::Sha256 => out.set(&sha2::Sha256::digest(data)),
            Checksum::Sha384 => out.set(&sha2::Sha384::digest(data)),
            Checksum::Sha512 => out.set(&sha2::Sha512::digest(data)),
        }
        out
    }

    /// True when `stored` is the digest of `data`. An empty kind matches only an empty
    /// `stored`.
    #[must_use]
    pub fn matches(self, data: &[u8], stored: &[u8]) -> bool {
        match self {
            Checksum::None => stored.is_empty(),
            // The two 32-bit sums are compared as integers: no digest buffer at all.
            Checksum::Adler32 => u32_le(stored) == Some(adler32(data)),
            Checksum::Crc32 => u32_le(stored) == Some(crc32fast::hash(data)),
            _ => self.compute(data).as_bytes() == stored,
        }
    }
}

fn adler32(data: &[u8]) -> u32 {
    let mut adler = simd_adler32::Adler32::new();
    adler.write(data);
    adler.finish()
}

fn u32_le(bytes: &[u8]) -> Option<u32> {
    <[u8; 4]>::try_from(bytes).ok().map(u32::from_le_bytes)
}

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<u8> for Checksum {
    type Error = u8;

    /// The kind with this id; the id itself back when it is above 8.
    fn try_from(id: u8) -> Result<Self, u8> {
        Checksum::from_id(id).ok_or(id)
    }
}

/// The error of parsing a checksum name: the names accepted are listed in its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct UnknownChecksum;

impl fmt::Display for UnknownChecksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "unknown checksum; use one of none, adler32, crc32, md5, sha1, sha224, sha256, sha384, sha512",
        )
    }
}

impl core::error::Error for UnknownChecksum {}

impl FromStr for Checksum {
    type Err = UnknownChecksum;

    /// Parses a name as [`Checksum::name`] prints it, in any case (`"none"` and `"None"`
    /// both work).
    fn from_str(s: &str) -> Result<Self, UnknownChecksum> {
        Checksum::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or(UnknownChecksum)
    }
}

/// A computed digest: up to 64 bytes, on the stack.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DigestBytes {
    bytes: [u8; DigestBytes::MAX],
    len: u8,
}

impl DigestBytes {
    /// The longest digest (SHA-512).
    pub const MAX: usize = 64;

    fn set(&mut self, digest: &[u8]) {
        let len = digest.len().min(Self::MAX);
        if let (Some(dst), Some(src)) = (self.bytes.get_mut(..len), digest.get(..len)) {
            dst.copy_from_slice(src);
        }
        self.len = u8::try_from(len).unwrap_or(0);
    }

    /// The digest as the file stores it.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

impl AsRef<[u8]> for DigestBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for DigestBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for DigestBytes {
    /// Lower-case hex, as the bytes are stored.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_names_and_sizes() {
        for (i, c) in Checksum::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(c.id()), i);
            assert_eq!(Checksum::from_id(c.id()), Some(c));
            assert_eq!(c.name().parse::<Checksum>(), Ok(c));
            assert_eq!(c.compute(b"abc").as_bytes().len(), c.size());
        }
        assert_eq!(Checksum::from_id(9), None);
        assert_eq!("NONE".parse::<Checksum>(), Ok(Checksum::None));
        assert!("crc64".parse::<Checksum>().is_err());
    }

    #[test]
    fn known_vectors() {
        // zlib.adler32(b"abc") == 0x024d0127, zlib.crc32(b"abc") == 0x352441c2.
        assert_eq!(
            Checksum::Adler32.compute(b"abc").as_bytes(),
            &0x024d_0127u32.to_le_bytes()
        );
        assert_eq!(
            Checksum::Crc32.compute(b"abc").as_bytes(),
            &0x3524_41c2u32.to_le_bytes()
        );
        let md5 = Checksum::Md5.compute(b"abc");
        assert_eq!(std::format!("{md5}"), "900150983cd24fb0d6963f7d28e17f72");
        let sha256 = Checksum::Sha256.compute(b"abc");
        assert_eq!(
            std::format!("{sha256}"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(Checksum::Sha512.matches(b"abc", Checksum::Sha512.compute(b"abc").as_bytes()));
        assert!(!Checksum::Crc32.matches(b"abc", &[0, 0, 0]));
        assert!(Checksum::None.matches(b"abc", &[]));
    }
}
