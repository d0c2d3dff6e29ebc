//! Where the payload files that SAMPLES names are read from.
//!
//! A samples file names its payloads by path. Read naively, `../../home/u/.ssh/id_rsa`,
//! `/etc/shadow` or a symbolic link out of the directory would be packed into the
//! dataset (and sent wherever it goes next), so [`Dir`] resolves every path (`..` and
//! symbolic links included) and refuses what leads outside the samples file's directory
//! unless `--allow-outside-paths` says otherwise. [`Memory`] is the fuzzing stand-in,
//! which never touches the file system.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::super::show::quoted;
use crate::escape;

/// The largest payload an MLDF item can hold.
const MAX_PAYLOAD: u64 = u32::MAX as u64;

/// Where payloads come from.
pub(crate) trait Files {
    /// Where the payload named `name` (as SAMPLES writes it) is, once checked; an error
    /// message (escaped) when it may not or cannot be read.
    fn resolve(&self, name: &str) -> Result<PathBuf, String>;
    /// The bytes of a payload that [`Files::resolve`] accepted.
    fn read(&self, path: &Path) -> Result<Vec<u8>, String>;
}

/// The payloads of a samples file on disk: paths relative to its directory, kept inside
/// it unless `allow_outside`.
#[derive(Debug)]
pub(crate) struct Dir {
    /// The directory as named (for messages).
    base: PathBuf,
    /// The directory with every symbolic link resolved.
    canonical: PathBuf,
    allow_outside: bool,
}

impl Dir {
    /// The directory of `samples` (the current directory for `-` or a bare file name).
    pub(crate) fn of(samples: &Path, allow_outside: bool) -> Result<Dir, String> {
        let base = if samples.as_os_str() == "-" {
            Path::new(".")
        } else {
            samples
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
        };
        let canonical =
            fs::canonicalize(base).map_err(|e| format!("{}: {e}", escape::path(base)))?;
        Ok(Dir {
            base: base.to_path_buf(),
            canonical,
            allow_outside,
        })
    }
}

impl Files for Dir {
    fn resolve(&self, name: &str) -> Result<PathBuf, String> {
        if name.is_empty() {
            return Err("an empty path".to_owned());
        }
        // An absolute name replaces the base.
        let joined = self.base.join(name);
        let resolved =
            fs::canonicalize(&joined).map_err(|e| format!("{}: {e}", escape::path(&joined)))?;
        if !self.allow_outside && !resolved.starts_with(&self.canonical) {
            return Err(format!(
                "{} leads outside {} (to {}); --allow-outside-paths allows it",
                quoted(name),
                escape::path(&self.base),
                escape::path(&resolved)
            ));
        }
        let meta = fs::metadata(&resolved).map_err(|e| format!("{}: {e}", quoted(name)))?;
        if !meta.is_file() {
            return Err(format!("{} is not a regular file", quoted(name)));
        }
        if meta.len() > MAX_PAYLOAD {
            return Err(format!(
                "{} has {} bytes; an MLDF item holds at most {MAX_PAYLOAD}",
                quoted(name),
                meta.len()
            ));
        }
        Ok(resolved)
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        let fail = |e: std::io::Error| format!("{}: {e}", escape::path(path));
        let file = fs::File::open(path).map_err(fail)?;
        let mut bytes = Vec::new();
        // A file that grew since it was resolved is read no further than an item holds.
        file.take(MAX_PAYLOAD + 1)
            .read_to_end(&mut bytes)
            .map_err(fail)?;
        if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_PAYLOAD {
            return Err(format!(
                "{}: larger than an MLDF item can be",
                escape::path(path)
            ));
        }
        Ok(bytes)
    }
}

/// Payloads without a file system (fuzzing): every name is accepted, up to `max_len`
/// bytes, and its payload is the name's own bytes.
#[derive(Debug)]
pub(crate) struct Memory {
    pub(crate) max_len: usize,
}

impl Files for Memory {
    fn resolve(&self, name: &str) -> Result<PathBuf, String> {
        if name.is_empty() || name.len() > self.max_len {
            return Err(format!("{} is empty or too long", quoted(name)));
        }
        Ok(PathBuf::from(name))
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        Ok(path.as_os_str().as_encoded_bytes().to_vec())
    }
}
