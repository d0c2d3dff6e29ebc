//! One hostile name prints the same everywhere: taco-header's `EscapedName`, taridx's
//! `Escaped` and tar names, kastore's `KeyText` and `KeyExcerpt`, and the `binfmt` command
//! all show it through `binfmt_core::text`, the workspace's one escaper. Before, three
//! format crates had escapers of their own (ESC was `\u{1b}` in a library error and `\e`
//! in `binfmt`'s text; a newline `\u{a}` in one crate and `\n` in another).
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use binfmt_core::text::{EscapedBytes, escape_bytes};
use binfmt_test_support::tar;
use common::{binfmt, s, scratch, stderr};

/// Names that could act on a terminal or pass for another name, each with the one
/// spelling every path must show: ESC sequences (`\e`), BEL and a C1 CSI (`\u{…}`), a
/// bidirectional override and zero-width characters, a literal backslash (doubled, so that
/// `\\e` in a name never reads as an escape), line controls, and bytes that are not UTF-8.
const HOSTILE: [(&[u8], &str); 7] = [
    (b"\x1b]0;pwned\x07\x1b[2J", r"\e]0;pwned\u{7}\e[2J"),
    ("c1\u{9b}31m".as_bytes(), r"c1\u{9b}31m"),
    ("bidi\u{202e}gpj.exe".as_bytes(), r"bidi\u{202e}gpj.exe"),
    (
        "zero\u{200b}width\u{feff}".as_bytes(),
        r"zero\u{200b}width\u{feff}",
    ),
    (br"back\slash\e", r"back\\slash\\e"),
    (b"new\nline\ttab\r", r"new\nline\ttab\r"),
    (b"bad\xff\xfe-utf8", r"bad\xff\xfe-utf8"),
];

/// The hostile names that are UTF-8 (the paths that take `&str`).
fn utf8_names() -> impl Iterator<Item = (&'static str, &'static str)> {
    HOSTILE
        .iter()
        .filter_map(|&(raw, shown)| Some((core::str::from_utf8(raw).ok()?, shown)))
}

#[test]
fn the_core_escaper_has_the_one_spelling() {
    for (raw, shown) in HOSTILE {
        assert_eq!(EscapedBytes::new(raw).to_string(), shown);
        assert_eq!(escape_bytes(raw), shown);
    }
}

#[test]
fn taco_member_names_are_escaped_as_core_escapes() {
    // The builder takes text: a UTF-8 placeholder of the same length stands for the name
    // that is not UTF-8, and is patched in the bytes (local and central headers).
    let placeholder = "bad\u{7ff}-utf8";
    let mut builder = taco_header::Writer::new(taco_header::Entries::new());
    builder.options(taco_header::WriterOptions::new().verbatim_names(true));
    for (raw, _) in HOSTILE {
        let name = core::str::from_utf8(raw).unwrap_or(placeholder);
        assert_eq!(name.len(), raw.len());
        builder.add_bytes(name, b"x".to_vec());
    }
    let mut bytes = builder.to_vec().unwrap();
    let (from, to) = (placeholder.as_bytes(), HOSTILE[6].0);
    let mut patched = 0;
    for at in 0..bytes.len().saturating_sub(from.len()) {
        if bytes[at..].starts_with(from) {
            bytes[at..at + to.len()].copy_from_slice(to);
            patched += 1;
        }
    }
    assert_eq!(patched, 2, "the local and the central header");

    let archive = taco_header::Archive::parse(&bytes).unwrap();
    let members: Vec<_> = archive.members().skip(1).map(Result::unwrap).collect();
    assert_eq!(members.len(), HOSTILE.len());
    for (member, (raw, shown)) in members.iter().zip(HOSTILE) {
        assert_eq!(member.name(), raw);
        assert_eq!(member.name_escaped().to_string(), shown);
    }
}

/// A shard holding each name twice (duplicates: a warning naming each), one byte each.
fn shard_of(names: &[&[u8]]) -> Vec<u8> {
    let mut shard = Vec::new();
    for name in names.iter().chain(names) {
        shard.extend(tar::header(name, 1, b'0'));
        shard.push(b'1');
        shard.resize(shard.len().div_ceil(512) * 512, 0);
    }
    shard.extend([0u8; 1024]);
    shard
}

#[test]
fn taridx_names_are_escaped_as_core_escapes() {
    for (raw, shown) in utf8_names() {
        assert_eq!(taridx::Escaped::new(raw).to_string(), shown);
        assert_eq!(taridx::NameExcerpt::new(raw.as_bytes()).to_string(), shown);
    }
    // Names as the tar walker reads them: bytes, so invalid UTF-8 as `\xNN` too.
    let names: Vec<&[u8]> = HOSTILE.iter().map(|(raw, _)| *raw).collect();
    let shard = shard_of(&names);
    let mut shown = Vec::new();
    for event in taridx::tar::Walker::new(&shard, 0) {
        if let taridx::tar::Event::Member(m) = event.unwrap() {
            shown.push(m.name.to_string());
        }
    }
    let expected: Vec<&str> = HOSTILE.iter().map(|(_, shown)| *shown).collect();
    assert_eq!(shown[..HOSTILE.len()], expected[..]);
}

#[test]
fn kastore_keys_are_escaped_as_core_escapes() {
    let mut writer = kastore::Writer::new();
    for (raw, _) in HOSTILE {
        writer.add(raw, &[1u8][..]).unwrap();
    }
    let bytes = writer.to_vec().unwrap();
    let store = kastore::Store::parse(&bytes).unwrap();
    for (raw, shown) in HOSTILE {
        assert_eq!(kastore::KeyText::new(raw).to_string(), shown);
        // An error's excerpt: the same text between quotes.
        assert_eq!(
            kastore::KeyExcerpt::new(raw).to_string(),
            format!("\"{shown}\"")
        );
        let item = store.items().find(|item| item.key() == raw).unwrap();
        assert_eq!(item.key_text().to_string(), shown);
        // Cut to a width: a prefix of the same text, escapes whole.
        let cut = item.key_text().max_chars(8).to_string();
        let kept = cut.strip_suffix('…').unwrap_or(&cut);
        assert!(shown.starts_with(kept), "{cut} / {shown}");
    }
}

/// `binfmt`'s messages name a path through the same escaper: a file that does not exist,
/// named by a hostile file name (bytes that are not UTF-8 included).
#[cfg(unix)]
#[test]
fn the_cli_names_paths_as_core_escapes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};

    let dir = scratch("paths");
    for (raw, shown) in HOSTILE {
        let mut path = dir.join("missing").into_os_string().into_vec();
        path.push(b'/');
        path.extend_from_slice(raw);
        let out = binfmt(&[OsStr::new("inspect"), OsStr::from_bytes(&path)]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.contains(&format!("missing/{shown}")), "{shown}: {err}");
        assert!(!err.chars().any(|c| c != '\n' && c.is_control()), "{err:?}");
    }
}

/// `binfmt taridx build` warns about duplicate members, naming them: on standard error
/// the names are escaped as the core escapes them. (A name with a newline is refused
/// before any warning: a .taridx text block cannot hold it.)
#[test]
fn the_cli_names_tar_members_as_core_escapes() {
    let dir = scratch("taridx");
    let indexable = || utf8_names().filter(|(raw, _)| !raw.contains('\n'));
    let names: Vec<Vec<u8>> = indexable()
        .map(|(raw, _)| format!("{raw}.jpg").into_bytes())
        .collect();
    let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
    std::fs::write(dir.join("g_0000.tar"), shard_of(&refs)).unwrap();
    let out = binfmt(&["taridx", "build", s(&dir), "g"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    for (_, shown) in indexable() {
        assert!(err.contains(&format!("{shown}.jpg")), "{shown}: {err}");
    }
    assert!(!err.chars().any(|c| c != '\n' && c.is_control()), "{err:?}");
}

/// On a terminal, `binfmt inspect` lists a TACO archive's member names escaped as the
/// library's `EscapedName` shows them (where a pseudo-terminal is available).
#[test]
fn the_cli_lists_taco_names_on_a_terminal_as_core_escapes() {
    let dir = scratch("taco");
    let path = dir.join("hostile.taco");
    common::taco_with_names(&path, utf8_names().map(|(raw, _)| (raw, &b"x"[..])));
    if let Some(shown) = common::binfmt_on_terminal(&["inspect", s(&path)]) {
        let shown = common::text(&shown);
        for (_, escaped) in utf8_names() {
            assert!(shown.contains(escaped), "{escaped}: {shown}");
        }
    }
}
