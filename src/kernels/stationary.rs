//! The parameters and distance shared by stationary kernels.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{distance::scaled_square_distance, Positive};
use crate::error::Result;

/// ARD lengthscales ℓ and signal variance σ² of a stationary kernel `σ² f(‖(x − x')/ℓ‖)`.
#[derive(Module, Debug)]
pub struct Stationary {
    /// Per-dimension lengthscales ℓ (one value = isotropic).
    pub lengthscales: Positive,
    /// Signal variance σ².
    pub variance: Positive,
}

impl Stationary {
    /// Parameters with the given initial lengthscales and variance.
    pub fn new(lengthscales: &[f64], variance: f64, device: &Device) -> Result<Self> {
        Ok(Self {
            lengthscales: Positive::new("lengthscales", lengthscales, device)?,
            variance: Positive::new("variance", &[variance], device)?,
        })
    }
    /// Scaled squared distances `‖(x − x')/ℓ‖²`: `[n, m]`.
    pub(crate) fn square_distance(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        scaled_square_distance(x, x2, self.lengthscales.value())
    }
    /// `σ² · shape`, broadcasting the variance.
    pub fn scale(&self, shape: Tensor<2>) -> Tensor<2> {
        shape * self.variance.value().unsqueeze::<2>()
    }
    /// The diagonal `σ²` repeated for the `n` rows of `x`.
    pub fn diag(&self, x: &Tensor<2>) -> Tensor<1> {
        self.variance.value().expand([x.dims()[0]])
    }
    /// The ARD input dimension (`None` when isotropic).
    pub fn input_dim(&self) -> Option<usize> {
        let d = self.lengthscales.len();
        (d > 1).then_some(d)
    }
}
