// Where the test servers' programs are found. Shared, through `include!`, by
// crates/binfmt-test-support/src/servers.rs (which starts them) and tools/test_skips.rs
// (the build scripts that mark the tests needing them as ignored when they are missing),
// so that both search exactly the same places.

/// The variable naming nginx, and where else to look (absolute, or a name on PATH).
const NGINX: (&str, &[&str]) = ("BINFMT_NGINX", &["nginx", "/usr/sbin/nginx"]);

/// The variable naming moto's S3 server; `tools/.venv/bin/moto_server` is searched first,
/// then these.
const MOTO: (&str, &[&str]) = ("BINFMT_MOTO_SERVER", &["moto_server"]);

/// The moto server that `tools/remote/install-servers.sh` installs into the repository's
/// virtual environment.
fn venv_moto(root: &std::path::Path) -> std::path::PathBuf {
    root.join("tools")
        .join(".venv")
        .join("bin")
        .join("moto_server")
}

/// nginx: `BINFMT_NGINX` if set (and then only it), else `nginx` on PATH, else
/// `/usr/sbin/nginx`.
fn nginx_program() -> Option<std::path::PathBuf> {
    find_program(NGINX.0, NGINX.1)
}

/// moto's server: `BINFMT_MOTO_SERVER` if set (and then only it), else
/// `tools/.venv/bin/moto_server`, else `moto_server` on PATH.
fn moto_program(root: &std::path::Path) -> Option<std::path::PathBuf> {
    let venv = venv_moto(root).to_string_lossy().into_owned();
    let mut candidates = vec![venv.as_str()];
    candidates.extend_from_slice(MOTO.1);
    find_program(MOTO.0, &candidates)
}

/// Finds a program: the variable `var`, else each of `candidates` (absolute, or on PATH).
fn find_program(var: &str, candidates: &[&str]) -> Option<std::path::PathBuf> {
    use std::path::{Path, PathBuf};
    if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    for c in candidates {
        let p = Path::new(c);
        if p.is_absolute() {
            if p.is_file() {
                return Some(p.to_path_buf());
            }
            continue;
        }
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let full = dir.join(c);
            if full.is_file() {
                return Some(full);
            }
        }
    }
    None
}
