//! Divergence is reported, not trained on (issue 95, item 4): a non-finite objective or parameter
//! stops every training loop with [`Error::NonFinite`] naming the step, the epoch and the first
//! parameter (by its module path and flat index) that holds a NaN or an infinity.
use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::Tensor;

use super::StepIndex;
use crate::error::Error;

/// Collects every float parameter (or its gradient) flattened, with its module path.
struct Collect<'a> {
    path: Vec<String>,
    grads: Option<&'a GradientsParams>,
    out: Vec<(String, Tensor<1>)>,
}

impl ModuleVisitor for Collect<'_> {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_string());
    }
    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = match self.grads {
            Some(g) => g.get::<D>(param.id),
            None => Some(param.val()),
        };
        if let Some(t) = t {
            let n = t.shape().num_elements();
            self.out.push((self.path.join("."), t.reshape([n])));
        }
    }
}

/// Reads the collected tensors in one transfer; the path and flat index of the first non-finite value.
fn first_non_finite(items: Vec<(String, Tensor<1>)>) -> Option<(String, usize)> {
    if items.is_empty() {
        return None;
    }
    let lens: Vec<usize> = items.iter().map(|(_, t)| t.dims()[0]).collect();
    let names: Vec<String> = items.iter().map(|(n, _)| n.clone()).collect();
    let all = Tensor::cat(items.into_iter().map(|(_, t)| t.detach()).collect(), 0);
    let values = crate::tensors::to_vec(all);
    let bad = values.iter().position(|v| !v.is_finite())?;
    let mut offset = 0;
    for (name, len) in names.into_iter().zip(lens) {
        if bad < offset + len {
            return Some((name, bad - offset));
        }
        offset += len;
    }
    None
}

/// The module path (e.g. `blocks.1.gp.log_noise_std`) and flat index of the first parameter value
/// of `model` that is NaN or infinite.
pub(crate) fn first_non_finite_parameter<M: Module>(model: &M) -> Option<(String, usize)> {
    let mut c = Collect { path: Vec::new(), grads: None, out: Vec::new() };
    model.visit(&mut c);
    first_non_finite(c.out)
}

/// The module path and flat index of the first gradient value in `grads` of a parameter of
/// `model` that is NaN or infinite.
pub(crate) fn first_non_finite_gradient<M: Module>(model: &M, grads: &GradientsParams) -> Option<(String, usize)> {
    let mut c = Collect { path: Vec::new(), grads: Some(grads), out: Vec::new() };
    model.visit(&mut c);
    first_non_finite(c.out)
}

/// Which parameter of `model` is not finite, for an error message.
pub(crate) fn parameter_note<M: Module>(model: &M) -> String {
    match first_non_finite_parameter(model) {
        Some((name, i)) => format!("parameter {name}[{i}] is not finite"),
        None => "all parameters are finite (the objective overflowed; try a smaller lr or more jitter)".to_string(),
    }
}

/// The error for an objective (`label`) that became `value` at step `at` of a model whose
/// parameters before the step were `model`'s.
pub(crate) fn non_finite_objective<M: Module>(model: &M, label: &str, value: f64, at: StepIndex) -> Error {
    Error::NonFinite {
        context: format!("{label} became {value} at step {} (epoch {}); {}", at.step, at.epoch, parameter_note(model)),
        index: at.step,
    }
}

/// `Ok` if every parameter of `model` is finite after the step `at`, else the error naming the
/// first one that is not.
pub(crate) fn check_parameters<M: Module>(model: &M, at: StepIndex) -> crate::Result<()> {
    match first_non_finite_parameter(model) {
        Some((name, index)) => Err(Error::NonFinite {
            context: format!("parameter {name} is not finite after step {} (epoch {})", at.step, at.epoch),
            index,
        }),
        None => Ok(()),
    }
}
