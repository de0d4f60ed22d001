//! Class labels: [`LabelMap`] (original values ↔ class indices) and [`ClassTable`].
use super::table::Table;
use crate::error::{check_finite, Error, Result};

/// Checks that every label is in `0..num_classes`; names the first that is not.
pub(crate) fn check_labels(context: &str, labels: impl IntoIterator<Item = usize>, num_classes: usize) -> Result<()> {
    match labels.into_iter().find(|&l| l >= num_classes) {
        Some(label) => Err(Error::LabelOutOfRange {
            context: context.to_string(),
            label: i64::try_from(label).unwrap_or(i64::MAX),
            num_classes,
        }),
        None => Ok(()),
    }
}

/// How many labels fall in each class `0..num_classes` (labels out of range are not counted).
pub(crate) fn count_classes(labels: impl IntoIterator<Item = usize>, num_classes: usize) -> Vec<usize> {
    let mut counts = vec![0; num_classes];
    for label in labels {
        if let Some(c) = counts.get_mut(label) {
            *c += 1;
        }
    }
    counts
}

/// The distinct original target values of a classification set, sorted; class `k` is `values[k]`.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelMap {
    /// Distinct original values in increasing order.
    pub values: Vec<f64>,
}

impl LabelMap {
    /// The sorted distinct values of `y` (`-0.0` and `0.0` are one value).
    pub fn fit(y: &[f64]) -> Result<Self> {
        if y.is_empty() {
            return Err(Error::Empty { context: "LabelMap::fit".to_string() });
        }
        check_finite("LabelMap::fit", y)?;
        let mut values: Vec<f64> = y.iter().map(|&v| v + 0.0).collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        Ok(Self { values })
    }

    /// Number of classes.
    pub fn num_classes(&self) -> usize {
        self.values.len()
    }

    /// The class index of every value; a value not in the map is [`Error::InvalidArgument`].
    pub fn encode(&self, y: &[f64]) -> Result<Vec<usize>> {
        y.iter()
            .enumerate()
            .map(|(i, &v)| {
                self.values.binary_search_by(|probe| probe.total_cmp(&(v + 0.0))).map_err(|_| {
                    Error::invalid("y", format!("value {v} at index {i} is not one of the labels {:?}", self.values))
                })
            })
            .collect()
    }

    /// The original value of class `k`, or `None` if `k` is out of range.
    pub fn decode(&self, k: usize) -> Option<f64> {
        self.values.get(k).copied()
    }

    /// The original values formatted as class names (`1.0` → `"1"`, `-1.0` → `"-1"`).
    pub fn names(&self) -> Vec<String> {
        self.values.iter().map(|v| v.to_string()).collect()
    }
}

/// A classification table: features with class indices in `0..num_classes()`, plus class names.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassTable {
    /// Features and class indices.
    pub table: Table<usize>,
    /// Name of each class; its length is the number of classes.
    pub class_names: Vec<String>,
}

impl ClassTable {
    /// Wraps `table`, checking every label is below `class_names.len()` ([`Error::LabelOutOfRange`]).
    pub fn new(table: Table<usize>, class_names: Vec<String>) -> Result<Self> {
        if class_names.is_empty() {
            return Err(Error::invalid("class_names", "a classification set needs at least one class"));
        }
        check_labels("ClassTable labels", table.y.iter().copied(), class_names.len())?;
        Ok(Self { table, class_names })
    }

    /// Number of classes.
    pub fn num_classes(&self) -> usize {
        self.class_names.len()
    }

    /// The class index of every row.
    pub fn labels(&self) -> &[usize] {
        &self.table.y
    }

    /// How many rows each class has.
    pub fn class_counts(&self) -> Vec<usize> {
        count_classes(self.table.y.iter().copied(), self.num_classes())
    }

    /// The rows `indices` (see [`Table::select_rows`]), keeping every class name.
    pub fn select_rows(&self, indices: &[usize]) -> Result<Self> {
        Ok(Self { table: self.table.select_rows(indices)?, class_names: self.class_names.clone() })
    }
}

/// Binary labels `±1` from class indices of a two-class problem: class 0 → −1, class 1 → +1.
/// More than two distinct classes is [`Error::InvalidArgument`]; a single class is allowed (one
/// value then maps to −1).
pub fn signed_binary_labels(labels: &[usize]) -> Result<Vec<f64>> {
    if let Some(&bad) = labels.iter().find(|&&l| l > 1) {
        return Err(Error::invalid(
            "labels",
            format!("a binary classifier needs two classes; found class index {bad} (map any two values to 0/1 first)"),
        ));
    }
    Ok(labels.iter().map(|&l| if l == 1 { 1.0 } else { -1.0 }).collect())
}

/// The ±1 targets of a binary classifier's class indices (class 0 → −1, class 1 → +1), checking
/// that there are `n` of them ([`Error::ShapeMismatch`]) and each is 0 or 1
/// ([`Error::LabelOutOfRange`] naming `context`).
pub(crate) fn binary_signs(context: &str, labels: &[usize], n: usize) -> Result<Vec<f64>> {
    if labels.len() != n {
        return Err(Error::shape(&format!("{context}: labels"), n, labels.len()));
    }
    check_labels(context, labels.iter().copied(), 2)?;
    Ok(labels.iter().map(|&l| if l == 1 { 1.0 } else { -1.0 }).collect())
}

/// Checks that `y` holds `n` labels, each −1 or +1 ([`Error::ShapeMismatch`], [`Error::LabelOutOfRange`]).
pub(crate) fn check_binary_labels(y: &[f64], n: usize) -> Result<()> {
    if y.len() != n {
        return Err(Error::shape("binary labels", n, y.len()));
    }
    if let Some(&bad) = y.iter().find(|&&v| v != 1.0 && v != -1.0) {
        return Err(Error::LabelOutOfRange {
            context: "binary labels (must be −1 or +1)".into(),
            label: if bad.is_finite() { bad as i64 } else { i64::MIN },
            num_classes: 2,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_map_sorts_dedups_and_round_trips() {
        let map = LabelMap::fit(&[1.0, -1.0, 1.0, -0.0, 0.0, -1.0]).unwrap();
        assert_eq!(map.values, vec![-1.0, 0.0, 1.0]);
        assert_eq!(map.num_classes(), 3);
        assert_eq!(map.encode(&[1.0, -1.0, -0.0]).unwrap(), vec![2, 0, 1]);
        assert_eq!(map.decode(2), Some(1.0));
        assert_eq!(map.decode(3), None);
        assert_eq!(map.names(), vec!["-1", "0", "1"]);
    }

    #[test]
    fn label_map_errors() {
        assert!(matches!(LabelMap::fit(&[]), Err(Error::Empty { .. })));
        assert!(matches!(LabelMap::fit(&[1.0, f64::NAN]), Err(Error::NonFinite { index: 1, .. })));
        let map = LabelMap::fit(&[1.0, 2.0]).unwrap();
        let err = map.encode(&[1.0, 3.0]).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { ref reason, .. } if reason.contains("index 1")), "{err}");
    }

    #[test]
    fn class_table_validates_and_counts() {
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let table = Table::new(vec![0.0, 1.0, 2.0, 3.0], vec![2, 0, 2, 2], 1).unwrap();
        let ct = ClassTable::new(table.clone(), names.clone()).unwrap();
        assert_eq!(ct.num_classes(), 3);
        assert_eq!(ct.class_counts(), vec![1, 0, 3]);
        assert_eq!(ct.labels(), &[2, 0, 2, 2]);
        let sub = ct.select_rows(&[1, 3]).unwrap();
        assert_eq!(sub.labels(), &[0, 2]);
        assert_eq!(sub.table.x, vec![1.0, 3.0]);
        let err = ClassTable::new(table.clone(), names[..2].to_vec()).unwrap_err();
        assert!(matches!(err, Error::LabelOutOfRange { label: 2, num_classes: 2, .. }));
        assert!(matches!(ClassTable::new(table, vec![]), Err(Error::InvalidArgument { .. })));
    }

    #[test]
    fn helpers() {
        assert!(check_labels("t", [0, 1, 2], 3).is_ok());
        assert!(matches!(check_labels("t", [0, 5], 3), Err(Error::LabelOutOfRange { label: 5, .. })));
        assert_eq!(count_classes([0, 2, 2, 9], 3), vec![1, 0, 2]);
    }
}
