//! The tokio runtime behind every [`RemoteSource`](crate::RemoteSource): one per process,
//! made on first use, never dropped.
//!
//! Blocking calls hand their future to it and wait on a channel, so they work from any
//! thread: a plain thread, a rayon worker, even a thread of another tokio runtime (which
//! they block, as any blocking call would, but without the panic that
//! `Runtime::block_on` raises there).

use core::future::Future;
use std::io;
use std::string::String;
use std::sync::OnceLock;
use std::sync::mpsc;

use tokio::runtime::Runtime;

/// Worker threads: the work is waiting on sockets, so two are plenty for the 8 requests
/// in flight that a source allows by default.
const WORKERS: usize = 2;

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

fn runtime() -> io::Result<&'static Runtime> {
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(WORKERS)
                .thread_name("binfmt-remote")
                .enable_io()
                .enable_time()
                .build()
                .map_err(|e| std::format!("cannot start the I/O runtime: {e}"))
        })
        .as_ref()
        .map_err(|e| io::Error::other(e.clone()))
}

/// Runs `fut` to completion on the shared runtime and returns its output.
///
/// # Errors
/// When the runtime cannot start, or the task panicked.
pub(crate) fn run<T, F>(fut: F) -> io::Result<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let rt = runtime()?;
    let (tx, rx) = mpsc::sync_channel(1);
    rt.spawn(async move {
        // The receiver is only gone if the caller's thread died; nothing to do then.
        let _ = tx.send(fut.await);
    });
    rx.recv()
        .map_err(|_| io::Error::other("binfmt-remote: a request task panicked"))
}

/// Starts `fut` on the shared runtime without waiting for it.
///
/// # Errors
/// When the runtime cannot start.
pub(crate) fn spawn<F>(fut: F) -> io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    runtime()?.spawn(fut);
    Ok(())
}
