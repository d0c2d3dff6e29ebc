//! The `inspect --json` contract: every key that `binfmt inspect --json` prints, for every
//! fixture of every format crate, is documented in `binfmt inspect --help` under its
//! format (nested keys under their parent), and every documented top-level key is printed
//! for some fixture. A key added to the output without its documentation, or documented
//! and never printed, fails here. Every format's `"version"` has one shape: a string.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{binfmt, stdout};
use serde_json::Value;

/// The documented keys: format → key path (`items`, `items.key`) → documented.
type Documented = BTreeMap<String, BTreeSet<String>>;

/// Parses the per-format key lists of `inspect --help`: a line `NAME:` at column 0 opens
/// a format; `  key: doc` lines are its keys, deeper indents (4 more per level) children.
fn documented(help: &str, formats: &[&str]) -> Documented {
    let mut out = Documented::new();
    let mut current: Option<String> = None;
    let mut path: Vec<(usize, String)> = Vec::new();
    for line in help.lines() {
        if let Some(name) = line.strip_suffix(':')
            && formats.contains(&name)
        {
            current = Some(name.to_owned());
            path.clear();
            continue;
        }
        let Some(format) = &current else { continue };
        let indent = line.len() - line.trim_start().len();
        if indent < 2 {
            current = None;
            continue;
        }
        let Some((key, _)) = line.trim_start().split_once(": ") else {
            continue;
        };
        if key.contains(' ') || (indent - 2) % 4 != 0 {
            continue; // a doc line that wrapped
        }
        let level = (indent - 2) / 4;
        path.truncate(level);
        path.push((level, key.trim_matches('"').to_owned()));
        let full: Vec<&str> = path.iter().map(|(_, k)| k.as_str()).collect();
        out.entry(format.clone())
            .or_default()
            .insert(full.join("."));
    }
    out
}

fn fixtures() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in [
        "taco-header",
        "bloscpack-header",
        "kastore",
        "mldf",
        "taridx",
    ] {
        walk(&crates.join(krate).join("tests/fixtures"), &mut files);
    }
    walk(&crates.join("binfmt-cli/tests/fixtures"), &mut files);
    files.sort();
    files
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, files);
        } else if path.metadata().unwrap().len() < 64 << 20 {
            files.push(path);
        }
    }
}

/// Checks `value` under `prefix` against the documentation; records the keys seen.
fn check(
    format: &str,
    docs: &BTreeSet<String>,
    prefix: &str,
    value: &Value,
    seen: &mut BTreeSet<String>,
    file: &Path,
) {
    let objects: Vec<&serde_json::Map<String, Value>> = match value {
        Value::Object(o) => vec![o],
        Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
        _ => return,
    };
    for object in objects {
        for (key, child) in object {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            assert!(
                docs.contains(&path),
                "{}: `{path}` is printed by `inspect --json` but not documented for {format} in `inspect --help`",
                file.display()
            );
            seen.insert(path.clone());
            // Children are checked where the documentation lists any.
            if docs.iter().any(|d| d.starts_with(&format!("{path}."))) {
                check(format, docs, &path, child, seen, file);
            }
        }
    }
}

#[test]
fn every_printed_key_is_documented_and_every_documented_key_printed() {
    let help = stdout(&binfmt(&["inspect", "--help"]));
    let formats = ["taco", "bloscpack", "kastore", "mldf", "taridx"];
    let docs = documented(&help, &formats);
    for format in formats {
        assert!(
            docs.get(format).is_some_and(|d| !d.is_empty()),
            "no keys documented for {format} in:\n{help}"
        );
    }
    let files = fixtures();
    assert!(files.len() > 50, "{} fixtures", files.len());
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    // Plain, and with --rows (which adds the .taridx rows).
    for flags in [&["--json"][..], &["--json", "--rows"][..]] {
        let mut args = vec!["inspect".to_owned()];
        args.extend(flags.iter().map(|f| (*f).to_owned()));
        args.extend(files.iter().map(|f| f.to_str().unwrap().to_owned()));
        let out = binfmt(&args);
        let lines: Vec<Value> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), files.len(), "one line per file");
        for (file, line) in files.iter().zip(&lines) {
            let object = line.as_object().unwrap();
            assert!(object.contains_key("file") && object.contains_key("format"));
            let Some(format) = object["format"].as_str() else {
                continue;
            };
            let format = formats.iter().copied().find(|f| *f == format).unwrap();
            if object.contains_key("error") {
                assert_eq!(object.len(), 3, "{}: file, format, error", file.display());
                continue;
            }
            // One shape for every format's version: a string, "MAJOR.MINOR" (Bloscpack,
            // which has no minor version: "3"), in every store of a kastore file too.
            let versions = object.get("version").into_iter().chain(
                object
                    .get("more_stores")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|store| &store["version"]),
            );
            for version in versions.filter(|v| !v.is_null()) {
                let text = version.as_str().unwrap_or_else(|| {
                    panic!("{}: version {version} is not a string", file.display())
                });
                assert!(
                    text.split('.').all(|n| n.parse::<u32>().is_ok())
                        && (text.contains('.') || format == "bloscpack"),
                    "{}: version {text:?}",
                    file.display()
                );
            }
            let mut rest = object.clone();
            for common in ["file", "format", "warnings"] {
                rest.remove(common);
            }
            check(
                format,
                &docs[format],
                "",
                &Value::Object(rest),
                seen.entry(format).or_default(),
                file,
            );
        }
    }
    for format in formats {
        let top: BTreeSet<&String> = docs[format].iter().filter(|k| !k.contains('.')).collect();
        let printed = seen.get(format).cloned().unwrap_or_default();
        let never: Vec<&&String> = top.iter().filter(|k| !printed.contains(**k)).collect();
        assert!(
            never.is_empty(),
            "{format}: documented but printed for no fixture: {never:?}"
        );
    }
}
