//! Moving host data into tensors, with validation.
use burn::tensor::{Device, Tensor, TensorData};

use crate::error::{check_finite, Error, Result};

/// Tensor from a row-major host matrix.
pub fn matrix(values: Vec<f64>, rows: usize, cols: usize, device: &Device) -> Result<Tensor<2>> {
    if values.len() != rows * cols {
        return Err(Error::shape("matrix", [rows, cols], [values.len()]));
    }
    check_finite("matrix", &values)?;
    Ok(Tensor::from_data(TensorData::new(values, [rows, cols]), device))
}

/// Reads a tensor back to the host as f64 (row-major).
pub fn to_vec<const D: usize>(t: Tensor<D>) -> Vec<f64> {
    // After `convert::<f64>` the element type always matches, so this cannot fail.
    t.into_data().convert::<f64>().try_into_vec::<f64>().expect("tensor data converted to f64 reads as f64")
}
