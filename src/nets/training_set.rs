//! [`TrainingSet`]: the examples a network with a GP head draws its minibatches from.
use burn::tensor::{Device, Tensor};

use super::image_batch;
use crate::data::{ClassTable, ImageSet, Table};
use crate::error::{Error, Result};
use crate::likelihoods::one_hot;
use crate::tensors::matrix;

/// A training set for a [`HybridNet`](super::HybridNet): a number of examples, and any minibatch
/// of them as the trunk's input with the head's targets.
///
/// Targets are `[B, outputs]`: one-hot rows for a classification head (`outputs` = C classes),
/// values for a regression head (`outputs` = 1 for one target per row).
pub trait TrainingSet {
    /// What the trunk takes: `Tensor<4>` images, `Tensor<2>` rows, …
    type Input;
    /// Number of examples.
    fn len(&self) -> usize;
    /// Whether the set has no examples.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Width of the targets: the number of classes, or of regression outputs.
    fn outputs(&self) -> usize;
    /// Inputs and targets of the examples `idx` on `device` (errors on an index out of range).
    fn batch(&self, idx: &[usize], device: &Device) -> Result<(Self::Input, Tensor<2>)>;
    /// Continue a resumed run as if `batches` batches had been drawn already (a set whose batches
    /// depend on how many were drawn, e.g. [`AugmentedImages`](super::AugmentedImages)'s random
    /// crops, skips their draws); by default nothing.
    fn resume_after(&self, _batches: u64) {}
}

impl TrainingSet for ImageSet {
    type Input = Tensor<4>;
    fn len(&self) -> usize {
        self.n
    }
    fn outputs(&self) -> usize {
        self.num_classes
    }
    /// Pixels scaled to `[0, 1]` `[B, C, H, W]` and one-hot labels `[B, classes]`.
    fn batch(&self, idx: &[usize], device: &Device) -> Result<(Tensor<4>, Tensor<2>)> {
        let b = image_batch(self, idx, device)?;
        Ok((b.images, b.targets))
    }
}

impl TrainingSet for ClassTable {
    type Input = Tensor<2>;
    fn len(&self) -> usize {
        self.table.n
    }
    fn outputs(&self) -> usize {
        self.num_classes()
    }
    /// Rows `[B, d]` and one-hot labels `[B, classes]`.
    fn batch(&self, idx: &[usize], device: &Device) -> Result<(Tensor<2>, Tensor<2>)> {
        let labels = gather(&self.table.y, idx, 1, "ClassTable")?;
        Ok((rows(&self.table, idx, device)?, one_hot(&labels, self.num_classes(), device)?))
    }
}

impl TrainingSet for Table<f64> {
    type Input = Tensor<2>;
    fn len(&self) -> usize {
        self.n
    }
    fn outputs(&self) -> usize {
        1
    }
    /// Rows `[B, d]` and targets `[B, 1]`.
    fn batch(&self, idx: &[usize], device: &Device) -> Result<(Tensor<2>, Tensor<2>)> {
        let y = gather(&self.y, idx, 1, "Table")?;
        Ok((rows(self, idx, device)?, matrix(y, idx.len(), 1, device)?))
    }
}

/// Rows `idx` of `values` (row-major, `width` per row); errors on an empty or out-of-range index.
fn gather<V: Copy>(values: &[V], idx: &[usize], width: usize, what: &str) -> Result<Vec<V>> {
    if idx.is_empty() {
        return Err(Error::Empty { context: format!("{what} batch indices") });
    }
    let n = values.len() / width.max(1);
    let mut out = Vec::with_capacity(idx.len() * width);
    for &i in idx {
        if i >= n {
            return Err(Error::invalid("idx", format!("{what} row {i} of {n}")));
        }
        out.extend_from_slice(&values[i * width..(i + 1) * width]);
    }
    Ok(out)
}

/// Rows `idx` of `table`'s features as a `[B, d]` tensor.
fn rows<Y>(table: &Table<Y>, idx: &[usize], device: &Device) -> Result<Tensor<2>> {
    matrix(gather(&table.x, idx, table.d, "Table")?, idx.len(), table.d, device)
}
