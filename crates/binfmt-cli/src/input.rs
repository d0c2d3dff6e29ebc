//! Opening the files named on the command line.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use binfmt_core::mmap::Mmap;

use crate::report::Failure;

/// A file's bytes: memory-mapped when it is a regular file, read otherwise (pipes,
/// character devices), so that `binfmt inspect /dev/stdin` works too.
#[derive(Debug)]
pub(crate) struct Input {
    path: PathBuf,
    data: Data,
}

#[derive(Debug)]
enum Data {
    Mapped(Mmap),
    Read(Vec<u8>),
}

impl Input {
    pub(crate) fn open(path: &Path) -> Result<Input, Failure> {
        let fail = |e: std::io::Error| Failure::io(path, &e);
        let file = File::open(path).map_err(fail)?;
        let meta = file.metadata().map_err(fail)?;
        if meta.is_dir() {
            return Err(Failure::file(path, "is a directory"));
        }
        let data = if meta.is_file() {
            Data::Mapped(Mmap::of_file(&file).map_err(fail)?)
        } else {
            let mut buf = Vec::new();
            (&file).read_to_end(&mut buf).map_err(fail)?;
            Data::Read(buf)
        };
        Ok(Input {
            path: path.to_path_buf(),
            data,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(m) => m,
            Data::Read(v) => v,
        }
    }
}
