//! `binfmt inspect` of an MLDF file: the header and the field descriptors, read by range
//! (one request for a file of up to 314 fields), checksums left to `binfmt verify`.

use mldf::{ReadOptions, Reader};

use super::show;
use crate::input::Input;
use crate::model::{Facts, Key, keys};
use crate::registry::{InspectOptions, Inspection};
use crate::report::Failure;

/// The documented `inspect --json` keys.
pub(super) const KEYS: &[Key] = keys! {
    "version": "\"MAJOR.MINOR\"",
    "flags": "the header flags: 1 LITTLE_ENDIAN, 4 CHECKSUMMED (inspect checks the structure, \
              not the checksums; `binfmt verify` checks everything)",
    "num_samples": "the number of samples",
    "page_size": "the page size the data region is aligned to",
    "fields": "one object per field, in descriptor order" => keys! {
        "name": "the field's name",
        "type_id": "the stored type id (1 INT, 2 FLOAT, 3 BYTES, …)",
        "metadata_size": "bytes of the field's slot in each row",
    },
};

pub(super) fn inspect(input: &Input, _options: &InspectOptions) -> Result<Inspection, Failure> {
    let options = ReadOptions::new().checksums(false);
    // Detection's bytes seed the cache: the header and descriptors of a file of up to
    // 314 fields are in them, so inspect costs no request after detection's.
    let cache = input.cache();
    let reader =
        Reader::from_cache(cache, &options).map_err(|e| Failure::diagnostic(input.name(), &e))?;
    let h = reader.header();
    let fields = reader
        .fields()
        .iter()
        .map(|f| {
            Facts::build(|row| {
                let type_id = f.type_id().0;
                row.value("name", f.name())
                    .shown(
                        "type_id",
                        type_id,
                        format!("{} ({type_id})", show::type_name(f)),
                    )
                    .value("metadata_size", f.metadata_size())
            })
        })
        .collect();
    let mut facts = Facts::new();
    facts
        .value("version", h.version().to_string())
        .shown(
            "flags",
            h.flags(),
            format!("{:#x} ({})", h.flags(), show::flag_names(h.flags())),
        )
        .value("num_samples", h.num_samples())
        .value("page_size", h.page_size())
        .table("fields", fields);
    Ok(Inspection::with_warnings(facts, reader.warnings()))
}
