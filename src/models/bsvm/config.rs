//! Configuration and initialisation of Bayesian SVMs with an ARD RBF kernel.
use burn::config::Config;
use burn::tensor::{Device, Tensor};

use super::{check_labels, BayesianSvm, OneVsRestBsvm};
use crate::inducing::{InducingInit, InducingPoints};
use crate::kernels::Rbf;
use crate::likelihoods::{BinaryHinge, MultiClassHinge};
use crate::models::placement::{jitter_or_default, rbf_and_inducing};
use crate::models::SvgpConfig;

/// `crate::Result` under another name: Burn's `Config` derive needs `Result` to be std's.
type GpResult<T> = crate::error::Result<T>;

/// Settings of a Bayesian SVM with an ARD RBF kernel; defaults as in `docs/papers/003-bayesian-svm.md`
/// (section "Defaults").
#[derive(Config, Debug)]
pub struct BayesianSvmConfig {
    /// Number of classes C (≥ 2).
    pub num_classes: usize,
    /// Number of inducing points P (64 in the paper).
    #[config(default = 64)]
    pub num_inducing: usize,
    /// Placement of the inducing inputs.
    #[config(default = "InducingInit::KMeans")]
    pub inducing_init: InducingInit,
    /// Initial diagonal of the whitened `R_j` (1 = the prior, for tabular data; 0.1 for network heads).
    #[config(default = 1.0)]
    pub q_sqrt_init: f64,
    /// Standard deviation of the random initial whitened means (breaks ties between classes).
    #[config(default = 1e-3)]
    pub q_mu_init_std: f64,
    /// Jitter on `K_ZZ` relative to σ² = 1; `None` picks 1e-6 in f64 and 1e-4 in f32.
    pub jitter: Option<f64>,
    /// Seed of the inducing-point placement and the initial means.
    #[config(default = 0)]
    pub seed: u64,
}

impl BayesianSvmConfig {
    /// The tabular defaults of the paper (P = 64, q at the prior).
    pub fn tabular(num_classes: usize) -> Self {
        Self::new(num_classes)
    }
    /// The jitter on `K_ZZ` this configuration uses on `device` (`jitter`, else 1e-6 in f64 and
    /// 1e-4 in f32).
    pub fn jitter_for(&self, device: &Device) -> f64 {
        jitter_or_default(self.jitter, device)
    }

    /// ARD RBF kernel (σ² = 1, every lengthscale the median pairwise distance) and inducing points
    /// placed on the rows of `x` `[n, d]`.
    pub fn kernel_and_inducing(
        &self,
        x: &[f64],
        n: usize,
        d: usize,
        device: &Device,
    ) -> GpResult<(Rbf, InducingPoints)> {
        rbf_and_inducing(x, (n, d), self.num_inducing, (self.inducing_init, 1.0), self.seed, device)
    }

    fn svgp_config(&self, num_latent: usize, num_data: usize, device: &Device) -> SvgpConfig {
        SvgpConfig::new(num_data)
            .with_num_latent(num_latent)
            .with_jitter(self.jitter_for(device))
            .with_q_sqrt_init(self.q_sqrt_init)
            .with_q_mu_init_std(self.q_mu_init_std)
            .with_seed(self.seed)
    }

    /// A multi-class Bayesian SVM initialised on the training inputs `x` `[n, d]` (on the device
    /// it trains on, as [`fit`](crate::models::Svgp::fit) takes them) with class `labels`: the
    /// lengthscale and the inducing points are placed on the rows of `x`.
    pub fn init(&self, x: &Tensor<2>, labels: &[usize]) -> GpResult<BayesianSvm<Rbf>> {
        let ([_, d], device) = (x.dims(), x.device());
        self.init_on_rows(&crate::tensors::to_vec(x.clone()), labels, d, &device)
    }

    /// [`Self::init`] from host rows `x` `[n, d]` row-major.
    fn init_on_rows(&self, x: &[f64], labels: &[usize], d: usize, device: &Device) -> GpResult<BayesianSvm<Rbf>> {
        let n = check_labels(labels, self.num_classes)?;
        let (kernel, inducing) = self.kernel_and_inducing(x, n, d, device)?;
        self.svgp_config(self.num_classes, n, device).init(kernel, inducing, MultiClassHinge::default(), device)
    }

    /// C binary Bayesian SVMs, one per class against the rest, each with its own kernel and inducing
    /// points (placed with seed `seed + c` on the rows of `x` `[n, d]`).
    pub fn init_one_vs_rest(&self, x: &Tensor<2>, labels: &[usize]) -> GpResult<OneVsRestBsvm<Rbf>> {
        let ([_, d], device) = (x.dims(), x.device());
        let x = crate::tensors::to_vec(x.clone());
        let (x, device) = (&x[..], &device);
        let n = check_labels(labels, self.num_classes)?;
        let models = (0..self.num_classes)
            .map(|c| {
                let cfg = Self { seed: self.seed + c as u64, ..self.clone() };
                let (kernel, inducing) = cfg.kernel_and_inducing(x, n, d, device)?;
                cfg.svgp_config(1, n, device).init(kernel, inducing, BinaryHinge::default(), device)
            })
            .collect::<GpResult<Vec<_>>>()?;
        Ok(OneVsRestBsvm { models })
    }
}
