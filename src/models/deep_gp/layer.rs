//! [`DeepGpLayer`]: one FITC GP layer with an EQ-ARD kernel, `M` inducing points per function and
//! a tied EP factor, with moment propagation Gaussian → Gaussian.
use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};

use super::activations::GaussianActivations;
use super::factor::{
    factor_terms, factor_terms_from, global_terms, log_normaliser_minus_prior, r_k_rt, FactorTerms, Mode,
};
use super::kernel::{eq_cross, eq_kuu};
use super::psi::psi_factors;
use super::values::LayerValues;
use crate::error::{Error, Result};
use crate::linalg::{batched_matmul, exp_bilinear_contract};

/// One GP layer `h_d = f_d(h_in) + ε`, `f_d ~ GP(0, k_d)` EQ-ARD, `ε ~ N(0, σ²)`, `d = 1..D_out`,
/// under FITC with `M` inducing points per function and the tied factor `T1 = RᵀR`, `t`.
///
/// Positive hyperparameters are stored as logs of standard deviations (`ℓ = e^{log_lengthscale}`,
/// `σ_f² = e^{2·log_signal_std}`, `σ² = max(e^{2·log_noise_std}, noise_floor)`), as the paper's code
/// does. Kernel hyperparameters have `H` rows: one per function (`H = D_out`, the paper) or one
/// shared by the layer (`H = 1`).
#[derive(Module, Debug)]
pub struct DeepGpLayer {
    /// Inducing inputs `[D_out, M, D_in]`.
    pub z: Param<Tensor<3>>,
    /// `log ℓ` `[H, D_in]`.
    pub log_lengthscale: Param<Tensor<2>>,
    /// `log σ_f` `[H]`.
    pub log_signal_std: Param<Tensor<1>>,
    /// `log σ` of the layer's noise `[1]`.
    pub log_noise_std: Param<Tensor<1>>,
    /// `R` `[D_out, M, M]`: strict upper triangle free, diagonal stored as `ρ = log R_ii`, lower ignored.
    pub r_raw: Param<Tensor<3>>,
    /// `t`, the linear natural parameter of the total data contribution `[D_out, M]`.
    pub t: Param<Tensor<2>>,
    /// Optional fixed linear mean function `h ↦ h W`, `W` `[D_in, D_out]` (an extension; not the paper).
    pub mean_weight: Option<Param<Tensor<2>>>,
    /// Jitter added to the diagonal of every `K`.
    pub jitter: f64,
    /// Floor on the noise variance σ².
    pub noise_floor: f64,
}

impl DeepGpLayer {
    /// A layer holding the given parameter values.
    pub fn from_values(v: &LayerValues, device: &Device) -> Result<Self> {
        v.validate()?;
        let (d, m, din, h) = (v.output_dim, v.num_inducing, v.input_dim, v.num_hyper_rows());
        let t1 = |x: Vec<f64>, n: usize| Tensor::<1>::from_data(TensorData::new(x, [n]), device);
        let log_ell: Vec<f64> = v.lengthscales.iter().map(|l| l.ln()).collect();
        let log_sf: Vec<f64> = v.signal_variance.iter().map(|s| 0.5 * s.ln()).collect();
        let mut raw = v.r.clone();
        for f in 0..d {
            for i in 0..m {
                for j in 0..i {
                    raw[(f * m + i) * m + j] = 0.0;
                }
                let rii = raw[(f * m + i) * m + i];
                // R_ii = 0 (q = prior) is stored as a ρ whose exponential underflows to exactly 0.
                raw[(f * m + i) * m + i] = if rii > 0.0 { rii.ln() } else { -1000.0 };
            }
        }
        let mean_weight = v.mean_weight.as_ref().map(|w| {
            let t = Tensor::<2>::from_data(TensorData::new(w.clone(), [din, d]), device);
            Param::from_tensor(t).set_require_grad(false)
        });
        Ok(Self {
            z: Param::from_tensor(Tensor::from_data(TensorData::new(v.z.clone(), [d, m, din]), device)),
            log_lengthscale: Param::from_tensor(Tensor::from_data(TensorData::new(log_ell, [h, din]), device)),
            log_signal_std: Param::from_tensor(t1(log_sf, h)),
            log_noise_std: Param::from_tensor(t1(vec![0.5 * v.noise_variance.ln()], 1)),
            r_raw: Param::from_tensor(Tensor::from_data(TensorData::new(raw, [d, m, m]), device)),
            t: Param::from_tensor(Tensor::from_data(TensorData::new(v.t.clone(), [d, m]), device)),
            mean_weight,
            jitter: v.jitter,
            noise_floor: v.noise_floor,
        })
    }

    /// Input width `D_in`.
    pub fn input_dim(&self) -> usize {
        self.z.val().dims()[2]
    }
    /// Output width `D_out` (number of GP functions).
    pub fn output_dim(&self) -> usize {
        self.z.val().dims()[0]
    }
    /// Inducing points per function `M`.
    pub fn num_inducing(&self) -> usize {
        self.z.val().dims()[1]
    }
    /// Squared lengthscales `ℓ²` `[H, D_in]`.
    pub(crate) fn lengthscales_sq(&self) -> Tensor<2> {
        self.log_lengthscale.val().mul_scalar(2.0).exp()
    }
    /// Signal variances `σ_f²` `[H]`.
    pub fn signal_variance(&self) -> Tensor<1> {
        self.log_signal_std.val().mul_scalar(2.0).exp()
    }
    /// Noise variance `σ²` (floored) `[1]`.
    pub fn noise_variance(&self) -> Tensor<1> {
        self.log_noise_std.val().mul_scalar(2.0).exp().clamp_min(self.noise_floor)
    }
    /// `K = k(Z, Z) + jitter·I` per function `[D_out, M, M]`.
    pub fn kuu(&self) -> Tensor<3> {
        eq_kuu(self.z.val(), self.lengthscales_sq(), self.signal_variance(), self.jitter)
    }
    /// The upper-triangular factor `R` of `T1 = RᵀR` `[D_out, M, M]`.
    pub(crate) fn r_factor(&self) -> Tensor<3> {
        let raw = self.r_raw.val();
        let [d, m, _] = raw.dims();
        let eye = Tensor::<2>::eye(m, &raw.device()).reshape([1, m, m]);
        let rho = (raw.clone() * eye.clone()).sum_dim(2); // [D, M, 1]
        raw.triu(1) + eye.expand([d, m, m]) * rho.exp()
    }
    /// `t` as column vectors `[D_out, M, 1]`.
    fn t_col(&self) -> Tensor<3> {
        let [d, m] = self.t.val().dims();
        self.t.val().reshape([d, m, 1])
    }
    /// The factor terms of `q` (γ = 1) or the cavity (γ = β).
    pub fn factor_terms(&self, mode: Mode, num_data: usize) -> Result<FactorTerms> {
        factor_terms(self.kuu(), self.r_factor(), self.t_col(), mode.gamma(num_data))
    }
    /// `φ(q) − ½log|K|` per function `[D_out]` and the cavity's factor terms, sharing `K`, `R` and
    /// `R K Rᵀ`: what one energy evaluation needs of this layer.
    pub(crate) fn energy_terms(&self, num_data: usize) -> Result<(Tensor<1>, FactorTerms)> {
        let (k, r, t) = (self.kuu(), self.r_factor(), self.t_col());
        let rkr = r_k_rt(k.clone(), r.clone())?;
        let q = log_normaliser_minus_prior(k.clone(), r.clone(), rkr.clone(), t.clone(), 1.0)?;
        let cav = factor_terms_from(k, r, rkr, t, Mode::Cavity.gamma(num_data))?;
        Ok((q, cav))
    }
    /// This layer's global energy terms `Σ_d [(1 − N) φ(q) + N φ(cav) − φ(prior)]` `[1]`.
    pub fn global_terms(&self, num_data: usize) -> Result<Tensor<1>> {
        let (q, cav) = self.energy_terms(num_data)?;
        Ok(global_terms(q, &cav, num_data))
    }

    /// Output moments `N(mean, diag(var))` `[B, D_out]` of the layer for Gaussian (or deterministic)
    /// inputs, with the inducing outputs marginalised under the distribution described by `terms`.
    ///
    /// Deterministic input: `m = k_xᵀA`, `v = σ² + [σ_f² − ‖W k_x‖²]₊`. Gaussian input:
    /// `m = ψ1ᵀA`, `v = σ² + [σ_f² − ⟨WᵀW, ψ2⟩]₊ + [Aᵀψ2A − m²]₊`. A linear mean function adds
    /// `μW` to the mean and `s(W∘W)` to the variance (its covariance with `f` is ignored).
    pub fn propagate(&self, input: &GaussianActivations, terms: &FactorTerms) -> Result<GaussianActivations> {
        let (d, din) = (self.output_dim(), self.input_dim());
        if input.width() != din {
            return Err(Error::shape("DeepGpLayer::propagate: input width", din, input.width()));
        }
        let b = input.rows();
        let h = self.log_signal_std.val().dims()[0];
        let ell2 = self.lengthscales_sq();
        let sf2 = self.signal_variance();
        let sf2_col = sf2.clone().reshape([h, 1, 1]);
        let sn2 = self.noise_variance().reshape([1, 1, 1]);
        let (mean, var) = match &input.var {
            None => {
                let kx = eq_cross(input.mean.clone(), self.z.val(), ell2, sf2); // [D, B, M]
                let mean = kx.clone().matmul(terms.a.clone()); // [D, B, 1]
                let wk = batched_matmul(kx, terms.w.clone(), false, true)?; // [D, B, M]
                let quad = wk.powi_scalar(2).sum_dim(2);
                let var = sn2 + (sf2_col - quad).clamp_min(0.0);
                (mean, var)
            }
            Some(s) => {
                let (psi1, [u, v]) = psi_factors(input.mean.clone(), s.clone(), self.z.val(), ell2, sf2);
                let mean = psi1.matmul(terms.a.clone()); // [D, B, 1]
                let aat = terms.a.clone().matmul(terms.a.clone().swap_dims(1, 2));
                let weights = Tensor::stack::<4>(vec![terms.wtw()?, aat], 1); // [D, 2, M, M]
                let contractions = exp_bilinear_contract(u, v, weights)?; // [D, B, 2]: ⟨ψ2, WᵀW⟩, Aᵀψ2A
                let tr_wtw = contractions.clone().narrow(2, 0, 1);
                let a_psi_a = contractions.narrow(2, 1, 1);
                let var =
                    sn2 + (sf2_col - tr_wtw).clamp_min(0.0) + (a_psi_a - mean.clone().powi_scalar(2)).clamp_min(0.0);
                (mean, var)
            }
        };
        let mut mean = mean.reshape([d, b]).transpose();
        let mut var = var.reshape([d, b]).transpose();
        if let Some(w) = &self.mean_weight {
            let w = w.val();
            mean = mean + input.mean.clone().matmul(w.clone());
            if let Some(s) = &input.var {
                var = var + s.clone().matmul(w.powi_scalar(2));
            }
        }
        Ok(GaussianActivations::gaussian(mean, var))
    }
}
