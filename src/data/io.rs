//! Reading whole dataset files, gzip-transparently, with typed errors.
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::{Error, Result};

/// An [`Error::BadFormat`] for `path`.
pub(crate) fn bad_format(path: &Path, reason: impl Into<String>) -> Error {
    Error::BadFormat { path: path.to_path_buf(), reason: reason.into() }
}

/// An [`Error::Io`] for `path`.
fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io { path: path.to_path_buf(), source }
}

/// Whether `path` names a gzip file (by its `.gz` extension).
pub(crate) fn is_gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// Reads a whole file, decompressing it when its name ends in `.gz`.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let mut file = File::open(path).map_err(|source| match source.kind() {
        ErrorKind::NotFound => {
            Error::MissingFile { path: path.to_path_buf(), hint: "the file does not exist".to_string() }
        }
        _ => io_error(path, source),
    })?;
    let mut bytes = Vec::new();
    if is_gz(path) {
        MultiGzDecoder::new(file).read_to_end(&mut bytes).map_err(|source| match source.kind() {
            ErrorKind::InvalidInput | ErrorKind::InvalidData | ErrorKind::UnexpectedEof => {
                bad_format(path, format!("gzip decompression failed: {source}"))
            }
            _ => io_error(path, source),
        })?;
    } else {
        file.read_to_end(&mut bytes).map_err(|source| io_error(path, source))?;
    }
    Ok(bytes)
}

/// Reads a whole (possibly gzipped) UTF-8 text file.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    String::from_utf8(read_bytes(path)?).map_err(|e| {
        bad_format(path, format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testutil::{temp_dir, write_file, write_gz};

    #[test]
    fn reads_raw_and_gz_identically() {
        let dir = temp_dir("io-raw-gz");
        let raw = write_file(&dir, "a.bin", b"hello\nworld");
        let gz = write_gz(&dir, "a.bin.gz", b"hello\nworld");
        assert_eq!(read_bytes(&raw).unwrap(), b"hello\nworld");
        assert_eq!(read_bytes(&gz).unwrap(), b"hello\nworld");
        assert_eq!(read_text(&gz).unwrap(), "hello\nworld");
    }

    #[test]
    fn missing_file_is_missing_file() {
        let dir = temp_dir("io-missing");
        let err = read_bytes(&dir.join("nope.txt")).unwrap_err();
        assert!(matches!(err, Error::MissingFile { ref path, .. } if path.ends_with("nope.txt")), "{err}");
    }

    #[test]
    fn corrupt_gzip_is_bad_format() {
        let dir = temp_dir("io-corrupt");
        let path = write_file(&dir, "x.gz", b"this is not gzip data at all");
        let err = read_bytes(&path).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("gzip")), "{err}");
    }

    #[test]
    fn truncated_gzip_is_bad_format() {
        let dir = temp_dir("io-trunc-gz");
        let full = write_gz(&dir, "full.gz", &[7u8; 5000]);
        let bytes = std::fs::read(&full).unwrap();
        let cut = write_file(&dir, "cut.gz", &bytes[..bytes.len() / 2]);
        assert!(matches!(read_bytes(&cut).unwrap_err(), Error::BadFormat { .. }));
    }

    #[test]
    fn invalid_utf8_is_bad_format() {
        let dir = temp_dir("io-utf8");
        let path = write_file(&dir, "bad.txt", &[b'1', b' ', 0xff, 0xfe]);
        let err = read_text(&path).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("offset 2")), "{err}");
    }
}
