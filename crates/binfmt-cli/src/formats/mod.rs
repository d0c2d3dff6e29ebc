//! One module per format, each providing one [`Format`](crate::registry::Format): its
//! signature, its `inspect` facts and their documented JSON keys, its `verify` (the
//! library's), and its own subcommands.

pub(crate) mod bloscpack;
pub(crate) mod kastore;
pub(crate) mod mldf;
pub(crate) mod taco;
pub(crate) mod taridx;
