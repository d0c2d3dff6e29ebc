//! Everything that can go wrong reading or writing an MLDF file.
//!
//! An [`Error`] is a [`binfmt_core::Error`]: an optional byte offset (where in the file
//! the problem was found, so a hex dump shows the bytes the message talks about) and an
//! [`ErrorKind`] (what is wrong). `Display` puts the offset in front, `byte N: message`.
//! Problems with one value (a metadata slot and its payload) are described once, by
//! [`ValueProblem`], and wrapped by [`ErrorKind::BadValue`] when a reader finds them in
//! a file and by [`ErrorKind::InvalidValue`] when a writer refuses a value.
//!
//! ```
//! use mldf::{ErrorKind, Fault, Layout};
//! let err = mldf::Header::parse(b"\x89MLDF\r\n\x1a\n").unwrap_err();
//! assert_eq!(err.offset(), Some(0));
//! assert!(matches!(err.kind(), ErrorKind::Layout(Layout::Truncated { needed: 73, .. })));
//! assert_eq!(err.fault(), Fault::Input);
//! assert!(err.to_string().starts_with("byte 0: truncated input"));
//! ```

#[cfg(feature = "std")]
use binfmt_core::IoError;
use binfmt_core::{Layout, Version};

use crate::types::TypeId;

/// The error of every fallible function of this crate: an [`ErrorKind`] and, for
/// problems in a file, the byte offset at which it was found.
///
/// With the `alloc` feature (on by default, through `std`) an `Error` is one pointer
/// (8 bytes on 64-bit targets), and so is a `Result<(), Error>`: the offset and the kind
/// share one allocation, made on the error path only ([`binfmt_core::Error`], "Size").
/// Without `alloc` they are inline: 80 bytes on 64-bit targets.
pub type Error = binfmt_core::Error<ErrorKind>;

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// A problem with one value: its metadata slot, or its payload, or the value a caller
/// asked a writer to store.
///
/// Struct variants are `#[non_exhaustive]`: match them with `..`, as fields may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum ValueProblem {
    /// A slot with a pointer but no size, or a size but no pointer.
    #[error("data_ptr is {ptr} but data_size is {size}: either both are 0 or neither is")]
    #[non_exhaustive]
    PointerSizeMismatch {
        /// The stored data_ptr.
        ptr: u64,
        /// The stored data_size.
        size: u32,
    },
    /// An image mode other than 0 (raw), 1 (JPEG) and 2 (PNG).
    #[error("image mode {mode} is not 0 (raw), 1 (JPEG) or 2 (PNG)")]
    #[non_exhaustive]
    ImageMode {
        /// The stored mode.
        mode: u8,
    },
    /// A raw image whose channel count is not 1, 3 or 4.
    #[error("a raw image has {channels} channels; raw images have 1, 3 or 4")]
    #[non_exhaustive]
    RawImageChannels {
        /// The stored channel count.
        channels: u8,
    },
    /// A raw image whose payload is not height × width × channels bytes.
    #[error(
        "a raw {height}×{width}×{channels} image needs {expected} bytes, but its payload has {size}"
    )]
    #[non_exhaustive]
    RawImageSize {
        /// Image height.
        height: u16,
        /// Image width.
        width: u16,
        /// Channels.
        channels: u8,
        /// height × width × channels.
        expected: u64,
        /// The payload size.
        size: u32,
    },
    /// A JPEG or PNG image whose channel count is not 1 to 4.
    #[error("a JPEG or PNG image has {channels} channels; it must have 1 to 4")]
    #[non_exhaustive]
    ImageChannels {
        /// The stored channel count.
        channels: u8,
    },
    /// An audio codec other than 0 to 4.
    #[error("audio codec {codec} is not 0 (PCM), 1 (FLAC), 2 (AAC), 3 (MP3) or 4 (float PCM)")]
    #[non_exhaustive]
    AudioCodec {
        /// The stored codec.
        codec: u8,
    },
    /// A PCM codec in an AUDIO_COMPRESSED field, or a compressed one in AUDIO_WAVEFORM.
    #[error(
        "audio codec {codec} does not belong in a {type_id} field (AUDIO_WAVEFORM holds codecs 0 and 4, AUDIO_COMPRESSED 1 to 3)"
    )]
    #[non_exhaustive]
    AudioCodecFamily {
        /// The stored codec.
        codec: u8,
        /// The field's type.
        type_id: TypeId,
    },
    /// A PCM bit depth the codec does not allow.
    #[error(
        "PCM codec {codec} cannot have bit depth {bit_depth} (integer PCM: 8, 16, 24 or 32; float PCM: 32)"
    )]
    #[non_exhaustive]
    BitDepth {
        /// The stored codec.
        codec: u8,
        /// The stored bit depth.
        bit_depth: u8,
    },
    /// A PCM payload that is not frames × channels × bytes per sample.
    #[error("the PCM metadata describes {expected} bytes, but the payload has {size}")]
    #[non_exhaustive]
    PcmSize {
        /// frames × channels × bit_depth / 8.
        expected: u64,
        /// The payload size.
        size: u32,
    },
    /// A text encoding other than 0 (UTF-8), 1 (u32 ids) and 2 (u16 ids).
    #[error("text encoding {encoding} is not 0 (UTF-8), 1 (u32 token ids) or 2 (u16 token ids)")]
    #[non_exhaustive]
    TextEncoding {
        /// The stored encoding.
        encoding: u8,
    },
    /// UTF-8 text with a non-zero token count.
    #[error("UTF-8 text must have num_tokens 0, found {num_tokens}")]
    #[non_exhaustive]
    Utf8TokenCount {
        /// The stored count.
        num_tokens: u16,
    },
    /// Text or JSON that is not valid UTF-8.
    #[error("the payload is not valid UTF-8 (the first {valid_up_to} bytes are)")]
    #[non_exhaustive]
    NotUtf8 {
        /// Length of the valid prefix.
        valid_up_to: usize,
    },
    /// A token payload that is not a whole number of ids.
    #[error("a payload of {size} bytes is not a whole number of {width}-byte token ids")]
    #[non_exhaustive]
    TokenSize {
        /// The payload size.
        size: u32,
        /// Bytes per id.
        width: u8,
    },
    /// A token count that is not min(ids, 65535).
    #[error("num_tokens is {num_tokens}, but the payload holds {expected} (capped at 65535)")]
    #[non_exhaustive]
    TokenCount {
        /// The stored count.
        num_tokens: u16,
        /// min(data_size / width, 65535).
        expected: u16,
    },
    /// An NDARRAY payload that is neither empty nor the field's byte size.
    #[error("an array payload of {size} bytes is neither empty nor the field's {expected} bytes")]
    #[non_exhaustive]
    NdarraySize {
        /// The payload size.
        size: u64,
        /// prod(shape) × itemsize.
        expected: u32,
    },
    /// A value of the wrong kind for its field.
    #[error("a {got} value cannot be stored in a {type_id} field")]
    #[non_exhaustive]
    WrongType {
        /// The field's type.
        type_id: TypeId,
        /// What the value was.
        got: &'static str,
    },
    /// A missing value in a field that is not NULLABLE (or has no payload).
    #[error("the value is missing, but the field is not a NULLABLE payload field")]
    Missing,
    /// A payload of 4 GiB or more.
    #[error("a payload of {size} bytes exceeds the 4 GiB − 1 limit of data_size")]
    #[non_exhaustive]
    TooLarge {
        /// The payload size.
        size: u64,
    },
    /// JSON text that RFC 8259 does not accept.
    #[error("the text is not JSON (RFC 8259): {reason} at byte {at}")]
    #[non_exhaustive]
    NotJson {
        /// What was wrong.
        reason: &'static str,
        /// Where in the text.
        at: usize,
    },
    /// A JPEG or PNG whose header cannot be read.
    #[error("cannot read the {mode} header: {reason}")]
    #[non_exhaustive]
    ImageHeader {
        /// `"JPEG"` or `"PNG"`.
        mode: &'static str,
        /// What was wrong.
        reason: &'static str,
    },
    /// An image larger than 65,535 pixels in some direction.
    #[error("the image is {width}×{height}; MLDF stores at most 65535 in each direction")]
    #[non_exhaustive]
    ImageTooLarge {
        /// Declared height.
        height: u32,
        /// Declared width.
        width: u32,
    },
    /// A JPEG with more than 4 components.
    #[error("the JPEG has {components} components; at most 4 can be stored")]
    #[non_exhaustive]
    JpegComponents {
        /// The frame's component count.
        components: u8,
    },
}

/// What went wrong reading or writing an MLDF file: one variant per rule.
///
/// No variant carries the byte offset; [`Error::offset`](binfmt_core::Error::offset)
/// has it.
///
/// Struct variants are `#[non_exhaustive]`: match them with `..`, as fields may be added.
/// [`Kind::name`](binfmt_core::Kind::name) gives each variant's stable name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A structural problem every format shares: truncation, overflow, bad magic, version.
    #[error(transparent)]
    Layout(#[from] Layout),
    /// The header is all zero: the writer never finished.
    #[error("incomplete file: the header is all zero, so the writer never finished")]
    Incomplete,
    /// The LITTLE_ENDIAN flag is clear.
    #[error("flags {flags:#x} lack LITTLE_ENDIAN (0x1), which every MLDF v1 file sets")]
    #[non_exhaustive]
    NotLittleEndian {
        /// The stored flags.
        flags: u32,
    },
    /// A must-understand flag this reader does not implement (COMPRESSED, ENCRYPTED, …).
    #[error(
        "flags set {bits:#x}, which this reader does not implement (0x2 COMPRESSED and 0x8 ENCRYPTED are reserved)"
    )]
    #[non_exhaustive]
    UnsupportedFlags {
        /// The unknown must-understand bits.
        bits: u32,
    },
    /// A page size in a file that is not a power of two from 4096 to 2^31.
    #[error("page size {page_size} is not a power of two from 4096 to 2^31")]
    #[non_exhaustive]
    BadPageSize {
        /// The page size.
        page_size: u32,
    },
    /// The header CRC does not match.
    #[error(
        "header checksum mismatch: stored {stored:#010x}, computed {computed:#010x}; the header is corrupt"
    )]
    #[non_exhaustive]
    HeaderChecksum {
        /// The stored CRC.
        stored: u32,
        /// The CRC of bytes 0..69.
        computed: u32,
    },
    /// The index CRC does not match.
    #[error(
        "index checksum mismatch: stored {stored:#010x}, computed {computed:#010x}; the descriptors, metadata table or allocation table are corrupt"
    )]
    #[non_exhaustive]
    IndexChecksum {
        /// The stored CRC.
        stored: u32,
        /// The CRC of the three sections.
        computed: u32,
    },
    /// N > 0 samples but no fields.
    #[error(
        "the header declares {num_samples} samples but no fields; a file without fields has no samples"
    )]
    #[non_exhaustive]
    NoFields {
        /// The stored sample count.
        num_samples: u64,
    },
    /// A field name with no bytes before its first NUL.
    #[error("field {field}: the name is empty")]
    #[non_exhaustive]
    EmptyName {
        /// The field index.
        field: usize,
    },
    /// A field name of 64 bytes with no NUL.
    #[error("field {field}: the name has no NUL within its 64 bytes")]
    #[non_exhaustive]
    UnterminatedName {
        /// The field index.
        field: usize,
    },
    /// A field name that is not UTF-8.
    #[error("field {field}: the name is not valid UTF-8")]
    #[non_exhaustive]
    NameNotUtf8 {
        /// The field index.
        field: usize,
    },
    /// Two fields with the same name bytes.
    #[error("field {field}: the name repeats the name of field {first}")]
    #[non_exhaustive]
    DuplicateName {
        /// The later field.
        field: usize,
        /// The earlier field with the same name.
        first: usize,
    },
    /// A metadata size that is zero or not a multiple of 8.
    #[error("field {field}: metadata_size {size} is not a non-zero multiple of 8")]
    #[non_exhaustive]
    BadMetadataSize {
        /// The field index.
        field: usize,
        /// The stored size.
        size: u32,
    },
    /// A known type with a metadata size other than its v1 size.
    #[error(
        "field {field}: a {type_id} field has metadata_size {size}, expected {expected}{}",
        if *newer { " or more" } else { "" }
    )]
    #[non_exhaustive]
    WrongMetadataSize {
        /// The field index.
        field: usize,
        /// The field's type.
        type_id: TypeId,
        /// The stored size.
        size: u32,
        /// The v1.0 size.
        expected: u32,
        /// True when the file's minor version is newer, so a larger size is allowed.
        newer: bool,
    },
    /// An NDARRAY dtype code that v1.0 does not define.
    #[error("field {field}: NDARRAY dtype code {code} is not 1 to 13")]
    #[non_exhaustive]
    NdarrayDtype {
        /// The field index.
        field: usize,
        /// The stored code.
        code: u8,
    },
    /// An NDARRAY with more than 15 dimensions.
    #[error("field {field}: NDARRAY ndim {ndim} exceeds 15")]
    #[non_exhaustive]
    NdarrayRank {
        /// The field index.
        field: usize,
        /// The stored ndim.
        ndim: usize,
    },
    /// An NDARRAY whose byte size does not fit a u32 data_size.
    #[error("field {field}: the NDARRAY shape needs more than 4 GiB − 1 bytes per value")]
    #[non_exhaustive]
    NdarrayTooLarge {
        /// The field index.
        field: usize,
    },
    /// A section pointer below 73, inside the magic and header.
    #[error("the {section} pointer is {ptr}, inside the magic and header (< 73)")]
    #[non_exhaustive]
    PointerBeforeHeader {
        /// The section.
        section: &'static str,
        /// The stored pointer.
        ptr: u64,
    },
    /// A section that ends past the allocation table or the end of the file.
    #[error(
        "the {section} ({start}..{end}) runs past byte {limit} (the allocation table or the end of the file)"
    )]
    #[non_exhaustive]
    SectionPastEnd {
        /// The section.
        section: &'static str,
        /// Its first byte.
        start: u64,
        /// One past its last byte.
        end: u64,
        /// What it must end at or before.
        limit: u64,
    },
    /// data_ptr after alloc_table_ptr.
    #[error(
        "data_ptr {data_ptr} is after alloc_table_ptr {alloc_table_ptr}; the allocation table comes last"
    )]
    #[non_exhaustive]
    DataAfterAllocTable {
        /// The data pointer.
        data_ptr: u64,
        /// The allocation table pointer.
        alloc_table_ptr: u64,
    },
    /// An allocation table whose length is not a multiple of 16.
    #[error(
        "the allocation table runs {length} bytes to the end of the file, not a multiple of 16"
    )]
    #[non_exhaustive]
    AllocTableLength {
        /// Bytes from the table's start to EOF.
        length: u64,
    },
    /// An allocation table that starts past the end of the file.
    #[error("alloc_table_ptr {alloc_table_ptr} is past the end of the {file_size}-byte file")]
    #[non_exhaustive]
    AllocTablePastEnd {
        /// The stored pointer.
        alloc_table_ptr: u64,
        /// The file size.
        file_size: u64,
    },
    /// Two sections that share bytes.
    #[error("the {first} and the {second} overlap")]
    #[non_exhaustive]
    SectionsOverlap {
        /// One section.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// An allocation entry of size 0.
    #[error("allocation entry {index} has size 0")]
    #[non_exhaustive]
    AllocEntryEmpty {
        /// Its index.
        index: u64,
    },
    /// Allocation entries out of order or overlapping.
    #[error(
        "allocation entry {index} points at {ptr}, before the end {previous_end} of the previous item (entries are sorted and disjoint)"
    )]
    #[non_exhaustive]
    AllocEntryOrder {
        /// Its index.
        index: u64,
        /// Its pointer.
        ptr: u64,
        /// End of the previous entry's item.
        previous_end: u64,
    },
    /// An allocation entry outside the data region.
    #[error(
        "allocation entry {index} ({ptr}, {size} bytes) lies outside the data region {data_start}..{data_end}"
    )]
    #[non_exhaustive]
    AllocEntryOutsideData {
        /// Its index.
        index: u64,
        /// Its pointer.
        ptr: u64,
        /// Its size.
        size: u32,
        /// Start of the data region.
        data_start: u64,
        /// End of the data region.
        data_end: u64,
    },
    /// A slot whose value breaks a per-type rule.
    #[error("sample {sample}, field {field}: bad slot: {problem}")]
    #[non_exhaustive]
    BadValue {
        /// The sample index.
        sample: u64,
        /// The field index.
        field: usize,
        /// What is wrong.
        problem: ValueProblem,
    },
    /// A payload outside the data region.
    #[error(
        "sample {sample}, field {field}: the item {ptr}..+{size} lies outside the data region {data_start}..{data_end}"
    )]
    #[non_exhaustive]
    ItemOutsideData {
        /// The sample index.
        sample: u64,
        /// The field index.
        field: usize,
        /// The item's pointer.
        ptr: u64,
        /// The item's size.
        size: u32,
        /// Start of the data region.
        data_start: u64,
        /// End of the data region.
        data_end: u64,
    },
    /// A payload with no allocation entry.
    #[error("sample {sample}, field {field}: no allocation entry points at the item at {ptr}")]
    #[non_exhaustive]
    MissingAllocEntry {
        /// The sample index.
        sample: u64,
        /// The field index.
        field: usize,
        /// The item's pointer.
        ptr: u64,
    },
    /// A payload whose allocation entry has another size.
    #[error(
        "sample {sample}, field {field}: the slot says {size} bytes, its allocation entry {entry_size}"
    )]
    #[non_exhaustive]
    AllocSizeMismatch {
        /// The sample index.
        sample: u64,
        /// The field index.
        field: usize,
        /// The slot's data_size.
        size: u32,
        /// The entry's size.
        entry_size: u32,
    },
    /// A payload whose CRC does not match its allocation entry.
    #[error(
        "sample {sample}, field {field}: the item is corrupt: CRC {computed:#010x}, stored {stored:#010x}"
    )]
    #[non_exhaustive]
    ItemChecksum {
        /// The sample index.
        sample: u64,
        /// The field index.
        field: usize,
        /// The CRC in the allocation entry.
        stored: u32,
        /// The CRC of the payload.
        computed: u32,
    },
    /// An allocation entry no slot points at.
    #[error("allocation entry {index} (item at {ptr}) is not referenced by any slot")]
    #[non_exhaustive]
    UnreferencedItem {
        /// Its index.
        index: u64,
        /// Its pointer.
        ptr: u64,
    },
    /// An allocation entry more than one slot points at.
    #[error(
        "sample {sample}, field {field}: the item at {ptr} is already referenced by another slot"
    )]
    #[non_exhaustive]
    SharedItem {
        /// The sample index.
        sample: u64,
        /// The field index.
        field: usize,
        /// The item's pointer.
        ptr: u64,
    },
    /// A warning: the file's minor version is newer than this library's, so it may hold
    /// additions (longer slots, new flags) that are skipped.
    #[error(
        "the file is MLDF {found}, newer than the {known} this library knows; additions it holds are ignored"
    )]
    #[non_exhaustive]
    NewerMinorVersion {
        /// The file's version.
        found: Version,
        /// The version this library reads and writes.
        known: Version,
    },
    /// A warning: a field of a reserved or unknown type, whose values cannot be decoded.
    /// Verification cannot then tell which allocation entries it references, so it does
    /// not report unreferenced entries.
    #[error(
        "field {field}: {type_id} is not defined in v1.0; its values are returned as raw slots and not checked"
    )]
    #[non_exhaustive]
    UnknownType {
        /// The field index.
        field: usize,
        /// The stored type id.
        type_id: TypeId,
    },
    /// A sample index past the end.
    #[error("sample {index} does not exist: the dataset has {num_samples} samples")]
    #[non_exhaustive]
    SampleIndex {
        /// The requested index.
        index: u64,
        /// The sample count.
        num_samples: u64,
    },
    /// A field index past the end.
    #[error("field {index} does not exist: the dataset has {num_fields} fields")]
    #[non_exhaustive]
    FieldIndex {
        /// The requested index.
        index: usize,
        /// The field count.
        num_fields: usize,
    },
    /// An array shape that no value could satisfy.
    #[error(
        "an NDARRAY of {ndim} {dtype} dimensions is invalid: at most 15 dimensions and 4 GiB − 1 bytes per value"
    )]
    #[non_exhaustive]
    BadShape {
        /// The number of dimensions.
        ndim: usize,
        /// The element type.
        dtype: &'static str,
    },
    /// A writer option that is not a power of two from 4096 to 2^31.
    #[error("page size {page_size} is not a power of two from 4096 to 2^31")]
    #[non_exhaustive]
    InvalidPageSize {
        /// The page size asked for.
        page_size: u32,
    },
    /// A field name that is empty or longer than 63 bytes.
    #[error("field {field}: a name must have 1 to 63 bytes of UTF-8, this one has {len}")]
    #[non_exhaustive]
    NameLength {
        /// The field index.
        field: usize,
        /// The name's length in bytes.
        len: usize,
    },
    /// A field name containing NUL.
    #[error("field {field}: a name cannot contain NUL")]
    #[non_exhaustive]
    NameHasNul {
        /// The field index.
        field: usize,
    },
    /// Two schema fields with the same name.
    #[error("field {field}: its name is already used by field {first}")]
    #[non_exhaustive]
    NameTaken {
        /// The later field.
        field: usize,
        /// The earlier field.
        first: usize,
    },
    /// More than 65,535 fields.
    #[error("a schema has at most 65535 fields, this one has {count}")]
    #[non_exhaustive]
    TooManyFields {
        /// The number of fields.
        count: usize,
    },
    /// NULLABLE on an INT or FLOAT field.
    #[error("field {field}: INT and FLOAT fields cannot be NULLABLE (v1.0 has no scalar null)")]
    #[non_exhaustive]
    NullableScalar {
        /// The field index.
        field: usize,
    },
    /// A reserved or unknown type id in a schema.
    #[error("field {field}: {type_id} cannot be written (reserved or unknown in v1.0)")]
    #[non_exhaustive]
    UnwritableType {
        /// The field index.
        field: usize,
        /// The type id.
        type_id: TypeId,
    },
    /// A sample pushed for a schema without fields.
    #[error("a schema without fields cannot have samples")]
    SamplesWithoutFields,
    /// A sample with the wrong number of values.
    #[error("sample {sample} has {got} values, the schema has {expected} fields")]
    #[non_exhaustive]
    ValueCount {
        /// The sample index.
        sample: u64,
        /// The field count.
        expected: usize,
        /// The value count.
        got: usize,
    },
    /// A value a writer refuses.
    #[error("sample {sample}, field {field}: {problem}")]
    #[non_exhaustive]
    InvalidValue {
        /// The sample index.
        sample: u64,
        /// The field index.
        field: usize,
        /// What is wrong.
        problem: ValueProblem,
    },
    /// More samples than the writer was told to expect, or fewer at `finish`.
    #[error("the writer was told to expect {expected} samples, but got {got}")]
    #[non_exhaustive]
    SampleCount {
        /// The declared count.
        expected: u64,
        /// The count pushed (so far).
        got: u64,
    },
    /// An earlier I/O error left the writer's output unusable.
    #[error("an earlier write failed, so this writer cannot go on; start again")]
    Poisoned,
    /// Reading or writing failed (with the file's path when there is one).
    #[cfg(feature = "std")]
    #[error(transparent)]
    Io(#[from] IoError),
}

binfmt_core::kind_table! {
    ErrorKind;
    Fault::Input => Incomplete, NotLittleEndian, BadPageSize, HeaderChecksum, IndexChecksum,
        NoFields, EmptyName, UnterminatedName, NameNotUtf8, DuplicateName, BadMetadataSize,
        WrongMetadataSize, NdarrayDtype, NdarrayRank, NdarrayTooLarge, PointerBeforeHeader,
        SectionPastEnd, DataAfterAllocTable, AllocTableLength, AllocTablePastEnd, SectionsOverlap,
        AllocEntryEmpty, AllocEntryOrder, AllocEntryOutsideData, BadValue, ItemOutsideData,
        MissingAllocEntry, AllocSizeMismatch, ItemChecksum, UnreferencedItem, SharedItem;
    Fault::Unsupported => UnsupportedFlags, NewerMinorVersion, UnknownType;
    Fault::Caller => SampleIndex, FieldIndex, BadShape, InvalidPageSize, NameLength, NameHasNul,
        NameTaken, TooManyFields, NullableScalar, UnwritableType, SamplesWithoutFields, ValueCount,
        InvalidValue, SampleCount, Poisoned;
}

/// An I/O error without a path, as an [`Error`]: for `map_err` on `io::Result`s.
#[cfg(feature = "std")]
pub(crate) fn io(e: std::io::Error) -> Error {
    IoError::from(e).into()
}
