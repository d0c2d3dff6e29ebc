//! Writing small tar shards in tests: ustar headers, members, pax and GNU long-name
//! headers, the end-of-archive marker. Used by taridx's tests, the CLI's and the benches.
// Test shards are small: a member's size is a `u64` only because the header says so.
#![allow(clippy::indexing_slicing, clippy::cast_possible_truncation)]

/// A ustar header block for a member of `size` bytes (checksum filled in).
pub fn header(name: &[u8], size: u64, typeflag: u8) -> [u8; 512] {
    let mut h = [0u8; 512];
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    h[100..107].copy_from_slice(b"0000644");
    h[108..115].copy_from_slice(b"0000000");
    h[116..123].copy_from_slice(b"0000000");
    h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    h[136..147].copy_from_slice(b"14524770400");
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

/// `data` padded with zeros to a multiple of 512 bytes.
pub fn padded(data: &[u8]) -> Vec<u8> {
    let mut v = data.to_vec();
    v.resize(data.len().div_ceil(512) * 512, 0);
    v
}

/// A regular member: header and padded payload.
pub fn member(name: &str, data: &[u8]) -> Vec<u8> {
    let mut v = header(name.as_bytes(), data.len() as u64, b'0').to_vec();
    v.extend(padded(data));
    v
}

/// One pax record, `"<len> <key>=<value>\n"`.
pub fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body_len = key.len() + value.len() + 3; // ' ', '=', '\n'
    let mut n = body_len + 1;
    while n.to_string().len() + body_len != n {
        n += 1;
    }
    let mut r = format!("{n} {key}=").into_bytes();
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

/// A pax extended header (`x`, or `g` for a global one) holding `records`.
pub fn pax(typeflag: u8, records: &[(&str, &[u8])]) -> Vec<u8> {
    let data: Vec<u8> = records.iter().flat_map(|(k, v)| pax_record(k, v)).collect();
    let mut v = header(b"./PaxHeaders/x", data.len() as u64, typeflag).to_vec();
    v.extend(padded(&data));
    v
}

/// A GNU long-name header (`L`) for the member that follows.
pub fn long_name(name: &str) -> Vec<u8> {
    let mut data = name.as_bytes().to_vec();
    data.push(0);
    let mut v = header(b"././@LongLink", data.len() as u64, b'L').to_vec();
    v.extend(padded(&data));
    v
}

/// The end-of-archive marker.
pub fn end() -> Vec<u8> {
    vec![0; 1024]
}
