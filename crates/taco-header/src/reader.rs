//! The owned form of the view: an archive read by ranges through a [`ReadCache`].

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::cell::OnceCell;

use binfmt_core::IoError;
use binfmt_core::cache::ReadCache;
use binfmt_core::source::ByteSource;

use crate::archive::{self, Archive, HEAD_SIZE};
use crate::central::CentralEntries;
use crate::directory::Directory;
use crate::entries::{Entries, Entry};
use crate::error::Result;
use crate::header::Header;
use crate::member::Member;
use crate::options::ReadOptions;
use crate::raw;

/// An archive read by ranges from a [`ByteSource`]: a file ([`FileSource`]), any
/// `Read + Seek` ([`SeekSource`]), memory, or a remote object. The owned form of the
/// view [`Archive`]: it keeps a [`ReadCache`] over the source and what was checked as
/// plain data (the header, and once read, where the central directory is);
/// [`Reader::view`] rebuilds the view from the cached bytes.
///
/// [`Reader::open`] reads the header alone (one request of 256 bytes); the central
/// directory is read the first time something needs it ([`Reader::view`],
/// [`Reader::central_directory`], [`Reader::members`]) and kept, with every local header
/// read since. Data is read without being kept.
///
/// | step | method | requests |
/// |---|---|---|
/// | the header | [`Reader::open`] | 1: the first 256 bytes ([`HEAD_SIZE`]), as tacoreader's range GET |
/// | the central directory | [`Reader::view`], [`Reader::central_directory`] (first call) | 1: the last [`TAIL_SIZE`] bytes, which hold the end records and the ZIP64 record; +1 for the central directory when it does not fit in them |
/// | data offsets | [`Reader::members`] | the above once, +1 batch for the local headers (hinted together, nearby ones coalesced into one range) |
/// | data | [`Reader::read_data`], [`Reader::read_entry`] | 1 each |
///
/// [`TAIL_SIZE`]: crate::TAIL_SIZE
///
/// ```
/// use binfmt_core::source::Counting;
/// use taco_header::{Entries, Entry, Reader, Writer};
/// let mut writer = Writer::new(Entries::from_slice(&[Entry::new(201, 2)])?);
/// writer.add_bytes("COLLECTION.json", b"{}".to_vec());
/// let bytes = writer.to_vec()?;
///
/// let source = Counting::new(&bytes[..]); // stands for a remote object
/// let reader = Reader::open(&source)?;
/// assert_eq!(reader.header().entries().as_slice(), &[Entry::new(201, 2)]);
/// assert_eq!(source.stats().requests, 1);
///
/// let members = reader.members()?;
/// let names: Vec<_> = members.iter().map(|m| m.name_escaped().to_string()).collect();
/// assert_eq!(names, ["TACO_HEADER", "COLLECTION.json"]);
/// // The tail (here the whole archive) held the central directory and the local
/// // headers.
/// assert_eq!(source.stats().requests, 2);
/// // Data is read by range; these bytes are held already.
/// assert_eq!(&*reader.read_data(&members.get(1).unwrap())?, b"{}");
/// // The view, as over a slice, rebuilt from the cache.
/// assert_eq!(reader.view()?.members().count(), 2);
/// assert_eq!(source.stats().requests, 2);
/// # Ok::<(), taco_header::Error>(())
/// ```
///
/// [`FileSource`]: binfmt_core::source::FileSource
/// [`SeekSource`]: binfmt_core::source::SeekSource
#[derive(Debug)]
pub struct Reader<S> {
    cache: ReadCache<S>,
    options: ReadOptions,
    header: raw::Header,
    /// Once the central directory has been read and checked: where it is.
    shape: OnceCell<Shape>,
}

/// What a checked parse learnt beyond the header.
#[derive(Debug, Clone, Copy)]
struct Shape {
    directory: Directory,
    size: u64,
}

impl<S: ByteSource> Reader<S> {
    /// Reads the first [`HEAD_SIZE`] bytes of `source` (one request) and checks the header
    /// in them as [`Header::parse`] does.
    ///
    /// # Errors
    /// As [`Header::parse`]; I/O errors of the source.
    pub fn open(source: S) -> Result<Self> {
        Reader::open_with(source, &ReadOptions::new())
    }

    /// [`Reader::open`], checking what `options` says (here and in every later read).
    ///
    /// # Errors
    /// As [`Header::parse_with`]; I/O errors of the source.
    pub fn open_with(source: S, options: &ReadOptions) -> Result<Self> {
        let head = source.read_head(HEAD_SIZE).map_err(IoError::from)?;
        let header = *Header::parse_with(&head, options)?.raw();
        // The first bytes serve the view too: never read again.
        let head = head.into_owned();
        Ok(Reader {
            cache: ReadCache::with_head(source, &head, HEAD_SIZE),
            options: *options,
            header,
            shape: OnceCell::new(),
        })
    }

    /// The view: the first call reads the end records and the central directory (one
    /// request, two when the directory does not lie in the last [`TAIL_SIZE`] bytes) and
    /// checks its first entry as [`Archive::parse_with`] does, with the header's CRC
    /// against the central copy; later calls rebuild it from the cached bytes, without
    /// I/O and without checking again.
    ///
    /// # Errors
    /// As [`Archive::parse_with`] for the directory; I/O errors of the source.
    ///
    /// [`TAIL_SIZE`]: crate::TAIL_SIZE
    pub fn view(&self) -> Result<Archive<'_, &ReadCache<S>>> {
        let data = &self.cache;
        let header = Header::from_raw(&self.header);
        if let Some(shape) = self.shape.get() {
            return Archive::from_checked(data, header, shape.directory, shape.size);
        }
        let archive = Archive::with_header(data, header, &self.options)?;
        let _ = self.shape.set(Shape {
            directory: *archive.directory(),
            size: archive.size(),
        });
        Ok(archive)
    }

    /// The header read by [`Reader::open`].
    #[must_use]
    pub fn header(&self) -> Header<'_> {
        Header::from_raw(&self.header)
    }

    /// The header's entries.
    #[must_use]
    pub fn entries(&self) -> Entries {
        self.header().entries()
    }

    /// The cache the view reads through.
    pub fn cache(&self) -> &ReadCache<S> {
        &self.cache
    }

    /// The source.
    pub fn source(&self) -> &S {
        self.cache.source()
    }

    /// The source back.
    pub fn into_inner(self) -> S {
        self.cache.into_source()
    }

    /// The central directory, as `view()` reads and checks it.
    ///
    /// # Errors
    /// As [`Reader::view`].
    pub fn central_directory(&self) -> Result<CentralDirectory<'_>> {
        Ok(CentralDirectory::of(&self.view()?))
    }

    /// Every member with the offset of its data, as `view().members()` lists them: the
    /// central directory (read once), then the fixed 30 bytes of every local header, in
    /// one batch of ranges, nearby ones coalesced.
    ///
    /// # Errors
    /// As [`Reader::view`]; entry and local-header errors as
    /// [`Archive::members`] reports them (the first one), and
    /// [`ErrorKind::EntryCount`](crate::ErrorKind::EntryCount) when the declared count
    /// does not fill the central directory.
    pub fn members(&self) -> Result<MemberList<'_>> {
        let view = self.view()?;
        // Every entry first (their errors come before those of local headers), and
        // where their local headers are, announced in one batch.
        let mut starts = Vec::new();
        let mut entries = view.central_entries();
        for entry in entries.by_ref() {
            starts.push(entry?.local_header_offset);
        }
        entries.check_end()?;
        view.hint_local_headers(&starts);
        // As `view().members()` finds them, without walking the entries again.
        let data_offsets = starts
            .iter()
            .map(|&at| archive::data_offset(&self.cache, view.size(), at))
            .collect::<Result<Vec<u64>>>()?;
        Ok(MemberList {
            cd: CentralDirectory::of(&view),
            data_offsets,
        })
    }

    /// The stored bytes of `member` (one request), as `view().read_data(member)`,
    /// without reading the central directory first.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) when they run past the end;
    /// I/O errors of the source.
    pub fn read_data(&self, member: &Member<'_>) -> Result<Cow<'_, [u8]>> {
        archive::read_data(&self.cache, member)
    }

    /// The bytes a header entry points at (one request): for tacozip's writers, a
    /// member's data. As `view().read_entry(entry)`, without reading the central
    /// directory first.
    ///
    /// # Errors
    /// [`Layout::Truncated`](binfmt_core::Layout::Truncated) when they run past the end;
    /// I/O errors of the source.
    pub fn read_entry(&self, entry: Entry) -> Result<Cow<'_, [u8]>> {
        archive::read_entry(&self.cache, entry)
    }
}

/// The header's entries from the first [`HEAD_SIZE`] bytes of `source`: one request,
/// nothing else read. Every check of [`Header::parse`].
///
/// ```
/// use binfmt_core::source::Counting;
/// use taco_header::{Entries, Entry, Writer};
/// let entries = Entries::from_slice(&[Entry::new(157, 13)])?;
/// let bytes = Writer::new(entries).to_vec()?;
/// let source = Counting::new(&bytes[..]);
/// assert_eq!(taco_header::read_header(&source)?, entries);
/// assert_eq!(source.stats().requests, 1);
/// assert!(source.stats().bytes <= 256);
/// # Ok::<(), taco_header::Error>(())
/// ```
///
/// # Errors
/// As [`Header::parse`]; I/O errors of the source.
pub fn read_header<S: ByteSource + ?Sized>(source: &S) -> Result<Entries> {
    read_header_with(source, &ReadOptions::new())
}

/// [`read_header`], checking what `options` says.
///
/// # Errors
/// As [`Header::parse_with`]; I/O errors of the source.
pub fn read_header_with<S: ByteSource + ?Sized>(
    source: &S,
    options: &ReadOptions,
) -> Result<Entries> {
    let head = source.read_head(HEAD_SIZE).map_err(IoError::from)?;
    Ok(Header::parse_with(&head, options)?.entries())
}

/// The central directory of an archive read by [`Reader::central_directory`]: where it
/// is, and its entries (read from the reader's cache: no I/O).
#[derive(Debug, Clone)]
pub struct CentralDirectory<'s> {
    entries: CentralEntries<'s>,
    directory: Directory,
    archive_len: u64,
}

impl<'s> CentralDirectory<'s> {
    fn of<S: ByteSource>(view: &Archive<'s, &'s ReadCache<S>>) -> Self {
        CentralDirectory {
            entries: view.central_entries(),
            directory: *view.directory(),
            archive_len: view.size(),
        }
    }

    /// Where it is, and how many entries it declares.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// Its entries, in order (the header's first), as `view().central_entries()`.
    #[must_use]
    pub fn entries(&self) -> CentralEntries<'s> {
        self.entries.clone()
    }

    /// The length of the archive, learnt from the tail request.
    #[must_use]
    pub fn archive_len(&self) -> u64 {
        self.archive_len
    }
}

/// Every member of an archive with its data offset, from [`Reader::members`].
#[derive(Debug, Clone)]
pub struct MemberList<'s> {
    cd: CentralDirectory<'s>,
    data_offsets: Vec<u64>,
}

impl<'s> MemberList<'s> {
    /// Where the central directory is.
    #[must_use]
    pub fn directory(&self) -> &Directory {
        self.cd.directory()
    }

    /// The number of members, `TACO_HEADER` included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data_offsets.len()
    }

    /// Never true for a list that [`Reader::members`] returned: a TACO archive has at
    /// least its header.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data_offsets.is_empty()
    }

    /// The members, in central-directory order.
    pub fn iter(&self) -> impl Iterator<Item = Member<'s>> + '_ {
        self.cd
            .entries()
            .map_while(core::result::Result::ok)
            .zip(&self.data_offsets)
            .map(|(entry, &data_offset)| Member::new(&entry, data_offset))
    }

    /// Member `index` (0 is `TACO_HEADER`). Walks the entries before it: for many
    /// lookups, collect [`MemberList::iter`].
    #[must_use]
    pub fn get(&self, index: usize) -> Option<Member<'s>> {
        self.iter().nth(index)
    }
}
