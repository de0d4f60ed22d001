//! [`ClassPredictive`]: what every classifier predicts, binary or multi-class — per-class latent
//! marginals, decisions, class probabilities, variation ratio, entropies and the NLL/ECE/accuracy
//! of labels `0..C` (host side, f64).
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use crate::error::{check_finite, Error, Result};
use crate::metrics::{self, argmax};
use crate::special::{gauss_hermite_normal, norm_cdf};
use crate::tensors::to_vec;
use burn::tensor::Tensor;

/// Per-class latent marginals `N(f̄_ij, s²_ij)` for `n` points and `classes` classes (row-major),
/// with the model's own class probabilities where it has them in closed form.
///
/// A multi-class Bayesian SVM gives C marginals and no closed-form probabilities (they come from
/// Gauss–Hermite quadrature of `P(f_c is the largest)`). A binary probit classifier (EP, SVGP
/// with [`BernoulliProbit`](crate::likelihoods::BernoulliProbit), skew GP) gives C = 2 columns:
/// class 0 as `N(0, 1)` and class 1 as its latent `N(m, v)`, so that `P(f₁ > f₀) = Φ(m/√(1 + v))`
/// is its probit predictive, and its exact probabilities.
#[derive(Clone, Debug)]
pub struct ClassPredictive {
    /// Means `[n, C]`.
    pub mean: Vec<f64>,
    /// Variances `[n, C]`.
    pub var: Vec<f64>,
    /// Number of points.
    pub n: usize,
    /// Number of classes C.
    pub classes: usize,
    /// The model's class probabilities `[n, C]`, where it has them (else quadrature is used).
    pub exact: Option<Vec<f64>>,
}

impl ClassPredictive {
    /// From host vectors `[n, C]`; errors on a length mismatch, NaN or a negative variance.
    pub fn new(mean: Vec<f64>, var: Vec<f64>, classes: usize) -> Result<Self> {
        check_parts(&mean, &var, classes)?;
        Ok(Self { n: mean.len() / classes, mean, var, classes, exact: None })
    }
    /// The checks of [`Self::new`] on a predictive whose public fields may have been set by hand,
    /// and that `n` matches the lengths.
    pub(crate) fn check(&self) -> Result<()> {
        check_parts(&self.mean, &self.var, self.classes)?;
        if self.n * self.classes != self.mean.len() {
            return Err(Error::shape("ClassPredictive: n × classes", [self.n, self.classes], [self.mean.len()]));
        }
        Ok(())
    }
    /// A binary probit classifier's predictive from its latent marginals `N(m_i, v_i)`: class-1
    /// probabilities `Φ(m_i/√(1 + v_i))` ([`probit_probabilities`]), see [`binary`](Self::binary).
    pub fn probit(latent_mean: &[f64], latent_var: &[f64]) -> Result<Self> {
        Self::binary(latent_mean, latent_var, &probit_probabilities(latent_mean, latent_var))
    }
    /// A binary classifier's predictive from its latent marginals `N(m_i, v_i)` and its class-1
    /// probabilities `p_i` (see the type's documentation); errors on lengths that differ,
    /// non-finite values, a negative variance or a probability outside `[0, 1]`.
    pub fn binary(latent_mean: &[f64], latent_var: &[f64], p1: &[f64]) -> Result<Self> {
        let n = latent_mean.len();
        if latent_var.len() != n || p1.len() != n {
            return Err(Error::shape("ClassPredictive::binary", [n, n, n], [n, latent_var.len(), p1.len()]));
        }
        check_finite("class-1 probabilities", p1)?;
        if let Some(i) = p1.iter().position(|p| !(0.0..=1.0).contains(p)) {
            return Err(Error::invalid("p1", format!("probability {} at index {i} is outside [0, 1]", p1[i])));
        }
        let mean = latent_mean.iter().flat_map(|&m| [0.0, m]).collect();
        let var = latent_var.iter().flat_map(|&v| [1.0, v]).collect();
        let mut out = Self::new(mean, var, 2)?;
        out.exact = Some(p1.iter().flat_map(|&p| [1.0 - p, p]).collect());
        Ok(out)
    }
    /// From a model's `(mean, var)` tensors `[n, C]`.
    pub fn from_tensors(mean: Tensor<2>, var: Tensor<2>) -> Result<Self> {
        let classes = mean.dims()[1];
        Self::new(to_vec(mean), to_vec(var), classes)
    }
    fn row<'a>(&self, v: &'a [f64], i: usize) -> &'a [f64] {
        &v[i * self.classes..(i + 1) * self.classes]
    }
    /// The decision for every point: the most probable class where the model has closed-form
    /// probabilities, else the SVM decision `argmax_c f̄_c`.
    pub fn classes(&self) -> Vec<usize> {
        match &self.exact {
            Some(p) => p.chunks(self.classes).map(argmax).collect(),
            None => (0..self.n).map(|i| argmax(self.row(&self.mean, i))).collect(),
        }
    }
    /// How often each class is the arg-max of `samples` joint draws `f ~ Π_c N(f̄_c, s²_c)`:
    /// counts `[n, C]` (seeded, reproducible).
    pub fn sampled_argmax_counts(&self, samples: usize, seed: u64) -> Vec<usize> {
        let mut rng = StdRng::seed_from_u64(seed);
        let c = self.classes;
        let mut counts = vec![0usize; self.n * c];
        let mut draw = vec![0.0; c];
        for i in 0..self.n {
            let (m, v) = (self.row(&self.mean, i), self.row(&self.var, i));
            for _ in 0..samples {
                for k in 0..c {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    draw[k] = m[k] + v[k].sqrt() * z;
                }
                counts[i * c + argmax(&draw)] += 1;
            }
        }
        counts
    }
    /// Monte Carlo class probabilities `[n, C]`: frequencies of the sampled arg-max.
    pub fn mc_probabilities(&self, samples: usize, seed: u64) -> Vec<f64> {
        let s = samples.max(1) as f64;
        self.sampled_argmax_counts(samples.max(1), seed).into_iter().map(|k| k as f64 / s).collect()
    }
    /// Variation ratio `1 − (count of the modal class)/S` per point (the paper's eq. 13), from
    /// `samples` draws; in `[0, 1 − 1/C]`.
    pub fn variation_ratio(&self, samples: usize, seed: u64) -> Vec<f64> {
        let counts = self.sampled_argmax_counts(samples.max(1), seed);
        counts.chunks(self.classes).map(variation_ratio_from_counts).collect()
    }
    /// Class probabilities `P(f_c is the largest)` `[n, C]` by `points`-point Gauss–Hermite
    /// quadrature, each row renormalised to sum to 1.
    pub fn gh_probabilities(&self, points: usize) -> Vec<f64> {
        let (nodes, weights) = gauss_hermite_normal(points);
        let c = self.classes;
        let mut out = vec![0.0; self.n * c];
        for i in 0..self.n {
            let (m, v) = (self.row(&self.mean, i), self.row(&self.var, i));
            let p = &mut out[i * c..(i + 1) * c];
            for k in 0..c {
                let sd = v[k].sqrt();
                p[k] = nodes
                    .iter()
                    .zip(&weights)
                    .map(|(t, w)| {
                        let f = m[k] + sd * t;
                        let log_prod: f64 = (0..c)
                            .filter(|&j| j != k)
                            .map(|j| norm_cdf((f - m[j]) / v[j].sqrt().max(1e-300)).max(1e-300).ln())
                            .sum();
                        w * log_prod.exp()
                    })
                    .sum();
            }
            let total: f64 = p.iter().sum();
            p.iter_mut().for_each(|x| *x /= total);
        }
        out
    }
    /// Class probabilities `[n, C]`: the model's own where it has them, else by 20-point
    /// Gauss–Hermite quadrature (see [`gh_probabilities`](Self::gh_probabilities)).
    pub fn probabilities(&self) -> Vec<f64> {
        match &self.exact {
            Some(p) => p.clone(),
            None => self.gh_probabilities(20),
        }
    }
    /// Fraction of points whose decision ([`classes`](Self::classes)) is the label; labels are
    /// class indices `0..C`.
    pub fn accuracy(&self, labels: &[usize]) -> Result<f64> {
        self.check_labels(labels)?;
        Ok(self.classes().iter().zip(labels).filter(|(a, b)| a == b).count() as f64 / self.n as f64)
    }
    /// `log p(y_i)` of each point's label under [`probabilities`](Self::probabilities).
    pub fn log_density(&self, labels: &[usize]) -> Result<Vec<f64>> {
        self.check_labels(labels)?;
        Ok(self.probabilities().chunks_exact(self.classes).zip(labels).map(|(row, &y)| row[y].ln()).collect())
    }
    /// Mean negative log probability of the labels under [`probabilities`](Self::probabilities).
    pub fn nll(&self, labels: &[usize]) -> Result<f64> {
        self.check_labels(labels)?;
        metrics::nll(&self.probabilities(), self.classes, labels)
    }
    /// Expected calibration error of [`probabilities`](Self::probabilities) over `bins` confidence
    /// bins ([`metrics::ece`]).
    pub fn ece(&self, labels: &[usize], bins: usize) -> Result<f64> {
        self.check_labels(labels)?;
        metrics::ece(&self.probabilities(), self.classes, labels, bins)
    }
    fn check_labels(&self, labels: &[usize]) -> Result<()> {
        if labels.len() != self.n {
            return Err(Error::shape("ClassPredictive labels", [self.n], [labels.len()]));
        }
        if let Some(&bad) = labels.iter().find(|&&c| c >= self.classes) {
            return Err(Error::LabelOutOfRange {
                context: "ClassPredictive".into(),
                label: bad as i64,
                num_classes: self.classes,
            });
        }
        Ok(())
    }
    /// Entropy of `softmax(f̄)` per point: the paper's non-Bayesian (point-estimate) score.
    pub fn mean_softmax_entropy(&self) -> Vec<f64> {
        let probs: Vec<f64> = (0..self.n)
            .flat_map(|i| {
                let m = self.row(&self.mean, i);
                let top = m.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = m.iter().map(|x| (x - top).exp()).collect();
                let s: f64 = e.iter().sum();
                e.into_iter().map(move |x| x / s)
            })
            .collect();
        entropy(&probs, self.classes)
    }
}

/// The probit predictive `p(y = 1) = Φ(m_i/√(1 + v_i))` of latent marginals `N(m_i, v_i)`.
pub fn probit_probabilities(latent_mean: &[f64], latent_var: &[f64]) -> Vec<f64> {
    latent_mean.iter().zip(latent_var).map(|(m, v)| norm_cdf(m / (1.0 + v).sqrt())).collect()
}

/// `1 − max_c count_c / Σ_c count_c` (0 for no counts).
pub fn variation_ratio_from_counts(counts: &[usize]) -> f64 {
    let total: usize = counts.iter().sum();
    if total == 0 {
        return 0.0;
    }
    1.0 - *counts.iter().max().unwrap_or(&0) as f64 / total as f64
}

/// Entropy `−Σ_c p_c ln p_c` (nats) of each row of `probs` `[n, k]`.
pub fn entropy(probs: &[f64], k: usize) -> Vec<f64> {
    probs.chunks(k.max(1)).map(|p| -p.iter().filter(|&&x| x > 0.0).map(|x| x * x.ln()).sum::<f64>()).collect()
}

/// Lengths `[n, C]`, finite values and non-negative variances of a predictive's parts.
fn check_parts(mean: &[f64], var: &[f64], classes: usize) -> Result<()> {
    if classes == 0 || !mean.len().is_multiple_of(classes) || var.len() != mean.len() {
        return Err(Error::shape("ClassPredictive", [mean.len() / classes.max(1), classes], [var.len()]));
    }
    check_finite("predictive means", mean)?;
    check_finite("predictive variances", var)?;
    if let Some(i) = var.iter().position(|&v| v < 0.0) {
        return Err(Error::invalid("var", format!("negative variance {} at index {i}", var[i])));
    }
    Ok(())
}
