//! Gathering rows by index, shared by every dataset type.
use crate::error::{Error, Result};

/// The rows `indices` of the row-major `data` with `width` values per row, in the order given
/// (repeats allowed). No indices is [`Error::Empty`]; an index past the end is
/// [`Error::InvalidArgument`].
pub(crate) fn gather_rows<T: Copy>(context: &str, data: &[T], width: usize, indices: &[usize]) -> Result<Vec<T>> {
    if width == 0 {
        return Err(Error::invalid("width", format!("{context}: rows must hold at least one value")));
    }
    if indices.is_empty() {
        return Err(Error::Empty { context: format!("{context}: no rows selected") });
    }
    let n = data.len() / width;
    if let Some(&bad) = indices.iter().find(|&&i| i >= n) {
        return Err(Error::invalid("indices", format!("{context}: row index {bad} out of range for {n} rows")));
    }
    Ok(indices.iter().flat_map(|&i| &data[i * width..(i + 1) * width]).copied().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_in_order_with_repeats() {
        let data = [0, 1, 10, 11, 20, 21];
        assert_eq!(gather_rows("t", &data, 2, &[2, 0, 2]).unwrap(), vec![20, 21, 0, 1, 20, 21]);
    }

    #[test]
    fn rejects_bad_requests() {
        let data = [0.0; 6];
        assert!(matches!(gather_rows("t", &data, 2, &[]), Err(Error::Empty { .. })));
        let err = gather_rows("t", &data, 2, &[1, 3]).unwrap_err();
        assert!(
            matches!(err, Error::InvalidArgument { ref reason, .. } if reason.contains("index 3") && reason.contains("3 rows"))
        );
        assert!(matches!(gather_rows("t", &data, 0, &[0]), Err(Error::InvalidArgument { .. })));
    }
}
