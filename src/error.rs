//! The crate's one error type.
use std::path::PathBuf;

/// Every fallible operation of burn-gp returns this.
pub type Result<T> = std::result::Result<T, Error>;

/// Typed errors for bad input, numerical failure and missing data.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Two inputs whose shapes must agree do not.
    #[error("shape mismatch in {context}: expected {expected}, got {got}")]
    ShapeMismatch {
        /// Where the mismatch was found (function and argument).
        context: String,
        /// The shape that was required.
        expected: String,
        /// The shape that was given.
        got: String,
    },
    /// An input holds NaN or ±Inf.
    #[error("non-finite value (NaN or Inf) in {context} at flat index {index}")]
    NonFinite {
        /// Which input.
        context: String,
        /// Flat (row-major) index of the first bad value.
        index: usize,
    },
    /// A dataset or batch has no rows.
    #[error("empty input: {context}")]
    Empty {
        /// Which input.
        context: String,
    },
    /// A class label is outside `0..num_classes`.
    #[error("label {label} out of range 0..{num_classes} in {context}")]
    LabelOutOfRange {
        /// Which input.
        context: String,
        /// The offending label.
        label: i64,
        /// The number of classes expected.
        num_classes: usize,
    },
    /// Cholesky failed at every rung of the jitter ladder.
    #[error("{n}x{n} matrix is not positive definite even with jitter {jitter:e} added to the diagonal (batch item {batch})")]
    NotPositiveDefinite {
        /// Matrix size.
        n: usize,
        /// The last (largest) jitter tried.
        jitter: f64,
        /// Index of the failing matrix in the batch.
        batch: usize,
    },
    /// A dataset file does not exist.
    #[error("dataset file not found: {path} ({hint})")]
    MissingFile {
        /// The path that was tried.
        path: PathBuf,
        /// Where the file can be obtained / how to point burn-gp at it.
        hint: String,
    },
    /// A file exists but is not in the expected format.
    #[error("bad data file {path}: {reason}")]
    BadFormat {
        /// The file.
        path: PathBuf,
        /// What is wrong (wrong magic number, truncated record, unparsable number, ...).
        reason: String,
    },
    /// A saved model file holds another model type, or a description that does not fit its
    /// weights (see [`crate::saved`]).
    #[error("model file {path}: {reason}")]
    ModelMismatch {
        /// The file.
        path: PathBuf,
        /// What does not match.
        reason: String,
    },
    /// An operating-system I/O error while reading a file.
    #[error("I/O error reading {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An argument (configuration value, option) is invalid.
    #[error("invalid argument `{name}`: {reason}")]
    InvalidArgument {
        /// Argument name.
        name: String,
        /// Why it is invalid.
        reason: String,
    },
    /// The backend or device could not be set up.
    #[error("device error: {0}")]
    Device(String),
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(name: &str, reason: impl Into<String>) -> Self {
        Error::InvalidArgument { name: name.to_string(), reason: reason.into() }
    }
    /// Shorthand for [`Error::ShapeMismatch`].
    pub fn shape(context: &str, expected: impl std::fmt::Debug, got: impl std::fmt::Debug) -> Self {
        Error::ShapeMismatch {
            context: context.to_string(),
            expected: format!("{expected:?}"),
            got: format!("{got:?}"),
        }
    }
}

/// Checks that a setting is finite and strictly positive; the error names it and its value.
pub(crate) fn check_positive(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(name, format!("must be finite and positive, got {value}")))
    }
}

/// Checks that a scalar setting is finite and non-negative (a jitter, a floor, a spread that may be 0).
pub(crate) fn check_non_negative(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(name, format!("must be finite and ≥ 0, got {value}")))
    }
}

/// Checks that every value is finite; names the first bad index.
pub(crate) fn check_finite(context: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite { context: context.to_string(), index }),
        None => Ok(()),
    }
}
