//! [`RandomFunction`]: a seeded smooth random function `ℝᵈ → ℝᴾ` and regression and
//! classification sets drawn from it at any number of rows, row by row reproducible (the scaling
//! benchmark's data, `benches/scale.rs`).
use std::ops::Range;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use crate::error::{check_positive, Error, Result};

/// Rows per generation block: row `i`'s input and noise come from the random stream of block
/// `i / BLOCK` alone, so a row is the same whatever range it is generated in.
const BLOCK: u64 = 1024;

/// `P` latent functions, each a draw from (to within the random-feature approximation) a GP with
/// the RBF kernel `exp(−‖x − x'‖² / 2ℓ²)` of unit variance: `f_p(x) = √(2/F) Σ_j w_pj cos(ω_jᵀx + b_j)`
/// with `F` random Fourier features (Rahimi & Recht 2007), `ω_j ~ N(0, ℓ⁻² I)`,
/// `b_j ~ U[0, 2π)`, `w_pj ~ N(0, 1)`, so `E f_p(x) f_p(x') → k(x, x')` as `F` grows.
///
/// Inputs are `x ~ N(0, I_d)`. Rows are indexed by `u64`: row `i` is the same draw in every
/// call and rows of disjoint ranges are independent, so a test set is any range disjoint from
/// the training rows (for example from `1 << 40`), and the first `n` rows of a larger set are the
/// set of `n` rows. Generation runs in parallel over blocks of 1 024 rows and needs no memory
/// beyond its output.
///
/// ```
/// use burn_gp::data::RandomFunction;
/// # fn main() -> burn_gp::Result<()> {
/// let f = RandomFunction::new(8, 1, 2.0, 128, 7)?;
/// let (x, y) = f.regression(0..1000, 0.1)?; // x [1000, 8], y = f(x) + N(0, 0.1²)
/// let (x_test, labels) = f.classification((1 << 40)..(1 << 40) + 200, 0.0)?; // labels 1[f > 0]
/// assert_eq!((x.len(), y.len(), x_test.len(), labels.len()), (8000, 1000, 1600, 200));
/// assert_eq!(f.regression(0..10, 0.1)?.1[..], y[..10]); // the same rows in any range
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct RandomFunction {
    d: usize,
    latent: usize,
    features: usize,
    /// `[F, d]` frequencies.
    omega: Vec<f64>,
    /// `[F]` phases.
    phase: Vec<f64>,
    /// `[P, F]` weights, scaled by `√(2/F)`.
    weights: Vec<f64>,
    seed: u64,
}

/// SplitMix64's finaliser: a well-mixed 64-bit word from `z`.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RandomFunction {
    /// `latent` functions of `d` inputs with lengthscale `lengthscale`, `features` random
    /// features each, drawn from `seed`. Zero sizes and a lengthscale that is not positive and
    /// finite are [`Error::InvalidArgument`].
    pub fn new(d: usize, latent: usize, lengthscale: f64, features: usize, seed: u64) -> Result<Self> {
        for (name, v) in [("d", d), ("latent", latent), ("features", features)] {
            if v == 0 {
                return Err(Error::invalid(name, "must be at least 1"));
            }
        }
        check_positive("lengthscale", lengthscale)?;
        let mut rng = StdRng::seed_from_u64(mix(seed ^ 0x5eed_f00d));
        let mut normal = || -> f64 { StandardNormal.sample(&mut rng) };
        let omega: Vec<f64> = (0..features * d).map(|_| normal() / lengthscale).collect();
        let scale = (2.0 / features as f64).sqrt();
        let weights: Vec<f64> = (0..latent * features).map(|_| normal() * scale).collect();
        let phase = (0..features).map(|_| rng.random::<f64>() * std::f64::consts::TAU).collect();
        Ok(Self { d, latent, features, omega, phase, weights, seed })
    }

    /// Input dimension `d`.
    pub fn input_dim(&self) -> usize {
        self.d
    }

    /// Number of latent functions `P`.
    pub fn num_latent(&self) -> usize {
        self.latent
    }

    /// The latent values `[n, P]` (row-major) at the rows of `x` `[n, d]`.
    pub fn latent(&self, x: &[f64]) -> Result<Vec<f64>> {
        if !x.len().is_multiple_of(self.d) {
            return Err(Error::shape("RandomFunction::latent: input columns", self.d, x.len() % self.d));
        }
        let mut out = vec![0.0; x.len() / self.d * self.latent];
        out.par_chunks_mut(self.latent * 256).zip(x.par_chunks(self.d * 256)).for_each(|(out, x)| {
            let mut basis = vec![0.0; self.features];
            for (row, f) in x.chunks_exact(self.d).zip(out.chunks_exact_mut(self.latent)) {
                for (j, b) in basis.iter_mut().enumerate() {
                    let w = &self.omega[j * self.d..(j + 1) * self.d];
                    *b = (w.iter().zip(row).map(|(a, b)| a * b).sum::<f64>() + self.phase[j]).cos();
                }
                for (p, fp) in f.iter_mut().enumerate() {
                    let w = &self.weights[p * self.features..(p + 1) * self.features];
                    *fp = w.iter().zip(&basis).map(|(a, b)| a * b).sum();
                }
            }
        });
        Ok(out)
    }

    /// The inputs `[len, d]` and the standard-normal noise `[len, P]` of the rows `rows`.
    fn draws(&self, rows: Range<u64>) -> (Vec<f64>, Vec<f64>) {
        let n = rows.end.saturating_sub(rows.start) as usize;
        let (mut x, mut eps) = (vec![0.0; n * self.d], vec![0.0; n * self.latent]);
        // the blocks the range touches, each with the part of the output its rows fill
        let mut pieces = Vec::new();
        let (mut x_rest, mut eps_rest) = (&mut x[..], &mut eps[..]);
        let mut row = rows.start;
        while row < rows.end {
            let block = row / BLOCK;
            let end = ((block + 1) * BLOCK).min(rows.end);
            let len = (end - row) as usize;
            let (xs, xr) = std::mem::take(&mut x_rest).split_at_mut(len * self.d);
            let (es, er) = std::mem::take(&mut eps_rest).split_at_mut(len * self.latent);
            pieces.push((block, (row - block * BLOCK) as usize, xs, es));
            (x_rest, eps_rest) = (xr, er);
            row = end;
        }
        pieces.into_par_iter().for_each(|(block, skip, xs, es)| {
            let mut rng = StdRng::seed_from_u64(mix(self.seed ^ mix(block)));
            let per_row = self.d + self.latent;
            for _ in 0..skip * per_row {
                let _: f64 = StandardNormal.sample(&mut rng);
            }
            for (xr, er) in xs.chunks_exact_mut(self.d).zip(es.chunks_exact_mut(self.latent)) {
                xr.iter_mut().chain(er.iter_mut()).for_each(|v| *v = StandardNormal.sample(&mut rng));
            }
        });
        (x, eps)
    }

    /// The inputs `[len, d]` of the rows `rows` (`x ~ N(0, I_d)`).
    pub fn inputs(&self, rows: Range<u64>) -> Vec<f64> {
        self.draws(rows).0
    }

    /// Regression rows: inputs `[len, d]` and targets `[len, P]`, `y = f(x) + noise_std · ε`,
    /// `ε ~ N(0, I_P)`. A negative or non-finite `noise_std` is [`Error::InvalidArgument`].
    pub fn regression(&self, rows: Range<u64>, noise_std: f64) -> Result<(Vec<f64>, Vec<f64>)> {
        crate::error::check_non_negative("noise_std", noise_std)?;
        let (x, eps) = self.draws(rows);
        let mut y = self.latent(&x)?;
        y.iter_mut().zip(&eps).for_each(|(y, e)| *y += noise_std * e);
        Ok((x, y))
    }

    /// Classification rows: inputs `[len, d]` and class labels. With one latent function the
    /// label is `1[f(x) + noise_std · ε > 0]` (two classes); with `P ≥ 2` it is
    /// `argmax_p f_p(x) + noise_std · ε_p` (`P` classes). `noise_std = 0` gives the noise-free
    /// (Bayes) labels.
    pub fn classification(&self, rows: Range<u64>, noise_std: f64) -> Result<(Vec<f64>, Vec<usize>)> {
        let (x, noisy) = self.regression(rows, noise_std)?;
        let labels = match self.latent {
            1 => noisy.iter().map(|&f| usize::from(f > 0.0)).collect(),
            _ => noisy.chunks_exact(self.latent).map(crate::metrics::argmax).collect(),
        };
        Ok((x, labels))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_the_same_in_every_range_and_disjoint_ranges_differ() {
        let f = RandomFunction::new(3, 2, 1.5, 32, 11).unwrap();
        let (x, y) = f.regression(0..3000, 0.2).unwrap();
        let (x2, y2) = f.regression(1000..1100, 0.2).unwrap();
        assert_eq!(x2[..], x[1000 * 3..1100 * 3]);
        assert_eq!(y2[..], y[1000 * 2..1100 * 2]);
        let (x3, _) = f.regression(1500..2600, 0.2).unwrap(); // starts and ends mid-block
        assert_eq!(x3[..], x[1500 * 3..2600 * 3]);
        assert_ne!(f.inputs(5000..5010), f.inputs(6000..6010));
        assert_ne!(RandomFunction::new(3, 2, 1.5, 32, 12).unwrap().inputs(0..10), x[..30]);
    }

    /// Monte Carlo over 2 000 functions (seeds): `f(x)` has mean 0 and variance 1, and the
    /// covariance of `f(x)` and `f(x')` at distance ℓ is the RBF kernel's `e^{-1/2}`; the noise of
    /// regression targets has the asked variance, and classification labels are the sign of `f`.
    #[test]
    fn the_functions_are_draws_from_the_rbf_gp_and_targets_carry_the_asked_noise() {
        let (l, draws) = (1.5, 2000);
        let a = [0.3, -0.2];
        let b = [0.3 + l * 0.6, -0.2 + l * 0.8]; // ‖a − b‖ = ℓ
        let (mut sa, mut saa, mut sab) = (0.0, 0.0, 0.0);
        for seed in 0..draws {
            let f = RandomFunction::new(2, 1, l, 256, seed).unwrap();
            let v = f.latent(&[a, b].concat()).unwrap();
            sa += v[0];
            saa += v[0] * v[0];
            sab += v[0] * v[1];
        }
        let n = draws as f64;
        // standard errors: 1/√n ≈ 0.022 for the mean, about √2/√n ≈ 0.032 for the moments
        assert!((sa / n).abs() < 0.1, "mean {}", sa / n);
        assert!((saa / n - 1.0).abs() < 0.12, "variance {}", saa / n);
        assert!((sab / n - (-0.5f64).exp()).abs() < 0.12, "covariance {} vs {}", sab / n, (-0.5f64).exp());
        let f = RandomFunction::new(4, 1, 2.0, 64, 3).unwrap();
        let (x, y) = f.regression(0..20_000, 0.5).unwrap();
        let clean = f.latent(&x).unwrap();
        let var = y.iter().zip(&clean).map(|(y, c)| (y - c).powi(2)).sum::<f64>() / 20_000.0;
        assert!((var - 0.25).abs() < 0.01, "noise variance {var}");
        let (x, labels) = f.classification(0..2000, 0.0).unwrap();
        assert!(f.latent(&x).unwrap().iter().zip(&labels).all(|(f, &c)| c == usize::from(*f > 0.0)));
        let three = RandomFunction::new(4, 3, 2.0, 64, 3).unwrap();
        let (x, labels) = three.classification(0..3000, 0.0).unwrap();
        let f3 = three.latent(&x).unwrap();
        assert!(labels.iter().zip(f3.chunks(3)).all(|(&c, f)| f.iter().all(|&v| v <= f[c])));
        for class in 0..3 {
            let share = labels.iter().filter(|&&c| c == class).count();
            assert!(share > 150, "class {class} has {share} of 3 000 rows");
        }
    }

    #[test]
    fn bad_settings_are_typed_errors() {
        assert!(matches!(RandomFunction::new(0, 1, 1.0, 8, 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(RandomFunction::new(2, 1, 0.0, 8, 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(RandomFunction::new(2, 1, 1.0, 0, 0), Err(Error::InvalidArgument { .. })));
        let f = RandomFunction::new(2, 1, 1.0, 8, 0).unwrap();
        assert!(matches!(f.regression(0..4, -1.0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(f.latent(&[0.0; 3]), Err(Error::ShapeMismatch { .. })));
    }
}
