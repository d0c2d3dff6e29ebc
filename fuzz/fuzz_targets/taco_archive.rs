#![no_main]
//! Whole TACO archives over arbitrary bytes: member listing, validation, and update
//! planning never panic; both listing paths agree; an accepted update leaves a
//! parseable archive with the new entries and changes nothing but the 124 bytes.

use libfuzzer_sys::fuzz_target;
use taco_header::{Archive, Entries, Entry, Level, MemberList};

fuzz_target!(|data: &[u8]| {
    let Ok(archive) = Archive::parse(data) else {
        // The reader-based path reads no header, only the ZIP structure: it must merely
        // not panic.
        let _ = MemberList::read(std::io::Cursor::new(data));
        return;
    };
    let members: Vec<_> = archive.members().collect();
    let mut problems = 0usize;
    archive.validate_each(Level::Deep, &mut |_| problems += 1);
    if let Ok(list) = MemberList::read(std::io::Cursor::new(data)) {
        let from_reader: Vec<_> = list.iter().collect();
        let from_slice: Vec<_> = members.iter().filter_map(|m| m.as_ref().ok().copied()).collect();
        assert_eq!(from_reader, from_slice);
    }

    let entries = Entries::from_slice(&[Entry::new(data.len() as u64, 1), Entry::new(u64::MAX, 0)]).unwrap();
    let mut updated = data.to_vec();
    taco_header::update_in_memory(&mut updated, &entries).expect("an archive that parses can be updated");
    let after = Archive::parse(&updated).expect("an updated archive parses");
    assert_eq!(after.header().entries(), entries);
    let cd = archive.directory().cd_offset as usize;
    for (i, (a, b)) in data.iter().zip(&updated).enumerate() {
        if a != b {
            assert!((14..18).contains(&i) || (41..157).contains(&i) || (cd + 16..cd + 20).contains(&i), "byte {i}");
        }
    }
});
