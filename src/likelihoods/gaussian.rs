//! Gaussian likelihood with a learned noise variance.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{row_sum, Likelihood};
use crate::error::Result;
use crate::kernels::Positive;

const LN_2PI: f64 = 1.837_877_066_409_345_3;

/// `p(y | f) = N(y | f, σ²)`, σ² learned (softplus-positive).
#[derive(Module, Debug)]
pub struct Gaussian {
    /// Noise variance σ².
    pub variance: Positive,
}

impl Gaussian {
    /// A Gaussian likelihood with initial noise variance `variance`.
    pub fn new(variance: f64, device: &Device) -> Result<Self> {
        Ok(Self { variance: Positive::new("noise variance", &[variance], device)? })
    }
    /// σ² as a `[1, 1]` tensor.
    fn var2(&self) -> Tensor<2> {
        self.variance.value().unsqueeze::<2>()
    }
}

impl Likelihood for Gaussian {
    fn num_latent(&self, outputs: usize) -> usize {
        outputs
    }
    fn variational_expectations(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let s2 = self.var2();
        let quad = ((y - f_mean).powi_scalar(2) + f_var) / s2.clone();
        row_sum((s2.log() + LN_2PI + quad).mul_scalar(-0.5))
    }
    fn predict_mean_and_var(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        (f_mean, f_var + self.var2())
    }
    fn predict_log_density(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let v = f_var + self.var2();
        let quad = (y - f_mean).powi_scalar(2) / v.clone();
        row_sum((v.log() + LN_2PI + quad).mul_scalar(-0.5))
    }
}
