//! Parsing delimited numeric text (whitespace-, comma- and tab-separated tables, index lists).
use std::path::Path;

use super::io::bad_format;
use crate::error::{Error, Result};

/// How fields on a line are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sep {
    /// Runs of spaces and tabs (leading and trailing blanks ignored).
    Whitespace,
    /// One character (each field is trimmed of surrounding blanks).
    Char(char),
}

impl Sep {
    /// The fields of `line`.
    pub(crate) fn fields(self, line: &str) -> Vec<&str> {
        match self {
            Sep::Whitespace => line.split_whitespace().collect(),
            Sep::Char(c) => line.split(c).map(str::trim).collect(),
        }
    }
}

/// A dense row-major matrix of numbers parsed from text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Matrix {
    /// Row-major values, `rows × cols`.
    pub values: Vec<f64>,
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
}

impl Matrix {
    /// Column `j` of every row, in row order.
    pub(crate) fn column(&self, j: usize) -> Vec<f64> {
        self.values.iter().skip(j).step_by(self.cols.max(1)).copied().collect()
    }

    /// The columns `cols` of every row, row-major (every index must be below `self.cols`).
    pub(crate) fn columns(&self, cols: &[usize]) -> Vec<f64> {
        self.values.chunks_exact(self.cols.max(1)).flat_map(|row| cols.iter().map(|&j| row[j])).collect()
    }
}

/// The non-blank lines of `text` after the first `skip`, with their 1-based line numbers.
fn data_lines(text: &str, skip: usize) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().skip(skip).map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty())
}

/// Parses one field as a finite number; errors name the file, line and field.
pub(crate) fn parse_number(path: &Path, line: usize, field: usize, text: &str) -> Result<f64> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(bad_format(
            path,
            format!("line {line}, field {field}: {text:?} is not finite (missing values are not supported)"),
        )),
        Err(_) => Err(bad_format(path, format!("line {line}, field {field}: cannot parse {text:?} as a number"))),
    }
}

/// Parses a table of numbers (every non-blank line after the first `skip` is a row; all rows
/// must have the same number of fields). No rows is [`Error::Empty`].
pub(crate) fn parse_matrix(path: &Path, text: &str, sep: Sep, skip: usize) -> Result<Matrix> {
    let mut values = Vec::new();
    let mut cols = None;
    let mut rows = 0;
    for (line, content) in data_lines(text, skip) {
        let fields = sep.fields(content);
        let expected = *cols.get_or_insert(fields.len());
        if fields.len() != expected {
            return Err(bad_format(
                path,
                format!("line {line} has {} fields, earlier rows have {expected}", fields.len()),
            ));
        }
        for (j, field) in fields.iter().enumerate() {
            values.push(parse_number(path, line, j + 1, field)?);
        }
        rows += 1;
    }
    match cols {
        Some(cols) => Ok(Matrix { values, rows, cols }),
        None => Err(Error::Empty { context: format!("data file {}", path.display()) }),
    }
}

/// Parses a list of non-negative integers, one per non-blank line.
pub(crate) fn parse_index_list(path: &Path, text: &str) -> Result<Vec<usize>> {
    data_lines(text, 0)
        .map(|(line, content)| {
            let field = content.trim();
            field
                .parse::<usize>()
                .map_err(|_| bad_format(path, format!("line {line}: {field:?} is not a non-negative integer index")))
        })
        .collect()
}

/// Converts a parsed number to a class label, which must be a whole number in `0..num_classes`.
pub(crate) fn whole_label(path: &Path, row: usize, value: f64, num_classes: usize) -> Result<usize> {
    if value.fract() != 0.0 {
        return Err(bad_format(path, format!("row {row}: class label {value} is not a whole number")));
    }
    if value < 0.0 || value >= num_classes as f64 {
        return Err(Error::LabelOutOfRange {
            context: format!("{} row {row}", path.display()),
            label: value as i64,
            num_classes,
        });
    }
    Ok(value as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("t.txt")
    }

    #[test]
    fn whitespace_matrix_with_blank_lines_and_padding() {
        let m = parse_matrix(p(), "  1.5   2e-1\t3 \n\n-4 5 6\n\n", Sep::Whitespace, 0).unwrap();
        assert_eq!((m.rows, m.cols), (2, 3));
        assert_eq!(m.values, vec![1.5, 0.2, 3.0, -4.0, 5.0, 6.0]);
        assert_eq!(m.column(1), vec![0.2, 5.0]);
        assert_eq!(m.columns(&[2, 0]), vec![3.0, 1.5, 6.0, -4.0]);
    }

    #[test]
    fn csv_with_header_skipped_and_crlf() {
        let m = parse_matrix(p(), "a,b\r\n1, 2\r\n3 ,4\r\n", Sep::Char(','), 1).unwrap();
        assert_eq!(m.values, vec![1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn ragged_rows_report_the_line() {
        let err = parse_matrix(p(), "1 2\n3 4\n5\n", Sep::Whitespace, 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("line 3")), "{err}");
    }

    #[test]
    fn unparsable_and_non_finite_fields_report_line_and_field() {
        let err = parse_matrix(p(), "1 2\n3 x\n", Sep::Whitespace, 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("line 2, field 2")), "{err}");
        let err = parse_matrix(p(), "1\tnan\n", Sep::Char('\t'), 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("not finite")), "{err}");
        let err = parse_matrix(p(), "1,,2\n", Sep::Char(','), 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { .. }), "{err}");
    }

    #[test]
    fn no_rows_is_empty() {
        assert!(matches!(parse_matrix(p(), "h1 h2\n\n", Sep::Whitespace, 1), Err(Error::Empty { .. })));
    }

    #[test]
    fn index_lists() {
        assert_eq!(parse_index_list(p(), "3\n 0 \n\n12").unwrap(), vec![3, 0, 12]);
        assert!(matches!(parse_index_list(p(), "1\n-2\n"), Err(Error::BadFormat { .. })));
        assert!(matches!(parse_index_list(p(), "1.0\n"), Err(Error::BadFormat { .. })));
    }

    #[test]
    fn whole_labels() {
        assert_eq!(whole_label(p(), 1, 2.0, 3).unwrap(), 2);
        assert!(matches!(whole_label(p(), 1, 1.5, 3), Err(Error::BadFormat { .. })));
        assert!(matches!(whole_label(p(), 1, 3.0, 3), Err(Error::LabelOutOfRange { label: 3, num_classes: 3, .. })));
        assert!(matches!(whole_label(p(), 1, -1.0, 3), Err(Error::LabelOutOfRange { label: -1, .. })));
    }
}
