//! The one ordered pipeline under pack and unpack (feature `blosc`): items are turned
//! into bytes on several threads, and the bytes are handed on in item order on the
//! caller's thread while the next items are worked on.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

use crate::blosc;
use crate::error::{Error, Result};

/// An item's index and its bytes (the buffer and how much of it is used) or its error.
type Done = (usize, Result<(Vec<u8>, usize)>);

/// How a [`run`] is shaped.
pub(crate) struct Shape {
    /// Threads working at once, the caller's included when it helps.
    pub threads: usize,
    /// Whether the caller's thread works on items while none is ready to emit. Packing
    /// does (its heap, unlike a new thread's, keeps c-blosc's scratch block mapped from
    /// one call to the next); unpacking does not, so that writing the output never waits
    /// on a decompression.
    pub caller_helps: bool,
    /// The error returned when every worker is gone before the last item (a worker
    /// panicked).
    pub died: fn() -> Error,
}

/// Works on every item of `items` with `work` (which writes an item's bytes into the
/// buffer it is given and returns how many) and passes the bytes to `emit` in order.
///
/// The buffers are the pipeline's memory: at most `buffers.len()` items are worked on
/// or waiting at once. They are allocated by the caller, on its thread, and returned at
/// the end (for [`keep_spare`](crate::pack::keep_spare)): a worker's heap then holds only
/// c-blosc's scratch block, which glibc keeps mapped. A worker takes a free buffer before
/// it takes the next index, so the item to emit next is always in some thread's hands and
/// the pipeline cannot stall. Channels are bounded, their slots allocated here once: an
/// unbounded channel allocates blocks on a worker's heap that the caller frees, which
/// leaves holes c-blosc's next scratch block does not fit.
///
/// On error, the first failing item's error (in item order) is returned, after the items
/// before it were emitted.
pub(crate) fn run<T: Sync>(
    items: &[T],
    shape: &Shape,
    buffers: Vec<Vec<u8>>,
    work: &(dyn Fn(&T, &mut Vec<u8>) -> Result<usize> + Sync),
    emit: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Vec<Vec<u8>>> {
    let workers = if shape.caller_helps {
        shape.threads.saturating_sub(1)
    } else {
        shape.threads.max(1)
    };
    if workers == 0 {
        // The caller alone: no channels, no scope (`thread::scope` registers a
        // thread-local destructor on the caller's thread, which a leak checker reports).
        let mut buffers = buffers;
        let mut buffer = buffers.pop().unwrap_or_default();
        for item in items {
            let n = work(item, &mut buffer)?;
            emit(buffer.get(..n).unwrap_or(&[]))?;
        }
        buffers.push(buffer);
        return Ok(buffers);
    }
    let count = buffers.len().max(1);
    let (free_tx, free_rx) = mpsc::sync_channel::<Vec<u8>>(count);
    for buffer in buffers {
        let _ = free_tx.send(buffer);
    }
    let free_rx = Mutex::new(free_rx);
    blosc::keep_scratch_mapped();
    // Results in flight hold a buffer each (or are errors, which end the run): sends
    // never block.
    let (done_tx, done_rx) = mpsc::sync_channel::<Done>(count);
    let next = AtomicUsize::new(0);
    // The next item worked on in `buffer`, or the buffer back when every item is taken.
    let take = |mut buffer: Vec<u8>| -> core::result::Result<Done, Vec<u8>> {
        let i = next.fetch_add(1, Ordering::Relaxed);
        match items.get(i) {
            Some(item) => Ok((i, work(item, &mut buffer).map(|n| (buffer, n)))),
            None => Err(buffer),
        }
    };
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..workers)
            .map(|_| {
                let done_tx = done_tx.clone();
                let (free_rx, take) = (&free_rx, &take);
                s.spawn(move || {
                    loop {
                        let buffer = match free_rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        let Ok(buffer) = buffer else { return };
                        let Ok(result) = take(buffer) else { return };
                        if done_tx.send(result).is_err() {
                            return;
                        }
                    }
                })
            })
            .collect();
        drop(done_tx);
        let (free, take) = (&free_rx, &take);
        // Owns the free list's sender and the results' receiver: when it is dropped (done
        // or failed) so are they, and every worker's next `recv` or `send` fails.
        let mut drive = move || -> Result<()> {
            let mut pending: BTreeMap<usize, Result<(Vec<u8>, usize)>> = BTreeMap::new();
            let mut emitted = 0usize;
            while emitted < items.len() {
                while let Some(result) = pending.remove(&emitted) {
                    let (buffer, n) = result?;
                    emit(buffer.get(..n).unwrap_or(&[]))?;
                    let _ = free_tx.send(buffer);
                    emitted += 1;
                }
                if emitted == items.len() {
                    break;
                }
                if shape.caller_helps {
                    // A free buffer without waiting (a worker waiting for one holds the
                    // lock), then the next index, as the workers do.
                    let spare = free.try_lock().ok().and_then(|rx| rx.try_recv().ok());
                    if let Some(buffer) = spare {
                        match take(buffer) {
                            Ok((i, result)) => {
                                pending.insert(i, result);
                                continue;
                            }
                            Err(buffer) => {
                                let _ = free_tx.send(buffer);
                            }
                        }
                    }
                }
                let Ok((i, result)) = done_rx.recv() else {
                    return Err((shape.died)());
                };
                pending.insert(i, result);
            }
            Ok(())
        };
        let done = drive();
        drop(drive);
        // Joined here, not by the scope: a join waits for the thread itself to end, after
        // its thread-local destructors (the channels' per-thread context), where the
        // scope's own end waits only for the closures. A leak checker run right after the
        // call (cargo-fuzz's) would otherwise see those not yet freed.
        for worker in workers {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        done?;
        let kept = match free_rx.lock() {
            Ok(rx) => rx.try_iter().collect(),
            Err(_) => Vec::new(),
        };
        Ok(kept)
    })
}
