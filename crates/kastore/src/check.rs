//! Every rule of the format, checked once, for every reader.
//!
//! [`Store::parse`](crate::Store::parse) wants the first problem and [`verify`](crate::verify)
//! wants all of them, so the checks report through a callback that says whether to go
//! on. The callback runs only when something is wrong, so parsing a valid store pays
//! nothing for it. The ranged [`Reader`](crate::Reader) runs the same function over the
//! prefix of the file it fetched (header, descriptors, keys), telling it the file's length.
//!
//! Order: the header first (nothing else can be trusted without it), then the keys
//! (type, emptiness, bounds, packing, order) and the arrays (bounds, alignment, packing),
//! then the total size, and only then whether the input really holds `file_size` bytes:
//! a store whose descriptors contradict its `file_size` is reported as such rather than as
//! "truncated", which is what a user repairing it needs to know.

use core::cmp::Ordering;
use core::ops::ControlFlow;

use binfmt_core::bytes::{self, to_u64};
use binfmt_core::{Compatibility, Kind, Version, VersionPolicy, field_offset};

use crate::ARRAY_ALIGN;
use crate::dtype::DType;
use crate::error::{Error, ErrorKind};
use crate::key::KeyExcerpt;
use crate::options::ReadOptions;
use crate::raw::{DESCRIPTOR_SIZE, Descriptor, HEADER_SIZE, Header, MAGIC, VERSION};

/// kastore's version rule: major 1 only; any minor (the reference never checks it).
const POLICY: VersionPolicy = VersionPolicy::single_major("kastore file", VERSION);

/// The header and descriptor sizes as offsets.
pub(crate) const HEADER_LEN: u64 = to_u64(HEADER_SIZE);
pub(crate) const DESCRIPTOR_LEN: u64 = to_u64(DESCRIPTOR_SIZE);

const VERSION_AT: u64 = field_offset!(Header, version_major);
const NUM_ITEMS_AT: u64 = field_offset!(Header, num_items);
const FILE_SIZE_AT: u64 = field_offset!(Header, file_size);
const KEY_START_AT: u64 = field_offset!(Descriptor, key_start);
const KEY_LEN_AT: u64 = field_offset!(Descriptor, key_len);
const ARRAY_START_AT: u64 = field_offset!(Descriptor, array_start);

/// What the header says, once it has passed its own checks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HeaderInfo {
    pub(crate) version: Version,
    pub(crate) compatibility: Compatibility,
    pub(crate) num_items: u32,
    pub(crate) file_size: u64,
}

impl HeaderInfo {
    /// Where the descriptors end and the keys begin: 64 + 64 × `num_items`, at most
    /// `file_size` (checked by [`header`]).
    pub(crate) fn descriptors_end(&self) -> u64 {
        // At most 64 + 64 * (2^32 - 1): no overflow.
        HEADER_LEN + DESCRIPTOR_LEN * u64::from(self.num_items)
    }
}

/// The checks that need only the 64-byte header: present, magic, version, file_size at
/// least 64 and large enough for the descriptors, and the size limit. Readers of streams
/// and ranges run them before they read (and allocate for) the rest of the store.
pub(crate) fn header(data: &[u8], options: &ReadOptions) -> Result<HeaderInfo, Error> {
    if data.is_empty() {
        return Err(ErrorKind::Eof.at(0));
    }
    let h: &Header = bytes::read(data, 0, "header")?;
    binfmt_core::magic::check(data, 0, MAGIC, "kastore file")?;
    let version = Version::new(h.version_major.get(), h.version_minor.get());
    let compatibility = POLICY.check(version, VERSION_AT)?;
    let file_size = h.file_size.get();
    if file_size < HEADER_LEN {
        return Err(ErrorKind::FileSizeTooSmall { file_size }.at(FILE_SIZE_AT));
    }
    let info = HeaderInfo {
        version,
        compatibility,
        num_items: h.num_items.get(),
        file_size,
    };
    let needed = info.descriptors_end();
    if needed > file_size {
        return Err(ErrorKind::DescriptorsOutsideStore {
            num_items: info.num_items,
            needed,
            file_size,
        }
        .at(NUM_ITEMS_AT));
    }
    let limit = options.get_max_store_size();
    if file_size > limit {
        return Err(ErrorKind::TooLarge { file_size, limit }.at(0));
    }
    Ok(info)
}

/// A store that passed the header checks and whose descriptors are present.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checked<'a> {
    pub(crate) descriptors: &'a [Descriptor],
    pub(crate) info: HeaderInfo,
}

/// Checks the store at the start of an input of `input_len` bytes whose first bytes are
/// `data` (all of them, or a prefix holding at least the header, the descriptors and the
/// keys), calling `report` for each problem.
///
/// Returns the store's header and descriptors when its header is sound and the input
/// holds all of its bytes (even if items have problems, which were reported), so that a
/// caller can find where the next store starts. Returns `None` when the header or input
/// is too broken for that, or when `report` said stop.
pub(crate) fn check<'a>(
    data: &'a [u8],
    input_len: u64,
    options: &ReadOptions,
    report: &mut dyn FnMut(Error) -> ControlFlow<()>,
) -> Option<Checked<'a>> {
    check_with_keys(
        data,
        input_len,
        options,
        |start, len| bytes::slice(data, start, len, "key").ok(),
        report,
    )
}

/// [`check`], with `key(start, len)` giving the key bytes at `start` (from the store's
/// start) when they are not in `data`: a ranged verify reads a key that a hostile
/// descriptor puts away from the packed keys, so that its order is checked as over the
/// whole input.
pub(crate) fn check_with_keys<'a>(
    data: &'a [u8],
    input_len: u64,
    options: &ReadOptions,
    key: impl Fn(u64, u64) -> Option<&'a [u8]>,
    report: &mut dyn FnMut(Error) -> ControlFlow<()>,
) -> Option<Checked<'a>> {
    macro_rules! problem {
        ($e:expr) => {
            if report($e).is_break() {
                return None;
            }
        };
    }
    let info = match header(data, options) {
        Ok(info) => info,
        Err(e) => {
            let _ = report(e);
            return None;
        }
    };
    let n = u64::from(info.num_items);
    let descriptors: &[Descriptor] = match bytes::read_table(data, HEADER_LEN, n, "descriptors") {
        Ok(d) => d,
        Err(e) => {
            let _ = report(e.into());
            return None;
        }
    };
    let file_size = info.file_size;

    // Keys: each descriptor's own fields, then its place in the packing, then its order
    // relative to the previous key. `expected` follows the layout the lengths imply, so
    // one corrupt field gives one problem rather than a cascade.
    let mut expected = info.descriptors_end();
    let mut previous: Option<&[u8]> = None;
    for (i, d) in (0u64..).zip(descriptors) {
        let at = HEADER_LEN + DESCRIPTOR_LEN * i;
        if DType::from_code(d.dtype).is_none() {
            problem!(
                ErrorKind::BadType {
                    index: i,
                    code: d.dtype,
                }
                .at(at)
            );
        }
        let (key_start, key_len) = (d.key_start.get(), d.key_len.get());
        let in_bounds = key_start <= file_size && key_len <= file_size - key_start;
        if key_len == 0 {
            problem!(ErrorKind::EmptyKeyInStore { index: i }.at(at + KEY_LEN_AT));
        } else if !in_bounds {
            problem!(
                ErrorKind::KeyOutOfBounds {
                    index: i,
                    key_start,
                    key_len,
                    file_size,
                }
                .at(at + KEY_START_AT)
            );
        } else if key_start != expected {
            problem!(
                ErrorKind::KeyNotPacked {
                    index: i,
                    key_start,
                    expected,
                }
                .at(at + KEY_START_AT)
            );
        }
        expected = expected.saturating_add(key_len);

        let key = if in_bounds && key_len > 0 {
            key(key_start, key_len)
        } else {
            None
        };
        if let (Some(prev), Some(key)) = (previous, key) {
            match prev.cmp(key) {
                Ordering::Less => {}
                Ordering::Equal => problem!(
                    ErrorKind::DuplicateKeyInStore {
                        index: i,
                        key: KeyExcerpt::new(key),
                    }
                    .at(key_start)
                ),
                Ordering::Greater => problem!(
                    ErrorKind::UnsortedKeys {
                        index: i,
                        key: KeyExcerpt::new(key),
                    }
                    .at(key_start)
                ),
            }
        }
        previous = key;
    }

    // Arrays: bounds, alignment, packing. `end` is where the previous array ended, or
    // None after an array whose size is unknown (bad type), in which case the next
    // array's declared start is taken as given.
    let mut end = Some(expected);
    for (i, d) in (0u64..).zip(descriptors) {
        let at = HEADER_LEN + DESCRIPTOR_LEN * i + ARRAY_START_AT;
        let Some(dtype) = DType::from_code(d.dtype) else {
            end = None;
            continue;
        };
        let (array_start, array_len) = (d.array_start.get(), d.array_len.get());
        let size = array_len.checked_mul(to_u64(dtype.size()));
        let in_bounds =
            array_start <= file_size && size.is_some_and(|size| size <= file_size - array_start);
        let want = end.and_then(|e| binfmt_core::align::align_up(e, ARRAY_ALIGN));
        if !in_bounds {
            problem!(
                ErrorKind::ArrayOutOfBounds {
                    index: i,
                    array_start,
                    array_len,
                    dtype,
                    file_size,
                }
                .at(at)
            );
        } else if let Err(e) =
            binfmt_core::align::check_aligned(array_start, ARRAY_ALIGN, "array_start", at)
        {
            problem!(e.into());
        } else if let Some(want) = want.filter(|&w| w != array_start) {
            problem!(
                ErrorKind::ArrayNotPacked {
                    index: i,
                    array_start,
                    expected: want,
                }
                .at(at)
            );
        }
        let start = want.unwrap_or(array_start);
        end = size.and_then(|size| start.checked_add(size));
    }

    let mut size_wrong = false;
    if let Some(end) = end.filter(|&e| e != file_size) {
        size_wrong = true;
        problem!(
            ErrorKind::FileSizeMismatch {
                file_size,
                expected: end,
            }
            .at(FILE_SIZE_AT)
        );
    }
    if input_len < file_size {
        // Input shorter than a file_size already reported as wrong is no news.
        if !size_wrong {
            let _ = report(binfmt_core::Error::truncated("store", 0, file_size, input_len).into());
        }
        return None;
    }
    Some(Checked { descriptors, info })
}

/// The first problem with the store at the start of `data`, or its parts and its bytes
/// (exactly `file_size` of them).
pub(crate) fn first_problem<'a>(
    data: &'a [u8],
    options: &ReadOptions,
) -> Result<(Checked<'a>, &'a [u8]), Error> {
    let mut first = None;
    let checked = check(data, bytes::len_u64(data), options, &mut |e| {
        first = Some(e);
        ControlFlow::Break(())
    });
    match (first, checked) {
        (Some(e), _) => Err(e),
        (None, Some(checked)) => {
            let store = bytes::slice(data, 0, checked.info.file_size, "store")?;
            Ok((checked, store))
        }
        // `check` returns None only after reporting; keep a truthful error regardless.
        (None, None) => {
            Err(binfmt_core::Error::truncated("store", 0, HEADER_LEN, bytes::len_u64(data)).into())
        }
    }
}
