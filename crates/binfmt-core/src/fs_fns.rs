//! The functions by path every format crate's `fs` module offers:
//! [`fs_fns!`](crate::fs_fns).

/// Writes the bodies of a format crate's file functions by path, each under the docs and
/// attributes the caller gives it, so that the five `fs` modules read, map and open files
/// in one way (every I/O error naming the path):
///
/// - `pub fn read;`: `read(path) -> Result<Vec<u8>>`, the whole file with ordinary reads;
/// - `pub fn map;`: `map(path) -> Result<Mmap>`, a read-only `binfmt_core::mmap::Mmap`,
///   under the calling crate's `mmap` feature (and marked so in its docs);
/// - `pub fn open;`: `open(path) -> Result<Reader<FileSource>>`, that is
///   `open_with(path, &ReadOptions::new())`;
/// - `pub fn open_with;`: `open_with(path, &ReadOptions) -> Result<Reader<FileSource>>`,
///   the crate's `Reader::open_with` over a [`FileSource`](crate::source::FileSource), its
///   I/O errors named after the path ([`Error::with_path`](crate::Error::with_path)).
///
/// A crate lists those it offers, in any order. The functions name the calling module's
/// `Result` (whose error converts from [`IoError`](crate::IoError)), `Reader` and
/// `ReadOptions`, which every format crate has.
///
/// ```text
/// // In a format crate's fs.rs:
/// binfmt_core::fs_fns! {
///     /// Reads the whole file at `path` into memory.
///     ///
///     /// # Errors
///     /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming `path`.
///     pub fn read;
///     /// Maps the file at `path` read-only.
///     ///
///     /// # Errors
///     /// [`ErrorKind::Io`](crate::ErrorKind::Io), naming `path`.
///     pub fn map;
/// }
/// ```
#[macro_export]
macro_rules! fs_fns {
    () => {};
    ($(#[$attr:meta])* pub fn read; $($rest:tt)*) => {
        $(#[$attr])*
        pub fn read(
            path: impl ::core::convert::AsRef<::std::path::Path>,
        ) -> Result<::std::vec::Vec<u8>> {
            let path = path.as_ref();
            let bytes = ::std::fs::read(path).map_err($crate::IoError::at_path(path))?;
            ::core::result::Result::Ok(bytes)
        }
        $crate::fs_fns!($($rest)*);
    };
    ($(#[$attr:meta])* pub fn map; $($rest:tt)*) => {
        $(#[$attr])*
        #[cfg(feature = "mmap")]
        pub fn map(
            path: impl ::core::convert::AsRef<::std::path::Path>,
        ) -> Result<$crate::mmap::Mmap> {
            let path = path.as_ref();
            let map = $crate::mmap::Mmap::open(path).map_err($crate::IoError::at_path(path))?;
            ::core::result::Result::Ok(map)
        }
        $crate::fs_fns!($($rest)*);
    };
    ($(#[$attr:meta])* pub fn open; $($rest:tt)*) => {
        $(#[$attr])*
        pub fn open(
            path: impl ::core::convert::AsRef<::std::path::Path>,
        ) -> Result<Reader<$crate::source::FileSource>> {
            open_with(path, &ReadOptions::new())
        }
        $crate::fs_fns!($($rest)*);
    };
    ($(#[$attr:meta])* pub fn open_with; $($rest:tt)*) => {
        $(#[$attr])*
        pub fn open_with(
            path: impl ::core::convert::AsRef<::std::path::Path>,
            options: &ReadOptions,
        ) -> Result<Reader<$crate::source::FileSource>> {
            let path = path.as_ref();
            let source = $crate::source::FileSource::open(path)
                .map_err($crate::IoError::at_path(path))?;
            // The source's read errors know no path: name it, as every error of the
            // module does.
            Reader::open_with(source, options).map_err(|e| e.with_path(path))
        }
        $crate::fs_fns!($($rest)*);
    };
}
