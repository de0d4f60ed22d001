//! Moving host data into tensors, with validation.
use burn::backend::{tensor::FloatTensor, Backend};
use burn::tensor::{read_sync, DType, Device, Shape, Tensor, TensorData};

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

/// Reads a float primitive back to the host as it is stored.
fn read_data<B: Backend>(t: FloatTensor<B>) -> TensorData {
    match read_sync(B::float_into_data(t)) {
        Ok(d) => d,
        Err(e) => panic!("burn-gp: reading a tensor back from the device failed: {e:?}"),
    }
}

/// Reads a float primitive to a host f64 buffer, returning its shape and original dtype.
pub(crate) fn to_host<B: Backend>(t: FloatTensor<B>) -> (Vec<f64>, Shape, DType) {
    let data = read_data::<B>(t);
    let shape = data.shape().clone();
    let dtype = data.dtype();
    // After `convert::<f64>` the element type always matches, so this cannot fail.
    let v = data.convert::<f64>().try_into_vec::<f64>().expect("tensor data converted to f64 reads as f64");
    (v, shape, dtype)
}

/// A float primitive read back to the host, whose values are viewed in its own element type.
pub(crate) struct HostTensor {
    data: TensorData,
    /// The tensor's shape.
    pub(crate) shape: Shape,
}

impl HostTensor {
    /// Reads `t` to the host (on the CPU backends, without a copy when nothing else holds it).
    pub(crate) fn read<B: Backend>(t: FloatTensor<B>) -> Self {
        let data = read_data::<B>(t);
        HostTensor { shape: data.shape().clone(), data }
    }

    /// The values as `E` (the caller has checked that the dtype is `E`'s): borrowed where the
    /// buffer is aligned for `E`, else copied.
    pub(crate) fn values<E: burn::tensor::Element>(&self) -> std::borrow::Cow<'_, [E]> {
        match self.data.as_slice::<E>() {
            Ok(v) => std::borrow::Cow::Borrowed(v),
            Err(_) => std::borrow::Cow::Owned(
                self.data.clone().convert::<E>().try_into_vec::<E>().expect("tensor data converted to E reads as E"),
            ),
        }
    }
}

/// Writes a host buffer of element type `E` back as a float primitive of `E`'s dtype.
pub(crate) fn from_host_native<B: Backend, E: burn::tensor::Element>(
    v: Vec<E>,
    shape: Shape,
    device: &B::Device,
) -> FloatTensor<B> {
    B::float_from_data(TensorData::new(v, shape), device)
}

/// Writes a host f64 buffer back as a float primitive of the given dtype.
pub(crate) fn from_host<B: Backend>(v: Vec<f64>, shape: Shape, dtype: DType, device: &B::Device) -> FloatTensor<B> {
    B::float_from_data(TensorData::new(v, shape).convert_dtype(dtype), device)
}
