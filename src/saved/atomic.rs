//! Saves that cannot corrupt the last good file: write a temporary file in the target's folder,
//! flush and sync it, then rename it over the target (atomic on POSIX file systems), and sync the
//! folder so the rename itself survives a power cut.
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Writes `bytes` to `path` atomically: until the final rename the previous file at `path` (if
/// any) is untouched, and after it `path` holds all of `bytes`.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

/// As [`write_atomically`], with the content written by `fill`; if `fill` fails (a full disk, an
/// interrupted writer), the temporary file is removed and the previous file stays as it was.
pub(crate) fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let temp = temporary_beside(path)?;
    let mut file = OpenOptions::new().write(true).create_new(true).open(&temp).map_err(io)?;
    let written = fill(&mut file).and_then(|()| file.flush()).and_then(|()| file.sync_all());
    drop(file);
    if let Err(source) = written.and_then(|()| std::fs::rename(&temp, path)) {
        let _ = std::fs::remove_file(&temp);
        return Err(io(source));
    }
    // The rename is durable once the folder's entry is on disk (best effort: not every
    // platform lets a folder be opened and synced).
    if let Ok(folder) = File::open(folder_of(path)) {
        let _ = folder.sync_all();
    }
    Ok(())
}

/// The folder `path` is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A fresh hidden file name in `path`'s folder: `.<name>.tmp-<pid>-<n>`.
fn temporary_beside(path: &Path) -> Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name =
        path.file_name().ok_or_else(|| Error::invalid("path", format!("{} does not name a file", path.display())))?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = format!(".{}.tmp-{}-{n}", name.to_string_lossy(), std::process::id());
    Ok(folder_of(path).join(temp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("burn-gp-atomic-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn leftovers(d: &Path) -> Vec<String> {
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let d = dir("replace");
        let path = d.join("model.bgp");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        assert_eq!(leftovers(&d), vec!["model.bgp".to_string()]);
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn a_writer_failing_midway_keeps_the_previous_file() {
        let d = dir("fail");
        let path = d.join("model.bgp");
        write_atomically(&path, b"the good model").unwrap();
        let err = write_atomically_with(&path, |out| {
            out.write_all(b"half of a ne")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(matches!(err, Error::Io { ref path, .. } if path.ends_with("model.bgp")), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"the good model");
        assert_eq!(leftovers(&d), vec!["model.bgp".to_string()]);
        assert!(write_atomically(&d.join("missing-folder").join("m.bgp"), b"x").is_err());
        let _ = std::fs::remove_dir_all(d);
    }
}
