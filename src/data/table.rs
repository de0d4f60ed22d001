//! [`Table`]: a feature matrix with one target per row.
use std::slice::ChunksExact;

use super::select::gather_rows;
use crate::error::{check_finite, Error, Result};

/// A value type a [`Table`] can hold as its targets.
pub trait Target: Copy + std::fmt::Debug + PartialEq {
    /// Checks the whole target column for invalid values.
    fn check(context: &str, values: &[Self]) -> Result<()>;
}

impl Target for f64 {
    /// Regression targets must be finite.
    fn check(context: &str, values: &[Self]) -> Result<()> {
        check_finite(context, values)
    }
}

impl Target for usize {
    /// Class indices are range-checked by [`ClassTable`](super::ClassTable), which knows the class count.
    fn check(_context: &str, _values: &[Self]) -> Result<()> {
        Ok(())
    }
}

/// Row-major `n × d` features `x` with one target per row: `f64` for regression (the default),
/// `usize` class indices for classification.
#[derive(Debug, Clone, PartialEq)]
pub struct Table<Y = f64> {
    /// Features, row-major `n × d`.
    pub x: Vec<f64>,
    /// Targets, one per row.
    pub y: Vec<Y>,
    /// Number of rows.
    pub n: usize,
    /// Number of feature columns.
    pub d: usize,
}

impl<Y: Target> Table<Y> {
    /// A table from row-major features with `d` columns and one target per row; `n = y.len()`.
    ///
    /// Errors: `d == 0` is [`Error::InvalidArgument`], no rows is [`Error::Empty`],
    /// `x.len() != n·d` is [`Error::ShapeMismatch`], NaN/Inf is [`Error::NonFinite`].
    pub fn new(x: Vec<f64>, y: Vec<Y>, d: usize) -> Result<Self> {
        if d == 0 {
            return Err(Error::invalid("d", "a table needs at least one feature column"));
        }
        let n = y.len();
        if n == 0 {
            return Err(Error::Empty { context: "Table::new (no rows)".to_string() });
        }
        if n.checked_mul(d) != Some(x.len()) {
            return Err(Error::shape("Table::new x (n·d values)", [n, d], x.len()));
        }
        check_finite("Table x", &x)?;
        Y::check("Table y", &y)?;
        Ok(Self { x, y, n, d })
    }

    /// Row `i` of the features, or `None` past the end.
    pub fn row(&self, i: usize) -> Option<&[f64]> {
        let start = i.checked_mul(self.d)?;
        self.x.get(start..start.checked_add(self.d)?)
    }

    /// The feature rows in order.
    pub fn rows(&self) -> ChunksExact<'_, f64> {
        self.x.chunks_exact(self.d.max(1))
    }

    /// The rows `indices` in the order given (repeats allowed); an index `≥ n` is
    /// [`Error::InvalidArgument`], no indices is [`Error::Empty`].
    pub fn select_rows(&self, indices: &[usize]) -> Result<Self> {
        let x = gather_rows("Table::select_rows", &self.x, self.d, indices)?;
        let y = gather_rows("Table::select_rows", &self.y, 1, indices)?;
        Ok(Self { x, y, n: indices.len(), d: self.d })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Table {
        Table::new(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], vec![10.0, 20.0, 30.0], 2).unwrap()
    }

    #[test]
    fn construction_and_access() {
        let t = small();
        assert_eq!((t.n, t.d), (3, 2));
        assert_eq!(t.row(1), Some(&[3.0, 4.0][..]));
        assert_eq!(t.row(3), None);
        assert_eq!(t.row(usize::MAX), None);
        assert_eq!(t.rows().map(|r| r[0]).collect::<Vec<_>>(), vec![1.0, 3.0, 5.0]);
    }

    #[test]
    fn constructor_validates() {
        assert!(matches!(Table::new(vec![1.0; 5], vec![0.0; 3], 2), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(Table::<f64>::new(vec![], vec![], 2), Err(Error::Empty { .. })));
        assert!(matches!(Table::new(vec![], vec![1.0], 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(Table::new(vec![1.0, f64::NAN], vec![0.0], 2), Err(Error::NonFinite { index: 1, .. })));
        assert!(matches!(Table::new(vec![1.0, 2.0], vec![f64::INFINITY], 2), Err(Error::NonFinite { index: 0, .. })));
        let classes: Table<usize> = Table::new(vec![1.0, 2.0], vec![7, 9], 1).unwrap();
        assert_eq!(classes.y, vec![7, 9]);
    }

    #[test]
    fn select_rows_keeps_pairs_together() {
        let s = small().select_rows(&[2, 0]).unwrap();
        assert_eq!(s.x, vec![5.0, 6.0, 1.0, 2.0]);
        assert_eq!(s.y, vec![30.0, 10.0]);
        assert_eq!((s.n, s.d), (2, 2));
        assert!(matches!(small().select_rows(&[3]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(small().select_rows(&[]), Err(Error::Empty { .. })));
    }
}
