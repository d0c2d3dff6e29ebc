//! The edit protocol's rules (docs/edit-protocol.md): an undo record counts only where
//! the file's committed state says an append was in flight, never because the file's own
//! bytes end like one; and an edit never commits to a file that its path no longer names.
#![cfg(feature = "blosc")]
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

use binfmt_test_support::Scratch;
use bloscpack_header::fs::{AppendOptions, append, repair};
use bloscpack_header::{
    Bloscpack, ErrorKind, PackOptions, ReadOptions, Severity, UnpackOptions, verify,
};

/// Bytes Blosc cannot compress (so a chunk stores them as they are).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    binfmt_test_support::noise::noise(len, seed | 1)
}

/// An undo record as `append` writes one (src/journal.rs): body, then the trailer
/// `b"blpkUNDO" | body length | CRC-32 of the body | 4 zero bytes`.
fn record(
    old_end: u64,
    new_end: u64,
    new_header: [u8; 32],
    old_header: [u8; 32],
    patches: &[(u64, &[u8])],
) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&old_end.to_le_bytes());
    body.extend_from_slice(&new_end.to_le_bytes());
    body.extend_from_slice(&new_header);
    body.extend_from_slice(&old_header);
    body.extend_from_slice(&(patches.len() as u64).to_le_bytes());
    for (at, bytes) in patches {
        body.extend_from_slice(&at.to_le_bytes());
        body.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        body.extend_from_slice(bytes);
    }
    let crc = crc32(&body);
    let len = body.len() as u64;
    body.extend_from_slice(b"blpkUNDO");
    body.extend_from_slice(&len.to_le_bytes());
    body.extend_from_slice(&crc.to_le_bytes());
    body.extend_from_slice(&[0; 4]);
    body
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Data whose packed file (default options: one chunk, stored as is, Adler-32) ends with
/// `record`: the data ends with the record but for its 4 padding bytes, which the chunk's
/// digest takes the place of.
fn packed_ending_with(record: &[u8], len: usize) -> (Vec<u8>, Vec<u8>) {
    let mut data = noise(len, 7);
    data.extend_from_slice(&record[..record.len() - 4]);
    let packed = PackOptions::default().to_vec(&data).unwrap();
    let tail = &packed[packed.len() - record.len()..packed.len() - 4];
    assert_eq!(
        tail,
        &record[..record.len() - 4],
        "the chunk is not stored as is"
    );
    (data, packed)
}

fn unpack(bytes: &[u8]) -> Vec<u8> {
    let file = Bloscpack::parse(bytes).unwrap();
    file.verify_digests().unwrap();
    file.unpack_to_vec(&UnpackOptions::DEFAULT).unwrap()
}

fn findings(bytes: &[u8]) -> Vec<(Severity, String)> {
    let mut seen = Vec::new();
    let summary = verify(
        bytes,
        &ReadOptions::new(),
        &mut |s: Severity, e: bloscpack_header::Error| {
            seen.push((s, e.to_string()));
            core::ops::ControlFlow::Continue(())
        },
    );
    assert!(summary.is_valid(), "{seen:?}");
    seen
}

/// Records an attacker would hide at the end of the payload: one that empties the file,
/// one that restores a header of its choice and a chosen length, and one that names the
/// file's real header as its old one (so only the record's position gives it away).
fn hostile_records(real_header: [u8; 32]) -> Vec<(&'static str, Vec<u8>)> {
    let mut evil = [0x41u8; 32];
    evil[..4].copy_from_slice(b"blpk");
    vec![
        ("empties", record(0, 0, [0; 32], [0; 32], &[])),
        (
            "chosen",
            record(100, 64, [0; 32], evil, &[(40, b"patched")]),
        ),
        (
            "real header",
            record(48, 48, [0; 32], real_header, &[(40, &[0xff; 8])]),
        ),
    ]
}

#[test]
fn a_record_inside_the_payload_is_data() {
    let probe = PackOptions::default().to_vec(&noise(4000, 7)).unwrap();
    let real_header: [u8; 32] = probe[..32].try_into().unwrap();
    let dir = Scratch::new("bloscpack-edit-payload");
    for (what, rec) in hostile_records(real_header) {
        // 4000 bytes of data: the header depends on the length only, so the probe's
        // header is the file's.
        let (data, packed) = packed_ending_with(&rec, 4000 + 4 - rec.len());
        assert_eq!(packed[..32], real_header, "{what}");
        assert_eq!(unpack(&packed), data, "{what}");
        // verify: sound, and nothing said about an interrupted append.
        assert!(
            findings(&packed).is_empty(),
            "{what}: {:?}",
            findings(&packed)
        );

        // repair: nothing to do, nothing written.
        let path = dir.join(format!("payload-{}.blp", what.replace(' ', "-")));
        std::fs::write(&path, &packed).unwrap();
        assert!(!repair(&path).unwrap(), "{what}");
        assert_eq!(std::fs::read(&path).unwrap(), packed, "{what}");

        // append: the file grows, the old data intact.
        let report = append(&path, b"more data", &AppendOptions::new()).unwrap();
        assert!(!report.repaired, "{what}");
        let after = std::fs::read(&path).unwrap();
        assert!(
            after.len() as u64 == report.file_len && report.file_len > 0,
            "{what}"
        );
        let mut want = data.clone();
        want.extend_from_slice(b"more data");
        assert_eq!(unpack(&after), want, "{what}");
        assert!(findings(&after).is_empty(), "{what}");
    }
}

#[test]
fn the_reported_4248_byte_file_survives_append() {
    // The report: 4,248 bytes, default options, a record at the end of the stored chunk.
    let rec = record(0, 0, [0; 32], [0; 32], &[]);
    let probe = PackOptions::default().to_vec(&[0u8; 1]).unwrap();
    let overhead = probe.len() - 1;
    let (data, packed) = packed_ending_with(&rec, 4248 - overhead - (rec.len() - 4));
    assert_eq!(packed.len(), 4248);
    let dir = Scratch::new("bloscpack-edit-report");
    let path = dir.join("report.blp");
    std::fs::write(&path, &packed).unwrap();
    append(&path, &[1, 2, 3], &AppendOptions::new()).unwrap();
    let after = std::fs::read(&path).unwrap();
    assert!(after.len() > 4248);
    assert_eq!(&unpack(&after)[..data.len()], &data[..]);
}

#[test]
fn a_record_that_does_not_name_the_header_in_place_is_ignored() {
    // Past the committed end (trailing bytes) but naming neither the header in place nor
    // its committed end: not this file's edit. verify says "trailing bytes", repair
    // leaves the file alone.
    let data = noise(3000, 3);
    let mut packed = PackOptions::default().to_vec(&data).unwrap();
    let end = packed.len() as u64;
    packed.extend_from_slice(&record(end, end, [1; 32], [2; 32], &[]));
    let seen = findings(&packed);
    assert_eq!(seen.len(), 1);
    assert!(seen[0].1.contains("not part of the file"), "{seen:?}");
    let dir = Scratch::new("bloscpack-edit-foreign-trailer");
    let path = dir.join("foreign-trailer.blp");
    std::fs::write(&path, &packed).unwrap();
    assert!(!repair(&path).unwrap());
    assert_eq!(std::fs::read(&path).unwrap(), packed);
}

#[test]
fn an_append_waiting_for_the_lock_when_the_path_is_replaced_fails() {
    let dir = Scratch::new("bloscpack-edit-replaced-while-waiting");
    let path = dir.join("replaced-while-waiting.blp");
    let old = PackOptions::default().to_vec(&noise(2000, 1)).unwrap();
    let new = PackOptions::default().to_vec(&noise(1500, 2)).unwrap();
    std::fs::write(&path, &old).unwrap();
    let holder = binfmt_core::file::open_locked(&path).unwrap();
    let result = std::thread::scope(|s| {
        let appender = s.spawn(|| append(&path, b"lost?", &AppendOptions::new()));
        // Let the appender open the file and wait for the lock.
        std::thread::sleep(core::time::Duration::from_millis(800));
        let staged = dir.join("replaced-while-waiting.new");
        std::fs::write(&staged, &new).unwrap();
        std::fs::rename(&staged, &path).unwrap();
        drop(holder);
        appender.join().unwrap()
    });
    let e = result.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Io(_)), "{e}");
    assert!(e.to_string().contains("replaced by another writer"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), new);
}
