//! Unpacking: chunks decompressed in parallel (scoped threads), written in order while
//! the next ones decompress (feature `blosc`).

use alloc::vec::Vec;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use binfmt_core::Kind;
use binfmt_core::output::{Output, OutputOptions};

use crate::blosc::{self, Refusal};
use binfmt_core::data::Data;

use crate::chunk::{Bulk, Chunk, Codec};
use crate::error::{Error, ErrorKind, Result, io, io_at};

/// A positioned read: fill the buffer with the bytes at the offset.
pub(crate) type ReadAt<'a> = &'a (dyn Fn(&mut [u8], u64) -> std::io::Result<()> + Sync);
use crate::file::{Bloscpack, Fused};
use crate::options::ReadOptions;
use crate::pack::{default_threads, keep_spare, out_of_memory, take_spare};
use crate::pipeline::{self, Shape};

/// How [`Bloscpack::unpack_to_vec`] and friends decompress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UnpackOptions {
    /// Check each chunk's digest (and the metadata's) before decompressing (default
    /// true, as bloscpack does).
    pub verify: bool,
    /// Chunks decompressed at once, each by one c-blosc thread; 0 (the default) uses the
    /// machine's cores, at most 8.
    pub threads: u16,
    /// The most uncompressed bytes to produce (default: no limit); a larger file is
    /// refused before anything is decompressed.
    pub max_len: u64,
}

impl Default for UnpackOptions {
    fn default() -> Self {
        UnpackOptions::DEFAULT
    }
}

impl UnpackOptions {
    /// Verify digests, the machine's threads, no limit.
    pub const DEFAULT: UnpackOptions = UnpackOptions {
        verify: true,
        threads: 0,
        max_len: u64::MAX,
    };

    /// With a limit on the uncompressed length.
    #[must_use]
    pub const fn max_len(mut self, max_len: u64) -> Self {
        self.max_len = max_len;
        self
    }

    /// With `threads` chunks decompressed at once (0: the machine's cores).
    #[must_use]
    pub const fn threads(mut self, threads: u16) -> Self {
        self.threads = threads;
        self
    }

    /// With or without digest checks.
    #[must_use]
    pub const fn verify(mut self, verify: bool) -> Self {
        self.verify = verify;
        self
    }

    /// [`ErrorKind::TooLarge`] when `bytes` exceed [`max_len`](Self::max_len).
    fn check_len(&self, bytes: u64) -> Result<()> {
        if bytes > self.max_len {
            return Err(ErrorKind::TooLarge {
                bytes,
                limit: self.max_len,
            }
            .unlocated());
        }
        Ok(())
    }

    fn thread_count(&self) -> usize {
        if self.threads == 0 {
            default_threads()
        } else {
            usize::from(self.threads)
        }
    }
}

/// What an unpack wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UnpackReport {
    /// Bytes written: what the chunks hold.
    pub written: u64,
    /// Bytes the header promises but the chunks do not hold: `last_chunk % typesize` (1
    /// to typesize − 1 bytes) for files of bloscpack 0.11 and 0.13 whose last chunk holds
    /// `last_chunk` rounded down to whole elements, otherwise 0. A tool
    /// should tell its user (bloscpack 0.16 unpacks such files short without a word).
    pub shortfall: u64,
}

impl<'d, D: Data<'d>> Chunk<'d, D>
where
    Error: From<D::Error>,
{
    /// Decompresses the chunk into the start of `out` (at least `nbytes` long) and
    /// returns `nbytes`. Neither the digest nor the block table is checked here: see
    /// [`Chunk::verify`] and [`Chunk::check_blocks`].
    ///
    /// # Errors
    /// [`ErrorKind::UnsupportedCodec`] for snappy or an unknown codec,
    /// [`ErrorKind::InvalidArgument`] when `out` is too short, [`ErrorKind::Decompress`]
    /// when c-blosc finds the chunk corrupt; I/O errors over a cache.
    pub fn decompress_into(&self, out: &mut [u8]) -> Result<usize> {
        self.check_codec()?;
        let read = self.load()?;
        let (body, _) = self.split(&read);
        self.decompress_bytes(body, out)
    }

    fn check_codec(&self) -> Result<()> {
        let codec = self.header.flags.codec();
        if self.header.nbytes > 0
            && !self.header.flags.memcpyed()
            && matches!(codec, Codec::Snappy | Codec::Unknown(_))
        {
            return Err(ErrorKind::UnsupportedCodec {
                index: self.index,
                codec: codec.name(),
            }
            .at(self.offset + 2));
        }
        Ok(())
    }

    fn decompress_bytes(&self, body: &[u8], out: &mut [u8]) -> Result<usize> {
        self.check_codec()?;
        blosc::decompress(body, out, 1).map_err(|r| self.refused(r))
    }

    /// Whether [`decompress_in_place`](Self::decompress_in_place) will take this chunk,
    /// as far as its header (read before its body) tells.
    fn fits_in_place(&self) -> bool {
        let h = &self.header;
        blosc::in_place(h.flags.bits(), h.typesize, h.nbytes, h.blocksize)
    }

    /// Decompresses the chunk's body, held in `buf[..cbytes]`, over itself into
    /// `buf[..nbytes]`; `None` (nothing written) when the body's own header says it
    /// cannot be (see `blosc::in_place`).
    fn decompress_in_place(&self, buf: &mut [u8]) -> Result<Option<usize>> {
        self.check_codec()?;
        let cbytes = usize::try_from(self.header.cbytes).unwrap_or(usize::MAX);
        match blosc::decompress_in_place(buf, cbytes) {
            Ok(n) => Ok(Some(n)),
            Err(Refusal::NotInPlace) => Ok(None),
            Err(r) => Err(self.refused(r)),
        }
    }

    /// The Blosc buffer of `read` (the buffer and its digest, as read), checked: its
    /// digest when `verify`, its block table always.
    fn checked_body<'b>(&self, read: &'b [u8], verify: bool) -> Result<&'b [u8]> {
        let (body, digest) = self.split_slice(read);
        if verify {
            self.verify_bytes(body, digest)?;
        }
        self.header.check_blocks(body, self.offset, self.index)?;
        Ok(body)
    }

    fn refused(&self, refusal: Refusal) -> Error {
        match refusal {
            Refusal::OutputTooSmall => ErrorKind::InvalidArgument {
                what: "output buffer",
                reason: "it is smaller than the chunk's nbytes",
            }
            .unlocated(),
            Refusal::Invalid | Refusal::NotInPlace => ErrorKind::Decompress {
                index: self.index,
                code: -1,
            }
            .at(self.offset),
            Refusal::Code(code) => ErrorKind::Decompress {
                index: self.index,
                code,
            }
            .at(self.offset),
        }
    }

    /// Checks (digest when `verify`, block table always) and decompresses into `buffer`,
    /// which is resized to exactly `nbytes`: the chunk's bytes are read once (over a
    /// cache: one request, not kept).
    pub(crate) fn unpack(&self, verify: bool, buffer: &mut Vec<u8>) -> Result<()> {
        let read = self.load()?;
        let body = self.checked_body(&read, verify)?;
        let n = usize::try_from(self.header.nbytes).unwrap_or(usize::MAX);
        if n > buffer.len() {
            buffer
                .try_reserve_exact(n - buffer.len())
                .map_err(|_| out_of_memory(n))?;
        }
        buffer.resize(n, 0);
        self.decompress_bytes(body, buffer)?;
        // Over a cache that streams, the buffer fills again with a later chunk.
        self.data.recycle(read);
        Ok(())
    }
}

impl<'d, D: Data<'d>> Bloscpack<'d, D>
where
    Error: From<D::Error>,
{
    /// Decompresses every chunk, in order, into `write`; the common path of every unpack.
    /// Bytes in memory are decompressed in parallel; other data (a cache) streams chunk
    /// by chunk, each read as a payload and dropped once written.
    fn unpack_with(
        &self,
        options: &UnpackOptions,
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<UnpackReport> {
        options.check_len(self.uncompressed_len())?;
        if options.verify
            && let Some(m) = self.metadata()
        {
            m.verify()?;
        }
        let threads = options.thread_count();
        match self.data().whole() {
            Some(whole) if threads > 1 && self.nchunks() > 1 => {
                let chunks: Vec<Chunk<'_>> =
                    self.chunks().map(|c| Chunk::in_memory(&c, whole)).collect();
                pipeline(&chunks, threads, options.verify, write)?;
            }
            _ => {
                self.prefetch_chunks();
                let mut buffer = Vec::new();
                for chunk in self.chunks() {
                    chunk.unpack(options.verify, &mut buffer)?;
                    write(&buffer)?;
                }
            }
        }
        Ok(UnpackReport {
            written: self.uncompressed_len(),
            shortfall: self.shortfall(),
        })
    }

    /// Decompresses every chunk straight into its place in `out`, which must be exactly
    /// [`uncompressed_len`](Self::uncompressed_len) bytes long: on up to
    /// [`threads`](UnpackOptions::threads) threads, each chunk read once (a borrow in
    /// memory, one positioned read over a cache), checked (digest when verifying, block
    /// table always) and decompressed in place, with nothing copied afterwards. On error,
    /// the first failing chunk's (in file order) is returned and `out` holds what was
    /// decompressed so far (the failing chunk's place: unspecified bytes).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`] when `out` has another length; otherwise as for
    /// [`unpack_to_vec`](Self::unpack_to_vec).
    pub fn unpack_into(&self, out: &mut [u8], options: &UnpackOptions) -> Result<UnpackReport>
    where
        D: Send + Sync,
    {
        self.unpack_into_with(out, options, None)
    }

    /// [`unpack_into`](Self::unpack_into), with each chunk's bytes read by `read` (a
    /// positioned read of a file, into a buffer each thread reuses) rather than through
    /// the view's data.
    pub(crate) fn unpack_into_with(
        &self,
        out: &mut [u8],
        options: &UnpackOptions,
        read: Option<ReadAt<'_>>,
    ) -> Result<UnpackReport>
    where
        D: Send + Sync,
    {
        options.check_len(self.uncompressed_len())?;
        if binfmt_core::bytes::len_u64(out) != self.uncompressed_len() {
            return Err(ErrorKind::InvalidArgument {
                what: "output buffer",
                reason: "its length is not the file's uncompressed length",
            }
            .unlocated());
        }
        if options.verify
            && let Some(m) = self.metadata()
        {
            m.verify()?;
        }
        if read.is_none() {
            // Over a cache (a URL), the workers' chunks come from read-ahead windows (or
            // a stream), not one request each.
            self.prefetch_chunks();
        }
        let mut jobs: Vec<(Chunk<'d, D>, &mut [u8])> = Vec::new();
        let mut rest = out;
        for chunk in self.chunks() {
            let n = usize::try_from(chunk.header().nbytes).unwrap_or(usize::MAX);
            let (slot, tail) = rest.split_at_mut(n.min(rest.len()));
            jobs.push((chunk, slot));
            rest = tail;
        }
        let threads = options.thread_count().clamp(1, jobs.len().max(1));
        let verify = options.verify;
        // A chunk read from a file goes straight into its place in `out` when it fits
        // there and c-blosc reads it whole before writing (one shuffled block: files of
        // bloscpack's defaults): then no thread holds a read buffer, and memory is `out`
        // and c-blosc's scratch block per thread, less than the reference's (one read
        // buffer, one scratch block).
        let read_len = |chunk: &Chunk<'d, D>| {
            let span = chunk.span();
            usize::try_from(span.end - span.start).unwrap_or(usize::MAX)
        };
        let in_place = |chunk: &Chunk<'d, D>, slot: &[u8]| {
            read.is_some() && read_len(chunk) <= slot.len() && chunk.fits_in_place()
        };
        // Over a cache (no `read`), each chunk's bytes are taken by `take` when the chunk is
        // taken from the queue, under its lock: in file order, one chunk at a time, as by
        // one reader walking the file, so that its read-ahead windows (or its stream)
        // serve every thread. Taken by threads racing each other, a later chunk taken
        // first would make the cache drop the earlier ones as skipped, and read each
        // again alone: a request per chunk.
        let take = |chunk: &Chunk<'d, D>| read.is_none().then(|| chunk.load());
        // The chunk read into its own place in `out` and decompressed over itself; `None`
        // when it is not read that way.
        let unpack_in_place = |chunk: &Chunk<'d, D>, slot: &mut [u8]| -> Result<Option<usize>> {
            let Some(read) = read.filter(|_| in_place(chunk, slot)) else {
                return Ok(None);
            };
            let area = slot.get_mut(..read_len(chunk)).unwrap_or(&mut []);
            read(area, chunk.offset).map_err(|e| io(e).rebased(chunk.offset))?;
            chunk.checked_body(area, verify)?;
            // `None` too when the bytes read are not those whose header was read before
            // (the file changed): they are read again, into a buffer, and judged there.
            chunk.decompress_in_place(slot)
        };
        let run = |chunk: &Chunk<'d, D>,
                   taken: Option<Result<Bulk<'d>>>,
                   slot: &mut [u8],
                   buffer: &mut Vec<u8>|
         -> Result<()> {
            let n = match unpack_in_place(chunk, slot)? {
                Some(n) => n,
                None => {
                    let loaded;
                    let bytes: &[u8] = match read {
                        Some(read) => {
                            let len = read_len(chunk);
                            if buffer.len() < len {
                                buffer
                                    .try_reserve_exact(len - buffer.len())
                                    .map_err(|_| out_of_memory(len))?;
                                buffer.resize(len, 0);
                            }
                            let area = buffer.get_mut(..len).unwrap_or(&mut []);
                            read(area, chunk.offset).map_err(|e| io(e).rebased(chunk.offset))?;
                            area
                        }
                        None => {
                            loaded = taken.unwrap_or_else(|| chunk.load())?;
                            &loaded
                        }
                    };
                    let body = chunk.checked_body(bytes, verify)?;
                    chunk.decompress_bytes(body, slot)?
                }
            };
            if n == slot.len() {
                Ok(())
            } else {
                Err(ErrorKind::Decompress {
                    index: chunk.index,
                    code: -1,
                }
                .at(chunk.offset))
            }
        };
        // Read buffers (for `read`) come from, and go back to, the pack pipeline's spare
        // buffers: allocated on this thread, kept mapped between calls.
        // Each is made as long as the longest chunk before the threads start: grown by
        // the threads, chunk after chunk, they would be moved about the threads' heaps,
        // which would grow.
        // None when every chunk is read in place.
        let mut buffers = Vec::new();
        if read.is_some() {
            let longest = jobs
                .iter()
                .filter(|(c, slot)| !in_place(c, slot))
                .map(|(c, _)| read_len(c))
                .max();
            if let Some(longest) = longest {
                buffers = take_spare(threads, longest)?;
            }
        }
        let spare = Mutex::new(buffers);
        let first_error = if threads == 1 {
            let mut buffer = Vec::new();
            if let Ok(mut s) = spare.lock() {
                buffer = s.pop().unwrap_or_default();
            }
            let e = jobs
                .into_iter()
                .find_map(|(chunk, slot)| run(&chunk, take(&chunk), slot, &mut buffer).err());
            keep_spare(core::iter::once(buffer));
            e
        } else {
            // Workers take the next chunk in file order; after a failure they stop taking.
            let queue = Mutex::new(jobs.into_iter().enumerate());
            let failures: Mutex<Vec<(usize, Error)>> = Mutex::new(Vec::new());
            let work = || {
                let mut buffer = spare
                    .lock()
                    .ok()
                    .and_then(|mut s| s.pop())
                    .unwrap_or_default();
                loop {
                    let next = match queue.lock() {
                        Ok(mut q) => q.next().map(|(i, (chunk, slot))| {
                            let taken = take(&chunk);
                            (i, chunk, slot, taken)
                        }),
                        Err(_) => None,
                    };
                    let Some((i, chunk, slot, taken)) = next else {
                        break;
                    };
                    if let Err(e) = run(&chunk, taken, slot, &mut buffer) {
                        if let Ok(mut f) = failures.lock() {
                            f.push((i, e));
                        }
                        if let Ok(mut q) = queue.lock() {
                            q.by_ref().for_each(drop);
                        }
                        break;
                    }
                }
                keep_spare(core::iter::once(buffer));
            };
            // The caller's thread is one of the `threads` (its heap keeps c-blosc's
            // scratch block mapped from one call to the next; a new thread's does not).
            blosc::keep_scratch_mapped();
            std::thread::scope(|s| {
                let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
                work();
                // Joined, not left to the scope: a join waits for the thread's end, after
                // its thread-local destructors (as in `pipeline::run`).
                for helper in helpers {
                    if let Err(panic) = helper.join() {
                        std::panic::resume_unwind(panic);
                    }
                }
            });
            failures
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .into_iter()
                .min_by_key(|(i, _)| *i)
                .map(|(_, e)| e)
        };
        match first_error {
            Some(e) => Err(e),
            None => Ok(UnpackReport {
                written: self.uncompressed_len(),
                shortfall: self.shortfall(),
            }),
        }
    }

    /// Decompresses the whole file into a new `Vec`, which grows as chunks arrive.
    ///
    /// # Errors
    /// [`ErrorKind::TooLarge`] beyond `options.max_len`, [`ErrorKind::OutOfMemory`],
    /// digest mismatches (when verifying), [`ErrorKind::BadBloscHeader`] for a chunk
    /// whose block table c-blosc would refuse, [`ErrorKind::UnsupportedCodec`] and
    /// [`ErrorKind::Decompress`].
    pub fn unpack_to_vec(&self, options: &UnpackOptions) -> Result<Vec<u8>> {
        let mut out: Vec<u8> = Vec::new();
        self.unpack_with(options, &mut |bytes| {
            out.try_reserve(bytes.len())
                .map_err(|_| out_of_memory(out.len().saturating_add(bytes.len())))?;
            out.extend_from_slice(bytes);
            Ok(())
        })?;
        Ok(out)
    }

    /// Decompresses into `out` while the next chunks decompress, and says what was
    /// written. Memory: a few chunks (two per thread).
    ///
    /// # Errors
    /// As for [`unpack_to_vec`](Self::unpack_to_vec), and [`ErrorKind::Io`].
    pub fn unpack_to_writer<W: Write>(
        &self,
        mut out: W,
        options: &UnpackOptions,
    ) -> Result<UnpackReport> {
        let report = self.unpack_with(options, &mut |bytes| out.write_all(bytes).map_err(io))?;
        out.flush().map_err(io)?;
        Ok(report)
    }

    /// Decompresses into the file at `path`, replacing it atomically (through
    /// `binfmt_core::output::Output`: a temporary file, synced and renamed).
    ///
    /// # Errors
    /// As for [`unpack_to_writer`](Self::unpack_to_writer); `path` is untouched on error.
    pub fn unpack_to_path(
        &self,
        path: impl AsRef<Path>,
        options: &UnpackOptions,
    ) -> Result<UnpackReport> {
        let path = path.as_ref();
        let mut out =
            Output::create(path, &OutputOptions::new().replace(true)).map_err(io_at(path))?;
        let report = self.unpack_to_writer(
            std::io::BufWriter::with_capacity(1 << 20, &mut out),
            options,
        )?;
        out.commit().map_err(io_at(path))?;
        Ok(report)
    }
}

impl<'d, D: Data<'d>> Bloscpack<'d, D>
where
    Error: From<D::Error>,
{
    /// Parses `data` (as [`from_data_with`](Bloscpack::from_data_with)) and unpacks it into
    /// `out` (as [`unpack_to_writer`](Bloscpack::unpack_to_writer)) in one pass.
    ///
    /// Over a cache that reads ahead (a URL), the walk reads each chunk once, from the
    /// window that brings it, and checks its header, digest and block table and
    /// decompresses it from that read, where `from_data_with` then `unpack_to_writer`
    /// fetch every chunk header in a request of its own before the first chunk (at an
    /// 80 ms round trip, a 191-chunk file's headers are three round trips more). The price:
    /// bytes are written to `out` before the whole structure has been checked, so `out`
    /// must be something that is thrown away on error, such as the temporary file of a
    /// `binfmt_core::output::Output` that is committed only on success. For a stream, use
    /// the two steps. Bytes in memory (or a cache that does not read ahead) take the two
    /// steps anyway.
    ///
    /// The error is the one the two steps would give first, when there is one: the
    /// structure's, then the limit's, the metadata's, and the first chunk's.
    ///
    /// ```
    /// use bloscpack_header::{Bloscpack, PackOptions, ReadOptions, UnpackOptions};
    ///
    /// let packed = PackOptions::default().to_vec(b"abc".repeat(1000).as_slice()).unwrap();
    /// let mut out = Vec::new();
    /// let (file, report) = Bloscpack::parse_and_unpack(
    ///     &packed[..],
    ///     &ReadOptions::new(),
    ///     &UnpackOptions::DEFAULT,
    ///     &mut out,
    /// )
    /// .unwrap();
    /// assert_eq!((file.nchunks(), report.written), (1, 3000));
    /// assert_eq!(out, b"abc".repeat(1000));
    /// ```
    ///
    /// # Errors
    /// As for [`from_data_with`](Bloscpack::from_data_with) and
    /// [`unpack_to_writer`](Bloscpack::unpack_to_writer).
    pub fn parse_and_unpack<W: Write>(
        data: D,
        read: &ReadOptions,
        options: &UnpackOptions,
        mut out: W,
    ) -> Result<(Self, UnpackReport)> {
        let mut buffer = Vec::new();
        let mut written = 0u64;
        // The limit: each chunk the walk unpacks is checked before its buffer is sized,
        // the rest after the walk, from the total.
        let mut emit = |buffer: &[u8], written: &mut u64| -> Result<()> {
            *written = written.saturating_add(binfmt_core::bytes::len_u64(buffer));
            out.write_all(buffer).map_err(io)
        };
        let mut first = None;
        let (file, held, from) = {
            let mut visit = |chunk: &Chunk<'_>| -> Result<()> {
                // The limit holds before a chunk's buffer is sized by its header.
                let after = written.saturating_add(chunk.header().nbytes.into());
                options.check_len(after)?;
                chunk.unpack(options.verify, &mut buffer)?;
                emit(&buffer, &mut written)
            };
            let mut fused = Fused::visiting(read, &mut visit);
            let file = Self::scan(data, read, true, Some(&mut fused), &mut |e| {
                first = Some(e);
                core::ops::ControlFlow::Break(())
            });
            let held = fused.found.into_iter().next();
            (file, held, (fused.checked, fused.resume))
        };
        let file = match (first, file) {
            (Some(e), _) => return Err(e),
            (None, Some(file)) => file,
            (None, None) => return Err(binfmt_core::Error::overflow("file", 0).into()),
        };
        options.check_len(file.uncompressed_len())?;
        if options.verify
            && let Some(m) = file.metadata()
        {
            m.verify()?;
        }
        if let Some(e) = held {
            return Err(e);
        }
        // What the walk did not unpack (none when every chunk was read as announced).
        let (index, pos) = from;
        if index < file.nchunks() {
            if index == 0 {
                file.prefetch_chunks();
            }
            let start = if index == 0 {
                file.chunks()
            } else {
                file.chunks_from(index, pos)
            };
            for chunk in start {
                chunk.unpack(options.verify, &mut buffer)?;
                emit(&buffer, &mut written)?;
            }
        }
        out.flush().map_err(io)?;
        let report = UnpackReport {
            written: file.uncompressed_len(),
            shortfall: file.shortfall(),
        };
        Ok((file, report))
    }
}

/// Decompresses the chunks on `threads` workers and writes them in order on the caller's
/// thread ([`pipeline::run`]): at most `2 × threads` chunks are in memory.
fn pipeline(
    chunks: &[Chunk<'_>],
    threads: usize,
    verify: bool,
    write: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let threads = threads.min(chunks.len()).max(1);
    let shape = Shape {
        threads,
        caller_helps: false,
        died: worker_died,
    };
    let work = |chunk: &Chunk<'_>, buffer: &mut Vec<u8>| {
        chunk.unpack(verify, buffer).map(|()| buffer.len())
    };
    let buffers = core::iter::repeat_with(Vec::new)
        .take(2 * threads)
        .collect();
    pipeline::run(chunks, &shape, buffers, &work, write).map(drop)
}

fn worker_died() -> Error {
    ErrorKind::Decompress { index: 0, code: -1 }.unlocated()
}

impl crate::reader::Reader<binfmt_core::source::FileSource> {
    /// [`Bloscpack::unpack_into`] for a file read by ranges: the chunks are read by the
    /// decompressing threads, each with a positioned read, and never all at once. A
    /// chunk of one shuffled block (bloscpack's defaults make them) is read into its own
    /// place in `out` and decompressed over itself; any other into a buffer of its
    /// thread's (reused). Memory: `out`, c-blosc's scratch block per thread, and a
    /// chunk per thread only for the other chunks.
    ///
    /// # Errors
    /// As for [`Bloscpack::unpack_into`]; I/O errors.
    pub fn unpack_into(&self, out: &mut [u8], options: &UnpackOptions) -> Result<UnpackReport> {
        let source = self.source();
        let read = |buf: &mut [u8], offset: u64| source.read_exact_at(buf, offset);
        self.view().unpack_into_with(out, options, Some(&read))
    }
}
