//! The IDX file format (big-endian header, unsigned-byte payload) used by MNIST-style datasets.
use std::path::Path;

use super::io::{bad_format, read_bytes};
use crate::error::Result;

/// Magic number of an IDX file of unsigned-byte images (`0x00000803`: ubyte, 3 dimensions).
pub const IDX_IMAGES_MAGIC: u32 = 2051;

/// Magic number of an IDX file of unsigned-byte labels (`0x00000801`: ubyte, 1 dimension).
pub const IDX_LABELS_MAGIC: u32 = 2049;

/// Greyscale images read from an IDX file, row-major `n × height × width`.
#[derive(Debug, Clone, PartialEq)]
pub struct IdxImages {
    /// Pixel bytes, `n × height × width`.
    pub pixels: Vec<u8>,
    /// Number of images.
    pub n: usize,
    /// Rows per image.
    pub height: usize,
    /// Columns per image.
    pub width: usize,
}

/// Reads an IDX image file (`.gz` is decompressed); wrong magic or a payload whose length does
/// not match the header is [`Error::BadFormat`](crate::error::Error::BadFormat).
pub fn load_idx_images(path: &Path) -> Result<IdxImages> {
    let (dims, pixels) = read_idx(path, IDX_IMAGES_MAGIC, "IDX unsigned-byte images")?;
    Ok(IdxImages { pixels, n: dims[0], height: dims[1], width: dims[2] })
}

/// Reads an IDX label file (`.gz` is decompressed); errors as for [`load_idx_images`].
pub fn load_idx_labels(path: &Path) -> Result<Vec<u8>> {
    Ok(read_idx(path, IDX_LABELS_MAGIC, "IDX unsigned-byte labels")?.1)
}

/// Reads an IDX file whose magic must be `magic`; returns its dimensions and its payload
/// (checked to hold exactly the product of the dimensions bytes).
fn read_idx(path: &Path, magic: u32, what: &str) -> Result<(Vec<usize>, Vec<u8>)> {
    let mut bytes = read_bytes(path)?;
    let Some(head) = bytes.first_chunk::<4>() else {
        return Err(bad_format(path, format!("{} bytes is too short for an IDX header", bytes.len())));
    };
    let found = u32::from_be_bytes(*head);
    if found != magic {
        let mut reason = format!("magic number {found}, expected {magic} ({what})");
        if bytes.starts_with(&[0x1f, 0x8b]) {
            reason.push_str("; the file looks gzip-compressed, so give its name a .gz extension");
        }
        return Err(bad_format(path, reason));
    }
    let header_len = 4 + 4 * (magic & 0xff) as usize;
    let Some(sizes) = bytes.get(4..header_len) else {
        return Err(bad_format(path, format!("truncated header: it needs {header_len} bytes")));
    };
    let dims: Vec<usize> =
        sizes.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as usize).collect();
    let Some(expected) = dims.iter().try_fold(1usize, |acc, &k| acc.checked_mul(k)) else {
        return Err(bad_format(path, format!("header dimensions {dims:?} overflow")));
    };
    let held = bytes.len() - header_len;
    if held != expected {
        let what = if held < expected { "truncated" } else { "trailing bytes" };
        return Err(bad_format(
            path,
            format!("header dimensions {dims:?} need {expected} data bytes but the file holds {held} ({what})"),
        ));
    }
    bytes.drain(..header_len);
    Ok((dims, bytes))
}

/// The bytes of an IDX unsigned-byte file with the given dimensions and payload.
#[cfg(test)]
pub(crate) fn encode_idx(dims: &[u32], payload: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0, 0, 0x08, dims.len() as u8];
    for d in dims {
        bytes.extend_from_slice(&d.to_be_bytes());
    }
    bytes.extend_from_slice(payload);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testutil::{temp_dir, write_file, write_gz};
    use crate::error::Error;

    #[test]
    fn encode_matches_the_magic_numbers() {
        assert_eq!(&encode_idx(&[2, 3, 4], &[])[..4], &IDX_IMAGES_MAGIC.to_be_bytes());
        assert_eq!(&encode_idx(&[2], &[])[..4], &IDX_LABELS_MAGIC.to_be_bytes());
    }

    #[test]
    fn reads_images_and_labels_raw_and_gz() {
        let dir = temp_dir("idx-read");
        let pixels: Vec<u8> = (0..24).collect();
        let img = write_gz(&dir, "img.gz", &encode_idx(&[2, 3, 4], &pixels));
        let lab = write_file(&dir, "lab", &encode_idx(&[2], &[7, 1]));
        let images = load_idx_images(&img).unwrap();
        assert_eq!((images.n, images.height, images.width), (2, 3, 4));
        assert_eq!(images.pixels, pixels);
        assert_eq!(load_idx_labels(&lab).unwrap(), vec![7, 1]);
    }

    #[test]
    fn wrong_magic_is_bad_format() {
        let dir = temp_dir("idx-magic");
        let lab = write_file(&dir, "lab", &encode_idx(&[2], &[7, 1]));
        let err = load_idx_images(&lab).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("2049") && reason.contains("2051")),
            "{err}"
        );
    }

    #[test]
    fn gzip_without_gz_name_gets_a_hint() {
        let dir = temp_dir("idx-gzhint");
        let gz = write_gz(&dir, "x.gz", &encode_idx(&[1], &[0]));
        let raw = write_file(&dir, "x", &std::fs::read(gz).unwrap());
        let err = load_idx_labels(&raw).unwrap_err();
        assert!(err.to_string().contains(".gz extension"), "{err}");
    }

    #[test]
    fn truncated_and_overlong_payloads_are_bad_format() {
        let dir = temp_dir("idx-trunc");
        let short = write_file(&dir, "short", &encode_idx(&[2, 2, 2], &[0; 7]));
        let err = load_idx_images(&short).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("truncated")), "{err}");
        let long = write_file(&dir, "long", &encode_idx(&[3], &[0; 4]));
        let err = load_idx_labels(&long).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("trailing")), "{err}");
        let header_only = write_file(&dir, "hdr", &encode_idx(&[2, 2, 2], &[])[..9]);
        assert!(matches!(load_idx_images(&header_only), Err(Error::BadFormat { .. })));
        let tiny = write_file(&dir, "tiny", &[0, 0]);
        assert!(matches!(load_idx_labels(&tiny), Err(Error::BadFormat { .. })));
    }
}
