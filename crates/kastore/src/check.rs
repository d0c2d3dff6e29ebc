//! Every rule of the format, checked once.
//!
//! [`Store::parse`](crate::Store::parse) wants the first problem and [`verify`](crate::verify)
//! wants all of them, so the checks report through a callback that says whether to go
//! on. The callback runs only when something is wrong, so parsing a valid store pays
//! nothing for it.
//!
//! Order: the header first (nothing else can be trusted without it), then the keys
//! (type, emptiness, bounds, packing, order) and the arrays (bounds, alignment, packing),
//! then the total size, and only then whether the input really holds `file_size` bytes:
//! a store whose descriptors contradict its `file_size` is reported as such rather than as
//! "truncated", which is what a user repairing it needs to know.

use core::cmp::Ordering;

use binfmt_core::bytes;
use binfmt_core::{Compatibility, Version, VersionPolicy};

use crate::dtype::DType;
use crate::error::{Error, KeyExcerpt};
use crate::raw::{Descriptor, Header};
use crate::{ARRAY_ALIGN, DESCRIPTOR_SIZE, HEADER_SIZE, MAGIC};

/// kastore's version rule: major 1 only; any minor (the reference never checks it).
pub(crate) const POLICY: VersionPolicy =
    VersionPolicy::single_major("kastore file", crate::VERSION);

/// Whether to keep checking after a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// What the header says, once it has passed its own checks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HeaderInfo {
    pub(crate) version: Version,
    pub(crate) compatibility: Compatibility,
    pub(crate) num_items: u32,
    pub(crate) file_size: u64,
}

/// The checks that need only the 64-byte header: present, magic, version, file_size at
/// least 64 and large enough for the descriptors. A stream reader runs them before it
/// reads (and allocates for) the rest of the store.
pub(crate) fn header(data: &[u8]) -> Result<HeaderInfo, Error> {
    if data.is_empty() {
        return Err(Error::Eof { offset: 0 });
    }
    let h: &Header = bytes::read(data, 0, "header")?;
    binfmt_core::magic::check(data, 0, MAGIC, "kastore file")?;
    let version = Version::new(h.version_major.get(), h.version_minor.get());
    let compatibility = POLICY.check(version, 8)?;
    let file_size = h.file_size.get();
    if file_size < HEADER_SIZE {
        return Err(Error::FileSizeTooSmall {
            offset: 16,
            file_size,
        });
    }
    let num_items = h.num_items.get();
    // At most 64 + 64 * (2^32 - 1): no overflow.
    let needed = HEADER_SIZE + DESCRIPTOR_SIZE * u64::from(num_items);
    if needed > file_size {
        return Err(Error::DescriptorsOutsideStore {
            offset: 12,
            num_items,
            needed,
            file_size,
        });
    }
    Ok(HeaderInfo {
        version,
        compatibility,
        num_items,
        file_size,
    })
}

/// A store that passed the header checks and whose `file_size` bytes are all present.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts<'a> {
    /// Exactly `file_size` bytes.
    pub(crate) bytes: &'a [u8],
    pub(crate) descriptors: &'a [Descriptor],
    pub(crate) info: HeaderInfo,
}

/// Checks the store at the start of `data`, calling `report` for each problem.
///
/// Returns the store's parts when its header is sound and the input holds all of its
/// bytes (even if items have problems, which were reported), so that a caller can find
/// where the next store starts. Returns `None` when the header or input is too broken
/// for that, or when `report` said stop.
pub(crate) fn check<'a>(
    data: &'a [u8],
    report: &mut dyn FnMut(Error) -> Flow,
) -> Option<Parts<'a>> {
    macro_rules! problem {
        ($e:expr) => {
            if report($e) == Flow::Stop {
                return None;
            }
        };
    }
    let info = match header(data) {
        Ok(info) => info,
        Err(e) => {
            report(e);
            return None;
        }
    };
    let n = u64::from(info.num_items);
    let descriptors: &[Descriptor] = match bytes::read_table(data, HEADER_SIZE, n, "descriptors") {
        Ok(d) => d,
        Err(e) => {
            report(e.into());
            return None;
        }
    };
    let file_size = info.file_size;

    // Keys: each descriptor's own fields, then its place in the packing, then its order
    // relative to the previous key. `expected` follows the layout the lengths imply, so
    // one corrupt field gives one problem rather than a cascade.
    let mut expected = HEADER_SIZE + DESCRIPTOR_SIZE * n;
    let mut previous: Option<&[u8]> = None;
    for (i, d) in (0u64..).zip(descriptors) {
        let at = HEADER_SIZE + DESCRIPTOR_SIZE * i;
        if DType::from_code(d.dtype).is_none() {
            problem!(Error::BadType {
                offset: at,
                index: i,
                code: d.dtype,
            });
        }
        let (key_start, key_len) = (d.key_start.get(), d.key_len.get());
        let in_bounds = key_start <= file_size && key_len <= file_size - key_start;
        if key_len == 0 {
            problem!(Error::EmptyKeyInStore {
                offset: at + 16,
                index: i,
            });
        } else if !in_bounds {
            problem!(Error::KeyOutOfBounds {
                offset: at + 8,
                index: i,
                key_start,
                key_len,
                file_size,
            });
        } else if key_start != expected {
            problem!(Error::KeyNotPacked {
                offset: at + 8,
                index: i,
                key_start,
                expected,
            });
        }
        expected = expected.saturating_add(key_len);

        let key = if in_bounds && key_len > 0 {
            bytes::slice(data, key_start, key_len, "key").ok()
        } else {
            None
        };
        if let (Some(prev), Some(key)) = (previous, key) {
            match prev.cmp(key) {
                Ordering::Less => {}
                Ordering::Equal => problem!(Error::DuplicateKeyInStore {
                    offset: key_start,
                    index: i,
                    key: KeyExcerpt::new(key),
                }),
                Ordering::Greater => problem!(Error::UnsortedKeys {
                    offset: key_start,
                    index: i,
                    key: KeyExcerpt::new(key),
                }),
            }
        }
        previous = key;
    }

    // Arrays: bounds, alignment, packing. `end` is where the previous array ended, or
    // None after an array whose size is unknown (bad type), in which case the next
    // array's declared start is taken as given.
    let mut end = Some(expected);
    for (i, d) in (0u64..).zip(descriptors) {
        let at = HEADER_SIZE + DESCRIPTOR_SIZE * i;
        let Some(dtype) = DType::from_code(d.dtype) else {
            end = None;
            continue;
        };
        let (array_start, array_len) = (d.array_start.get(), d.array_len.get());
        let size = array_len.checked_mul(dtype.size_u64());
        let in_bounds =
            array_start <= file_size && size.is_some_and(|size| size <= file_size - array_start);
        let want = end.and_then(|e| binfmt_core::align::align_up(e, ARRAY_ALIGN));
        if !in_bounds {
            problem!(Error::ArrayOutOfBounds {
                offset: at + 24,
                index: i,
                array_start,
                array_len,
                dtype,
                file_size,
            });
        } else if let Err(e) =
            binfmt_core::align::check_aligned(array_start, ARRAY_ALIGN, "array_start", at + 24)
        {
            problem!(e.into());
        } else if let Some(want) = want.filter(|&w| w != array_start) {
            problem!(Error::ArrayNotPacked {
                offset: at + 24,
                index: i,
                array_start,
                expected: want,
            });
        }
        let start = want.unwrap_or(array_start);
        end = size.and_then(|size| start.checked_add(size));
    }

    let mut size_wrong = false;
    if let Some(end) = end.filter(|&e| e != file_size) {
        size_wrong = true;
        problem!(Error::FileSizeMismatch {
            offset: 16,
            file_size,
            expected: end,
        });
    }
    match bytes::slice(data, 0, file_size, "store") {
        Ok(bytes) => Some(Parts {
            bytes,
            descriptors,
            info,
        }),
        Err(e) => {
            // Input shorter than a file_size already reported as wrong is no news.
            if !size_wrong {
                report(e.into());
            }
            None
        }
    }
}

/// The first problem with the store at the start of `data`, or its parts.
pub(crate) fn first_problem(data: &[u8]) -> Result<Parts<'_>, Error> {
    let mut first = None;
    let parts = check(data, &mut |e| {
        first = Some(e);
        Flow::Stop
    });
    match (first, parts) {
        (Some(e), _) => Err(e),
        (None, Some(parts)) => Ok(parts),
        // `check` returns None only after reporting; keep a truthful error regardless.
        (None, None) => Err(Error::Layout(binfmt_core::Error::Truncated {
            what: "store",
            offset: 0,
            needed: HEADER_SIZE,
            available: bytes::len_u64(data),
        })),
    }
}
