// Build-script support, included with `include!` by the build.rs of every crate whose
// tests need a reference implementation (through `BINFMT_PYTHON`) or a test server (nginx,
// moto). It sets a cfg for each thing that is missing, and those tests carry
// `#[cfg_attr(binfmt_no_python, ignore = "…")]` (or `binfmt_no_nginx`, `binfmt_no_moto`),
// so that `cargo test` counts them as *ignored*, with the reason, instead of letting them
// pass without doing anything.
//
// * `binfmt_no_python`: `BINFMT_PYTHON` is unset or empty (binfmt_test_support::reference reads it);
// * `binfmt_no_nginx`, `binfmt_no_moto`: the search of tools/remote/programs.rs (the one
//   binfmt_test_support::servers uses to start them) finds nothing.
//
// None is ever set under `BINFMT_REQUIRE_REFERENCE=1` / `BINFMT_REQUIRE_SERVERS=1` (what CI
// sets): the tests then run, and fail when what they need is missing. The tests keep their
// run-time check too, for a test binary run by hand with other variables than it was built
// with.

/// Where the test servers are found (shared with binfmt_test_support::servers).
#[allow(dead_code)] // a crate without server tests uses none of it
mod programs {
    include!("remote/programs.rs");

    pub(super) fn nginx() -> Option<std::path::PathBuf> {
        nginx_program()
    }
    pub(super) fn moto(root: &std::path::Path) -> Option<std::path::PathBuf> {
        moto_program(root)
    }
    /// The absolute candidates' directories.
    pub(super) fn places() -> Vec<std::path::PathBuf> {
        let mut dirs: Vec<std::path::PathBuf> = NGINX
            .1
            .iter()
            .chain(MOTO.1)
            .map(std::path::Path::new)
            .filter(|p| p.is_absolute())
            .filter_map(|p| p.parent().map(std::path::Path::to_path_buf))
            .collect();
        dirs.dedup();
        dirs
    }
    pub(super) fn venv(root: &std::path::Path) -> std::path::PathBuf {
        venv_moto(root)
    }
}

/// True when the variable is exactly `1`.
fn required(var: &str) -> bool {
    println!("cargo::rerun-if-env-changed={var}");
    std::env::var_os(var).is_some_and(|v| v == "1")
}

/// Sets `cfg(name)` (declared in every case, so that the lint knows it).
fn set_cfg(name: &str, set: bool) {
    println!("cargo::rustc-check-cfg=cfg({name})");
    if set {
        println!("cargo::rustc-cfg={name}");
    }
}

/// `cfg(binfmt_no_python)` when `BINFMT_PYTHON` is unset or empty.
#[allow(dead_code)] // each build script calls the one it needs
fn python_cfg() {
    println!("cargo::rerun-if-env-changed=BINFMT_PYTHON");
    let have = std::env::var_os("BINFMT_PYTHON").is_some_and(|p| !p.is_empty());
    set_cfg(
        "binfmt_no_python",
        !have && !required("BINFMT_REQUIRE_REFERENCE"),
    );
}

/// `cfg(binfmt_no_nginx)` and `cfg(binfmt_no_moto)` when the servers are not found.
#[allow(dead_code)]
fn servers_cfg() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|p| p.join("tools").join("test_skips.rs").is_file())
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    for var in ["BINFMT_NGINX", "BINFMT_MOTO_SERVER", "PATH"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    // Installing a server changes one of these directories: the absolute candidates' and
    // PATH's (those that exist), and the repository's virtual environment (or, before it
    // exists, the nearest directory above it, inside the repository).
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path).filter(|d| d.is_absolute());
    for dir in programs::places().into_iter().chain(on_path) {
        if dir.is_dir() {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    let venv = programs::venv(&root);
    if let Some(existing) = venv
        .ancestors()
        .take_while(|p| *p != root)
        .find(|p| p.exists())
    {
        println!("cargo::rerun-if-changed={}", existing.display());
    }
    let require = required("BINFMT_REQUIRE_SERVERS");
    set_cfg("binfmt_no_nginx", !require && programs::nginx().is_none());
    set_cfg(
        "binfmt_no_moto",
        !require && programs::moto(&root).is_none(),
    );
}
