//! Interop with the references through Python (ignored unless BINFMT_PYTHON is set):
//! Python reads back every index we write and checks it against tarfile; the committed
//! expectations are what the references say today; the fixtures are reproducible.
// Integration tests use the `std` API (builder, files, sources).
#![cfg(feature = "std")]
#![allow(clippy::unwrap_used)]

// Shared test support; its `pub` items are only used from here.

use binfmt_test_support::{Scratch, reference, reference_test};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;
use taridx::{BuildOptions, Writer};

fn fixtures(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(sub)
}

fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("taridx-interop-{name}"))
}

fn tars(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension() == Some(OsStr::new("tar")))
        .collect();
    v.sort();
    v
}

reference_test! {
    fn python_reads_back_what_we_write(py) {
        let out = scratch("readback");
        let folds: &[(&str, &str)] = &[
            ("golden", "clean"),
            ("golden", "train"),
            ("edge", "base256"),
            ("edge", "octal"),
            ("edge", "nomarker"),
            ("edge", "lonezero"),
            ("edge", "concat"),
            ("edge", "trailing"),
            ("edge", "partial"),
            ("edge", "paxsize"),
            ("edge", "v7"),
            ("edge", "gap"),
            ("edge", "wds"),
            ("edge", "sparsegnu"),
            ("edge", "sparsepax"),
            ("edge", "sparsepax1"),
        ];
        for &(sub, fold) in folds {
            let shards = taridx::fs::fold_shards(fixtures(sub), fold).unwrap();
            let mut builder = Writer::new(BuildOptions::strict());
            for path in &shards {
                builder
                    .add(path.display().to_string(), &std::fs::read(path).unwrap())
                    .unwrap();
            }
            let index = out.join(format!("{fold}.taridx"));
            builder
                .finish()
                .unwrap()
                .index
                .write_to_path(&index)
                .unwrap();
            let mut args: Vec<&OsStr> = vec![OsStr::new("--glzn-loadable"), index.as_os_str()];
            args.extend(shards.iter().map(|p| p.as_os_str()));
            let stdout = reference::run(&py, "taridx/check_index.py", &args);
            assert!(stdout.starts_with("OK: "), "{fold}: {stdout}");
        }
    }
}

reference_test! {
    fn the_python_check_rejects_glzn_output_where_it_is_wrong(py) {
        // The check is not a rubber stamp: glzn's own train index points rows at
        // pseudo-headers and directories, and the check says so.
        let script = reference::repo_root().join("tools/taridx/check_index.py");
        let mut cmd = std::process::Command::new(py);
        cmd.arg(script).arg(fixtures("golden").join("train.taridx"));
        cmd.args(taridx::fs::fold_shards(fixtures("golden"), "train").unwrap());
        let out = cmd.output().unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("no tar member has its last header"));
    }
}

fn tarfile_parts(v: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for (k, shard) in v.as_object().unwrap() {
        out.insert(k.clone(), shard["tarfile"].clone());
    }
    Value::Object(out)
}

reference_test! {
    fn committed_expectations_are_what_tarfile_says_today(py) {
        for (sub, file) in [("golden", "tarview.json"), ("edge", "expected.json")] {
            let shards = tars(&fixtures(sub));
            let args: Vec<&OsStr> = shards.iter().map(|p| p.as_os_str()).collect();
            let live: Value =
                serde_json::from_str(&reference::run(&py, "taridx/tar_view.py", &args)).unwrap();
            let committed: Value =
                serde_json::from_slice(&std::fs::read(fixtures(sub).join(file)).unwrap()).unwrap();
            assert_eq!(
                tarfile_parts(&live),
                tarfile_parts(&committed),
                "{sub}/{file}"
            );
        }
    }
}

reference_test! {
    fn the_fixture_generator_reproduces_the_committed_shards(py) {
        let out = scratch("generate");
        reference::run(&py, "taridx/make_fixtures.py", &[out.as_os_str()]);
        for committed in tars(&fixtures("edge")) {
            let name = committed.file_name().unwrap();
            let fresh = out.join(name);
            if name.to_string_lossy().starts_with("sparsepax") {
                // GNU tar names the member GNUSparseFile.<pid>/holes.jpg: not reproducible.
                continue;
            }
            if !fresh.exists() && name.to_string_lossy().starts_with("sparse") {
                continue; // no GNU tar on this machine
            }
            assert!(
                std::fs::read(&fresh).unwrap() == std::fs::read(&committed).unwrap(),
                "{} differs from a fresh run of make_fixtures.py",
                name.to_string_lossy()
            );
        }
    }
}
