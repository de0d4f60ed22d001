//! Inducing points: `u = f(Z)`.
use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};

use super::InducingVariables;
use crate::error::{check_finite, Error, Result};
use crate::kernels::Kernel;

/// Inducing inputs `Z` `[M, d]` (trainable by default).
#[derive(Module, Debug)]
pub struct InducingPoints {
    /// The inducing inputs.
    pub z: Param<Tensor<2>>,
}

impl InducingPoints {
    /// Inducing points at the rows of `z` (row-major `m × d`).
    pub fn new(z: &[f64], m: usize, d: usize, device: &Device) -> Result<Self> {
        if m == 0 || d == 0 {
            return Err(Error::Empty { context: "inducing points".into() });
        }
        if z.len() != m * d {
            return Err(Error::shape("InducingPoints::new", [m, d], [z.len()]));
        }
        check_finite("inducing points", z)?;
        let t = Tensor::<2>::from_data(TensorData::new(z.to_vec(), [m, d]), device);
        Ok(Self { z: Param::from_tensor(t) })
    }
    /// The inducing inputs as a tensor.
    pub fn z(&self) -> Tensor<2> {
        self.z.val()
    }
    /// Keeps `Z` fixed during training.
    pub fn fixed(self) -> Self {
        Self { z: self.z.set_require_grad(false) }
    }
}

impl<K: Kernel> InducingVariables<K> for InducingPoints {
    fn num_inducing(&self) -> usize {
        self.z.val().dims()[0]
    }
    fn kuu(&self, kernel: &K, jitter: f64) -> Tensor<2> {
        let z = self.z();
        let m = z.dims()[0];
        let device = z.device();
        kernel.k(z.clone(), z) + Tensor::<2>::eye(m, &device).mul_scalar(jitter)
    }
    fn kuf(&self, kernel: &K, x: Tensor<2>) -> Tensor<2> {
        kernel.k(self.z(), x)
    }
    fn kfu(&self, kernel: &K, x: Tensor<2>) -> Tensor<2> {
        kernel.k(x, self.z())
    }
}
