//! Little-endian scalar types for layout structs.
//!
//! These are zerocopy's byte-order types, re-exported so that format crates name one
//! path. Each has alignment 1, so a `#[repr(C)]` struct built from them and byte arrays
//! is `Unaligned` and can be read in place at any offset of any buffer; `get()` does
//! the byte-order conversion (free on little-endian hosts).

pub use zerocopy::byteorder::little_endian::{F32, F64, I16, I32, I64, U16, U32, U64};
