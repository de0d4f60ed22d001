//! The small datasets bundled with scikit-learn, as stored in its wheel: `<root>/sklearn/<name>/`.
use std::path::{Path, PathBuf};

use super::io::{bad_format, read_text};
use super::labels::ClassTable;
use super::root::require_gz_or_raw;
use super::table::Table;
use super::text::{parse_matrix, whole_label, Matrix, Sep};
use crate::error::Result;

/// The folder under the data root that holds the scikit-learn sets.
pub const SKLEARN_FOLDER: &str = "sklearn";

/// Where the files can be obtained.
const SOURCE: &str = "scikit-learn ships these files in sklearn/datasets/data/ of its wheel \
    (pip download --no-deps scikit-learn); put them in DIR/sklearn/<name>/";

/// `<root>/sklearn/<folder>/<file>` (or its `.gz`), checked to exist.
fn sklearn_file(root: &Path, folder: &str, file: &str) -> Result<PathBuf> {
    require_gz_or_raw(&root.join(SKLEARN_FOLDER).join(folder).join(file), SOURCE)
}

/// Iris: 150 flowers, 4 measurements (cm), 3 species.
pub fn load_iris(root: &Path) -> Result<ClassTable> {
    read_header_csv(&sklearn_file(root, "iris", "iris.csv")?)
}

/// Wine recognition: 178 wines, 13 chemical measurements, 3 cultivars.
pub fn load_wine(root: &Path) -> Result<ClassTable> {
    read_header_csv(&sklearn_file(root, "wine", "wine_data.csv")?)
}

/// Breast cancer Wisconsin (diagnostic): 569 tumours, 30 features, classes malignant / benign.
pub fn load_breast_cancer(root: &Path) -> Result<ClassTable> {
    read_header_csv(&sklearn_file(root, "breast_cancer", "breast_cancer.csv")?)
}

/// Optical digits: 1797 8×8 images with pixel values 0–16 (64 features), classes 0–9.
pub fn load_digits(root: &Path) -> Result<ClassTable> {
    let path = sklearn_file(root, "digits", "digits.csv")?;
    let data = parse_matrix(&path, &read_text(&path)?, Sep::Char(','), 0)?;
    if data.cols != 65 {
        return Err(bad_format(&path, format!("rows have {} fields, expected 64 pixels and a label", data.cols)));
    }
    let names = (0..10).map(|k| k.to_string()).collect();
    ClassTable::new(features_and_labels(&path, &data, 10)?, names)
}

/// Diabetes (raw, unscaled features): 442 patients, 10 baseline variables, regression target a
/// measure of disease progression one year later.
pub fn load_diabetes(root: &Path) -> Result<Table> {
    let x_path = sklearn_file(root, "diabetes", "diabetes_data_raw.csv")?;
    let y_path = sklearn_file(root, "diabetes", "diabetes_target.csv")?;
    let x = parse_matrix(&x_path, &read_text(&x_path)?, Sep::Whitespace, 0)?;
    let y = parse_matrix(&y_path, &read_text(&y_path)?, Sep::Whitespace, 0)?;
    if y.cols != 1 {
        return Err(bad_format(&y_path, format!("rows have {} fields, expected one target", y.cols)));
    }
    if y.rows != x.rows {
        return Err(bad_format(
            &y_path,
            format!("holds {} targets but {} holds {} rows", y.rows, x_path.display(), x.rows),
        ));
    }
    Table::new(x.values, y.values, x.cols)
}

/// Reads scikit-learn's classification CSV: a header `n_samples,n_features,<class names…>`,
/// then rows of `n_features` values and an integer label.
fn read_header_csv(path: &Path) -> Result<ClassTable> {
    let text = read_text(path)?;
    let header: Vec<&str> = text.lines().next().map(|l| Sep::Char(',').fields(l)).unwrap_or_default();
    let (Some(n), Some(d)) =
        (header.first().and_then(|s| s.parse::<usize>().ok()), header.get(1).and_then(|s| s.parse::<usize>().ok()))
    else {
        return Err(bad_format(path, "first line must be `n_samples,n_features,<class names>`"));
    };
    let names: Vec<String> = header[2..].iter().map(|s| s.to_string()).collect();
    let data = parse_matrix(path, &text, Sep::Char(','), 1)?;
    if data.rows != n || data.cols != d + 1 {
        return Err(bad_format(
            path,
            format!(
                "header promises {n} rows of {d} features and a label, file has {} rows of {} fields",
                data.rows, data.cols
            ),
        ));
    }
    ClassTable::new(features_and_labels(path, &data, names.len())?, names)
}

/// Splits a parsed matrix into its leading feature columns and its last column of class labels.
fn features_and_labels(path: &Path, data: &Matrix, num_classes: usize) -> Result<Table<usize>> {
    let d = data.cols - 1;
    let labels = data
        .column(d)
        .into_iter()
        .enumerate()
        .map(|(i, v)| whole_label(path, i + 1, v, num_classes))
        .collect::<Result<Vec<_>>>()?;
    Table::new(data.columns(&(0..d).collect::<Vec<_>>()), labels, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testutil::{temp_dir, write_file, write_gz};
    use crate::error::Error;

    #[test]
    fn header_csv_with_class_names() {
        let root = temp_dir("sk-iris");
        write_file(&root.join("sklearn/iris"), "iris.csv", b"3,2,a,b\n1.0,2.0,0\n3,4,1\n5,6,1\n");
        let ct = load_iris(&root).unwrap();
        assert_eq!(ct.class_names, vec!["a", "b"]);
        assert_eq!((ct.table.n, ct.table.d), (3, 2));
        assert_eq!(ct.table.x, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(ct.labels(), &[0, 1, 1]);
    }

    #[test]
    fn header_csv_errors() {
        let root = temp_dir("sk-bad");
        let dir = root.join("sklearn/wine");
        write_file(&dir, "wine_data.csv", b"4,2,a,b\n1,2,0\n");
        assert!(matches!(load_wine(&root), Err(Error::BadFormat { ref reason, .. }) if reason.contains("promises")));
        write_file(&dir, "wine_data.csv", b"1,2,a,b\n1,2,2\n");
        assert!(matches!(load_wine(&root), Err(Error::LabelOutOfRange { label: 2, num_classes: 2, .. })));
        write_file(&dir, "wine_data.csv", b"1,2,a,b\n1,2,0.5\n");
        assert!(matches!(load_wine(&root), Err(Error::BadFormat { .. })));
        write_file(&dir, "wine_data.csv", b"x,y,a,b\n1,2,0\n");
        assert!(matches!(load_wine(&root), Err(Error::BadFormat { .. })));
        assert!(
            matches!(load_breast_cancer(&root), Err(Error::MissingFile { ref hint, .. }) if hint.contains("scikit-learn"))
        );
    }

    #[test]
    fn digits_gz_without_header() {
        let root = temp_dir("sk-digits");
        let row = |label: u8| {
            let mut fields = vec!["16"; 64].join(",");
            fields.push_str(&format!(",{label}\n"));
            fields
        };
        let body = format!("{}{}", row(3), row(9));
        write_gz(&root.join("sklearn/digits"), "digits.csv.gz", body.as_bytes());
        let ct = load_digits(&root).unwrap();
        assert_eq!((ct.table.n, ct.table.d, ct.num_classes()), (2, 64, 10));
        assert_eq!(ct.labels(), &[3, 9]);
        write_gz(&root.join("sklearn/digits"), "digits.csv.gz", b"1,2,3\n");
        assert!(matches!(load_digits(&root), Err(Error::BadFormat { .. })));
    }

    #[test]
    fn diabetes_pairs_features_and_targets() {
        let root = temp_dir("sk-diab");
        let dir = root.join("sklearn/diabetes");
        write_gz(&dir, "diabetes_data_raw.csv.gz", b"59 2 32.1\n48 1 21.6\n");
        write_gz(&dir, "diabetes_target.csv.gz", b"1.51e+02\n7.5e+01\n");
        let t = load_diabetes(&root).unwrap();
        assert_eq!((t.n, t.d), (2, 3));
        assert_eq!(t.y, vec![151.0, 75.0]);
        write_gz(&dir, "diabetes_target.csv.gz", b"1.51e+02\n");
        assert!(
            matches!(load_diabetes(&root), Err(Error::BadFormat { ref reason, .. }) if reason.contains("1 targets"))
        );
    }
}
