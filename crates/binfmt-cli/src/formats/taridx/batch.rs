//! `binfmt taridx get` of many stems in one process: the index read once, the members of
//! up to [`BATCH`] samples fetched together (`Reader::get_many`: one `read_ranges` call
//! per shard, which a remote source runs concurrently), written in the stems' order as a
//! tar stream or as files in a directory.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::get::{self, GetArgs};
use super::shards::Shard;
use crate::escape;
use crate::input::Input;
use crate::report::{self, Failure};
use crate::write;

/// How many samples are fetched together: enough to keep a remote source's 8 requests
/// busy, few enough that memory holds one batch of members, not the whole list.
const BATCH: usize = 64;

/// The longest file name most file systems take.
const NAME_MAX: usize = 255;

/// The stems: the arguments, then the lines of --keys.
fn stems(args: &GetArgs) -> Result<Vec<String>, Failure> {
    let mut stems = args.stems.clone();
    if let Some(path) = &args.keys {
        let input = Input::open(path)?;
        let text = input.bytes()?;
        for line in text.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            match std::str::from_utf8(line) {
                Ok(stem) => stems.push(stem.to_owned()),
                Err(_) => {
                    return Err(Failure::file(
                        input.name(),
                        format!(
                            "a key is not UTF-8: {}",
                            binfmt_core::Found::new(line.get(..32).unwrap_or(line))
                        ),
                    ));
                }
            }
        }
    }
    Ok(stems)
}

/// Where the members go.
enum Sink {
    /// One tar stream (OUT, standard output by default).
    Tar(binfmt_core::output::Output, PathBuf),
    /// One file per member in a directory.
    Dir(PathBuf),
}

pub(super) fn run(args: &GetArgs) -> Result<ExitCode, Failure> {
    let stems = stems(args)?;
    let paths = get::shard_paths(args)?;
    let index_name = escape::path(&args.index);
    let reader = get::open_reader(args, &paths)?;
    let mut inputs: Vec<&Path> = vec![args.index.as_path()];
    inputs.extend(paths.iter().map(PathBuf::as_path));
    if let Some(keys) = &args.keys {
        inputs.push(keys.as_path());
    }
    let mut sink = match &args.output_dir {
        Some(dir) => {
            if !dir.is_dir() {
                return Err(Failure::file(escape::path(dir), "is not a directory"));
            }
            Sink::Dir(dir.clone())
        }
        None => Sink::Tar(
            write::open(&args.output, args.force, &inputs, false)?,
            args.output.clone(),
        ),
    };
    let mut problems = false;
    for chunk in stems.chunks(BATCH) {
        let found = reader.get_many(chunk).map_err(|e| {
            let fid = match e.kind() {
                taridx::ErrorKind::NoShard { fid, .. } => Some(*fid),
                _ => None,
            };
            let shard = fid.and_then(|f| reader.shards().get(usize::from(f)).map(Shard::name));
            get::shard_failure(&index_name, shard, &e)
        })?;
        for (query, members) in chunk.iter().zip(found) {
            let wanted = get::wanted(query, args.ext.as_deref());
            let stem = taridx::stem(query);
            let mut written = 0usize;
            for member in &members {
                let ext = reader.extension(member.entry().extid).unwrap_or("");
                if wanted.as_deref().is_some_and(|w| w != ext) {
                    continue;
                }
                let name = format!("{stem}.{ext}");
                match &mut sink {
                    Sink::Tar(out, path) => {
                        write_member(out, &name, member.payload())
                            .map_err(|e| write::failure(path, e))?;
                    }
                    Sink::Dir(dir) => {
                        if !safe_name(&name) {
                            report::say(format_args!(
                                "binfmt: {index_name}: \"{}\": not a file name that can be written in a directory; skipped",
                                escape::text_cut(&name, 256)
                            ));
                            problems = true;
                            continue;
                        }
                        let path = dir.join(&name);
                        let mut out = write::open(&path, args.force, &inputs, false)?;
                        out.write_all(member.payload())
                            .and_then(|()| out.flush())
                            .map_err(|e| write::failure(&path, e))?;
                        write::commit(out, &path)?;
                    }
                }
                written += 1;
            }
            if written == 0 {
                problems = true;
                let stem = escape::text_cut(stem, 256);
                report::say(format_args!(
                    "binfmt: {index_name}: {}",
                    match wanted.as_deref() {
                        Some(ext) => format!(
                            "no member \"{stem}\" with extension \"{}\"",
                            escape::text_cut(ext, 256)
                        ),
                        None => format!("no sample \"{stem}\""),
                    }
                ));
            }
        }
    }
    if let Sink::Tar(mut out, path) = sink {
        // The end of the archive: two zero blocks.
        out.write_all(&[0u8; 1024])
            .and_then(|()| out.flush())
            .map_err(|e| write::failure(&path, e))?;
        write::commit(out, &path)?;
    }
    Ok(if problems {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A name written as one file of a directory: no separator, no NUL, not `.` or `..`,
/// not hidden, at most [`NAME_MAX`] bytes. Extensions come from the index, which anyone
/// may have written.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
}

/// One tar member: a ustar header (with a pax `path` record first when the name does not
/// fit ustar's 100 bytes), the payload, and the padding to 512 bytes.
fn write_member(out: &mut dyn std::io::Write, name: &str, payload: &[u8]) -> std::io::Result<()> {
    let size = u64::try_from(payload.len()).unwrap_or(u64::MAX);
    if name.len() > 100 {
        let record = pax_record("path", name);
        let len = u64::try_from(record.len()).unwrap_or(u64::MAX);
        out.write_all(&header("PaxHeader", len, b'x'))?;
        out.write_all(&record)?;
        out.write_all(padding(len))?;
    }
    out.write_all(&header(name, size, b'0'))?;
    out.write_all(payload)?;
    out.write_all(padding(size))
}

/// Zeros up to the next multiple of 512 after `len` bytes.
fn padding(len: u64) -> &'static [u8] {
    const ZEROS: [u8; 512] = [0; 512];
    let rest = usize::try_from(len % 512).unwrap_or(0);
    ZEROS.get(..(512 - rest) % 512).unwrap_or(&[])
}

/// A pax record `LEN key=value\n`, whose LEN counts itself.
fn pax_record(key: &str, value: &str) -> Vec<u8> {
    let body = format!(" {key}={value}\n");
    let mut len = body.len() + 1;
    while format!("{len}").len() + body.len() != len {
        len += 1;
    }
    format!("{len}{body}").into_bytes()
}

/// A ustar header block for a regular file (or a pax header, `kind` `x`), mode 0644,
/// owner 0, time 0: the same stems give the same bytes.
fn header(name: &str, size: u64, kind: u8) -> [u8; 512] {
    let mut h = [0u8; 512];
    let put = |h: &mut [u8; 512], at: usize, bytes: &[u8]| {
        for (i, b) in bytes.iter().enumerate() {
            if let Some(slot) = h.get_mut(at + i) {
                *slot = *b;
            }
        }
    };
    let name = name.as_bytes();
    put(&mut h, 0, name.get(..100).unwrap_or(name));
    put(&mut h, 100, b"0000644\0");
    put(&mut h, 108, b"0000000\0");
    put(&mut h, 116, b"0000000\0");
    if size < 0o77_777_777_777 {
        put(&mut h, 124, format!("{size:011o}\0").as_bytes());
    } else {
        // Base-256 (GNU, understood by every current tar): the high bit, then the size.
        let mut field = [0u8; 12];
        field[0] = 0x80;
        field[4..].copy_from_slice(&size.to_be_bytes());
        put(&mut h, 124, &field);
    }
    put(&mut h, 136, b"00000000000\0");
    put(&mut h, 148, b"        ");
    put(&mut h, 156, &[kind]);
    put(&mut h, 257, b"ustar\0");
    put(&mut h, 263, b"00");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    put(&mut h, 148, format!("{sum:06o}\0 ").as_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pax_records_count_their_own_length() {
        for value in ["x", &"y".repeat(95), &"z".repeat(200)] {
            let r = pax_record("path", value);
            let text = String::from_utf8(r.clone()).unwrap_or_default();
            let (len, _) = text.split_once(' ').unwrap_or_default();
            assert_eq!(len.parse::<usize>().ok(), Some(r.len()));
        }
    }

    #[test]
    fn names_that_leave_the_directory_are_refused() {
        assert!(safe_name("a.jpg"));
        for bad in [
            "",
            ".",
            "..",
            ".hidden",
            "a/b",
            "a\\b",
            "a\0b",
            &"n".repeat(256),
        ] {
            assert!(!safe_name(bad), "{bad:?}");
        }
    }
}
