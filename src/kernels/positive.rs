//! Softplus-positive parameters.
use burn::module::{Module, Param};
use burn::tensor::{activation::softplus, Device, Tensor, TensorData};

use crate::error::{Error, Result};

/// `log(exp(v) − 1)`, the unconstrained value whose softplus is `v > 0`.
pub(crate) fn inverse_softplus(v: f64) -> f64 {
    if v > 30.0 {
        v
    } else {
        v + (-(-v).exp()).ln_1p()
    }
}

/// A vector of strictly positive values stored unconstrained: `value = softplus(raw)`.
#[derive(Module, Debug)]
pub struct Positive {
    raw: Param<Tensor<1>>,
}

impl Positive {
    /// Creates the parameter from positive initial values.
    pub fn new(name: &str, values: &[f64], device: &Device) -> Result<Self> {
        if values.is_empty() {
            return Err(Error::invalid(name, "needs at least one value"));
        }
        if let Some(v) = values.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
            return Err(Error::invalid(name, format!("must be positive and finite, got {v}")));
        }
        let raw: Vec<f64> = values.iter().map(|&v| inverse_softplus(v)).collect();
        let n = raw.len();
        Ok(Self { raw: Param::from_tensor(Tensor::from_data(TensorData::new(raw, [n]), device)) })
    }
    /// The positive values as a tensor `[len]` (differentiable).
    pub fn value(&self) -> Tensor<1> {
        softplus(self.raw.val(), 1.0)
    }
    /// The unconstrained parameter (its gradient is what the optimiser sees).
    pub fn raw(&self) -> Tensor<1> {
        self.raw.val()
    }
    /// The positive values read back to the host.
    pub fn to_vec(&self) -> Vec<f64> {
        crate::tensors::to_vec(self.value())
    }
    /// Number of values.
    pub fn len(&self) -> usize {
        self.raw.val().dims()[0]
    }
    /// True if there are no values (never, by construction).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
