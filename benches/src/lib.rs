//! Helpers shared by the benchmark files in `benches/`.
