//! Signals that would otherwise leave a mess.
//!
//! * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF
//!   (every signal whose default action ends the process and that can be caught): the
//!   temporary file of a write in progress is removed before
//!   the process exits (with 128 + the signal's number, as a shell reports a death by
//!   signal), so that an interrupted `binfmt … pack OUT` leaves neither OUT nor a stray
//!   temporary file. In-place edits are crash-consistent by their own protocol.
//! * SIGXFSZ (a write past `ulimit -f`): ignored, so that the write fails with `EFBIG` and
//!   the command reports it and cleans up, instead of being killed half-way.
//! * SIGPIPE is already ignored by Rust programs: a closed standard output is an error
//!   that the command turns into a quiet exit.

pub(crate) fn install() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use signal_hook::consts::{
        SIGALRM, SIGHUP, SIGINT, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGXFSZ,
    };

    // Handling the signal (with a flag nobody reads) is what stops the default action.
    let _ = signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)));
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
    ]) {
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                binfmt_core::atomic::remove_temporaries();
                std::process::exit(128 + signal);
            }
        });
    }
}
