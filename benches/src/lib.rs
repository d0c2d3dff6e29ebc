//! Helpers shared by the benchmark files in `benches/`.
//!
//! `reference` loads a reference implementation's C shared library, when one is named by
//! an environment variable, so that a bench can time it in the same run as our code.

pub mod reference;
