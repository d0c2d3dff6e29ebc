//! A fold's shards for `get`: opened only when the reader first reads from them, with
//! the function that opens every input (paths, `-`, URLs), so an index of a thousand
//! shards opens the one that holds the member.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

use binfmt_core::source::ByteSource;

use crate::escape;
use crate::input;

/// One shard, opened on first use.
pub(super) struct Shard {
    path: PathBuf,
    opened: OnceCell<Result<Box<dyn ByteSource>, String>>,
}

impl Shard {
    pub(super) fn new(path: &Path) -> Self {
        Shard {
            path: path.to_path_buf(),
            opened: OnceCell::new(),
        }
    }

    /// The shard as named, escaped, for messages.
    pub(super) fn name(&self) -> String {
        escape::path(&self.path)
    }

    fn source(&self) -> io::Result<&dyn ByteSource> {
        let opened = self.opened.get_or_init(|| {
            input::open_source(&self.path).map_err(|failure| failure.message().to_owned())
        });
        match opened {
            Ok(source) => Ok(&**source),
            Err(message) => Err(io::Error::other(message.clone())),
        }
    }
}

impl ByteSource for Shard {
    fn len(&self) -> io::Result<u64> {
        self.source()?.len()
    }

    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.source()?.read_range(range)
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Cow<'_, [u8]>>> {
        self.source()?.read_ranges(ranges)
    }

    fn read_head(&self, max_len: u64) -> io::Result<Cow<'_, [u8]>> {
        self.source()?.read_head(max_len)
    }

    fn read_tail(&self, max_len: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        self.source()?.read_tail(max_len)
    }

    fn is_stream(&self) -> bool {
        self.source().is_ok_and(ByteSource::is_stream)
    }

    fn start_ranges(&self, ranges: Vec<Range<u64>>) -> Option<binfmt_core::source::Pending> {
        self.source().ok()?.start_ranges(ranges)
    }

    fn read_ahead_pays(&self) -> bool {
        self.source().is_ok_and(ByteSource::read_ahead_pays)
    }

    fn stream_ranges(
        &self,
        ranges: Vec<Range<u64>>,
        budget: u64,
    ) -> Option<binfmt_core::parts::PartStream> {
        self.source().ok()?.stream_ranges(ranges, budget)
    }

    fn streams(&self) -> bool {
        self.source().is_ok_and(ByteSource::streams)
    }
}
