//! [`DeepGp`]: a stack of GP layers (optionally with deterministic layers) and a Gaussian
//! likelihood, trained by maximising the tied-factor approximate-EP energy (Bui et al. 2016).
use std::f64::consts::PI;

use burn::module::Module;
use burn::tensor::Tensor;

use super::activations::GaussianActivations;
use super::block::DeepGpBlock;
use super::factor::{global_terms, FactorTerms, Mode};
use crate::error::{Error, Result};
use crate::models::{check_inputs, check_targets, select_rows, GaussianPredictive};

/// Rows per chunk in [`DeepGp::predict`] (bounds the `[D, B, M, M]` ψ2 temporaries).
const PREDICT_CHUNK: usize = 512;

/// A deep GP regression model: `blocks` applied in order; the last GP layer's noise is the
/// observation noise (`y = h_L`).
///
/// `energy(x_B, y_B) = Σ_layers Σ_d [(1 − N)φ(q) + Nφ(cav) − φ(prior)] + (N/|B|) Σ_{b∈B} log Z_b`,
/// where `log Z_b` is the Gaussian density of `y_b` under the moments obtained by propagating
/// `x_b` through every layer with the cavity (probabilistic backpropagation).
#[derive(Module, Debug)]
pub struct DeepGp {
    /// The stages, input to output.
    pub blocks: Vec<DeepGpBlock>,
    /// Number of training points N.
    pub num_data: usize,
}

/// `log N(y; mean, var)` summed over columns: `[B, D]³ → [B]`.
pub fn gaussian_log_density(y: Tensor<2>, mean: Tensor<2>, var: Tensor<2>) -> Tensor<1> {
    let b = y.dims()[0];
    let per = (var.clone().mul_scalar(2.0 * PI).log() + (y - mean).powi_scalar(2) / var).mul_scalar(-0.5);
    per.sum_dim(1).reshape([b])
}

impl DeepGp {
    /// A model from its blocks; adjacent widths must agree and `num_data ≥ 1`.
    pub fn new(blocks: Vec<DeepGpBlock>, num_data: usize) -> Result<Self> {
        if blocks.is_empty() {
            return Err(Error::invalid("blocks", "a deep GP needs at least one GP layer"));
        }
        if num_data == 0 {
            return Err(Error::invalid("num_data", "must be positive"));
        }
        for (i, pair) in blocks.windows(2).enumerate() {
            if pair[0].output_dim() != pair[1].input_dim() {
                return Err(Error::shape(
                    &format!("DeepGp::new: block {} input width vs block {i} output width", i + 1),
                    pair[0].output_dim(),
                    pair[1].input_dim(),
                ));
            }
        }
        Ok(Self { blocks, num_data })
    }
    /// Input width `D_0`.
    pub fn input_dim(&self) -> usize {
        self.blocks[0].input_dim()
    }
    /// Output width `D_L`.
    pub fn output_dim(&self) -> usize {
        self.blocks[self.blocks.len() - 1].output_dim()
    }
    /// Number of GP layers L.
    pub fn num_layers(&self) -> usize {
        self.blocks.len()
    }

    fn terms(&self, mode: Mode) -> Result<Vec<FactorTerms>> {
        self.blocks.iter().map(|b| b.gp.factor_terms(mode, self.num_data)).collect()
    }

    fn run(&self, x: Tensor<2>, terms: &[FactorTerms]) -> Result<Vec<GaussianActivations>> {
        let mut h = GaussianActivations::deterministic(x);
        let mut out = Vec::with_capacity(self.blocks.len());
        for (block, t) in self.blocks.iter().zip(terms) {
            h = block.forward(&h, t)?;
            out.push(h.clone());
        }
        Ok(out)
    }

    /// The moments `[B, D_l]` after every GP layer for inputs `x` `[B, D_0]`, under the cavity
    /// (`Mode::Cavity`, what log Z uses) or the posterior (`Mode::Posterior`, predictions).
    pub fn propagate(&self, x: Tensor<2>, mode: Mode) -> Result<Vec<GaussianActivations>> {
        check_inputs("DeepGp::propagate", &x, Some(self.input_dim()))?;
        let terms = self.terms(mode)?;
        self.run(x, &terms)
    }

    /// The global (data-independent) part of the energy, summed over all GP functions `[1]`.
    pub fn global_terms(&self) -> Result<Tensor<1>> {
        let mut total: Option<Tensor<1>> = None;
        for b in &self.blocks {
            let g = b.gp.global_terms(self.num_data)?;
            total = Some(match total {
                Some(t) => t + g,
                None => g,
            });
        }
        Ok(total.expect("at least one block"))
    }

    /// `log Z_b` for each row of the batch `[B]`.
    pub fn log_z(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Tensor<1>> {
        let n = check_inputs("DeepGp::log_z", &x, Some(self.input_dim()))?;
        check_targets("DeepGp::log_z", &y, n, self.output_dim())?;
        let out = self.propagate(x, Mode::Cavity)?;
        let last = out.last().expect("at least one block");
        Ok(gaussian_log_density(y, last.mean.clone(), last.var_or_zeros()))
    }

    /// The minibatch approximate-EP energy `F̂` `[1]` (maximise it): the global terms exactly, plus
    /// `N/|B|` times the batch's sum of `log Z_b`. On the full data it is `F`.
    pub fn energy(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Tensor<1>> {
        let b = check_inputs("DeepGp::energy", &x, Some(self.input_dim()))?;
        check_targets("DeepGp::energy", &y, b, self.output_dim())?;
        let mut phi: Option<Tensor<1>> = None;
        let mut cavity = Vec::with_capacity(self.blocks.len());
        for block in &self.blocks {
            let (q, cav) = block.gp.energy_terms(self.num_data)?;
            let g = global_terms(q, &cav, self.num_data);
            phi = Some(match phi {
                Some(p) => p + g,
                None => g,
            });
            cavity.push(cav);
        }
        let out = self.run(x, &cavity)?;
        let last = out.last().expect("at least one block");
        let log_z = gaussian_log_density(y, last.mean.clone(), last.var_or_zeros()).sum().reshape([1]);
        Ok(phi.expect("at least one block") + log_z.mul_scalar(self.num_data as f64 / b as f64))
    }

    /// `−F̂ / N` on rows `idx` of the full training tensors: the loss training minimises.
    pub fn minibatch_loss(&self, x: &Tensor<2>, y: &Tensor<2>, idx: &[usize]) -> Result<Tensor<1>> {
        let f = self.energy(select_rows(x, idx), select_rows(y, idx))?;
        Ok(f.neg().div_scalar(self.num_data as f64))
    }

    /// The predictive distribution of `y` at `x` on the host, as every regression model gives it
    /// (the moments of [`predict_moments`](Self::predict_moments)).
    pub fn predict(&self, x: Tensor<2>) -> Result<GaussianPredictive> {
        let (mean, var) = self.predict_moments(x)?;
        GaussianPredictive::from_tensors(mean, var)
    }

    /// Predictive mean and variance of `y` `[n, D_L]` (observation noise included), by one
    /// deterministic forward pass with the posterior `q(u)`; computed in chunks of rows.
    pub fn predict_moments(&self, x: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        check_inputs("DeepGp::predict", &x, Some(self.input_dim()))?;
        let terms = self.terms(Mode::Posterior)?;
        crate::models::in_row_chunks(&x, PREDICT_CHUNK, |rows| {
            let out = self.run(rows, &terms)?;
            let last = out.last().expect("at least one block");
            Ok((last.mean.clone(), last.var_or_zeros()))
        })
    }

    /// `log p(y_i | x_i, data)` under the Gaussian predictive, per row `[n]`, on the host.
    pub fn predict_log_density(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Vec<f64>> {
        let n = x.dims()[0];
        check_targets("DeepGp::predict_log_density", &y, n, self.output_dim())?;
        let (m, v) = self.predict_moments(x)?;
        Ok(crate::tensors::to_vec(gaussian_log_density(y, m, v)))
    }
}
