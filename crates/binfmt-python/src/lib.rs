//! The native part of the Python package `binfmt` (module `binfmt._binfmt`).
//!
//! Thin: each function calls one binfmt library and returns plain Python values (bytes,
//! ints, tuples); the Python modules under `python/binfmt/` build the public API on top,
//! and numpy views are made there with `numpy.frombuffer` over a Python `mmap.mmap`, at
//! offsets computed here. See the crate README and docs/architecture.md.
// `deny`, not `forbid`: `new_bytes` is the one audited module with `unsafe` (large `bytes`
// objects backed by huge pages; its safety argument is at its top).
#![deny(unsafe_code)]

use pyo3::prelude::*;

mod bloscpack;
mod errors;
mod kastore;
mod mldf;
mod new_bytes;
mod output;
mod source;
mod taco;
mod taridx;

/// The native module `binfmt._binfmt`.
#[pymodule]
fn _binfmt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(kastore::kastore_index, m)?)?;
    m.add_function(wrap_pyfunction!(kastore::kastore_open, m)?)?;
    m.add_function(wrap_pyfunction!(kastore::kastore_file_size, m)?)?;
    m.add("KASTORE_HEADER_SIZE", kastore::HEADER_SIZE)?;
    m.add_function(wrap_pyfunction!(kastore::kastore_dumps, m)?)?;
    m.add_function(wrap_pyfunction!(kastore::kastore_load_url, m)?)?;
    m.add_function(wrap_pyfunction!(bloscpack::blpk_pack, m)?)?;
    m.add_function(wrap_pyfunction!(bloscpack::blpk_unpack, m)?)?;
    m.add_function(wrap_pyfunction!(bloscpack::blpk_append, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_read_header_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_read_header_path, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_update_header, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_update_writes, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_create, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_members_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_members_path, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_read_header_url, m)?)?;
    m.add_function(wrap_pyfunction!(taco::taco_members_url, m)?)?;
    m.add_function(wrap_pyfunction!(output::write_file, m)?)?;
    m.add_function(wrap_pyfunction!(source::is_url, m)?)?;
    m.add_function(wrap_pyfunction!(source::remote_enabled, m)?)?;
    m.add_class::<taridx::TaridxReader>()?;
    m.add_function(wrap_pyfunction!(taridx::taridx_build, m)?)?;
    m.add_class::<mldf::MldfReader>()?;
    m.add_class::<mldf::MldfWriter>()?;
    Ok(())
}
