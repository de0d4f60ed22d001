//! Penn Machine Learning Benchmarks: `<root>/{pmlb,pmlb_multiclass,pmlb_regression}/<name>/<name>.tsv.gz`,
//! tab-separated with a header row and the response in the column named `target`.
use std::path::{Path, PathBuf};

use super::io::{bad_format, read_text};
use super::labels::{ClassTable, LabelMap};
use super::root::{check_dataset_name, DATA_DIR_HINT};
use super::table::Table;
use super::text::{parse_matrix, Sep};
use crate::error::{Error, Result};

/// The folders under the data root searched for PMLB sets, in order.
pub const PMLB_FOLDERS: [&str; 3] = ["pmlb", "pmlb_multiclass", "pmlb_regression"];

/// Name of the response column.
const TARGET: &str = "target";

/// A PMLB table as stored: features, the `target` column, and the feature names.
#[derive(Debug, Clone, PartialEq)]
pub struct PmlbFrame {
    /// Features and raw targets.
    pub table: Table,
    /// Name of each feature column, in order.
    pub feature_names: Vec<String>,
}

/// The file of PMLB set `name`: the first of `<root>/<folder>/<name>/<name>.tsv.gz` (or `.tsv`)
/// over [`PMLB_FOLDERS`]; otherwise a [`Error::MissingFile`] listing the folders searched.
pub fn pmlb_path(root: &Path, name: &str) -> Result<PathBuf> {
    check_dataset_name(name)?;
    let candidates = PMLB_FOLDERS.iter().flat_map(|folder| {
        let stem = root.join(folder).join(name).join(format!("{name}.tsv"));
        let mut gz = stem.clone().into_os_string();
        gz.push(".gz");
        [PathBuf::from(gz), stem]
    });
    let mut tried = Vec::new();
    for path in candidates {
        if path.is_file() {
            return Ok(path);
        }
        tried.push(path);
    }
    Err(Error::MissingFile {
        path: tried[0].clone(),
        hint: format!(
            "also looked in {}; PMLB sets come from https://github.com/EpistasisLab/pmlb \
             (datasets/<name>/<name>.tsv.gz, Git LFS since 2020); put them in DIR/pmlb/<name>/; {DATA_DIR_HINT}",
            PMLB_FOLDERS[1..].join(", ")
        ),
    })
}

/// Reads a PMLB-format file (tab-separated, header row, one column named `target`, which may
/// be anywhere); `.gz` is decompressed.
pub fn read_pmlb_tsv(path: &Path) -> Result<PmlbFrame> {
    let text = read_text(path)?;
    let header: Vec<&str> = text.lines().next().map(|l| Sep::Char('\t').fields(l)).unwrap_or_default();
    let target_cols: Vec<usize> = (0..header.len()).filter(|&j| header[j] == TARGET).collect();
    let [target] = target_cols[..] else {
        return Err(bad_format(
            path,
            format!("header needs exactly one column named {TARGET:?}, found {}", target_cols.len()),
        ));
    };
    if header.len() < 2 {
        return Err(bad_format(path, "header names no feature column"));
    }
    let data = parse_matrix(path, &text, Sep::Char('\t'), 1)?;
    if data.cols != header.len() {
        return Err(bad_format(path, format!("header has {} columns but rows have {}", header.len(), data.cols)));
    }
    let features: Vec<usize> = (0..data.cols).filter(|&j| j != target).collect();
    let feature_names = features.iter().map(|&j| header[j].to_string()).collect();
    let table = Table::new(data.columns(&features), data.column(target), features.len())?;
    Ok(PmlbFrame { table, feature_names })
}

/// PMLB set `name` as a regression table (targets as stored).
pub fn load_pmlb_regression(root: &Path, name: &str) -> Result<Table> {
    Ok(read_pmlb_tsv(&pmlb_path(root, name)?)?.table)
}

/// PMLB set `name` as a classification table: the distinct target values, sorted, become
/// classes `0..K` (e.g. `{-1, 1}` → `{0, 1}`), and the [`LabelMap`] gives each class's value.
/// A non-integer target (a regression set) is [`Error::InvalidArgument`].
pub fn load_pmlb_classification(root: &Path, name: &str) -> Result<(ClassTable, LabelMap)> {
    let path = pmlb_path(root, name)?;
    let frame = read_pmlb_tsv(&path)?;
    if let Some(v) = frame.table.y.iter().find(|v| v.fract() != 0.0) {
        return Err(Error::invalid(
            "name",
            format!("{name}: target value {v} is not a class label (a regression set?): {}", path.display()),
        ));
    }
    let map = LabelMap::fit(&frame.table.y)?;
    let labels = map.encode(&frame.table.y)?;
    let table = Table::new(frame.table.x, labels, frame.table.d)?;
    Ok((ClassTable::new(table, map.names())?, map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testutil::{temp_dir, write_file, write_gz};

    const TOY: &[u8] = b"a\ttarget\tb\n1.5\t1.0\t2\n-3\t-1.0\t4\n5\t1.0\t6\n";

    #[test]
    fn reads_target_anywhere_and_keeps_feature_names() {
        let dir = temp_dir("pmlb-read");
        let frame = read_pmlb_tsv(&write_gz(&dir, "toy.tsv.gz", TOY)).unwrap();
        assert_eq!(frame.feature_names, vec!["a", "b"]);
        assert_eq!(frame.table.x, vec![1.5, 2.0, -3.0, 4.0, 5.0, 6.0]);
        assert_eq!(frame.table.y, vec![1.0, -1.0, 1.0]);
    }

    #[test]
    fn classification_maps_sorted_values_to_indices() {
        let root = temp_dir("pmlb-class");
        write_gz(&root.join("pmlb_multiclass/toy"), "toy.tsv.gz", TOY);
        let (ct, map) = load_pmlb_classification(&root, "toy").unwrap();
        assert_eq!(map.values, vec![-1.0, 1.0]);
        assert_eq!(ct.labels(), &[1, 0, 1]);
        assert_eq!(ct.class_names, vec!["-1", "1"]);
        assert_eq!(ct.class_counts(), vec![1, 2]);
    }

    #[test]
    fn regression_and_folder_search_order() {
        let root = temp_dir("pmlb-reg");
        write_file(&root.join("pmlb_regression/r"), "r.tsv", b"x\ttarget\n1\t0.25\n2\t0.5\n");
        let t = load_pmlb_regression(&root, "r").unwrap();
        assert_eq!(t.y, vec![0.25, 0.5]);
        assert!(matches!(load_pmlb_classification(&root, "r"), Err(Error::InvalidArgument { .. })));
        write_file(&root.join("pmlb/r"), "r.tsv", b"x\ttarget\n1\t7\n");
        assert_eq!(load_pmlb_regression(&root, "r").unwrap().y, vec![7.0]);
        assert!(pmlb_path(&root, "r").unwrap().starts_with(root.join("pmlb")));
    }

    #[test]
    fn format_errors() {
        let dir = temp_dir("pmlb-bad");
        let no_target = write_file(&dir, "a.tsv", b"x\ty\n1\t2\n");
        assert!(matches!(read_pmlb_tsv(&no_target), Err(Error::BadFormat { .. })));
        let two_targets = write_file(&dir, "b.tsv", b"target\ttarget\n1\t2\n");
        assert!(matches!(read_pmlb_tsv(&two_targets), Err(Error::BadFormat { .. })));
        let only_target = write_file(&dir, "c.tsv", b"target\n1\n");
        assert!(matches!(read_pmlb_tsv(&only_target), Err(Error::BadFormat { .. })));
        let ragged = write_file(&dir, "d.tsv", b"x\ttarget\n1\t2\t3\n");
        assert!(matches!(read_pmlb_tsv(&ragged), Err(Error::BadFormat { .. })));
        let missing_value = write_file(&dir, "e.tsv", b"x\ttarget\n?\t1\n");
        assert!(matches!(read_pmlb_tsv(&missing_value), Err(Error::BadFormat { .. })));
        let empty = write_file(&dir, "f.tsv", b"x\ttarget\n");
        assert!(matches!(read_pmlb_tsv(&empty), Err(Error::Empty { .. })));
    }

    #[test]
    fn missing_set_says_where_to_get_it() {
        let root = temp_dir("pmlb-missing");
        let err = load_pmlb_regression(&root, "nope").unwrap_err();
        assert!(
            matches!(err, Error::MissingFile { ref hint, .. } if hint.contains("EpistasisLab") && hint.contains("pmlb_regression")),
            "{err}"
        );
    }
}
