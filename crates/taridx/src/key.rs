//! Sample keys: how a member name becomes a stem, an extension and a keyhash.
//!
//! These rules are part of the format (glzn's), and loaders that disagree on them (first
//! dot or last dot?) pick different samples, so they are fixed here once:
//! the basename is the text after the last `/`; the stem is the basename up to its
//! **first** `.`; the extension is the rest after that dot, lower-cased (empty when the
//! basename has no dot); the keyhash is XXH64 with seed 0 of the stem's UTF-8 bytes.

use twox_hash::XxHash64;

/// XXH64 with seed 0 of the stem's UTF-8 bytes: the `keyhash` of its rows.
///
/// ```
/// assert_eq!(taridx::keyhash("sample000001"), 0x38bc_dc9b_e4a5_a604);
/// ```
#[inline]
#[must_use]
pub fn keyhash(stem: &str) -> u64 {
    XxHash64::oneshot(0, stem.as_bytes())
}

/// The text after the last `/` (the whole name when it has none).
#[inline]
#[must_use]
pub fn basename(name: &str) -> &str {
    match name.rfind('/') {
        Some(slash) => name.get(slash + 1..).unwrap_or(""),
        None => name,
    }
}

/// The stem and the extension as written (not yet lower-cased) of a member name.
///
/// ```
/// assert_eq!(taridx::split_name("train/a.b.c.JPG"), ("a", "b.c.JPG"));
/// assert_eq!(taridx::split_name("README"), ("README", ""));
/// assert_eq!(taridx::split_name(".hidden"), ("", "hidden"));
/// ```
#[inline]
#[must_use]
pub fn split_name(name: &str) -> (&str, &str) {
    let base = basename(name);
    match base.split_once('.') {
        Some((stem, ext)) => (stem, ext),
        None => (base, ""),
    }
}

/// The stem of a member name or query: `"dir/x.tar.gz"` → `"x"`.
#[inline]
#[must_use]
pub fn stem(name: &str) -> &str {
    split_name(name).0
}

/// The extension of a member name, lower-cased with full Unicode rules: `"a.B.JPG"` → `"b.jpg"`.
///
/// Borrows when the extension is already lower-case ASCII (the usual case).
#[cfg(feature = "alloc")]
#[must_use]
pub fn extension(name: &str) -> alloc::borrow::Cow<'_, str> {
    lowercase(split_name(name).1)
}

/// Full Unicode lower-casing, borrowing when nothing changes.
#[cfg(feature = "alloc")]
pub(crate) fn lowercase(text: &str) -> alloc::borrow::Cow<'_, str> {
    use alloc::borrow::Cow;
    if text
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_vectors_from_the_reference() {
        assert_eq!(keyhash("sample000001"), 0x38bc_dc9b_e4a5_a604);
        assert_eq!(keyhash(""), 0xef46_db37_51d8_e999);
        assert_eq!(keyhash("@LongLink"), 0xddf7_1ebb_9afc_d5f6);
        assert_eq!(keyhash("@PaxHeader"), 0xde3a_66ab_5c7a_5a12);
        // The real XXH64 collision of the `clean` fold.
        assert_eq!(keyhash("95285a4520319586"), 0xef4b_3f36_1667_5b81);
        assert_eq!(keyhash("1aefceb10cb92620"), 0xef4b_3f36_1667_5b81);
    }

    #[test]
    fn names_split_at_the_last_slash_and_first_dot() {
        assert_eq!(split_name("a/b/c.d.e"), ("c", "d.e"));
        assert_eq!(split_name("dir7/"), ("", ""));
        assert_eq!(split_name("x."), ("x", ""));
        assert_eq!(stem("x.jpg"), "x");
        assert_eq!(stem("x"), "x");
        #[cfg(feature = "alloc")]
        {
            assert_eq!(extension("sample000003.JPG"), "jpg");
            assert_eq!(extension("a.b.c.JPG"), "b.c.jpg");
            assert_eq!(extension("x.ÉTÉ"), "été");
            assert!(matches!(
                extension("x.jpg"),
                alloc::borrow::Cow::Borrowed(_)
            ));
        }
    }
}
