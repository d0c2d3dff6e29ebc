//! `unsafe` stays in the audited modules: every source file of the workspace that allows
//! `unsafe_code` is one of them, and each is listed in docs/architecture.md ("`unsafe` is
//! confined to audited modules"). A new one fails here until it is audited and listed.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// The files that may say `allow(unsafe_code)`, and the path docs/architecture.md names
/// each by.
const AUDITED: &[(&str, &str)] = &[
    ("crates/binfmt-core/src/mmap.rs", "binfmt_core::mmap"),
    ("crates/bloscpack-header/src/blosc.rs", "src/blosc.rs"),
    (
        "crates/binfmt-python/src/new_bytes.rs",
        "crates/binfmt-python/src/new_bytes.rs",
    ),
    // `mod startup` is declared with the allowance in the binary's root.
    (
        "crates/binfmt-cli/src/main.rs",
        "crates/binfmt-cli/src/startup.rs",
    ),
    ("benches/src/reference.rs", "benches/src/reference/"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn only_audited_modules_allow_unsafe() {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("benches/src"), &mut files);
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        rust_files(&entry.path().join("src"), &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut allowing: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains("allow(unsafe_code)")
        })
        .map(|f| {
            f.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    allowing.sort();
    let mut audited: Vec<String> = AUDITED.iter().map(|(f, _)| (*f).to_owned()).collect();
    audited.sort();
    assert_eq!(
        allowing, audited,
        "files that allow unsafe_code, against the audited list"
    );
    let architecture = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    for (file, named) in AUDITED {
        assert!(
            architecture.contains(named),
            "{file}: docs/architecture.md does not name it ({named})"
        );
    }
}

#[test]
fn every_other_library_root_forbids_unsafe() {
    let root = root();
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let lib = entry.path().join("src/lib.rs");
        let Ok(text) = std::fs::read_to_string(&lib) else {
            continue;
        };
        let has_audited = AUDITED
            .iter()
            .any(|(f, _)| root.join(f).starts_with(entry.path()) && !f.ends_with("main.rs"));
        if has_audited {
            assert!(
                text.contains("deny(unsafe_code)"),
                "{}: an audited crate's root denies unsafe_code",
                lib.display()
            );
        } else {
            assert!(
                text.contains("#![forbid(unsafe_code)]"),
                "{}: no audited module, so the root forbids unsafe_code",
                lib.display()
            );
        }
    }
}
