//! Stable names for the libraries' error kinds: what `binfmt.FormatError.kind` holds and
//! what `binfmt._errors` picks a Python class by. Each name is written here, variant by
//! variant, rather than parsed from `Debug` output (whose form is not an API): a variant
//! renamed in a library keeps its Python name until this table is changed on purpose.
//! The kinds are `#[non_exhaustive]`: a variant added later is `"Other"` until it is
//! listed here (`tests/test_errors_kinds.py` checks the listed names against the
//! libraries' variants).

/// The stable name of an error kind's variant.
pub(crate) trait KindName {
    /// `"BadMagic"`, `"ChunkDigestMismatch"`…; a [`Layout`](binfmt_core::Layout) inside a
    /// format's kind is named by the layout variant.
    fn kind_name(&self) -> &'static str;
}

impl KindName for kastore::ErrorKind {
    fn kind_name(&self) -> &'static str {
        match self {
            kastore::ErrorKind::Layout(layout) => layout.kind_name(),
            kastore::ErrorKind::Eof => "Eof",
            kastore::ErrorKind::FileSizeTooSmall { .. } => "FileSizeTooSmall",
            kastore::ErrorKind::DescriptorsOutsideStore { .. } => "DescriptorsOutsideStore",
            kastore::ErrorKind::FileSizeMismatch { .. } => "FileSizeMismatch",
            kastore::ErrorKind::BadType { .. } => "BadType",
            kastore::ErrorKind::EmptyKeyInStore { .. } => "EmptyKeyInStore",
            kastore::ErrorKind::KeyOutOfBounds { .. } => "KeyOutOfBounds",
            kastore::ErrorKind::ArrayOutOfBounds { .. } => "ArrayOutOfBounds",
            kastore::ErrorKind::KeyNotPacked { .. } => "KeyNotPacked",
            kastore::ErrorKind::ArrayNotPacked { .. } => "ArrayNotPacked",
            kastore::ErrorKind::UnsortedKeys { .. } => "UnsortedKeys",
            kastore::ErrorKind::DuplicateKeyInStore { .. } => "DuplicateKeyInStore",
            kastore::ErrorKind::TrailingBytes { .. } => "TrailingBytes",
            kastore::ErrorKind::TooLarge { .. } => "TooLarge",
            kastore::ErrorKind::KeyNotFound { .. } => "KeyNotFound",
            kastore::ErrorKind::TypeMismatch { .. } => "TypeMismatch",
            kastore::ErrorKind::EmptyKey => "EmptyKey",
            kastore::ErrorKind::DuplicateKey { .. } => "DuplicateKey",
            kastore::ErrorKind::TooManyItems => "TooManyItems",
            kastore::ErrorKind::SizeOverflow => "SizeOverflow",
            kastore::ErrorKind::Io(..) => "Io",
            _ => "Other",
        }
    }
}

impl KindName for bloscpack_header::ErrorKind {
    fn kind_name(&self) -> &'static str {
        match self {
            bloscpack_header::ErrorKind::Layout(layout) => layout.kind_name(),
            bloscpack_header::ErrorKind::UndefinedOptions { .. } => "UndefinedOptions",
            bloscpack_header::ErrorKind::UnknownChecksum { .. } => "UnknownChecksum",
            bloscpack_header::ErrorKind::FieldOutOfRange { .. } => "FieldOutOfRange",
            bloscpack_header::ErrorKind::LastChunkTooLarge { .. } => "LastChunkTooLarge",
            bloscpack_header::ErrorKind::InconsistentSizes { .. } => "InconsistentSizes",
            bloscpack_header::ErrorKind::BadAppendSlots { .. } => "BadAppendSlots",
            bloscpack_header::ErrorKind::UnknownMetadataFormat { .. } => "UnknownMetadataFormat",
            bloscpack_header::ErrorKind::BadMetadataField { .. } => "BadMetadataField",
            bloscpack_header::ErrorKind::MetadataOverflowsSection { .. } => {
                "MetadataOverflowsSection"
            }
            bloscpack_header::ErrorKind::RawMetadataSize { .. } => "RawMetadataSize",
            bloscpack_header::ErrorKind::MetadataDigestMismatch { .. } => "MetadataDigestMismatch",
            bloscpack_header::ErrorKind::BadMetadataStream { .. } => "BadMetadataStream",
            bloscpack_header::ErrorKind::MetadataLimit { .. } => "MetadataLimit",
            bloscpack_header::ErrorKind::MetadataNotUtf8 { .. } => "MetadataNotUtf8",
            bloscpack_header::ErrorKind::MetadataNotJson { .. } => "MetadataNotJson",
            bloscpack_header::ErrorKind::OffsetMismatch { .. } => "OffsetMismatch",
            bloscpack_header::ErrorKind::SpareSlotInUse { .. } => "SpareSlotInUse",
            bloscpack_header::ErrorKind::BloscVersion { .. } => "BloscVersion",
            bloscpack_header::ErrorKind::BadBloscHeader { .. } => "BadBloscHeader",
            bloscpack_header::ErrorKind::ChunkSizeMismatch { .. } => "ChunkSizeMismatch",
            bloscpack_header::ErrorKind::ShortLastChunk { .. } => "ShortLastChunk",
            bloscpack_header::ErrorKind::ChunkDigestMismatch { .. } => "ChunkDigestMismatch",
            bloscpack_header::ErrorKind::TrailingBytes { .. } => "TrailingBytes",
            bloscpack_header::ErrorKind::InterruptedAppend { .. } => "InterruptedAppend",
            bloscpack_header::ErrorKind::UnsupportedCodec { .. } => "UnsupportedCodec",
            bloscpack_header::ErrorKind::Decompress { .. } => "Decompress",
            bloscpack_header::ErrorKind::Compress { .. } => "Compress",
            bloscpack_header::ErrorKind::InvalidArgument { .. } => "InvalidArgument",
            bloscpack_header::ErrorKind::ArgumentOutOfRange { .. } => "ArgumentOutOfRange",
            bloscpack_header::ErrorKind::MetadataTooLarge { .. } => "MetadataTooLarge",
            bloscpack_header::ErrorKind::NotEnoughSpace { .. } => "NotEnoughSpace",
            bloscpack_header::ErrorKind::CannotAppend { .. } => "CannotAppend",
            bloscpack_header::ErrorKind::TooLarge { .. } => "TooLarge",
            bloscpack_header::ErrorKind::OutOfMemory { .. } => "OutOfMemory",
            bloscpack_header::ErrorKind::Io(..) => "Io",
            _ => "Other",
        }
    }
}

impl KindName for taco_header::ErrorKind {
    fn kind_name(&self) -> &'static str {
        match self {
            taco_header::ErrorKind::Layout(layout) => layout.kind_name(),
            taco_header::ErrorKind::WrongName { .. } => "WrongName",
            taco_header::ErrorKind::NameLength { .. } => "NameLength",
            taco_header::ErrorKind::ExtraField { .. } => "ExtraField",
            taco_header::ErrorKind::Compressed { .. } => "Compressed",
            taco_header::ErrorKind::PayloadSize { .. } => "PayloadSize",
            taco_header::ErrorKind::Encrypted { .. } => "Encrypted",
            taco_header::ErrorKind::DataDescriptor { .. } => "DataDescriptor",
            taco_header::ErrorKind::CountTooLarge { .. } => "CountTooLarge",
            taco_header::ErrorKind::NonZeroPadding { .. } => "NonZeroPadding",
            taco_header::ErrorKind::CrcMismatch { .. } => "CrcMismatch",
            taco_header::ErrorKind::TornUpdate { .. } => "TornUpdate",
            taco_header::ErrorKind::NoEndOfCentralDirectory => "NoEndOfCentralDirectory",
            taco_header::ErrorKind::MissingZip64 => "MissingZip64",
            taco_header::ErrorKind::Zip64RecordSize { .. } => "Zip64RecordSize",
            taco_header::ErrorKind::MultiDisk => "MultiDisk",
            taco_header::ErrorKind::EndMismatch { .. } => "EndMismatch",
            taco_header::ErrorKind::CentralDirectoryBounds { .. } => "CentralDirectoryBounds",
            taco_header::ErrorKind::EntryCount { .. } => "EntryCount",
            taco_header::ErrorKind::Zip64ExtraMissing => "Zip64ExtraMissing",
            taco_header::ErrorKind::MalformedExtra => "MalformedExtra",
            taco_header::ErrorKind::HeaderNotFirst => "HeaderNotFirst",
            taco_header::ErrorKind::HeaderNotAtStart { .. } => "HeaderNotAtStart",
            taco_header::ErrorKind::LocalMismatch { .. } => "LocalMismatch",
            taco_header::ErrorKind::LocalNameMismatch { .. } => "LocalNameMismatch",
            taco_header::ErrorKind::MemberBounds { .. } => "MemberBounds",
            taco_header::ErrorKind::OverlappingMember { .. } => "OverlappingMember",
            taco_header::ErrorKind::DuplicateMember { .. } => "DuplicateMember",
            taco_header::ErrorKind::MemberCrc { .. } => "MemberCrc",
            taco_header::ErrorKind::CrcNotChecked { .. } => "CrcNotChecked",
            taco_header::ErrorKind::TooManyEntries { .. } => "TooManyEntries",
            taco_header::ErrorKind::DuplicateName { .. } => "DuplicateName",
            taco_header::ErrorKind::ReservedName => "ReservedName",
            taco_header::ErrorKind::BadName { .. } => "BadName",
            taco_header::ErrorKind::NotAFile { .. } => "NotAFile",
            taco_header::ErrorKind::SourceChanged { .. } => "SourceChanged",
            taco_header::ErrorKind::Io(..) => "Io",
            _ => "Other",
        }
    }
}

impl KindName for taridx::ErrorKind {
    fn kind_name(&self) -> &'static str {
        match self {
            taridx::ErrorKind::Layout(layout) => layout.kind_name(),
            taridx::ErrorKind::RecordSize { .. } => "RecordSize",
            taridx::ErrorKind::HeaderSize { .. } => "HeaderSize",
            taridx::ErrorKind::CrashOffset { .. } => "CrashOffset",
            taridx::ErrorKind::RowsOffset { .. } => "RowsOffset",
            taridx::ErrorKind::RowBytes { .. } => "RowBytes",
            taridx::ErrorKind::BlockText { .. } => "BlockText",
            taridx::ErrorKind::BlockCount { .. } => "BlockCount",
            taridx::ErrorKind::ExtId { .. } => "ExtId",
            taridx::ErrorKind::CrashId { .. } => "CrashId",
            taridx::ErrorKind::StemCount { .. } => "StemCount",
            taridx::ErrorKind::Flags { .. } => "Flags",
            taridx::ErrorKind::NewerMinor { .. } => "NewerMinor",
            taridx::ErrorKind::Reserved { .. } => "Reserved",
            taridx::ErrorKind::TooManyRows { .. } => "TooManyRows",
            taridx::ErrorKind::NotContiguous => "NotContiguous",
            taridx::ErrorKind::TarHeaderTruncated { .. } => "TarHeaderTruncated",
            taridx::ErrorKind::TarChecksum { .. } => "TarChecksum",
            taridx::ErrorKind::TarNumber { .. } => "TarNumber",
            taridx::ErrorKind::TarNegative { .. } => "TarNegative",
            taridx::ErrorKind::TarTruncated { .. } => "TarTruncated",
            taridx::ErrorKind::Pax { .. } => "Pax",
            taridx::ErrorKind::NameUtf8 { .. } => "NameUtf8",
            taridx::ErrorKind::Newline { .. } => "Newline",
            taridx::ErrorKind::Compressed { .. } => "Compressed",
            taridx::ErrorKind::TooManyShards { .. } => "TooManyShards",
            taridx::ErrorKind::TooManyExtensions { .. } => "TooManyExtensions",
            taridx::ErrorKind::TooManyCrashStems { .. } => "TooManyCrashStems",
            taridx::ErrorKind::FidOverflow { .. } => "FidOverflow",
            taridx::ErrorKind::InvalidRow { .. } => "InvalidRow",
            taridx::ErrorKind::InvalidText { .. } => "InvalidText",
            taridx::ErrorKind::NoShard { .. } => "NoShard",
            taridx::ErrorKind::Io(..) => "Io",
            _ => "Other",
        }
    }
}

impl KindName for mldf::ErrorKind {
    fn kind_name(&self) -> &'static str {
        match self {
            mldf::ErrorKind::Layout(layout) => layout.kind_name(),
            mldf::ErrorKind::Incomplete => "Incomplete",
            mldf::ErrorKind::NotLittleEndian { .. } => "NotLittleEndian",
            mldf::ErrorKind::UnsupportedFlags { .. } => "UnsupportedFlags",
            mldf::ErrorKind::BadPageSize { .. } => "BadPageSize",
            mldf::ErrorKind::HeaderChecksum { .. } => "HeaderChecksum",
            mldf::ErrorKind::IndexChecksum { .. } => "IndexChecksum",
            mldf::ErrorKind::NoFields { .. } => "NoFields",
            mldf::ErrorKind::EmptyName { .. } => "EmptyName",
            mldf::ErrorKind::UnterminatedName { .. } => "UnterminatedName",
            mldf::ErrorKind::NameNotUtf8 { .. } => "NameNotUtf8",
            mldf::ErrorKind::DuplicateName { .. } => "DuplicateName",
            mldf::ErrorKind::BadMetadataSize { .. } => "BadMetadataSize",
            mldf::ErrorKind::WrongMetadataSize { .. } => "WrongMetadataSize",
            mldf::ErrorKind::NdarrayDtype { .. } => "NdarrayDtype",
            mldf::ErrorKind::NdarrayRank { .. } => "NdarrayRank",
            mldf::ErrorKind::NdarrayTooLarge { .. } => "NdarrayTooLarge",
            mldf::ErrorKind::PointerBeforeHeader { .. } => "PointerBeforeHeader",
            mldf::ErrorKind::SectionPastEnd { .. } => "SectionPastEnd",
            mldf::ErrorKind::DataAfterAllocTable { .. } => "DataAfterAllocTable",
            mldf::ErrorKind::AllocTableLength { .. } => "AllocTableLength",
            mldf::ErrorKind::AllocTablePastEnd { .. } => "AllocTablePastEnd",
            mldf::ErrorKind::SectionsOverlap { .. } => "SectionsOverlap",
            mldf::ErrorKind::AllocEntryEmpty { .. } => "AllocEntryEmpty",
            mldf::ErrorKind::AllocEntryOrder { .. } => "AllocEntryOrder",
            mldf::ErrorKind::AllocEntryOutsideData { .. } => "AllocEntryOutsideData",
            mldf::ErrorKind::BadValue { .. } => "BadValue",
            mldf::ErrorKind::ItemOutsideData { .. } => "ItemOutsideData",
            mldf::ErrorKind::MissingAllocEntry { .. } => "MissingAllocEntry",
            mldf::ErrorKind::AllocSizeMismatch { .. } => "AllocSizeMismatch",
            mldf::ErrorKind::ItemChecksum { .. } => "ItemChecksum",
            mldf::ErrorKind::UnreferencedItem { .. } => "UnreferencedItem",
            mldf::ErrorKind::SharedItem { .. } => "SharedItem",
            mldf::ErrorKind::NewerMinorVersion { .. } => "NewerMinorVersion",
            mldf::ErrorKind::UnknownType { .. } => "UnknownType",
            mldf::ErrorKind::SampleIndex { .. } => "SampleIndex",
            mldf::ErrorKind::FieldIndex { .. } => "FieldIndex",
            mldf::ErrorKind::BadShape { .. } => "BadShape",
            mldf::ErrorKind::InvalidPageSize { .. } => "InvalidPageSize",
            mldf::ErrorKind::NameLength { .. } => "NameLength",
            mldf::ErrorKind::NameHasNul { .. } => "NameHasNul",
            mldf::ErrorKind::NameTaken { .. } => "NameTaken",
            mldf::ErrorKind::TooManyFields { .. } => "TooManyFields",
            mldf::ErrorKind::NullableScalar { .. } => "NullableScalar",
            mldf::ErrorKind::UnwritableType { .. } => "UnwritableType",
            mldf::ErrorKind::SamplesWithoutFields => "SamplesWithoutFields",
            mldf::ErrorKind::ValueCount { .. } => "ValueCount",
            mldf::ErrorKind::InvalidValue { .. } => "InvalidValue",
            mldf::ErrorKind::SampleCount { .. } => "SampleCount",
            mldf::ErrorKind::Poisoned => "Poisoned",
            mldf::ErrorKind::Io(..) => "Io",
            _ => "Other",
        }
    }
}

impl KindName for binfmt_core::Layout {
    fn kind_name(&self) -> &'static str {
        match self {
            binfmt_core::Layout::Truncated { .. } => "Truncated",
            binfmt_core::Layout::Overflow { .. } => "Overflow",
            binfmt_core::Layout::BadMagic { .. } => "BadMagic",
            binfmt_core::Layout::VersionTooNew { .. } => "VersionTooNew",
            binfmt_core::Layout::VersionTooOld { .. } => "VersionTooOld",
            binfmt_core::Layout::Misaligned { .. } => "Misaligned",
            _ => "Other",
        }
    }
}
