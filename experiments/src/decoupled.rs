//! Model plumbing shared by the `odvgp_regression` and `odvgp_synthetic` examples: the paper's
//! methods (ODVFF, ODVGP, SVGP, SGPR) built from one additive Matérn prior, trained for a number
//! of iterations, and evaluated by test log-likelihood, RMSE and 95% coverage.
use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::inducing::fourier::num_freq_for_budget;
use burn_gp::inducing::{inducing_kmeans, FourierFeatures, InducingPoints, InducingVariables};
use burn_gp::kernels::{AdditiveMatern, MaternNu};
use burn_gp::likelihoods::Gaussian;
use burn_gp::models::{fit_decoupled, DecoupledGp, DecoupledGpConfig, Sgpr, Svgp, SvgpConfig};
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::{fit, CheckpointConfig, History, TrainConfig};
use burn_gp::{Error, Result};

/// Rows per prediction chunk.
const PREDICT_CHUNK: usize = 1024;

/// The methods of the paper's tables.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Orthogonally decoupled variational Fourier features: γ points for the mean, |β| Fourier
    /// features for the covariance (natural gradients on the β-block).
    Odvff,
    /// Orthogonally decoupled GP with |γ| and |β| inducing points (natural gradients on β).
    Odvgp,
    /// Whitened SVGP with |γ| + |β| inducing points, Adam on everything.
    Svgp,
    /// Titsias' collapsed bound with |γ| + |β| inducing points, full batch (Adam).
    Sgpr,
}

impl Method {
    /// The name in result tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Odvff => "odvff",
            Self::Odvgp => "odvgp",
            Self::Svgp => "svgp",
            Self::Sgpr => "sgpr",
        }
    }
}

/// Standardised training and test data.
pub struct Prepared {
    /// Training inputs, row-major `[n, d]`.
    pub x_train: Vec<f64>,
    /// Training targets `[n]`.
    pub y_train: Vec<f64>,
    /// Test inputs `[n_test, d]`.
    pub x_test: Vec<f64>,
    /// Test targets `[n_test]` (same units as the training targets).
    pub y_test: Vec<f64>,
    /// Training rows.
    pub n: usize,
    /// Test rows.
    pub n_test: usize,
    /// Input columns.
    pub d: usize,
}

/// What every method is given.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Mean-basis points |γ|.
    pub gamma: usize,
    /// Covariance-basis size |β| (Fourier features or points).
    pub beta: usize,
    /// `|β|` counts Fourier features per input dimension (else in total).
    pub beta_per_dim: bool,
    /// Matérn smoothness.
    pub nu: MaternNu,
    /// Initial lengthscale of every dimension (also sets the Fourier interval's margin, 3ℓ₀).
    pub lengthscale: f64,
    /// Optimisation steps (rounded up to whole epochs).
    pub iterations: usize,
    /// Minibatch size.
    pub batch: usize,
    /// Adam learning rate.
    pub lr: f64,
    /// Natural-gradient step size for the β-block.
    pub rho: f64,
    /// Adam steps of the full-batch SGPR.
    pub sgpr_iterations: usize,
    /// Seed (k-means, minibatches).
    pub seed: u64,
    /// Show progress bars.
    pub progress: bool,
    /// Evaluate on the test set every this many epochs (0: only after the last).
    pub eval_every: usize,
    /// Checkpoints of the run (`--checkpoint-dir`, a folder of its own per run).
    pub checkpoint: Option<CheckpointConfig>,
}

/// A trained method's test predictions and cost.
pub struct Outcome {
    /// Predictive means of the test targets.
    pub mean: Vec<f64>,
    /// Predictive variances of the test targets (latent variance + noise).
    pub var: Vec<f64>,
    /// Seconds of optimisation (evaluation excluded).
    pub train_s: f64,
    /// Optimisation steps taken.
    pub iterations: usize,
    /// Number of Fourier frequencies per dimension (ODVFF).
    pub num_freq: Option<usize>,
    /// The training curve.
    pub history: History,
}

/// Test metrics of an [`Outcome`].
#[derive(Clone, Copy, Debug)]
pub struct Scores {
    /// Mean test log-likelihood per point.
    pub test_ll: f64,
    /// Root-mean-square error.
    pub rmse: f64,
    /// Fraction of test targets inside μ ± 1.96σ.
    pub coverage: f64,
}

/// Log-likelihood, RMSE and 95% coverage of Gaussian predictions.
pub fn scores(mean: &[f64], var: &[f64], y: &[f64]) -> Result<Scores> {
    let test_ll = burn_gp::metrics::gaussian_log_likelihood(mean, var, y)?;
    let rmse = burn_gp::metrics::rmse(mean, y)?;
    let inside = mean.iter().zip(var).zip(y).filter(|((m, v), t)| (*t - *m).abs() <= 1.96 * v.sqrt()).count();
    Ok(Scores { test_ll, rmse, coverage: inside as f64 / y.len() as f64 })
}

fn train_config(s: &Settings, n: usize, batch: usize, iterations: usize) -> (TrainConfig, usize) {
    let batch = batch.min(n);
    let per_epoch = n.div_ceil(batch);
    let epochs = iterations.div_ceil(per_epoch).max(1);
    (
        TrainConfig {
            epochs,
            batch_size: batch,
            lr: s.lr,
            seed: s.seed,
            progress: s.progress,
            checkpoint: s.checkpoint.clone(),
            ..Default::default()
        },
        epochs * per_epoch,
    )
}

/// Training tensors, the test set and the schedule.
struct Context<'a> {
    xt: Tensor<2>,
    yt: Tensor<2>,
    x_eval: Tensor<2>,
    y_test: &'a [f64],
    config: TrainConfig,
    eval_every: usize,
}

impl Context<'_> {
    /// Test metrics after this epoch? (every `eval_every` epochs and after the last).
    fn due(&self, epoch: usize) -> bool {
        epoch == self.config.epochs || (self.eval_every > 0 && epoch.is_multiple_of(self.eval_every))
    }
    fn metrics(&self, (m, v): (Tensor<2>, Tensor<2>)) -> Result<Vec<(String, f64)>> {
        let sc = scores(&to_vec(m), &to_vec(v), self.y_test)?;
        Ok(vec![("test_ll".into(), sc.test_ll), ("rmse".into(), sc.rmse)])
    }
    /// Latent predictions plus the noise variance: `(mean, var)` of the test targets.
    fn with_noise((m, v): (Tensor<2>, Tensor<2>), noise: &Gaussian) -> (Vec<f64>, Vec<f64>) {
        let s2 = noise.variance.to_vec()[0];
        (to_vec(m), to_vec(v).iter().map(|v| v + s2).collect())
    }
}

type Fitted = (Vec<f64>, Vec<f64>, History);

/// Trains a decoupled model (Adam + natural gradients) and predicts the test set.
fn fit_decoupled_model<I: InducingVariables<AdditiveMatern>>(
    model: DecoupledGp<AdditiveMatern, I, Gaussian>,
    ctx: &Context,
    rho: f64,
) -> Result<Fitted> {
    let eval = |m: &DecoupledGp<AdditiveMatern, I, Gaussian>, epoch: usize| {
        if !ctx.due(epoch) {
            return Ok(vec![]);
        }
        ctx.metrics(m.predict_y(ctx.x_eval.clone())?)
    };
    let (model, history) = fit_decoupled(model, &ctx.xt, &ctx.yt, &ctx.config, rho, eval)?;
    let model = model.valid();
    let (m, v) = Context::with_noise(model.predict_f_chunked(ctx.x_eval.clone(), PREDICT_CHUNK)?, &model.likelihood);
    Ok((m, v, history))
}

/// Trains the whitened SVGP by Adam and predicts the test set.
fn fit_svgp(model: Svgp<AdditiveMatern, InducingPoints, Gaussian>, ctx: &Context) -> Result<Fitted> {
    let eval = |m: &Svgp<AdditiveMatern, InducingPoints, Gaussian>, epoch: usize| {
        if !ctx.due(epoch) {
            return Ok(vec![]);
        }
        ctx.metrics(m.predict_y(ctx.x_eval.clone())?)
    };
    let (model, history) =
        fit(model, ctx.xt.dims()[0], &ctx.config, |m, idx| m.minibatch_loss(&ctx.xt, &ctx.yt, idx), eval)?;
    let model = model.valid();
    let (m, v) = Context::with_noise(model.predict_f_chunked(ctx.x_eval.clone(), PREDICT_CHUNK)?, &model.likelihood);
    Ok((m, v, history))
}

/// Trains SGPR full batch by Adam (one step per epoch) and predicts the test set.
fn fit_sgpr(model: Sgpr<AdditiveMatern, InducingPoints>, ctx: &Context) -> Result<Fitted> {
    let n = ctx.xt.dims()[0];
    let eval = |m: &Sgpr<AdditiveMatern, InducingPoints>, epoch: usize| {
        if !ctx.due(epoch) {
            return Ok(vec![]);
        }
        ctx.metrics(m.predict_y(ctx.x_eval.clone())?)
    };
    let (model, history) = fit(model, n, &ctx.config, |m, _| Ok(m.elbo()?.neg().div_scalar(n as f64)), eval)?;
    let model = model.valid();
    let (m, v) = model.predict_y(ctx.x_eval.clone())?;
    Ok((to_vec(m), to_vec(v), history))
}

/// Trains `method` on `data` and predicts the test targets.
pub fn run_method(method: Method, data: &Prepared, s: &Settings, base: &Device, dev: &Device) -> Result<Outcome> {
    let (n, d) = (data.n, data.d);
    if s.gamma + s.beta == 0 {
        return Err(Error::invalid("|γ| + |β|", "needs at least one inducing variable"));
    }
    let (config, iterations) = match method {
        Method::Sgpr => train_config(s, n, n, s.sgpr_iterations),
        _ => train_config(s, n, s.batch, s.iterations),
    };
    let ctx = Context {
        xt: matrix(data.x_train.clone(), n, d, dev)?,
        yt: matrix(data.y_train.clone(), n, 1, dev)?,
        x_eval: matrix(data.x_test.clone(), data.n_test, d, base)?,
        y_test: &data.y_test,
        config,
        eval_every: s.eval_every,
    };
    let kernel = AdditiveMatern::isotropic(s.nu, d, s.lengthscale, 1.0, dev)?;
    let noise = Gaussian::new(0.1, dev)?;
    let kmeans = |m: usize, seed: u64| -> Result<InducingPoints> {
        InducingPoints::new(&inducing_kmeans(&data.x_train, n, d, m, 25, seed)?, m, d, dev)
    };
    let mean_points = || (s.gamma > 0).then(|| kmeans(s.gamma, s.seed)).transpose();
    let mut num_freq = None;
    let (mean, var, history) = match method {
        Method::Odvff => {
            let f = num_freq_for_budget(s.beta, d, s.beta_per_dim)?;
            num_freq = Some(f);
            // the box covers training and test inputs, with ≥ 3 lengthscales of margin
            let mut x_all = data.x_train.clone();
            x_all.extend_from_slice(&data.x_test);
            let features = FourierFeatures::for_data(&kernel, &x_all, n + data.n_test, f, None)?;
            let model = DecoupledGpConfig::new(n).init(kernel, mean_points()?, features, noise, dev)?;
            fit_decoupled_model(model, &ctx, s.rho)?
        }
        Method::Odvgp => {
            let beta = kmeans(s.beta, s.seed + 1)?;
            let model = DecoupledGpConfig::new(n).with_jitter(1e-6).init(kernel, mean_points()?, beta, noise, dev)?;
            fit_decoupled_model(model, &ctx, s.rho)?
        }
        Method::Svgp => {
            fit_svgp(SvgpConfig::new(n).init(kernel, kmeans(s.gamma + s.beta, s.seed)?, noise, dev)?, &ctx)?
        }
        Method::Sgpr => {
            let z = kmeans(s.gamma + s.beta, s.seed)?;
            fit_sgpr(Sgpr::new(kernel, z, noise, ctx.xt.clone(), ctx.yt.clone(), 1e-6)?, &ctx)?
        }
    };
    let train_s = history.records.iter().map(|r| r.epoch_s).sum();
    Ok(Outcome { mean, var, train_s, iterations, num_freq, history })
}
