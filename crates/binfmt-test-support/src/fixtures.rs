//! Where the tests' files are: the repository root, and the fixtures of every crate.

use std::path::{Path, PathBuf};

/// The repository root (the parent of `crates/` and `tools/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|p| p.join("tools").join("requirements.txt").is_file())
        .map(Path::to_path_buf)
        .expect("the repository root holds tools/requirements.txt")
}

/// A file of a crate of the workspace: `rel` under `crates/<krate>/`
/// (`crate_file("kastore", "tests/fixtures/valid/control.kas")`).
pub fn crate_file(krate: &str, rel: &str) -> PathBuf {
    repo_root().join("crates").join(krate).join(rel)
}

/// The fixtures directory of a crate: `crates/<krate>/tests/fixtures`.
pub fn fixtures_dir(krate: &str) -> PathBuf {
    crate_file(krate, "tests/fixtures")
}

/// A fixture of a crate: `name` under `crates/<krate>/tests/fixtures/`.
pub fn fixture(krate: &str, name: &str) -> PathBuf {
    fixtures_dir(krate).join(name)
}

/// Every file under `dir` (recursively) whose extension is one of `extensions`, sorted,
/// so that a failure names the same file on every machine.
pub fn files_with(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, extensions, out);
            } else if path
                .extension()
                .is_some_and(|e| extensions.iter().any(|x| e == *x))
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, extensions, &mut out);
    out.sort();
    out
}

/// Each of `paths` with its contents, named by its path relative to the repository (for
/// failure messages).
pub fn read_all(paths: &[PathBuf]) -> Vec<(String, Vec<u8>)> {
    let root = repo_root();
    paths
        .iter()
        .map(|p| {
            let name = p.strip_prefix(&root).unwrap_or(p).display().to_string();
            let data =
                std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (name, data)
        })
        .collect()
}
