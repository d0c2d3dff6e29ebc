//! Scratch directories that tests create and that go away with the test: binfmt-core's
//! [`Scratch`], the one definition (core's own unit tests and the format crates' unit
//! tests, which also run as published, cannot depend on this crate).

pub use binfmt_core::scratch::Scratch;

#[cfg(test)]
mod tests {
    use super::Scratch;

    #[test]
    fn a_scratch_directory_is_removed_when_dropped() {
        let dir = Scratch::new("test-support-scratch");
        std::fs::write(dir.join("a"), b"x").unwrap();
        let path = dir.path().to_path_buf();
        assert!(path.join("a").exists());
        drop(dir);
        assert!(!path.exists());
    }
}
