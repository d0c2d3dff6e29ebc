//! Large `bytes` objects made without faulting their memory in 4 KiB at a time: the one
//! module of this crate with `unsafe` code (audited; listed in docs/architecture.md).
//!
//! Why: a `bytes` object of a few MiB or more is memory that glibc maps afresh, and the
//! kernel then faults it in a 4 KiB page at a time as it is first written. On this
//! project's 2-core VM that is 33 ms for the 51 MB of a packed 64 MiB array (`bytes(a)` of a
//! numpy array), more than the compression itself, against 6 ms for a numpy array of the
//! same size, which numpy's allocator backs with transparent huge pages
//! (`madvise(MADV_HUGEPAGE)` on every allocation of 4 MiB or more). pyo3's
//! `PyBytes::new` and `PyBytes::new_with` cannot ask for that: they write the object's
//! bytes (a copy, or zeros) before the caller sees them. Here the object is made with
//! its contents left uninitialised (CPython's `PyBytes_FromStringAndSize(NULL, n)`, in the
//! stable ABI), its buffer is advised as numpy advises its arrays, and only then written.
//!
//! The safety argument, once for every block below:
//!
//! * The object is new and only this module holds it (one reference, not yet returned or
//!   stored anywhere): nothing else can read or write its buffer while it is filled.
//!   (CPython shares the objects of 0 and 1 bytes; sizes below [`HUGE_FROM`] never get
//!   here.)
//! * `PyBytes_AsString` of a bytes object is a pointer to its `n` bytes (and a NUL after
//!   them), valid while the object lives; the object outlives every use here (the
//!   `Bound` that owns it is dropped, or returned, after them).
//! * The buffer is written before it is read: `copy_of` copies into it with
//!   `copy_nonoverlapping` (the source is the caller's slice, which cannot overlap a
//!   fresh allocation); `filled` zeroes it with `write_bytes` before making a `&mut [u8]`
//!   of it, so no reference to uninitialised bytes ever exists.
//! * `madvise(MADV_HUGEPAGE)` changes only how the kernel backs the pages of the range
//!   (rounded inwards to whole pages of the buffer), never their contents; it may fail
//!   (no transparent huge pages in this kernel), which only loses the speed.
#![allow(unsafe_code)]

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// From this size on a `bytes` buffer is advised to use huge pages: numpy's threshold.
const HUGE_FROM: usize = 4 << 20;

/// A new `bytes` object holding a copy of `data`.
pub(crate) fn copy_of<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    if data.len() < HUGE_FROM {
        return Ok(PyBytes::new(py, data));
    }
    let (bytes, buf) = uninit(py, data.len())?;
    // SAFETY: see the module's documentation: `buf` holds `data.len()` bytes that only
    // this function can reach, and `data` is not inside them.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), buf, data.len()) };
    Ok(bytes)
}

/// A new `bytes` object of `len` bytes, zeroed and then written by `fill`: what pyo3's
/// `PyBytes::new_with` does, with large objects backed by huge pages.
pub(crate) fn filled<'py>(
    py: Python<'py>,
    len: usize,
    fill: impl FnOnce(&mut [u8]) -> PyResult<()>,
) -> PyResult<Bound<'py, PyBytes>> {
    if len < HUGE_FROM {
        return PyBytes::new_with(py, len, fill);
    }
    let (bytes, buf) = uninit(py, len)?;
    // SAFETY: see the module's documentation: `buf` holds `len` bytes that only this
    // function can reach; they are zeroed before the slice over them is made, and the
    // slice does not outlive `bytes`, which owns them.
    let slice = unsafe {
        core::ptr::write_bytes(buf, 0, len);
        core::slice::from_raw_parts_mut(buf, len)
    };
    fill(slice)?;
    Ok(bytes)
}

/// A new `bytes` object of `len` bytes whose contents are not initialised, and its
/// buffer, advised to use huge pages.
fn uninit(py: Python<'_>, len: usize) -> PyResult<(Bound<'_, PyBytes>, *mut u8)> {
    let size = ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("a bytes object that large"))?;
    // SAFETY: with a NULL source CPython makes a bytes object of `size` bytes and leaves
    // them uninitialised; the GIL is held (`py`). NULL is returned with an exception set.
    let obj = unsafe { ffi::PyBytes_FromStringAndSize(core::ptr::null(), size) };
    // SAFETY: `obj` is a new (owned) reference to a bytes object, or NULL with an
    // exception set, which `from_owned_ptr_or_err` turns into that error.
    let bytes = unsafe { Bound::from_owned_ptr_or_err(py, obj) }?;
    let bytes = bytes.cast_into::<PyBytes>()?;
    // SAFETY: `bytes` is a bytes object; the pointer is to its buffer of `len` bytes.
    let buf = unsafe { ffi::PyBytes_AsString(bytes.as_ptr()) }.cast::<u8>();
    if buf.is_null() {
        return Err(PyErr::fetch(py));
    }
    advise_huge_pages(buf, len);
    Ok((bytes, buf))
}

/// Asks the kernel to back the whole pages of `buf..buf + len` with transparent huge
/// pages, as numpy does for its arrays.
#[cfg(target_os = "linux")]
fn advise_huge_pages(buf: *mut u8, len: usize) {
    const PAGE: usize = 4096;
    let at = buf as usize;
    let start = at.next_multiple_of(PAGE);
    let end = at.saturating_add(len) & !(PAGE - 1);
    if end > start {
        // SAFETY: see the module's documentation: the range is whole pages inside the
        // buffer, and the advice changes how they are backed, not what they hold.
        let _ =
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_buf: *mut u8, _len: usize) {}
