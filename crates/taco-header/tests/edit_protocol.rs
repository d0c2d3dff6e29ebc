//! The torn-update rule (docs/edit-protocol.md): an update is recognised as interrupted
//! only from the two CRC copies the committed structure places (the header's, at 14,
//! and the one in the `TACO_HEADER` entry of the central directory the end record
//! names), never from member data that looks like a central directory.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

use binfmt_core::verify::Findings;
use taco_header::{Archive, Entries, Entry, ReadOptions, Writer};

fn entries() -> Entries {
    Entries::from_slice(&[Entry::new(157, 13)]).unwrap()
}

fn build(member: &[u8]) -> Vec<u8> {
    let mut b = Writer::new(entries());
    b.add_bytes("a.bin", member.to_vec())
        .add_bytes("z.bin", vec![5u8; 40]);
    b.to_vec().unwrap()
}

fn errors(bytes: &[u8]) -> Vec<String> {
    let mut findings = Findings::new(20);
    taco_header::verify(bytes, &ReadOptions::new(), &mut findings);
    findings.errors().iter().map(ToString::to_string).collect()
}

/// An archive whose first member's data is a copy of its own `TACO_HEADER`
/// central-directory entry with another CRC, and an end record naming that copy: what a
/// torn update would look like, were the directory there.
fn decoy() -> (Vec<u8>, core::ops::Range<usize>) {
    let probe = build(&[0xEE; 1]);
    let archive = Archive::parse(&probe).unwrap();
    let cd = archive.directory().cd_offset as usize;
    let entry_len = 46
        + usize::from(u16::from_le_bytes([probe[cd + 28], probe[cd + 29]]))
        + usize::from(u16::from_le_bytes([probe[cd + 30], probe[cd + 31]]))
        + usize::from(u16::from_le_bytes([probe[cd + 32], probe[cd + 33]]));
    let len = entry_len + 22;
    // The same layout with a member of `len` bytes: find where its data lands.
    let marked = build(&vec![0xEE; len]);
    let at = marked
        .windows(len)
        .position(|w| w.iter().all(|&b| b == 0xEE))
        .unwrap();
    let mut fake = probe[cd..cd + entry_len].to_vec();
    fake[16] ^= 0x5A; // the CRC copy differs from the header's
    let mut end = probe[probe.len() - 22..].to_vec();
    end[8..10].copy_from_slice(&1u16.to_le_bytes());
    end[10..12].copy_from_slice(&1u16.to_le_bytes());
    end[12..16].copy_from_slice(&(entry_len as u32).to_le_bytes());
    end[16..20].copy_from_slice(&(at as u32).to_le_bytes());
    fake.extend_from_slice(&end);
    let bytes = build(&fake);
    assert_eq!(&bytes[at..at + len], &fake[..]);
    (bytes, at..at + len)
}

#[test]
fn a_central_directory_in_member_data_is_data() {
    let (bytes, member) = decoy();
    // The decoy is a faithful one: cut there, the file reads as a torn update.
    let cut = Archive::parse(&bytes[..member.end]).unwrap_err();
    assert!(
        matches!(cut.kind(), taco_header::ErrorKind::TornUpdate { .. }),
        "{cut}"
    );
    // Sound: no torn update, no error at all.
    assert_eq!(errors(&bytes), Vec::<String>::new());
    Archive::parse(&bytes).unwrap();

    // The update writes the real CRC copy and leaves the member's bytes alone.
    let dir = binfmt_test_support::Scratch::new("taco-edit-protocol-decoy");
    let path = dir.join("decoy.taco");
    std::fs::write(&path, &bytes).unwrap();
    let new = Entries::from_slice(&[Entry::new(1, 2), Entry::new(3, 4)]).unwrap();
    taco_header::fs::update(&path, &new).unwrap();
    let after = std::fs::read(&path).unwrap();
    assert_eq!(after[member.clone()], bytes[member]);
    assert_eq!(errors(&after), Vec::<String>::new());
    assert_eq!(Archive::parse(&after).unwrap().header().entries(), new);
}
