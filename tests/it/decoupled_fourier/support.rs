//! The golden problem (`docs/papers/002-decoupled-fourier-features.md`, section "Golden
//! problem"), RKHS inner products by quadrature, and small helpers.
use burn::tensor::{Device, Tensor};
use burn_gp::inducing::{FourierFeatures, InducingPoints};
use burn_gp::kernels::{AdditiveMatern, MaternNu};
use burn_gp::likelihoods::Gaussian;
use burn_gp::models::{DecoupledGpConfig, Odvff};

use crate::common::*;

/// Golden basis: [a, b] = [0, 2], σ² = 1.5, ℓ = 0.4, F = 2.
pub const A: f64 = 0.0;
pub const B: f64 = 2.0;
pub const VAR: f64 = 1.5;
pub const LS: f64 = 0.4;
pub const F: usize = 2;

/// Golden ELBO problem (ν = 3/2, σ_n² = 0.1).
pub const NOISE: f64 = 0.1;
pub const X: [f64; 8] = [0.1, 0.35, 0.6, 0.85, 1.3, 1.75, -0.2, 2.3];
pub const Y: [f64; 8] = [0.5, -0.1, 0.3, 0.8, -0.6, 0.2, 0.0, 0.4];
pub const Z: [f64; 3] = [0.5, 1.5, 2.2];
pub const A_GAMMA: [f64; 3] = [0.3, -0.2, 0.1];
pub const M_BETA: [f64; 5] = [0.1, -0.2, 0.05, 0.3, -0.1];

/// The golden `L_S` (row-major 5×5).
pub fn golden_l_s() -> Vec<f64> {
    let mut l = vec![0.0; 25];
    for (i, d) in [1.2, 0.9, 1.1, 0.8, 1.3].iter().enumerate() {
        l[i * 5 + i] = *d;
    }
    l[5] = 0.1; // L[1,0]
    l[2 * 5 + 1] = -0.2; // L[2,1]
    l[3 * 5] = 0.05; // L[3,0]
    l[4 * 5 + 3] = 0.15; // L[4,3]
    l
}

/// The 1-D golden kernel as an additive Matérn with one dimension.
pub fn golden_kernel(nu: MaternNu, dev: &Device) -> AdditiveMatern {
    AdditiveMatern::new(nu, &[LS], &[VAR], dev).unwrap()
}

/// Fourier features on [0, 2] with F = 2 for `kernel`.
pub fn golden_features(kernel: &AdditiveMatern) -> FourierFeatures {
    FourierFeatures::new(kernel, &[(A, B)], F).unwrap()
}

/// The golden ODVFF model with the golden variational parameters (`natural`: whether (m_β, L_S)
/// are excluded from autodiff).
pub fn golden_model(dev: &Device, natural: bool) -> Odvff<AdditiveMatern, Gaussian> {
    let kernel = golden_kernel(MaternNu::ThreeHalves, dev);
    let beta = golden_features(&kernel);
    let gamma = InducingPoints::new(&Z, 3, 1, dev).unwrap();
    DecoupledGpConfig::new(8)
        .with_natural_gradients(natural)
        .init(kernel, Some(gamma), beta, Gaussian::new(NOISE, dev).unwrap(), dev)
        .unwrap()
        .with_variational(
            Some(t2(A_GAMMA.to_vec(), 3, 1, dev)),
            t2(M_BETA.to_vec(), 5, 1, dev),
            t2(golden_l_s(), 5, 5, dev),
        )
        .unwrap()
}

/// A golden-problem model without a mean basis (VFF-SVGP), at the prior `q(β)`.
pub fn vff_svgp(dev: &Device) -> Odvff<AdditiveMatern, Gaussian> {
    let kernel = golden_kernel(MaternNu::ThreeHalves, dev);
    let beta = golden_features(&kernel);
    DecoupledGpConfig::new(8).init(kernel, None, beta, Gaussian::new(NOISE, dev).unwrap(), dev).unwrap()
}

/// The golden inputs and targets as `[8, 1]` tensors.
pub fn golden_data(dev: &Device) -> (Tensor<2>, Tensor<2>) {
    (t2(X.to_vec(), 8, 1, dev), t2(Y.to_vec(), 8, 1, dev))
}

/// Relative error with a floor on the reference's magnitude.
pub fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

/// `(P_n(x), P_n′(x))` by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    for k in 2..=n {
        let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
        p0 = p1;
        p1 = p2;
    }
    (p1, n as f64 * (x * p1 - p0) / (x * x - 1.0))
}

/// `n`-point Gauss–Legendre nodes and weights on [−1, 1] (Newton on `P_n`).
pub fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    (0..n)
        .map(|i| {
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            for _ in 0..100 {
                let (p, dp) = legendre(n, x);
                x -= p / dp;
                if (p / dp).abs() < 1e-16 {
                    break;
                }
            }
            let dp = legendre(n, x).1;
            (x, 2.0 / ((1.0 - x * x) * dp * dp))
        })
        .unzip()
}

/// `∫_lo^hi g` by composite 16-point Gauss–Legendre on panels of width ≤ 1/16 (≥ 256 nodes per
/// unit length).
pub fn integrate(lo: f64, hi: f64, g: impl Fn(f64) -> f64) -> f64 {
    if hi <= lo {
        return 0.0;
    }
    let (t, w) = gauss_legendre(16);
    let panels = ((hi - lo) * 16.0).ceil().max(1.0) as usize;
    let h = (hi - lo) / panels as f64;
    let mut s = 0.0;
    for p in 0..panels {
        let c = lo + (p as f64 + 0.5) * h;
        for (ti, wi) in t.iter().zip(&w) {
            s += wi * g(c + 0.5 * h * ti) * 0.5 * h;
        }
    }
    s
}

/// A function on the interval given by its value and first three derivatives at `t`.
pub type Jet = Box<dyn Fn(f64) -> [f64; 4]>;

/// The j-th feature `[1, cos_1..cos_F, sin_1..sin_F]` on [a, b] as a jet.
pub fn feature_jet(j: usize, f: usize, a: f64, b: f64) -> Jet {
    let two_pi = 2.0 * std::f64::consts::PI;
    if j == 0 {
        return Box::new(|_| [1.0, 0.0, 0.0, 0.0]);
    }
    let (m, is_cos) = if j <= f { (j, true) } else { (j - f, false) };
    let w = two_pi * m as f64 / (b - a);
    Box::new(move |t| {
        let (c, s) = ((w * (t - a)).cos(), (w * (t - a)).sin());
        if is_cos {
            [c, -w * s, -w * w * c, w * w * w * s]
        } else {
            [s, w * c, -w * w * s, -w * w * w * c]
        }
    })
}

/// `k(x, ·)` of a 1-D Matérn (σ², λ) as a jet in its second argument.
pub fn kernel_jet(nu: MaternNu, var: f64, lam: f64, x: f64) -> Jet {
    Box::new(move |t| {
        let (u, sign) = if t >= x { (t - x, 1.0) } else { (x - t, -1.0) };
        let e = (-lam * u).exp();
        let (l2, l3, l4) = (lam * lam, lam * lam * lam, lam.powi(4));
        let [f0, f1, f2, f3] = match nu {
            MaternNu::Half => [e, -lam * e, l2 * e, -l3 * e],
            MaternNu::ThreeHalves => {
                [(1.0 + lam * u) * e, -l2 * u * e, l2 * (lam * u - 1.0) * e, l3 * (2.0 - lam * u) * e]
            }
            MaternNu::FiveHalves => [
                (1.0 + lam * u + l2 * u * u / 3.0) * e,
                -(l2 / 3.0) * (u + lam * u * u) * e,
                -(l2 / 3.0) * (1.0 + lam * u - l2 * u * u) * e,
                (l4 * u / 3.0) * (3.0 - lam * u) * e,
            ],
        };
        [var * f0, var * sign * f1, var * f2, var * sign * f3]
    })
}

/// The RKHS of a 1-D Matérn (ν, σ², λ) restricted to [a, b].
pub struct Rkhs {
    /// Smoothness.
    pub nu: MaternNu,
    /// Variance σ².
    pub var: f64,
    /// Rate λ.
    pub lam: f64,
    /// Lower end.
    pub a: f64,
    /// Upper end.
    pub b: f64,
}

impl Rkhs {
    /// The RKHS inner product on [a, b] (Hensman et al. 2018;
    /// `docs/papers/002-decoupled-fourier-features.md`, section "Fourier features"), the integral
    /// split at `split` if given.
    pub fn inner(&self, g: &Jet, h: &Jet, split: Option<f64>) -> f64 {
        let Rkhs { nu, var, lam, a, b } = *self;
        rkhs_inner(nu, var, lam, (a, b), g, h, split)
    }
}

fn rkhs_inner(nu: MaternNu, var: f64, lam: f64, (a, b): (f64, f64), g: &Jet, h: &Jet, split: Option<f64>) -> f64 {
    let op = |j: [f64; 4]| match nu {
        MaternNu::Half => [j[0], j[1]],
        MaternNu::ThreeHalves => [lam * lam * j[0] + 2.0 * lam * j[1] + j[2], 0.0],
        MaternNu::FiveHalves => [lam.powi(3) * j[0] + 3.0 * lam * lam * j[1] + 3.0 * lam * j[2] + j[3], 0.0],
    };
    let integrand = |t: f64| {
        let (p, q) = (op(g(t)), op(h(t)));
        match nu {
            MaternNu::Half => lam * lam * p[0] * q[0] + p[1] * q[1],
            _ => p[0] * q[0],
        }
    };
    let integral = match split {
        Some(s) if s > a && s < b => integrate(a, s, integrand) + integrate(s, b, integrand),
        _ => integrate(a, b, integrand),
    };
    let (ga, ha) = (g(a), h(a));
    match nu {
        MaternNu::Half => {
            let (gb, hb) = (g(b), h(b));
            integral / (2.0 * lam * var) + (ga[0] * ha[0] + gb[0] * hb[0]) / (2.0 * var)
        }
        MaternNu::ThreeHalves => {
            integral / (4.0 * lam.powi(3) * var) + ga[0] * ha[0] / var + ga[1] * ha[1] / (lam * lam * var)
        }
        MaternNu::FiveHalves => {
            3.0 / (16.0 * lam.powi(5) * var) * integral
                + 9.0 / (8.0 * var) * ga[0] * ha[0]
                + 9.0 / (8.0 * var * lam.powi(4)) * ga[2] * ha[2]
                + 3.0 / (var * lam * lam) * (ga[1] * ha[1] + (ga[2] * ha[0] + ga[0] * ha[2]) / 8.0)
        }
    }
}

/// Solves `A X = B` (A row-major n×n, B row-major n×k) by Gaussian elimination with partial
/// pivoting (an independent oracle for the closed forms).
pub fn solve_dense(a: &[f64], n: usize, b: &[f64], k: usize) -> Vec<f64> {
    let mut m = a.to_vec();
    let mut x = b.to_vec();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| m[i * n + col].abs().total_cmp(&m[j * n + col].abs())).unwrap();
        for c in 0..n {
            m.swap(col * n + c, piv * n + c);
        }
        for c in 0..k {
            x.swap(col * k + c, piv * k + c);
        }
        for r in 0..n {
            if r == col {
                continue;
            }
            let f = m[r * n + col] / m[col * n + col];
            if f == 0.0 {
                continue;
            }
            for c in 0..n {
                m[r * n + c] -= f * m[col * n + c];
            }
            for c in 0..k {
                x[r * k + c] -= f * x[col * k + c];
            }
        }
    }
    for r in 0..n {
        for c in 0..k {
            x[r * k + c] /= m[r * n + r];
        }
    }
    x
}
