//! A module's gradients as one flat host vector and back: what data-parallel training sends
//! through an all-reduce (one buffer per step instead of one per parameter).
use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::{Tensor, TensorData};

use crate::error::{Error, Result};
use crate::tensors::to_vec;

/// Number of float parameter values of `module`, the length of [`flatten_gradients`]' output.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn num_float_params<M: Module>(module: &M) -> usize {
    struct Count(usize);
    impl ModuleVisitor for Count {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            self.0 += param.val().shape().num_elements();
        }
    }
    let mut count = Count(0);
    module.visit(&mut count);
    count.0
}

/// The gradients of every float parameter of `module`, in the module's visit order, flattened
/// row-major into one f64 vector; zeros for parameters without a gradient (frozen ones).
pub fn flatten_gradients<M: Module>(module: &M, grads: &GradientsParams) -> Vec<f64> {
    struct Flatten<'a> {
        grads: &'a GradientsParams,
        out: Vec<f64>,
    }
    impl ModuleVisitor for Flatten<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            match self.grads.get::<D>(param.id) {
                Some(g) => self.out.extend(to_vec(g)),
                None => self.out.extend(std::iter::repeat_n(0.0, param.val().shape().num_elements())),
            }
        }
    }
    let mut visitor = Flatten { grads, out: Vec::new() };
    module.visit(&mut visitor);
    visitor.out
}

/// The inverse of [`flatten_gradients`]: a gradient for every float parameter of `module` that
/// requires one, read from `flat` (laid out as [`flatten_gradients`] writes it), on the
/// parameter's device without autodiff (where optimisers expect gradients).
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn gradients_from_flat<M: Module>(module: &M, flat: &[f64]) -> Result<GradientsParams> {
    let expected = num_float_params(module);
    if flat.len() != expected {
        return Err(Error::shape("gradients_from_flat: flat gradient", expected, flat.len()));
    }
    struct Unflatten<'a> {
        flat: &'a [f64],
        offset: usize,
        grads: GradientsParams,
    }
    impl ModuleVisitor for Unflatten<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let value = param.val();
            let shape = value.shape();
            let len = shape.num_elements();
            let slice = &self.flat[self.offset..self.offset + len];
            self.offset += len;
            if value.is_require_grad() {
                let device = value.inner().device();
                let g = Tensor::<D>::from_data(TensorData::new(slice.to_vec(), shape), &device);
                self.grads.register(param.id, g);
            }
        }
    }
    let mut visitor = Unflatten { flat, offset: 0, grads: GradientsParams::new() };
    module.visit(&mut visitor);
    Ok(visitor.grads)
}
