//! Height, width and channels from a PNG or JPEG header, as MLDF records them.
//!
//! Header-only: nothing is decoded. PNG: IHDR, plus whether a tRNS chunk comes before
//! the first IDAT (a palette image with transparency has 4 channels). JPEG: the first
//! SOFn frame header, found by walking the marker segments.

use crate::error::ValueProblem;

/// What an image header declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageInfo {
    /// Height in pixels (JPEG: the frame's line count Y, 0 if defined later by DNL).
    pub height: u32,
    /// Width in pixels.
    pub width: u32,
    /// Channels as MLDF counts them (1 to 4).
    pub channels: u8,
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

fn png_err(reason: &'static str) -> ValueProblem {
    ValueProblem::ImageHeader {
        mode: "PNG",
        reason,
    }
}

fn jpeg_err(reason: &'static str) -> ValueProblem {
    ValueProblem::ImageHeader {
        mode: "JPEG",
        reason,
    }
}

fn be32(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes(b.try_into().ok()?))
}

fn be16(data: &[u8], at: usize) -> Option<u16> {
    let b = data.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes(b.try_into().ok()?))
}

/// Reads a PNG's IHDR (and, for palette images, looks for tRNS before the first IDAT).
///
/// # Errors
/// [`ValueProblem::ImageHeader`] when the data is not a PNG with a readable IHDR.
pub fn png_info(data: &[u8]) -> Result<ImageInfo, ValueProblem> {
    if !data.starts_with(PNG_SIGNATURE) {
        return Err(png_err("no PNG signature"));
    }
    let ihdr_len = be32(data, 8).ok_or(png_err("truncated before IHDR"))?;
    if data.get(12..16) != Some(b"IHDR") || ihdr_len != 13 {
        return Err(png_err("the first chunk is not a 13-byte IHDR"));
    }
    let width = be32(data, 16).ok_or(png_err("truncated IHDR"))?;
    let height = be32(data, 20).ok_or(png_err("truncated IHDR"))?;
    let colour_type = *data.get(25).ok_or(png_err("truncated IHDR"))?;
    let channels = match colour_type {
        0 => 1,
        2 => 3,
        3 => {
            if png_has_trns(data)? {
                4
            } else {
                3
            }
        }
        4 => 2,
        6 => 4,
        _ => return Err(png_err("unknown colour type")),
    };
    Ok(ImageInfo {
        height,
        width,
        channels,
    })
}

/// Walks the chunks after IHDR (at byte 33) up to the first IDAT.
fn png_has_trns(data: &[u8]) -> Result<bool, ValueProblem> {
    let mut at: usize = 33;
    loop {
        let len = be32(data, at).ok_or(png_err("truncated before the first IDAT"))?;
        let kind = data
            .get(at.saturating_add(4)..at.saturating_add(8))
            .ok_or(png_err("truncated before the first IDAT"))?;
        match kind {
            b"tRNS" => return Ok(true),
            b"IDAT" | b"IEND" => return Ok(false),
            _ => {}
        }
        // length, type, data, CRC
        at = usize::try_from(len)
            .ok()
            .and_then(|len| at.checked_add(12)?.checked_add(len))
            .ok_or(png_err("chunk length overflows"))?;
    }
}

/// Reads the first SOFn frame header of a JPEG.
///
/// # Errors
/// [`ValueProblem::ImageHeader`] when there is no SOI or no frame header before the scan
/// or the end of the data, [`ValueProblem::JpegComponents`] for more than 4 components.
pub fn jpeg_info(data: &[u8]) -> Result<ImageInfo, ValueProblem> {
    if !data.starts_with(&[0xFF, 0xD8]) {
        return Err(jpeg_err("no SOI marker"));
    }
    let mut at: usize = 2;
    loop {
        if data.get(at) != Some(&0xFF) {
            return Err(if at >= data.len() {
                jpeg_err("no frame header before the end of the data")
            } else {
                jpeg_err("expected a marker")
            });
        }
        // Any number of 0xFF fill bytes may precede a marker code.
        while data.get(at) == Some(&0xFF) {
            at = at.saturating_add(1);
        }
        let marker = *data
            .get(at)
            .ok_or(jpeg_err("no frame header before the end of the data"))?;
        at = at.saturating_add(1);
        match marker {
            // Markers without a length: TEM, RST0–7, and a stray SOI.
            0x01 | 0xD0..=0xD8 => continue,
            0xD9 => return Err(jpeg_err("EOI before a frame header")),
            0xDA => return Err(jpeg_err("a scan before any frame header")),
            // SOF0–3, 5–7, 9–11, 13–15 (C4 DHT, C8 JPG and CC DAC are not frames).
            0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => {
                let len = be16(data, at).ok_or(jpeg_err("truncated frame header"))?;
                if len < 8 {
                    return Err(jpeg_err("frame header too short"));
                }
                let height = be16(data, at + 3).ok_or(jpeg_err("truncated frame header"))?;
                let width = be16(data, at + 5).ok_or(jpeg_err("truncated frame header"))?;
                let components = *data.get(at + 7).ok_or(jpeg_err("truncated frame header"))?;
                if components == 0 {
                    return Err(jpeg_err("a frame with no components"));
                }
                if components > 4 {
                    return Err(ValueProblem::JpegComponents { components });
                }
                return Ok(ImageInfo {
                    height: u32::from(height),
                    width: u32::from(width),
                    channels: components,
                });
            }
            _ => {
                let len = be16(data, at).ok_or(jpeg_err("truncated marker segment"))?;
                if len < 2 {
                    return Err(jpeg_err("marker segment length below 2"));
                }
                at = at.saturating_add(usize::from(len));
            }
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    fn png(colour: u8, extra: &[&[u8]]) -> std::vec::Vec<u8> {
        let mut v = PNG_SIGNATURE.to_vec();
        v.extend_from_slice(&13u32.to_be_bytes());
        v.extend_from_slice(b"IHDR");
        v.extend_from_slice(&70000u32.to_be_bytes());
        v.extend_from_slice(&5u32.to_be_bytes());
        v.extend_from_slice(&[8, colour, 0, 0, 0]);
        v.extend_from_slice(&[0; 4]);
        for kind in extra {
            v.extend_from_slice(&1u32.to_be_bytes());
            v.extend_from_slice(kind);
            v.extend_from_slice(&[0; 5]);
        }
        v
    }

    #[test]
    fn png_channels_follow_colour_type_and_trns() {
        let info = png_info(&png(2, &[])).unwrap();
        assert_eq!((info.width, info.height, info.channels), (70000, 5, 3));
        assert_eq!(png_info(&png(0, &[])).unwrap().channels, 1);
        assert_eq!(png_info(&png(4, &[])).unwrap().channels, 2);
        assert_eq!(png_info(&png(6, &[])).unwrap().channels, 4);
        assert_eq!(
            png_info(&png(3, &[b"PLTE", b"tRNS", b"IDAT"]))
                .unwrap()
                .channels,
            4
        );
        assert_eq!(
            png_info(&png(3, &[b"PLTE", b"IDAT", b"tRNS"]))
                .unwrap()
                .channels,
            3
        );
        assert!(png_info(&png(3, &[b"PLTE"])).is_err());
        assert!(png_info(&png(5, &[])).is_err());
        assert!(png_info(b"\x89PNG").is_err());
    }

    #[test]
    fn jpeg_frame_header_is_found_past_other_segments() {
        let mut j = std::vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0xAA, 0xBB, 0xFF, 0xFF];
        j.extend_from_slice(&[0xC2, 0x00, 0x0B, 0x08, 0x01, 0x2C, 0x02, 0x58, 0x03]);
        let info = jpeg_info(&j).unwrap();
        assert_eq!((info.height, info.width, info.channels), (300, 600, 3));
        let mut five = j.clone();
        *five.last_mut().unwrap() = 5;
        assert_eq!(
            jpeg_info(&five),
            Err(ValueProblem::JpegComponents { components: 5 })
        );
        assert!(jpeg_info(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2]).is_err());
        assert!(jpeg_info(&[0xFF, 0xD8, 0xFF, 0xC4, 0xFF, 0xFF]).is_err());
        assert!(jpeg_info(b"GIF89a").is_err());
    }
}
