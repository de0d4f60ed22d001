//! Locating the data directory and the files inside it.
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Environment variable that names the data directory.
pub const DATA_ENV: &str = "BURN_GP_DATA";

/// How to point burn-gp at a data directory; appended to every missing-file hint.
pub const DATA_DIR_HINT: &str = "pass --data DIR or set BURN_GP_DATA=DIR";

/// The data directory: `explicit` (a `--data DIR` value), else `$BURN_GP_DATA`, else the first
/// existing one of `./../shared/data` and `<crate source>/../shared/data`.
///
/// An explicit directory or a non-empty `BURN_GP_DATA` that does not exist is an error (it is
/// never silently replaced by a default); when no default exists the error names every path tried.
pub fn data_root(explicit: Option<&Path>) -> Result<PathBuf> {
    resolve_root(explicit, std::env::var_os(DATA_ENV), &default_roots())
}

/// The default data directories, in the order [`data_root`] tries them.
pub(crate) fn default_roots() -> Vec<PathBuf> {
    let relative = Path::new("..").join("shared").join("data");
    let mut roots = vec![match std::env::current_dir() {
        Ok(cwd) => cwd.join(&relative),
        Err(_) => relative.clone(),
    }];
    if let Some(manifest) = option_env!("CARGO_MANIFEST_DIR") {
        let beside_crate = Path::new(manifest).join(&relative);
        if !roots.contains(&beside_crate) {
            roots.push(beside_crate);
        }
    }
    roots
}

/// [`data_root`] with the environment and the defaults passed in (testable without globals).
fn resolve_root(explicit: Option<&Path>, env: Option<OsString>, defaults: &[PathBuf]) -> Result<PathBuf> {
    if let Some(dir) = explicit {
        return existing_dir(dir, "the --data directory does not exist");
    }
    if let Some(dir) = env.filter(|v| !v.is_empty()) {
        return existing_dir(Path::new(&dir), "BURN_GP_DATA names a directory that does not exist");
    }
    if let Some(dir) = defaults.iter().find(|d| d.is_dir()) {
        return Ok(dir.clone());
    }
    let tried: Vec<String> = defaults.iter().map(|d| d.display().to_string()).collect();
    Err(Error::MissingFile {
        path: defaults.first().cloned().unwrap_or_default(),
        hint: format!("no data directory found (tried: {}); {DATA_DIR_HINT}", tried.join(", ")),
    })
}

/// `dir` if it is an existing directory, else a [`Error::MissingFile`] with `why`.
fn existing_dir(dir: &Path, why: &str) -> Result<PathBuf> {
    if dir.is_dir() {
        Ok(dir.to_path_buf())
    } else {
        Err(Error::MissingFile { path: dir.to_path_buf(), hint: why.to_string() })
    }
}

/// `path` if it is an existing file, else a [`Error::MissingFile`] naming it, saying where it
/// can be obtained (`source`) and how to point burn-gp at a data directory.
pub(crate) fn require_file(path: &Path, source: &str) -> Result<PathBuf> {
    if path.is_file() {
        Ok(path.to_path_buf())
    } else {
        Err(missing(path, source))
    }
}

/// `dir` if it is an existing directory, else a [`Error::MissingFile`] as in `require_file`.
pub fn require_dir(dir: &Path, source: &str) -> Result<PathBuf> {
    if dir.is_dir() {
        Ok(dir.to_path_buf())
    } else {
        Err(missing(dir, source))
    }
}

/// `<path>.gz` if that file exists, else `path` itself if it exists (gzip preferred: it is the
/// form datasets are distributed in); otherwise a [`Error::MissingFile`] for `path` whose hint
/// also names the `.gz` path.
pub(crate) fn require_gz_or_raw(path: &Path, source: &str) -> Result<PathBuf> {
    let mut gz = path.as_os_str().to_owned();
    gz.push(".gz");
    let gz = PathBuf::from(gz);
    if gz.is_file() {
        return Ok(gz);
    }
    require_file(path, source).map_err(|_| missing(path, &format!("nor {}; {source}", gz.display())))
}

/// The [`Error::MissingFile`] for `path` with the standard hint.
fn missing(path: &Path, source: &str) -> Error {
    Error::MissingFile { path: path.to_path_buf(), hint: format!("{source}; {DATA_DIR_HINT}") }
}

/// Checks that a dataset name is one plain path component (no separators, no `..`).
pub(crate) fn check_dataset_name(name: &str) -> Result<()> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && Path::new(name).components().count() == 1;
    if plain {
        Ok(())
    } else {
        Err(Error::invalid("name", format!("{name:?} is not a plain dataset name")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testutil::{temp_dir, write_file};

    #[test]
    fn explicit_directory_wins() {
        let a_dir = temp_dir("root-a");
        let a = a_dir.to_path_buf();
        let b_dir = temp_dir("root-b");
        let b = b_dir.to_path_buf();
        let got = resolve_root(Some(&a), Some(b.clone().into_os_string()), std::slice::from_ref(&b)).unwrap();
        assert_eq!(got, a);
    }

    #[test]
    fn explicit_missing_directory_is_an_error_not_a_fallback() {
        let b_dir = temp_dir("root-fallback");
        let b = b_dir.to_path_buf();
        let gone = b.join("does-not-exist");
        let err = resolve_root(Some(&gone), None, &[b]).unwrap_err();
        assert!(matches!(err, Error::MissingFile { ref path, ref hint } if *path == gone && hint.contains("--data")));
    }

    #[test]
    fn env_beats_defaults_and_empty_env_is_ignored() {
        let env_dir = temp_dir("root-env");
        let env = env_dir.to_path_buf();
        let def_dir = temp_dir("root-def");
        let def = def_dir.to_path_buf();
        let got = resolve_root(None, Some(env.clone().into_os_string()), std::slice::from_ref(&def)).unwrap();
        assert_eq!(got, env);
        let got = resolve_root(None, Some(OsString::new()), std::slice::from_ref(&def)).unwrap();
        assert_eq!(got, def);
        let err = resolve_root(None, Some(env.join("nope").into_os_string()), &[def]).unwrap_err();
        assert!(matches!(err, Error::MissingFile { ref hint, .. } if hint.contains("BURN_GP_DATA")));
    }

    #[test]
    fn first_existing_default_is_used_and_failure_names_all_tried() {
        let base_dir = temp_dir("root-defaults");
        let base = base_dir.to_path_buf();
        let missing1 = base.join("x");
        let missing2 = base.join("y");
        let got = resolve_root(None, None, &[missing1.clone(), base.clone()]).unwrap();
        assert_eq!(got, base);
        let err = resolve_root(None, None, &[missing1.clone(), missing2.clone()]).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&missing1.display().to_string()) && msg.contains(&missing2.display().to_string()),
            "{msg}"
        );
        assert!(msg.contains("BURN_GP_DATA"), "{msg}");
    }

    #[test]
    fn require_file_names_path_and_source() {
        let dir_dir = temp_dir("root-require");
        let dir = dir_dir.to_path_buf();
        let present = write_file(&dir, "here.txt", b"x");
        assert_eq!(require_file(&present, "anywhere").unwrap(), present);
        let err = require_file(&dir.join("gone.txt"), "get it from https://example.org").unwrap_err();
        match err {
            Error::MissingFile { path, hint } => {
                assert!(path.ends_with("gone.txt"));
                assert!(hint.contains("https://example.org") && hint.contains("--data DIR"), "{hint}");
            }
            other => panic!("unexpected {other}"),
        }
        assert!(require_file(&dir, "a directory is not a file").is_err());
        assert_eq!(require_dir(&dir, "x").unwrap(), dir);
    }

    #[test]
    fn gz_is_preferred_and_raw_accepted() {
        let dir_dir = temp_dir("root-gz");
        let dir = dir_dir.to_path_buf();
        let raw = write_file(&dir, "f.bin", b"raw");
        assert_eq!(require_gz_or_raw(&dir.join("f.bin"), "src").unwrap(), raw);
        let gz = write_file(&dir, "f.bin.gz", b"gz");
        assert_eq!(require_gz_or_raw(&dir.join("f.bin"), "src").unwrap(), gz);
        let err = require_gz_or_raw(&dir.join("g.bin"), "from the moon").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("g.bin.gz") && msg.contains("g.bin") && msg.contains("from the moon"), "{msg}");
    }

    #[test]
    fn dataset_names_must_be_plain() {
        for good in ["kin8nm", "naval-propulsion-plant", "215_2dplanes"] {
            check_dataset_name(good).unwrap();
        }
        for bad in ["", ".", "..", "../etc", "a/b", "a\\b", "/abs"] {
            assert!(matches!(check_dataset_name(bad), Err(Error::InvalidArgument { .. })), "{bad}");
        }
    }
}
