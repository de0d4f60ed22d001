//! [`LayerValues`]: host-side values of every parameter of one GP layer, in natural units.
use crate::error::{check_finite, Error, Result};

/// Parameter values of a [`DeepGpLayer`](super::DeepGpLayer), row-major, in natural (constrained) units.
#[derive(Clone, Debug)]
pub struct LayerValues {
    /// Input width `D_in`.
    pub input_dim: usize,
    /// Output width `D_out` (number of GP functions).
    pub output_dim: usize,
    /// Inducing points per function `M`.
    pub num_inducing: usize,
    /// Inducing inputs `[D_out, M, D_in]`.
    pub z: Vec<f64>,
    /// ARD lengthscales `[H, D_in]`, `H = D_out` (per function) or `H = 1` (shared by the layer).
    pub lengthscales: Vec<f64>,
    /// Signal variances `σ_f²` `[H]`.
    pub signal_variance: Vec<f64>,
    /// Noise variance `σ²` of the layer.
    pub noise_variance: f64,
    /// Upper-triangular `R` `[D_out, M, M]` of the tied factor `T1 = RᵀR` (diagonal ≥ 0; lower ignored).
    pub r: Vec<f64>,
    /// Linear natural parameter `t` `[D_out, M]` of the total data contribution.
    pub t: Vec<f64>,
    /// Optional fixed linear mean function weights `[D_in, D_out]`.
    pub mean_weight: Option<Vec<f64>>,
    /// Jitter on the diagonal of `K`.
    pub jitter: f64,
    /// Floor on the noise variance.
    pub noise_floor: f64,
}

impl LayerValues {
    /// Number of kernel-hyperparameter rows `H` (1 or `D_out`).
    pub(crate) fn num_hyper_rows(&self) -> usize {
        self.signal_variance.len()
    }

    /// Checks sizes, finiteness and signs.
    pub fn validate(&self) -> Result<()> {
        let (d, m, din) = (self.output_dim, self.num_inducing, self.input_dim);
        if d == 0 || m == 0 || din == 0 {
            return Err(Error::invalid(
                "LayerValues",
                format!("widths must be positive: D_in {din}, D_out {d}, M {m}"),
            ));
        }
        let h = self.num_hyper_rows();
        if h != 1 && h != d {
            return Err(Error::shape("LayerValues: signal_variance rows (1 or D_out)", d, h));
        }
        let sizes = [
            ("z", self.z.len(), d * m * din),
            ("lengthscales", self.lengthscales.len(), h * din),
            ("r", self.r.len(), d * m * m),
            ("t", self.t.len(), d * m),
        ];
        for (name, got, want) in sizes {
            if got != want {
                return Err(Error::shape(&format!("LayerValues::{name}"), want, got));
            }
        }
        if let Some(w) = &self.mean_weight {
            if w.len() != din * d {
                return Err(Error::shape("LayerValues::mean_weight", din * d, w.len()));
            }
            check_finite("LayerValues::mean_weight", w)?;
        }
        check_finite("LayerValues::z", &self.z)?;
        check_finite("LayerValues::r", &self.r)?;
        check_finite("LayerValues::t", &self.t)?;
        let positive = |name: &str, v: &[f64]| match v.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
            Some(x) => Err(Error::invalid(name, format!("must be positive and finite, got {x}"))),
            None => Ok(()),
        };
        positive("lengthscales", &self.lengthscales)?;
        positive("signal_variance", &self.signal_variance)?;
        positive("noise_variance", &[self.noise_variance])?;
        for f in 0..d {
            for i in 0..m {
                let rii = self.r[(f * m + i) * m + i];
                if rii < 0.0 {
                    return Err(Error::invalid(
                        "r",
                        format!("diagonal must be ≥ 0, got {rii} (function {f}, row {i})"),
                    ));
                }
            }
        }
        crate::error::check_non_negative("jitter", self.jitter)?;
        crate::error::check_non_negative("noise_floor", self.noise_floor)?;
        Ok(())
    }
}
