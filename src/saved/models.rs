//! [`Blueprint`]s and [`SavedModel`]s of the models.
use std::path::Path;

use burn::nn::LinearConfig;
use burn::tensor::{Device, Tensor};
use faer::Mat;

use super::pieces::inducing_count;
use super::{budget, file, Blueprint, SavedModel, Spec};
use crate::error::{Error, Result};
use crate::inducing::{InducingPoints, InducingVariables};
use crate::kernels::Kernel;
use crate::likelihoods::{Gaussian, Likelihood};
use crate::models::decoupled::InitialCovariance;
use crate::models::deep_gp::{DeepGpBlock, DeepGpLayer, LayerValues, MomentLinear};
use crate::models::ep::{EpSites, EpState, WhitenedPosterior};
use crate::models::{
    DecoupledGp, DecoupledGpConfig, DeepGp, EpGpClassifier, ExactGpr, FullEpClassifier, OneVsRestBsvm, Sgpr, SkewGp,
    SkewGpPosterior, Svgp, SvgpConfig,
};
use crate::tensors::{matrix, to_vec};

/// The number of values of shape `dims` that a description says it holds (nothing is allocated:
/// the values are in the description already); a product that overflows or exceeds
/// [`budget::MAX_CELLS`] is an error.
fn checked_cells(dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&c| c <= budget::MAX_CELLS)
        .ok_or_else(|| Error::invalid("model file", format!("implausible shape {dims:?}")))
}

impl<K, I, L> Blueprint for Svgp<K, I, L>
where
    K: Kernel + Blueprint,
    I: InducingVariables<K> + Blueprint,
    L: Likelihood + Blueprint,
{
    /// `Svgp` with `[latent GPs, training points]`, the jitter, and kernel, inducing variables
    /// (points or Fourier features) and likelihood.
    fn describe(&self) -> Spec {
        Spec::new("Svgp")
            .sizes(&[self.num_latent(), self.num_data])
            .values(&[self.jitter])
            .part(self.kernel.describe())
            .part(self.inducing.describe())
            .part(self.likelihood.describe())
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Svgp", Some(2), Some(1), Some(3))?;
        let inducing = I::rebuild(&spec.parts[1], device)?;
        let m = inducing.num_inducing();
        // q(u): the means and the covariance factors.
        budget::cells(&[spec.sizes[0], m])?;
        budget::cells(&[spec.sizes[0], m, m])?;
        SvgpConfig::new(spec.sizes[1]).with_num_latent(spec.sizes[0]).with_jitter(spec.values[0]).init(
            K::rebuild(&spec.parts[0], device)?,
            inducing,
            L::rebuild(&spec.parts[2], device)?,
            device,
        )
    }
}

impl<K: Kernel + Blueprint> Blueprint for OneVsRestBsvm<K> {
    /// `OneVsRestBsvm` with one binary model per class.
    fn describe(&self) -> Spec {
        self.models.iter().fold(Spec::new("OneVsRestBsvm"), |spec, m| spec.part(m.describe()))
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("OneVsRestBsvm", Some(0), Some(0), None)?;
        if spec.parts.len() < 2 {
            return Err(Error::invalid("model file", "a one-vs-rest model needs at least two classes"));
        }
        let models = spec.parts.iter().map(|p| Blueprint::rebuild(p, device)).collect::<Result<_>>()?;
        Ok(Self { models })
    }
}

impl Blueprint for DeepGpLayer {
    /// `DeepGpLayer` with `[D_out, M, D_in, H, has mean function]` and `[jitter, noise floor]`.
    fn describe(&self) -> Spec {
        let h = self.log_signal_std.val().dims()[0];
        let sizes =
            [self.output_dim(), self.num_inducing(), self.input_dim(), h, usize::from(self.mean_weight.is_some())];
        Spec::new("DeepGpLayer").sizes(&sizes).values(&[self.jitter, self.noise_floor])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("DeepGpLayer", Some(5), Some(2), Some(0))?;
        let [d, m, din, h, mean] = [spec.sizes[0], spec.sizes[1], spec.sizes[2], spec.sizes[3], spec.sizes[4]];
        for dims in [&[d, m, m][..], &[d, m, din], &[h, din], &[h], &[d, m], &[din, d * mean.min(1)]] {
            budget::cells(dims)?;
        }
        let mut r = vec![0.0; d * m * m];
        (0..d * m).for_each(|k| r[k * m + k % m] = 1.0);
        let values = LayerValues {
            input_dim: din,
            output_dim: d,
            num_inducing: m,
            z: vec![0.0; d * m * din],
            lengthscales: vec![1.0; h * din],
            signal_variance: vec![1.0; h],
            noise_variance: 1.0,
            r,
            t: vec![0.0; d * m],
            mean_weight: (mean == 1).then(|| vec![0.0; din * d]),
            jitter: spec.values[0],
            noise_floor: spec.values[1],
        };
        DeepGpLayer::from_values(&values, device)
    }
}

impl Blueprint for DeepGpBlock {
    /// `DeepGpBlock`: the GP layer, after the deterministic layer's `[in, out, has bias]` if any.
    fn describe(&self) -> Spec {
        let spec = Spec::new("DeepGpBlock").part(self.gp.describe());
        match &self.linear {
            Some(lin) => {
                let [din, dout] = lin.linear.weight.val().dims();
                spec.sizes(&[din, dout, usize::from(lin.linear.bias.is_some())])
            }
            None => spec,
        }
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("DeepGpBlock", None, Some(0), Some(1))?;
        let gp = DeepGpLayer::rebuild(&spec.parts[0], device)?;
        match spec.sizes[..] {
            [] => Ok(Self::gp(gp)),
            [din, dout, bias] => {
                budget::cells(&[din + 1, dout])?;
                let linear = LinearConfig::new(din, dout).with_bias(bias == 1).init(device);
                Self::with_linear(MomentLinear::new(linear), gp)
            }
            _ => Err(Error::invalid("model file", "a deep GP block has 0 or 3 sizes")),
        }
    }
}

impl Blueprint for DeepGp {
    /// `DeepGp` with the training-set size and its blocks.
    fn describe(&self) -> Spec {
        self.blocks.iter().fold(Spec::new("DeepGp").sizes(&[self.num_data]), |spec, b| spec.part(b.describe()))
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("DeepGp", Some(1), Some(0), None)?;
        let blocks = spec.parts.iter().map(|p| DeepGpBlock::rebuild(p, device)).collect::<Result<_>>()?;
        DeepGp::new(blocks, spec.sizes[0])
    }
}

impl<K: Kernel + Blueprint> SavedModel for EpGpClassifier<K> {
    /// Writes the classifier (jitter, kernel, inducing points, `log σ0²`) and, after a fit, `q(u)`
    /// (`L_B`, `β`), the sites, `log Z_q` and the skipped count; the minibatch directions are not
    /// kept.
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let parts = Spec::new("EpGpClassifierParts")
            .values(&[self.jitter])
            .part(self.kernel.describe())
            .part(self.inducing.describe());
        let spec = match (self.posterior(), self.ep_state()) {
            (Some(q), Some(state)) => {
                let m = q.beta.len();
                let n = state.sites.nu.len();
                let lb = (0..m * m).map(|k| q.lb[(k / m, k % m)]);
                let values: Vec<f64> = q
                    .beta
                    .iter()
                    .copied()
                    .chain(lb)
                    .chain(state.sites.nu.iter().copied())
                    .chain(state.sites.mu.iter().copied())
                    .chain([self.log_marginal_likelihood().unwrap_or(f64::NAN), state.skipped as f64])
                    .collect();
                Spec::new("EpGpClassifier").sizes(&[m, n]).values(&values)
            }
            _ => Spec::new("EpGpClassifier").sizes(&[self.num_inducing(), 0]),
        };
        file::write(path.as_ref(), &spec.part(parts), self.clone())
    }
    fn load(path: impl AsRef<Path>, device: &Device) -> Result<Self> {
        let path = path.as_ref();
        let weights = file::read(path)?;
        let skeleton = |spec: &Spec| -> Result<_> {
            spec.expect("EpGpClassifier", Some(2), None, Some(1))?;
            let (m, n) = (spec.sizes[0], spec.sizes[1]);
            let want = if n == 0 { Some(0) } else { checked_cells(&[m, m])?.checked_add(m + 2 * n + 2) };
            if want != Some(spec.values.len()) {
                return Err(Error::shape(
                    "EpGpClassifier values (β, L_B, ν̃, μ̃, log Z, skipped)",
                    want,
                    spec.values.len(),
                ));
            }
            let parts = &spec.parts[0];
            parts.expect("EpGpClassifierParts", Some(0), Some(1), Some(2))?;
            let kernel = K::rebuild(&parts.parts[0], device)?;
            let inducing = InducingPoints::rebuild(&parts.parts[1], device)?;
            let model = EpGpClassifier::new(kernel, inducing, 1.0, parts.values[0], device)?;
            if model.num_inducing() != m {
                return Err(Error::shape("EpGpClassifier: q(u) size vs inducing points", model.num_inducing(), m));
            }
            Ok((model, m, n))
        };
        let (model, m, n) = weights.rebuild(skeleton).map_err(|e| file::mismatch(path, e))?;
        let (model, spec) = weights.fill(path, model)?;
        if n == 0 {
            return Ok(model);
        }
        let v = &spec.values;
        let beta = v[..m].to_vec();
        let lb = Mat::from_fn(m, m, |i, j| v[m + i * m + j]);
        let sites = &v[m + m * m..];
        let mut state = EpState::new(n, m, false);
        state.sites.nu = sites[..n].to_vec();
        state.sites.mu = sites[n..2 * n].to_vec();
        state.skipped = sites[2 * n + 1] as usize;
        let log_z = sites[2 * n];
        Ok(model.with_fitted(state, WhitenedPosterior { lb, beta }, log_z.is_finite().then_some(log_z)))
    }
}

/// The description of a skew-GP prior: `SkewGp` with `[s, p]`, the phases then the jitter,
/// and the kernel.
fn describe_skew_prior<K: Kernel + Blueprint>(model: &SkewGp<K>) -> Spec {
    let p = model.pseudo_points.as_ref().map_or(0, |r| r.val().dims()[1]);
    let values: Vec<f64> = model.phases.iter().copied().chain([model.jitter]).collect();
    Spec::new("SkewGp").sizes(&[model.phases.len(), p]).values(&values).part(model.kernel.describe())
}

/// An untrained skew-GP prior of [`describe_skew_prior`]'s description.
fn rebuild_skew_prior<K: Kernel + Blueprint>(spec: &Spec, device: &Device) -> Result<SkewGp<K>> {
    spec.expect("SkewGp", Some(2), None, Some(1))?;
    let (s, p) = (spec.sizes[0], spec.sizes[1]);
    if spec.values.len() != s + 1 {
        return Err(Error::shape("SkewGp values (phases, jitter)", s + 1, spec.values.len()));
    }
    budget::cells(&[s])?;
    let pseudo = vec![0.0; budget::cells(&[s, p])?];
    let kernel = K::rebuild(&spec.parts[0], device)?;
    SkewGp::new(kernel, &pseudo, &spec.values[..s], &vec![0.0; s], spec.values[s], device)
}

impl<K: Kernel + Blueprint> SavedModel for FullEpClassifier<K> {
    /// Writes the classifier (jitter, kernel) and, after a fit, its training inputs, sites,
    /// `log Z_EP` and skipped count; loading rebuilds the posterior from them (the same
    /// arithmetic, so the same bits).
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let parts = Spec::new("FullEpClassifierParts").values(&[self.jitter]).part(self.kernel.describe());
        let spec = match &self.fitted {
            Some(f) => {
                let n = f.sites.nu.len();
                let values: Vec<f64> =
                    f.x.iter()
                        .copied()
                        .chain(f.sites.nu.iter().copied())
                        .chain(f.sites.mu.iter().copied())
                        .chain([f.log_marginal_likelihood, f.skipped as f64])
                        .collect();
                Spec::new("FullEpClassifier").sizes(&[n, f.d]).values(&values)
            }
            None => Spec::new("FullEpClassifier").sizes(&[0, 0]),
        };
        file::write(path.as_ref(), &spec.part(parts), self.clone())
    }
    fn load(path: impl AsRef<Path>, device: &Device) -> Result<Self> {
        let path = path.as_ref();
        let weights = file::read(path)?;
        let skeleton = |spec: &Spec| -> Result<_> {
            spec.expect("FullEpClassifier", Some(2), None, Some(1))?;
            let (n, d) = (spec.sizes[0], spec.sizes[1]);
            let want = match (n, d) {
                (0, 0) => Some(0),
                (0, _) | (_, 0) => {
                    return Err(Error::invalid("model file", format!("a full-EP fit on {n} × {d} training inputs")))
                }
                _ => checked_cells(&[n, d])?.checked_add(2 * n + 2),
            };
            if want != Some(spec.values.len()) {
                return Err(Error::shape("FullEpClassifier values (x, ν̃, μ̃, log Z, skipped)", want, spec.values.len()));
            }
            let parts = &spec.parts[0];
            parts.expect("FullEpClassifierParts", Some(0), Some(1), Some(1))?;
            Ok((FullEpClassifier::<K>::new(K::rebuild(&parts.parts[0], device)?, parts.values[0])?, n, d))
        };
        let (model, n, d) = weights.rebuild(skeleton).map_err(|e| file::mismatch(path, e))?;
        let (model, spec) = weights.fill(path, model)?;
        if n == 0 {
            return Ok(model);
        }
        let v = &spec.values;
        let x = matrix(v[..n * d].to_vec(), n, d, device)?;
        let rest = &v[n * d..];
        let sites = EpSites { nu: rest[..n].to_vec(), mu: rest[n..2 * n].to_vec() };
        let mut model = model.with_sites(&x, sites, rest[2 * n]).map_err(|e| file::mismatch(path, e))?;
        if let Some(f) = model.fitted.as_mut() {
            f.skipped = rest[2 * n + 1] as usize;
        }
        Ok(model)
    }
}

impl<K: Kernel + Blueprint> SavedModel for SkewGpPosterior<K> {
    /// Writes the prior, the training inputs and labels it conditions on, and its lin-ess draws;
    /// loading rebuilds `γ̃`, `Γ̃` and its factor from them (the same arithmetic, so the same bits).
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let x = to_vec(self.training_inputs().clone());
        let [n, p] = self.training_inputs().dims();
        let labels = self.labels().into_iter().map(|l| l as f64);
        let draws = self.draws().unwrap_or_default();
        let t = self.gamma_tilde().len();
        let values: Vec<f64> = x.into_iter().chain(labels).chain(draws.iter().copied()).collect();
        let spec = Spec::new("SkewGpPosterior")
            .sizes(&[n, p, draws.len() / t.max(1), t])
            .values(&values)
            .part(describe_skew_prior(self.model()));
        file::write(path.as_ref(), &spec, self.model().clone())
    }
    fn load(path: impl AsRef<Path>, device: &Device) -> Result<Self> {
        let path = path.as_ref();
        let weights = file::read(path)?;
        let dims =
            weights.rebuild(|spec| skew_posterior_skeleton::<K>(spec, device)).map_err(|e| file::mismatch(path, e))?;
        skew_posterior_of(path, weights, dims, device)
    }
}

/// The skeleton of a saved skew-GP posterior (`SkewGpPosterior` with `[n, p, draws, s + n]`, the
/// training inputs, labels and draws, and the prior) and its sizes.
fn skew_posterior_skeleton<K: Kernel + Blueprint>(spec: &Spec, device: &Device) -> Result<(SkewGp<K>, [usize; 4])> {
    spec.expect("SkewGpPosterior", Some(4), None, Some(1))?;
    let [n, p, draws, t] = [spec.sizes[0], spec.sizes[1], spec.sizes[2], spec.sizes[3]];
    if n == 0 || p == 0 {
        return Err(Error::invalid("model file", format!("a skew-GP posterior on {n} × {p} training inputs")));
    }
    let want = checked_cells(&[n, p])?.checked_add(n).zip(checked_cells(&[draws, t]).ok()).map(|(a, b)| a + b);
    if want != Some(spec.values.len()) {
        return Err(Error::shape("SkewGpPosterior values (x, labels, draws)", want, spec.values.len()));
    }
    Ok((rebuild_skew_prior::<K>(&spec.parts[0], device)?, [n, p, draws, t]))
}

/// The posterior of a file whose skeleton [`skew_posterior_skeleton`] built: the weights filled
/// in, Theorem 1 rebuilt from the training inputs and labels (the same arithmetic, so the same
/// bits), and the draws set.
fn skew_posterior_of<K: Kernel + Blueprint>(
    path: &Path,
    weights: file::ReadFile,
    (model, [n, p, draws, t]): (SkewGp<K>, [usize; 4]),
    device: &Device,
) -> Result<SkewGpPosterior<K>> {
    let (model, spec) = weights.fill(path, model)?;
    let v = &spec.values;
    let x = matrix(v[..n * p].to_vec(), n, p, device)?;
    let labels: Vec<usize> = v[n * p..n * p + n].iter().map(|&l| usize::from(l > 0.5)).collect();
    let mut posterior = SkewGpPosterior::new(model, x, &labels).map_err(|e| file::mismatch(path, e))?;
    if draws > 0 {
        posterior.set_draws(v[n * p + n..].to_vec(), t).map_err(|e| file::mismatch(path, e))?;
    }
    Ok(posterior)
}

impl<K: Kernel + Blueprint> SavedModel for SkewGp<K> {
    /// Writes the prior (kernel, `R`, `γ`, phases, jitter) and, after a fit, its posterior as
    /// [`SkewGpPosterior`] saves it (training inputs, labels, draws); the fit report and the
    /// training history are not kept.
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        match self.posterior() {
            Some(posterior) => posterior.save(path),
            None => file::write(path.as_ref(), &describe_skew_prior(self), self.clone()),
        }
    }
    fn load(path: impl AsRef<Path>, device: &Device) -> Result<Self> {
        let path = path.as_ref();
        let weights = file::read(path)?;
        let skeleton = weights
            .rebuild(|spec| match spec.kind.as_str() {
                "SkewGpPosterior" => skew_posterior_skeleton::<K>(spec, device).map(|(m, dims)| (m, Some(dims))),
                _ => rebuild_skew_prior::<K>(spec, device).map(|m| (m, None)),
            })
            .map_err(|e| file::mismatch(path, e))?;
        match skeleton {
            (prior, None) => Ok(weights.fill(path, prior)?.0),
            (prior, Some(dims)) => {
                let posterior = skew_posterior_of(path, weights, (prior, dims), device)?;
                Ok(posterior.model().clone().with_posterior(&posterior))
            }
        }
    }
}

/// Training data `x` `[n, d]` and `y` `[n, p]` held by a model as constants, rebuilt from the
/// values of `spec` after `skip` leading values.
fn training_data(
    spec: &Spec,
    (n, d, p): (usize, usize, usize),
    skip: usize,
    device: &Device,
) -> Result<(Tensor<2>, Tensor<2>)> {
    let (nx, ny) = (checked_cells(&[n, d])?, checked_cells(&[n, p])?);
    if spec.values.len() != skip + nx + ny {
        return Err(Error::shape("model file: training data values", skip + nx + ny, spec.values.len()));
    }
    let v = &spec.values[skip..];
    Ok((matrix(v[..nx].to_vec(), n, d, device)?, matrix(v[nx..].to_vec(), n, p, device)?))
}

impl<K: Kernel + Blueprint> Blueprint for ExactGpr<K> {
    /// `ExactGpr` with `[n, d, p]`, its training data (the model predicts from it) and its kernel
    /// and likelihood.
    fn describe(&self) -> Spec {
        let ([n, d], p) = (self.x.dims(), self.y.dims()[1]);
        Spec::new("ExactGpr")
            .sizes(&[n, d, p])
            .values(&to_vec(self.x.clone()))
            .values(&to_vec(self.y.clone()))
            .part(self.kernel.describe())
            .part(self.likelihood.describe())
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("ExactGpr", Some(3), None, Some(2))?;
        let (x, y) = training_data(spec, (spec.sizes[0], spec.sizes[1], spec.sizes[2]), 0, device)?;
        ExactGpr::new(K::rebuild(&spec.parts[0], device)?, Gaussian::rebuild(&spec.parts[1], device)?, x, y)
    }
}

impl<K: Kernel + Blueprint, I: InducingVariables<K> + Blueprint> Blueprint for Sgpr<K, I> {
    /// `Sgpr` with `[n, d]`, the jitter then its training data, and its kernel, inducing variables
    /// (points or Fourier features) and likelihood.
    fn describe(&self) -> Spec {
        let [n, d] = self.x.dims();
        Spec::new("Sgpr")
            .sizes(&[n, d])
            .values(&[self.jitter])
            .values(&to_vec(self.x.clone()))
            .values(&to_vec(self.y.clone()))
            .part(self.kernel.describe())
            .part(self.inducing.describe())
            .part(self.likelihood.describe())
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Sgpr", Some(2), None, Some(3))?;
        let jitter = *spec.values.first().ok_or_else(|| Error::invalid("model file", "Sgpr without its jitter"))?;
        let (x, y) = training_data(spec, (spec.sizes[0], spec.sizes[1], 1), 1, device)?;
        let kernel = K::rebuild(&spec.parts[0], device)?;
        let inducing = I::rebuild(&spec.parts[1], device)?;
        Sgpr::new(kernel, inducing, Gaussian::rebuild(&spec.parts[2], device)?, x, y, jitter)
    }
}

impl<K, I, L> Blueprint for DecoupledGp<K, I, L>
where
    K: Kernel + Blueprint,
    I: InducingVariables<K> + Blueprint,
    L: Likelihood + Blueprint,
{
    /// `DecoupledGp` with `[N, natural gradients]`, the jitter and natural step, and its kernel, likelihood,
    /// covariance basis and (if any) mean-basis points.
    fn describe(&self) -> Spec {
        let spec = Spec::new("DecoupledGp")
            .sizes(&[self.num_data, usize::from(self.natural_gradients)])
            .values(&[self.jitter, self.natural_step])
            .part(self.kernel.describe())
            .part(self.likelihood.describe())
            .part(self.cov_basis.describe());
        match &self.mean_basis {
            Some(mean) => spec.part(mean.points.describe()),
            None => spec,
        }
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("DecoupledGp", Some(2), Some(2), None)?;
        if !(3..=4).contains(&spec.parts.len()) {
            return Err(Error::invalid("model file", "a decoupled GP has 3 or 4 parts"));
        }
        let mean_points = spec.parts.get(3).map(|p| InducingPoints::rebuild(p, device)).transpose()?;
        let cov_basis = I::rebuild(&spec.parts[2], device)?;
        // The mean basis's weights and the covariance basis's factor.
        budget::cells(&[mean_points.as_ref().map_or(0, inducing_count)])?;
        let m = cov_basis.num_inducing();
        budget::cells(&[m, m])?;
        DecoupledGpConfig::new(spec.sizes[0])
            .with_jitter(spec.values[0])
            .with_natural_gradients(spec.sizes[1] == 1)
            .with_natural_step(spec.values[1])
            .with_initial_covariance(InitialCovariance::Identity)
            .init(
                K::rebuild(&spec.parts[0], device)?,
                mean_points,
                cov_basis,
                L::rebuild(&spec.parts[1], device)?,
                device,
            )
    }
}
