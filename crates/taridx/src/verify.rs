//! Name verification: does the member at a row's offset really have the queried stem?
//!
//! A lookup trusts the 64-bit keyhash, so a stem that is absent from the index but
//! collides with an indexed one returns the wrong rows. Verification settles it by
//! reading the shard. The stored offset is the member's *last* header, so a name that
//! came from a pax `path` or a GNU long name is not visible there; the verifier walks the
//! shard's header chain once (headers only) and caches every member's resolved name.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::Result;
use crate::index::Entry;
use crate::key;
use crate::tar::{Event, Walker};

/// A cache of the resolved member names of each shard, by header offset.
#[derive(Debug, Clone, Default)]
pub struct Verifier {
    shards: BTreeMap<u16, Vec<(u64, String)>>,
}

impl Verifier {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        Verifier::default()
    }

    /// True when shard `fid`'s names are cached.
    #[must_use]
    pub fn has_shard(&self, fid: u16) -> bool {
        self.shards.contains_key(&fid)
    }

    /// Walks shard `fid` (its whole bytes) and caches every member's resolved name
    /// (invalid UTF-8 replaced by U+FFFD).
    ///
    /// # Errors
    /// The strict walker's errors ([`Error::TarChecksum`](crate::Error::TarChecksum), …).
    pub fn add_shard(&mut self, fid: u16, data: &[u8]) -> Result<()> {
        let mut names = Vec::new();
        for event in Walker::new(data, fid) {
            if let Event::Member(m) = event? {
                names.push((m.offset, m.name.to_string_lossy()));
            }
        }
        self.shards.insert(fid, names);
        Ok(())
    }

    /// The resolved name of the member whose last header is at `offset` in shard `fid`,
    /// if that shard is cached and a member starts there.
    #[must_use]
    pub fn name_at(&self, fid: u16, offset: u64) -> Option<&str> {
        let names = self.shards.get(&fid)?;
        let i = names.binary_search_by_key(&offset, |(o, _)| *o).ok()?;
        names.get(i).map(|(_, n)| n.as_str())
    }

    /// True when the member `entry` points at has the stem of `query` (the stem rule is
    /// applied to both). `shard` is the bytes of the entry's shard, walked on first use.
    ///
    /// # Errors
    /// As [`Verifier::add_shard`].
    pub fn verify(&mut self, entry: &Entry, query: &str, shard: &[u8]) -> Result<bool> {
        if !self.has_shard(entry.fid) {
            self.add_shard(entry.fid, shard)?;
        }
        Ok(self
            .name_at(entry.fid, entry.offset)
            .is_some_and(|name| key::stem(name) == key::stem(query)))
    }
}
