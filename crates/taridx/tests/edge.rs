//! Every tar edge case of the reference document, from the fixtures made by
//! tools/taridx/make_fixtures.py (and a few crafted here), in both modes, checked against
//! the documented expectations and against Python's tarfile view recorded with them.
// Integration tests use the `std` API (builder, files, sources).
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use taridx::{
    BuildOptions, Error, ErrorKind, Index, Report, SkipReason, StemMap, TarPart, Warning, Writer,
};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(sub)
}

fn shards(sub: &str, fold: &str) -> Vec<(String, Vec<u8>)> {
    taridx::fs::fold_shards(dir(sub), fold)
        .unwrap()
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

fn build(sub: &str, fold: &str, options: BuildOptions) -> taridx::Result<(Vec<u8>, Report)> {
    let mut builder = Writer::new(options);
    for (name, data) in shards(sub, fold) {
        builder.add(name, &data)?;
    }
    let taridx::Finished {
        index: file,
        report,
        ..
    } = builder.finish().unwrap();
    Ok((file.to_vec()?, report))
}

fn strict(fold: &str) -> taridx::Result<(Vec<u8>, Report)> {
    build("edge", fold, BuildOptions::strict())
}

fn glzn(fold: &str) -> taridx::Result<(Vec<u8>, Report)> {
    build("edge", fold, BuildOptions::glzn())
}

/// The kind of the error of `result`, which must be at byte `offset`.
fn error_at<T: core::fmt::Debug>(result: taridx::Result<T>, offset: u64) -> ErrorKind {
    let e: Error = result.unwrap_err();
    assert_eq!(e.offset(), Some(offset), "{e}");
    e.into_kind()
}

/// (stem, ext, fid, offset, size) of every row.
fn rows(bytes: &[u8]) -> Vec<(u16, u64, u64, String)> {
    let index = Index::parse(bytes).unwrap();
    index
        .entries()
        .map(|e| {
            let e = e.unwrap();
            (
                e.fid,
                e.offset,
                e.size,
                index.extension(e.extid).unwrap().to_owned(),
            )
        })
        .collect()
}

/// The rows of an index as `fid:offset+size ext`, for compact comparisons.
fn listing(bytes: &[u8]) -> Vec<String> {
    rows(bytes)
        .into_iter()
        .map(|(fid, offset, size, ext)| format!("{fid}:{offset}+{size} {ext}"))
        .collect()
}

/// `fold` indexes in strict mode as `want` (see [`listing`]), and glzn mode refuses it
/// with a `TarNumber` at `offset`: a size field it reads as octal is not octal.
fn strict_lists_but_glzn_refuses(fold: &str, want: &[&str], offset: u64) {
    let (bytes, _) = strict(fold).unwrap();
    assert_eq!(listing(&bytes), want, "{fold}");
    let kind = error_at(glzn(fold), offset);
    assert!(
        matches!(kind, ErrorKind::TarNumber { .. }),
        "{fold}: {kind:?}"
    );
}

fn expected(sub: &str, file: &str) -> Value {
    let json: Value = serde_json::from_slice(&std::fs::read(dir(sub).join(file)).unwrap()).unwrap();
    json
}

/// What the edge fixtures recorded of `shard` (expected.json): the members Python's
/// tarfile lists, and GNU tar's view where GNU tar was there to ask.
fn recorded(shard: &str) -> (Vec<Value>, Option<serde_json::Map<String, Value>>) {
    let view = expected("edge", "expected.json");
    let members = view[shard]["tarfile"]["members"]
        .as_array()
        .unwrap()
        .clone();
    (members, view[shard]["gnutar"].as_object().cloned())
}

/// Strict rows must be exactly tarfile's regular, non-sparse members with a stem and an
/// extension, at the same (shard, last-header offset, size), found by stem lookups.
fn agrees_with_tarfile(sub: &str, view: &str, fold: &str, sparse: &[&str]) {
    let (bytes, _) = build(sub, fold, BuildOptions::strict()).unwrap();
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    let view = expected(sub, view);
    let mut count = 0;
    for (fid, (name, _)) in shards(sub, fold).iter().enumerate() {
        let members = view[name]["tarfile"]["members"].as_array().unwrap();
        for m in members {
            let (mname, offset, size, kind) = (
                m[0].as_str().unwrap(),
                m[1].as_u64().unwrap(),
                m[2].as_u64().unwrap(),
                m[3].as_str().unwrap(),
            );
            let (stem, ext) = taridx::split_name(mname);
            let regular = matches!(kind, "0" | "\0" | "7");
            if !regular || stem.is_empty() || ext.is_empty() || sparse.contains(&mname) {
                continue;
            }
            count += 1;
            let ext = ext.to_lowercase();
            let hit = map.lookup(mname).find(|e| {
                usize::from(e.fid) == fid
                    && e.offset == offset
                    && e.size == size
                    && map.extension(e.extid) == Some(ext.as_str())
            });
            assert!(
                hit.is_some(),
                "{fold}: {mname} ({fid}, {offset}, {size}) not found"
            );
        }
    }
    assert_eq!(index.n_rows(), count, "{fold}: rows vs tarfile members");
}

#[test]
fn lookups_agree_with_python_tarfile() {
    agrees_with_tarfile("golden", "tarview.json", "clean", &[]);
    agrees_with_tarfile("golden", "tarview.json", "train", &[]);
    for fold in [
        "base256", "octal", "nomarker", "lonezero", "concat", "trailing", "partial", "paxsize",
        "v7", "gap", "wds",
    ] {
        agrees_with_tarfile("edge", "expected.json", fold, &[]);
    }
    for fold in ["sparsegnu", "sparsepax", "sparsepax1"] {
        agrees_with_tarfile("edge", "expected.json", fold, &["holes.jpg"]);
    }
}

#[test]
fn base256_sizes_are_honoured_in_strict_mode_and_fatal_in_glzn_mode() {
    strict_lists_but_glzn_refuses("base256", &["0:0+1000 jpg", "0:1536+1 cls"], 124);
    // 9 GiB in a 10 KiB file: truncated.
    let kind = error_at(strict("base256big"), 0);
    assert!(matches!(
        kind,
        ErrorKind::TarTruncated {
            part: TarPart::Member,
            ..
        }
    ));
}

#[test]
fn octal_variants_parse() {
    let (bytes, _) = strict("octal").unwrap();
    assert_eq!(listing(&bytes), ["0:0+20 jpg", "0:1024+30 jpg"]);
    let (bytes, _) = glzn("octal").unwrap();
    assert_eq!(rows(&bytes).len(), 2);
}

#[test]
fn bad_checksum_is_an_error_in_strict_mode_only() {
    let err = strict("badsum").unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TarChecksum { shard: 0, .. }),
        "{err}"
    );
    assert_eq!(taridx::Diagnostic::offset(&err), Some(1024));
    assert!(
        err.to_string()
            .starts_with("byte 1024: tar header checksum mismatch")
    );
    // glzn checks nothing: all four headers become rows.
    let (bytes, _) = glzn("badsum").unwrap();
    assert_eq!(rows(&bytes).len(), 4);
    // Python's tarfile silently stops after the first member; GNU tar skips and fails.
    let (tarfile, gnutar) = recorded("badsum_0000.tar");
    assert_eq!(tarfile.len(), 1);
    if let Some(gnu) = gnutar {
        assert_eq!(gnu["exit"], 2);
    }
}

#[test]
fn truncated_payload_is_an_error_in_strict_mode_and_a_row_past_eof_in_glzn_mode() {
    let err = strict("truncated").unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::TarTruncated {
                end: 2536,
                len: 1836,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.offset(), Some(1024));
    let (bytes, _) = glzn("truncated").unwrap();
    assert_eq!(listing(&bytes)[1], "0:1024+1000 jpg");
}

#[test]
fn archive_ends_are_told_apart() {
    let cases = [
        (
            "nomarker",
            Warning::NoEndMarker {
                shard: 0,
                offset: 2048,
            },
        ),
        (
            "lonezero",
            Warning::LoneZeroBlock {
                shard: 0,
                offset: 2048,
            },
        ),
        (
            "concat",
            Warning::DataAfterMarker {
                shard: 0,
                offset: 10240,
            },
        ),
        (
            "trailing",
            Warning::DataAfterMarker {
                shard: 0,
                offset: 10240,
            },
        ),
    ];
    for (fold, warning) in cases {
        let (bytes, report) = strict(fold).unwrap();
        assert_eq!(report.warnings, [warning], "{fold}");
        assert_eq!(
            rows(&bytes).len(),
            2,
            "{fold}: only the first archive is indexed"
        );
        let (bytes, _) = glzn(fold).unwrap();
        assert_eq!(rows(&bytes).len(), 2, "{fold}");
    }
    let (_, clean) = strict("gap").unwrap();
    assert!(clean.warnings.is_empty());
}

#[test]
fn a_zero_block_followed_by_a_header_is_a_concatenated_archive() {
    let mut data = std::fs::read(dir("edge").join("nomarker_0000.tar")).unwrap();
    let first = data.clone();
    data.extend_from_slice(&[0; 512]);
    data.extend_from_slice(&first);
    let mut b = Writer::new(BuildOptions::strict());
    b.add("cat.tar", &data).unwrap();
    let taridx::Finished {
        index: file,
        report,
        ..
    } = b.finish().unwrap();
    assert_eq!(file.rows().len(), 2);
    assert_eq!(
        report.warnings,
        [Warning::ZeroBlockThenData {
            shard: 0,
            offset: 2048
        }]
    );
}

#[test]
fn pax_size_overrides_the_header_and_breaks_glzn() {
    // glzn parses the payload as a header: its "size field" is not octal.
    strict_lists_but_glzn_refuses("paxsize", &["0:1024+1000 jpg", "0:2560+1 cls"], 1660);
}

#[test]
fn v7_headers_and_old_style_directories() {
    let (bytes, report) = strict("v7").unwrap();
    assert_eq!(listing(&bytes), ["0:512+40 jpg", "0:1536+1 cls"]);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].name, "v7dir/");
    assert_eq!(
        report.skipped_messages().collect::<Vec<_>>(),
        ["shard 0: byte 0: \"v7dir/\": old-style directory (typeflag NUL, name ending in '/') is not a regular file"]
            .map(|m| m.replace("shard 0", "v7_0000.tar"))
    );
    assert_eq!(
        report.skipped[0].reason,
        SkipReason::NotRegular { typeflag: 0 }
    );
}

#[test]
fn invalid_utf8_names_fail_unless_lossy() {
    assert!(matches!(
        error_at(strict("badutf8"), 0),
        ErrorKind::NameUtf8 { .. }
    ));
    let (bytes, report) =
        build("edge", "badutf8", BuildOptions::strict().lossy_names(true)).unwrap();
    assert_eq!(
        report.warnings,
        [Warning::LossyName {
            shard: 0,
            offset: 0
        }]
    );
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    assert_eq!(map.lookup("bad\u{fffd}").len(), 1);
    let (bytes, _) = glzn("badutf8").unwrap();
    let index = Index::parse(&bytes).unwrap();
    // GNU format: [L header][name][real header]: both are rows in glzn mode.
    assert_eq!(index.n_rows(), 1);
}

#[test]
fn the_last_of_two_gnu_long_names_wins_as_in_gnu_tar() {
    let (bytes, report) = strict("twolong").unwrap();
    let index = Index::parse(&bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    assert_eq!(
        map.lookup("second").map(|e| e.offset).collect::<Vec<_>>(),
        [2048]
    );
    assert_eq!(map.lookup("first").len(), 0);
    assert_eq!(
        report.warnings,
        [Warning::RepeatedLongName {
            shard: 0,
            offset: 1024
        }]
    );
    // GNU tar agrees; Python's tarfile keeps the first name (a documented difference).
    let (tarfile, gnutar) = recorded("twolong_0000.tar");
    assert!(tarfile[0][0].as_str().unwrap().ends_with("/first.jpg"));
    if let Some(gnu) = gnutar {
        assert!(gnu["names"][0].as_str().unwrap().ends_with("/second.jpg"));
    }
}

#[test]
fn an_empty_shard_keeps_its_shard_id_in_strict_mode_only() {
    let (bytes, report) = strict("gap").unwrap();
    let fids: Vec<u16> = rows(&bytes).iter().map(|r| r.0).collect();
    assert_eq!(fids, [0, 0, 2, 2]);
    assert!(report.warnings.is_empty());
    let (bytes, _) = glzn("gap").unwrap();
    let fids: Vec<u16> = rows(&bytes).iter().map(|r| r.0).collect();
    assert_eq!(fids, [0, 0, 1, 1]);
}

#[test]
fn an_empty_first_shard_leaves_glzn_fid_undefined() {
    let gap = shards("edge", "gap");
    let mut b = Writer::new(BuildOptions::glzn());
    b.add("empty.tar", &gap[1].1).unwrap();
    b.add("next.tar", &gap[0].1).unwrap();
    let taridx::Finished {
        index: file,
        report,
        ..
    } = b.finish().unwrap();
    assert!(file.rows().iter().all(|r| r.fid == 0));
    assert_eq!(report.warnings, [Warning::UndefinedFid { position: 1 }]);
}

#[test]
fn webdataset_shards_get_one_junk_row_per_member_in_glzn_mode() {
    let (strict_bytes, _) = strict("wds").unwrap();
    let (glzn_bytes, _) = glzn("wds").unwrap();
    assert_eq!(rows(&strict_bytes).len(), 9);
    assert_eq!(rows(&glzn_bytes).len(), 18);
    let index = Index::parse(&glzn_bytes).unwrap();
    let map = StemMap::build(&index).unwrap();
    // Python names every pax header "././@PaxHeader": nine rows of stem "@PaxHeader"
    // that point at pax text.
    assert_eq!(map.lookup("000000").len(), 3);
    assert_eq!(map.lookup("@PaxHeader").len(), 9);
}

#[test]
fn sparse_members_are_skipped_in_strict_mode() {
    for fold in ["sparsegnu", "sparsepax", "sparsepax1"] {
        let (bytes, report) = strict(fold).unwrap();
        assert_eq!(rows(&bytes).len(), 1, "{fold}");
        assert_eq!(report.skipped.len(), 1, "{fold}");
        assert_eq!(report.skipped[0].reason, SkipReason::Sparse, "{fold}");
        assert_eq!(report.skipped[0].name, "holes.jpg", "{fold}");
    }
}

#[test]
fn glzn_mode_never_reads_pax_or_long_names() {
    // Each pseudo-header is a row of its own in glzn mode; strict mode merges them.
    let (bytes, _) = glzn("twolong").unwrap();
    let index = Index::parse(&bytes).unwrap();
    assert_eq!(index.n_rows(), 3);
    assert!(index.extensions().any(|e| e.is_empty()));
}

#[test]
fn a_partial_block_after_the_last_member_is_ignored_as_gnu_tar_does() {
    let (bytes, report) = strict("partial").unwrap();
    assert_eq!(listing(&bytes), ["0:0+1 cls", "0:1024+10 jpg"]);
    assert_eq!(report.warnings, [support::partial_block(2048, 100)]);
    let (bytes, _) = glzn("partial").unwrap();
    assert_eq!(rows(&bytes).len(), 2);
    // GNU tar and tarfile list both members and say nothing.
    let (tarfile, gnutar) = recorded("partial_0000.tar");
    assert_eq!(tarfile.len(), 2);
    if let Some(gnu) = gnutar {
        assert_eq!(
            (gnu["exit"].as_i64(), gnu["stderr"].as_str()),
            (Some(0), Some(""))
        );
    }
}

#[test]
fn compressed_shards_are_refused_with_the_compressor_named() {
    use taridx::tar::Compression;
    let view = expected("edge", "expected.json");
    for (fold, compression) in [
        ("gzip", Compression::Gzip),
        ("bzip2", Compression::Bzip2),
        ("xz", Compression::Xz),
        ("zstd", Compression::Zstd),
    ] {
        for result in [strict(fold), glzn(fold)] {
            let e = result.unwrap_err();
            assert_eq!(e.offset(), Some(0), "{fold}");
            assert!(
                matches!(e.kind(), ErrorKind::Compressed { shard: 0, compression: c, .. } if *c == compression),
                "{fold}: {e}"
            );
            assert!(
                e.to_string().starts_with(&format!(
                    "byte 0: shard 0 is compressed ({fold}): decompress it first"
                )),
                "{e}"
            );
        }
        // tarfile's plain mode refuses them too; GNU tar decompresses them by itself.
        let shard = format!("{fold}_0000.tar");
        assert_eq!(view[&shard]["tarfile"]["error"], "ReadError", "{fold}");
    }
}
