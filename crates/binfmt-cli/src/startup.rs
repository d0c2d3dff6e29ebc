//! The binary's one `unsafe` (audited; docs/architecture.md): a function placed in the
//! ELF `.init_array`, so that it runs before the Rust runtime's start-up code.
//!
//! Why: a command that must write to standard output refuses to start when standard
//! output is closed (`binfmt … >&-`), rather than succeed writing nowhere. The Rust runtime
//! puts `/dev/null` on a closed standard descriptor before `main` (so that no file opened
//! later becomes descriptor 1), after which a closed standard output looks exactly like
//! `1<>/dev/null`, or like Python's `subprocess.run(..., stdout=subprocess.DEVNULL)`,
//! which is a real, writable output. Only code that runs before the runtime can tell them
//! apart; `.init_array` functions do (libc calls them before `main`, and Rust's
//! `lang_start`, which sanitises the descriptors, runs from `main`).

/// The entry libc calls before `main`.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[used]
// SAFETY: placing a function pointer in `.init_array` makes libc call it once, on the main
// thread, before `main`, with `(argc, argv, envp)` arguments that a C-ABI function taking
// none ignores (the caller cleans up). The function only reads a link under `/proc`
// (no descriptor is opened, so descriptor 1 cannot be taken by it) and stores a flag;
// it cannot unwind (`read_link` returns errors, it does not panic) and needs nothing the
// runtime sets up later: std's file system calls and the allocator work before `main`.
#[unsafe(link_section = ".init_array")]
static NOTE_STANDARD_OUTPUT: extern "C" fn() = note_standard_output;

#[cfg(any(target_os = "linux", target_os = "android"))]
extern "C" fn note_standard_output() {
    // Without /proc nothing can be said: then standard output counts as open.
    let proc_fd = std::path::Path::new("/proc/self/fd");
    if proc_fd.is_dir() && std::fs::read_link(proc_fd.join("1")).is_err() {
        binfmt_cli::started_without_standard_output();
    }
}
