//! Full verification: every problem, not just the first.

use binfmt_core::data::Data;
use binfmt_core::verify::{Sink, Tally};
use binfmt_core::{Kind, bytes};

use crate::check;
use crate::error::{Error, ErrorKind};
use crate::options::ReadOptions;
use crate::raw::MAGIC;
use crate::store::{Store, ranged_meta};
use crate::trailing::{self, After, Warnings};

type Walk<'t, 's> = Tally<'s, dyn Sink<Error> + 't>;

binfmt_core::verify_fns! {
    /// Checks everything in `data` and reports every problem to `sink`: errors at
    /// `Severity::Error`, the warnings of [`Store::warnings`](crate::Store::warnings) at
    /// `Severity::Warning`.
    ///
    /// `data` is one store, possibly followed by further stores (each checked too) and then by
    /// trailing bytes (a warning, as the reference readers accept them; see
    /// [`stores`](crate::stores) for what counts as a further store). The rules are the ones
    /// [`Store::parse`](crate::Store::parse) applies, in the same order, through the same
    /// code: the first error reported is the one `parse` stops at. Problems in the items of a
    /// store do not stop the check, as long as the store's header tells where it ends. Empty
    /// input is [`ErrorKind::Eof`]. Offsets count from the start of `data`.
    ///
    /// Nothing is stored: memory does not grow with the number of problems. The sink may stop
    /// the walk (the summary then says so).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use binfmt_core::verify::Findings;
    /// use kastore::{ErrorKind, ReadOptions};
    ///
    /// let mut data = kastore::Writer::new().add("a", &[1u8])?.to_vec()?;
    /// data[64] = 12; // item 0's type code
    /// data.extend_from_slice(&[0; 3]);
    /// let mut findings = Findings::new(10);
    /// let summary = kastore::verify(&data, &ReadOptions::new(), &mut findings);
    /// assert_eq!((summary.errors(), summary.warnings()), (1, 1));
    /// assert!(matches!(findings.errors()[0].kind(), ErrorKind::BadType { index: 0, code: 12, .. }));
    /// assert!(matches!(findings.warnings()[0].kind(), ErrorKind::TrailingBytes { len: 3, .. }));
    /// # }
    /// # Ok::<(), kastore::Error>(())
    /// ```
    pub fn verify;

    /// [`verify`] over any [`Data`]: a slice, or a
    /// [`ReadCache`](binfmt_core::cache::ReadCache) over a file or an object store, with the
    /// same rules and the same findings.
    ///
    /// Over a cache only metadata is read: the header, the descriptors and the keys of each
    /// store (and a key a hostile descriptor puts elsewhere), in the requests of
    /// [`Store::from_data`]. kastore has no checksums, so no array is read: memory holds the
    /// metadata whatever the size of the arrays. An I/O error is reported as an error and
    /// ends the check.
    ///
    /// ```
    /// # #[cfg(feature = "std")] {
    /// use binfmt_core::cache::ReadCache;
    /// use binfmt_core::source::Counting;
    /// use binfmt_core::verify::Findings;
    /// use kastore::ReadOptions;
    ///
    /// let data = kastore::Writer::new().add("a", &[0u64; 100_000])?.to_vec()?;
    /// let cache = ReadCache::new(Counting::new(&data[..]));
    /// let mut findings = Findings::new(10);
    /// let summary = kastore::verify_data(&cache, &ReadOptions::new(), &mut findings);
    /// assert_eq!(summary.errors(), 0);
    /// assert!(cache.held() < 70_000); // the metadata, not the 800 KB array
    /// # }
    /// # Ok::<(), kastore::Error>(())
    /// ```
    pub fn verify_data => verify_slice, verify_ranged;
}

/// [`verify`] over a cache: the metadata of each store, read by ranges.
fn verify_ranged<'d, D: Data<'d>>(data: D, options: &ReadOptions, tally: &mut Walk<'_, '_>)
where
    Error: From<D::Error>,
{
    // The first store: every problem is an error.
    let (meta, len) = match ranged_meta(data, 0, options) {
        Ok((_, meta, len)) => (meta, len),
        Err(e) => {
            let _ = tally.error(e);
            return;
        }
    };
    let key = |start: u64, key_len: u64| {
        bytes::slice(meta, start, key_len, "key")
            .ok()
            .or_else(|| data.bytes(start, key_len, "key").ok())
    };
    let Some(first) = check::check_with_keys(meta, len, options, key, &mut |e| tally.error(e))
    else {
        return;
    };
    // What follows, as in `verify_slice`: each further store's metadata, read by ranges.
    let mut offset = first.info.file_size;
    while offset < len {
        match Store::from_data_at(data, offset, options) {
            Ok(store) => offset = offset.saturating_add(store.file_size()),
            Err(e) => {
                let magic_len = bytes::to_u64(MAGIC.len());
                let rest = len - offset;
                let head = data
                    .bytes(offset, rest.min(magic_len), "store")
                    .unwrap_or(&[]);
                let store_like = head.starts_with(MAGIC) || MAGIC.starts_with(head);
                for warning in Warnings::trailing(offset, rest, store_like.then_some(e)) {
                    if tally.warning(warning).is_break() {
                        break;
                    }
                }
                break;
            }
        }
    }
}

/// [`verify`] over bytes in memory.
fn verify_slice(data: &[u8], options: &ReadOptions, tally: &mut Walk<'_, '_>) {
    if data.is_empty() {
        let _ = tally.error(ErrorKind::Eof.at(0));
        return;
    }
    // The first store: every problem is an error.
    let Some(first) = check::check(data, bytes::len_u64(data), options, &mut |e| tally.error(e))
    else {
        return;
    };
    // What follows: further stores (valid by definition, so checked once), then at most
    // trailing bytes.
    let mut offset = first.info.file_size;
    loop {
        let rest = bytes::rest(data, offset, "store").unwrap_or(&[]);
        match trailing::classify(rest, options) {
            After::Nothing => break,
            After::Store(size) => offset = offset.saturating_add(size),
            trailing @ After::Trailing { .. } => {
                for warning in Warnings::of(trailing, offset) {
                    if tally.warning(warning).is_break() {
                        break;
                    }
                }
                break;
            }
        }
    }
}
