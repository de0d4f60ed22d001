//! Fourier features (test ids of `docs/papers/002-decoupled-fourier-features.md`, section "Tests"):
//! golden Gram matrices and cross-covariances (section "Golden problem"), K_β against quadrature
//! of the RKHS inner products (T1), the reproducing property inside and outside the interval (T2),
//! structured solves and log-determinants (T3), additive/Kronecker structure (T13), continuity at
//! the ends (T14), and typed errors for bad input.
use burn::tensor::Tensor;
use burn_gp::inducing::fourier::{num_freq_for_budget, FourierKernel};
use burn_gp::inducing::{FourierFeatures, InducingVariables, KuuFactor};
use burn_gp::kernels::{AdditiveMatern, Kernel, Matern, MaternNu, SeparableMatern};
use burn_gp::Error;

use super::support::*;
use crate::common::*;

const NUS: [MaternNu; 3] = [MaternNu::Half, MaternNu::ThreeHalves, MaternNu::FiveHalves];

/// Golden K_β rows for ν = ½, ³⁄₂, ⁵⁄₂ (`docs/papers/002-decoupled-fourier-features.md`, section
/// "Golden problem").
const GOLDEN_KB: [[[f64; 5]; 5]; 3] = [
    [
        [2.33333333333333, 0.666666666666667, 0.666666666666667, 0.0, 0.0],
        [0.666666666666667, 2.81594725347858, 0.666666666666667, 0.0, 0.0],
        [0.666666666666667, 0.666666666666667, 6.76378901391432, 0.0, 0.0],
        [0.0, 0.0, 0.0, 2.14928058681191, 0.0],
        [0.0, 0.0, 0.0, 0.0, 6.09712234724766],
    ],
    [
        [2.11004233964073, 0.666666666666667, 0.666666666666667, 0.0, 0.0],
        [0.666666666666667, 2.34807847949557, 0.666666666666667, 0.0, 0.0],
        [0.666666666666667, 0.666666666666667, 7.62678811220109, 0.0, 0.0],
        [0.0, 0.0, 0.0, 2.03233108042319, 0.701838535188577],
        [0.0, 0.0, 0.0, 0.701838535188577, 8.36379851591157],
    ],
    [
        [2.14754248593737, 0.671043164791285, 0.434172659165141, 0.0, 0.0],
        [0.671043164791285, 2.25885501171093, 0.654456551612881, 0.0, 0.0],
        [0.434172659165141, 0.654456551612881, 9.41683337213537, 0.0, 0.0],
        [0.0, 0.0, 0.0, 2.22361318188397, 1.26330936333944],
        [0.0, 0.0, 0.0, 1.26330936333944, 10.6281438698581],
    ],
];
const GOLDEN_LOGDET: [f64; 3] = [6.25529991005277, 6.30046323516326, 6.79343553662868];
/// Golden K_xβ rows at x = −0.3 and x = 2.5.
const GOLDEN_KXB: [[[f64; 5]; 2]; 3] = [
    [
        [0.472366552741015, 0.472366552741015, 0.472366552741015, 0.0, 0.0],
        [0.28650479686019, 0.28650479686019, 0.28650479686019, 0.0, 0.0],
    ],
    [
        [0.627163952593585, 0.627163952593585, 0.627163952593585, -0.257102350047971, -0.514204700095941],
        [0.363167765385402, 0.363167765385402, 0.363167765385402, 0.180237328626253, 0.360474657252505],
    ],
    [
        [0.763268615920099, 0.680249468056302, 0.431192024464912, -0.471621702563316, -0.943243405126631],
        [0.470626127315894, 0.395235079621116, 0.16906193653678, 0.364293482534613, 0.728586965069225],
    ],
];
/// K_xβ at x = 0.7 (inside: the features themselves, the same for every ν).
const GOLDEN_INSIDE: [f64; 5] = [1.0, -0.587785252292473, -0.309016994374947, 0.809016994374947, -0.951056516295154];

fn rate(nu: MaternNu, ls: f64) -> f64 {
    nu.rate_factor() / ls
}

/// Runs `check(k, ν, kernel, features)` on the golden set-up (section "Golden problem" of
/// `docs/papers/002-decoupled-fourier-features.md`) of each ν (f64 only).
fn for_each_golden_nu(check: impl Fn(usize, MaternNu, &AdditiveMatern, &FourierFeatures)) {
    if skip_unless_f64("for_each_golden_nu") {
        return;
    }
    let dev = device();
    for (k, nu) in NUS.into_iter().enumerate() {
        let kernel = golden_kernel(nu, &dev);
        check(k, nu, &kernel, &golden_features(&kernel));
    }
}

#[test]
fn gram_matrices_and_log_determinants_match_the_golden_values() {
    for_each_golden_nu(|k, nu, kernel, feats| {
        let kb = host(InducingVariables::<AdditiveMatern>::kuu(feats, kernel, 0.0));
        for i in 0..5 {
            for j in 0..5 {
                let g = GOLDEN_KB[k][i][j];
                let err = (kb[i * 5 + j] - g).abs();
                // golden entries carry 15 significant digits; structural zeros must be exact
                let tol = if g == 0.0 { 1e-15 } else { 1e-12 * g.abs() };
                assert!(err <= tol, "ν={nu:?} K[{i},{j}] = {} vs {g}", kb[i * 5 + j]);
            }
        }
        let factor = feats.kuu_factor(kernel, 0.0).unwrap();
        let logdet = scalar(factor.logdet());
        eprintln!("measured: ν={nu:?} log|K_β| rel err {:.1e}", rel(logdet, GOLDEN_LOGDET[k]));
        assert!(rel(logdet, GOLDEN_LOGDET[k]) < 1e-12, "ν={nu:?} log|K_β| = {logdet}");
    });
}

#[test]
fn cross_covariances_match_the_golden_rows_inside_and_outside() {
    for_each_golden_nu(|k, nu, kernel, feats| {
        let xs = || t2(vec![-0.3, 0.7, 2.5], 3, 1, &device());
        let kxb = host(feats.kfu(kernel, xs()));
        let expected = [GOLDEN_KXB[k][0], GOLDEN_INSIDE, GOLDEN_KXB[k][1]];
        for (r, row) in expected.iter().enumerate() {
            for j in 0..5 {
                let err = (kxb[r * 5 + j] - row[j]).abs();
                assert!(
                    err <= 1e-13 * row[j].abs().max(1e-3),
                    "ν={nu:?} row {r} col {j}: {} vs {}",
                    kxb[r * 5 + j],
                    row[j]
                );
            }
        }
        // kuf is the transpose of kfu
        let kbx = host(feats.kuf(kernel, xs()));
        assert_eq!(kbx[3], kxb[1]); // (β1, x0) = (x0, β1)
    });
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn gram_matrix_equals_quadrature_of_the_rkhs_inner_products() {
    let dev = device();
    // random (a, b, σ², ℓ) per case; F ∈ {2, 7}
    let u = uniform(24, 31);
    for (c, nu) in NUS.into_iter().enumerate() {
        for (s, f) in [2usize, 7].into_iter().enumerate() {
            let idx = 4 * (2 * c + s);
            let a = -0.5 + 0.5 * u[idx];
            let b = a + 1.5 + 0.5 * u[idx + 1];
            let var = 1.0 + 0.5 * u[idx + 2];
            let ls = 0.3 + 0.1 * u[idx + 3];
            let kernel = AdditiveMatern::new(nu, &[ls], &[var], &dev).unwrap();
            let feats = FourierFeatures::new(&kernel, &[(a, b)], f).unwrap();
            let kb = host(InducingVariables::<AdditiveMatern>::kuu(&feats, &kernel, 0.0));
            let m = 2 * f + 1;
            let rkhs = Rkhs { nu, var, lam: rate(nu, ls), a, b };
            let mut worst = 0.0f64;
            for i in 0..m {
                for j in 0..m {
                    let q = rkhs.inner(&feature_jet(i, f, a, b), &feature_jet(j, f, a, b), None);
                    let scale = (kb[i * m + i] * kb[j * m + j]).sqrt();
                    worst = worst.max((kb[i * m + j] - q).abs() / scale);
                }
            }
            eprintln!("measured: ν={nu:?} F={f} K_β vs quadrature max |ΔK|/√(K_ii K_jj) {worst:.1e}");
            assert!(worst < 1e-9, "ν={nu:?} F={f} [{a:.3},{b:.3}]: max |ΔK|/√(K_ii K_jj) = {worst:e}");
        }
    }
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn reproducing_property_gives_the_cross_covariance_inside_and_outside() {
    let dev = device();
    let (a, b, var, ls, f) = (-0.2, 1.3, 1.2, 0.35, 3);
    let xs = [-0.7, -0.05, 0.2, 0.81, 1.3, 1.6, 2.4];
    for nu in NUS {
        let kernel = AdditiveMatern::new(nu, &[ls], &[var], &dev).unwrap();
        let feats = FourierFeatures::new(&kernel, &[(a, b)], f).unwrap();
        let kxb = host(feats.kfu(&kernel, t2(xs.to_vec(), xs.len(), 1, &dev)));
        let m = 2 * f + 1;
        let rkhs = Rkhs { nu, var, lam: rate(nu, ls), a, b };
        let mut worst = 0.0f64;
        for (r, &x) in xs.iter().enumerate() {
            let kx = kernel_jet(nu, var, rkhs.lam, x);
            for j in 0..m {
                let q = rkhs.inner(&feature_jet(j, f, a, b), &kx, Some(x));
                let err = (kxb[r * m + j] - q).abs();
                worst = worst.max(err);
                assert!(err < 1e-8, "ν={nu:?} x={x} feature {j}: closed form {} vs quadrature {q}", kxb[r * m + j]);
            }
        }
        eprintln!("measured: ν={nu:?} reproducing property, max |K_xβ − ⟨φ, k(x,·)⟩| {worst:.1e}");
    }
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn structured_solves_and_log_determinants_equal_dense_cholesky() {
    let dev = device();
    for nu in NUS {
        // additive, D = 3
        let kernel = AdditiveMatern::new(nu, &[0.5, 0.9, 1.4], &[0.7, 1.1, 0.4], &dev).unwrap();
        let feats = FourierFeatures::new(&kernel, &[(-1.0, 2.0), (0.0, 4.5), (-3.0, 3.0)], 4).unwrap();
        check_against_dense(&feats, &kernel, nu, 27);
        // Kronecker, D = 2
        let sep = SeparableMatern::new(nu, &[0.6, 0.8], 1.3, &dev).unwrap();
        let feats = FourierFeatures::new(&sep, &[(-1.0, 2.0), (0.0, 3.0)], 3).unwrap();
        check_against_dense(&feats, &sep, nu, 49);
    }
}

fn check_against_dense<K: FourierKernel>(feats: &FourierFeatures, kernel: &K, nu: MaternNu, mb: usize)
where
    FourierFeatures: InducingVariables<K>,
{
    let dev = device();
    assert_eq!(InducingVariables::<K>::num_inducing(feats), mb);
    let factor = feats.kuu_factor(kernel, 0.0).unwrap();
    let dense = factor.dense();
    let chol = KuuFactor::cholesky(dense.clone()).unwrap();
    let v = t2(uniform(mb * 4, 8), mb, 4, &dev);
    let structured = host(factor.solve(v.clone()));
    let reference = host(chol.solve(v));
    let err = max_rel_err(&structured, &reference, 1e-3);
    eprintln!(
        "measured: ν={nu:?} M={mb} structured vs dense solve rel err {err:.1e}, logdet rel err {:.1e}",
        rel(scalar(factor.logdet()), scalar(chol.logdet()))
    );
    assert!(err < 1e-10, "ν={nu:?} M={mb}: solve rel err {err:e}");
    let (ls, ld) = (scalar(factor.logdet()), scalar(chol.logdet()));
    assert!(rel(ls, ld) < 1e-10, "ν={nu:?} M={mb}: logdet {ls} vs {ld}");
    // the trait's dense kuu is the same matrix
    assert!(max_rel_err(&host(feats.kuu(kernel, 0.0)), &host(dense), 1e-12) < 1e-14);
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn additive_and_kronecker_structure_of_gram_and_features() {
    let dev = device();
    let nu = MaternNu::FiveHalves;
    let (ivs, f) = ([(-1.0, 2.0), (0.5, 3.0)], 2);
    let m1 = 2 * f + 1;
    let one_d = |d: usize, var: f64, ls: f64| {
        let k = AdditiveMatern::new(nu, &[ls], &[var], &dev).unwrap();
        let feats = FourierFeatures::new(&k, &[ivs[d]], f).unwrap();
        (host(feats.kuu(&k, 0.0)), k, feats)
    };
    let (k1, kern1, f1) = one_d(0, 0.8, 0.7);
    let (k2, kern2, f2) = one_d(1, 1.3, 0.4);
    let x = uniform(6 * 2, 4).iter().map(|v| 2.0 * v).collect::<Vec<_>>(); // some rows outside
    let col = |d: usize| t2((0..6).map(|i| x[i * 2 + d]).collect(), 6, 1, &dev);
    let (p1, p2) = (host(f1.kfu(&kern1, col(0))), host(f2.kfu(&kern2, col(1))));
    // additive: block-diagonal K_β, features concatenated dimension-major
    let add = AdditiveMatern::new(nu, &[0.7, 0.4], &[0.8, 1.3], &dev).unwrap();
    let fa = FourierFeatures::new(&add, &ivs, f).unwrap();
    let ka = host(fa.kuu(&add, 0.0));
    let n = 2 * m1;
    for i in 0..n {
        for j in 0..n {
            let expect = match (i < m1, j < m1) {
                (true, true) => k1[i * m1 + j],
                (false, false) => k2[(i - m1) * m1 + (j - m1)],
                _ => 0.0,
            };
            assert!((ka[i * n + j] - expect).abs() <= 1e-12 * expect.abs().max(1.0), "additive K[{i},{j}]");
        }
    }
    let pa = host(fa.kfu(&add, t2(x.clone(), 6, 2, &dev)));
    for r in 0..6 {
        for j in 0..m1 {
            assert_eq!(pa[r * n + j], p1[r * m1 + j]);
            assert_eq!(pa[r * n + m1 + j], p2[r * m1 + j]);
        }
    }
    let fac = fa.kuu_factor(&add, 0.0).unwrap();
    let ld1 = scalar(f1.kuu_factor(&kern1, 0.0).unwrap().logdet());
    let ld2 = scalar(f2.kuu_factor(&kern2, 0.0).unwrap().logdet());
    assert!(rel(scalar(fac.logdet()), ld1 + ld2) < 1e-12);
    // Kronecker: K_β = K¹ ⊗ K² (amplitude on the first factor), features Π_d φ_d
    let sep = SeparableMatern::new(nu, &[0.7, 0.4], 0.8, &dev).unwrap();
    let (k2u, kern2u, f2u) = one_d(1, 1.0, 0.4);
    let p2u = host(f2u.kfu(&kern2u, col(1)));
    let fk = FourierFeatures::new(&sep, &ivs, f).unwrap();
    let kk = host(fk.kuu(&sep, 0.0));
    let nk = m1 * m1;
    for (i1, i2, j1, j2) in
        (0..m1).flat_map(|a| (0..m1).flat_map(move |b| (0..m1).flat_map(move |c| (0..m1).map(move |d| (a, b, c, d)))))
    {
        let expect = k1[i1 * m1 + j1] * k2u[i2 * m1 + j2];
        let got = kk[(i1 * m1 + i2) * nk + (j1 * m1 + j2)];
        assert!((got - expect).abs() <= 1e-12 * expect.abs().max(1.0), "Kronecker K");
    }
    let pk = host(fk.kfu(&sep, t2(x.clone(), 6, 2, &dev)));
    for r in 0..6 {
        for i1 in 0..m1 {
            for i2 in 0..m1 {
                let expect = p1[r * m1 + i1] * p2u[r * m1 + i2];
                assert!((pk[r * nk + i1 * m1 + i2] - expect).abs() < 1e-14);
            }
        }
    }
    let ld2u = scalar(f2u.kuu_factor(&kern2u, 0.0).unwrap().logdet());
    let ldk = scalar(fk.kuu_factor(&sep, 0.0).unwrap().logdet());
    assert!(rel(ldk, m1 as f64 * (ld1 + ld2u)) < 1e-12, "Kronecker log-det {ldk}");
    // one-dimensional additive and separable kernels are the plain Matérn
    let xv = t2(uniform(5, 2), 5, 1, &dev);
    let plain = host(Matern::new(nu, &[0.7], 0.8, &dev).unwrap().k(xv.clone(), xv.clone()));
    let additive = host(AdditiveMatern::new(nu, &[0.7], &[0.8], &dev).unwrap().k(xv.clone(), xv.clone()));
    let separable = host(SeparableMatern::new(nu, &[0.7], 0.8, &dev).unwrap().k(xv.clone(), xv));
    assert!(max_rel_err(&additive, &plain, 1e-12) < 1e-13);
    assert!(max_rel_err(&separable, &plain, 1e-12) < 1e-13);
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn cross_covariance_is_continuous_at_the_interval_ends() {
    let ad = ad_device();
    let eps = 1e-9;
    for nu in NUS {
        let kernel = golden_kernel(nu, &ad);
        let feats = golden_features(&kernel);
        for e in [A, B] {
            let vals = host(feats.kfu(&kernel, t2(vec![e - eps, e + eps], 2, 1, &ad)));
            for j in 0..5 {
                assert!((vals[j] - vals[5 + j]).abs() < 1e-6, "ν={nu:?} e={e} feature {j} jumps");
            }
            if nu == MaternNu::Half {
                continue;
            }
            // derivatives d/dx of each feature on both sides agree (C¹ for ν ≥ 3/2)
            let omega_f = 2.0 * std::f64::consts::PI * F as f64 / (B - A);
            for j in 0..5 {
                let x = t2(vec![e - eps, e + eps], 2, 1, &ad).require_grad();
                let g = feats.kfu(&kernel, x.clone()).narrow(1, j, 1).sum().backward();
                let d = host(x.grad(&g).unwrap());
                assert!(
                    (d[0] - d[1]).abs() < 1e-5 * (1.0 + omega_f),
                    "ν={nu:?} e={e} feature {j}: derivative {} vs {}",
                    d[0],
                    d[1]
                );
            }
        }
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    let dev = device();
    let k = golden_kernel(MaternNu::ThreeHalves, &dev);
    // F = 0 (|β| ≤ 0) and a zero budget
    assert!(matches!(FourierFeatures::new(&k, &[(0.0, 1.0)], 0), Err(Error::InvalidArgument { .. })));
    assert!(matches!(num_freq_for_budget(0, 3, false), Err(Error::InvalidArgument { .. })));
    assert_eq!(num_freq_for_budget(10, 1, true).unwrap(), 5);
    assert_eq!(num_freq_for_budget(50, 1, true).unwrap(), 25);
    assert_eq!(num_freq_for_budget(100, 9, false).unwrap(), 5);
    // empty, reversed or non-finite intervals; wrong count of intervals
    assert!(matches!(FourierFeatures::new(&k, &[(1.0, 1.0)], 2), Err(Error::InvalidArgument { .. })));
    assert!(matches!(FourierFeatures::new(&k, &[(2.0, 1.0)], 2), Err(Error::InvalidArgument { .. })));
    assert!(matches!(FourierFeatures::new(&k, &[(f64::NAN, 1.0)], 2), Err(Error::InvalidArgument { .. })));
    assert!(matches!(FourierFeatures::new(&k, &[(0.0, 1.0), (0.0, 1.0)], 2), Err(Error::ShapeMismatch { .. })));
    // ν outside {½, ³⁄₂, ⁵⁄₂}
    assert!(matches!(MaternNu::from_value(0.7), Err(Error::InvalidArgument { .. })));
    assert_eq!(MaternNu::from_value(2.5).unwrap(), MaternNu::FiveHalves);
    // too many Kronecker features
    let sep = SeparableMatern::new(MaternNu::Half, &[1.0; 3], 1.0, &dev).unwrap();
    assert!(matches!(FourierFeatures::new(&sep, &[(0.0, 1.0); 3], 10), Err(Error::InvalidArgument { .. })));
    // an interval that does not contain the training data is an error, not a silent widening
    let x = [0.1, 0.5, 2.4];
    match FourierFeatures::for_data(&k, &x, 3, 2, Some(&[(0.0, 2.0)])) {
        Err(Error::InvalidArgument { name, reason }) => {
            assert!(name == "interval" && reason.contains("2.4"), "{reason}")
        }
        other => panic!("expected an interval error, got {other:?}"),
    }
    assert!(matches!(FourierFeatures::for_data(&k, &[0.1, f64::INFINITY], 2, 2, None), Err(Error::NonFinite { .. })));
    // without an interval: the data range plus max(0.1·range, 3ℓ) on each side
    let f = FourierFeatures::for_data(&k, &x, 3, 2, None).unwrap();
    let (a, b) = f.intervals()[0];
    assert!((a - (0.1 - 3.0 * LS)).abs() < 1e-9 && (b - (2.4 + 3.0 * LS)).abs() < 1e-9, "[{a}, {b}]");
    f.check_covers(&x, 3).unwrap();
    // kernel dimensions other than the features' are a shape error when K_β is formed
    let k2 = AdditiveMatern::new(MaternNu::ThreeHalves, &[1.0, 1.0], &[1.0, 1.0], &dev).unwrap();
    assert!(matches!(f.kuu_factor(&k2, 0.0), Err(Error::ShapeMismatch { .. })));
    let _: Tensor<2> = f.kfu(&k, t2(x.to_vec(), 3, 1, &dev));
}

/// `Probe::<I, K>::IMPLEMENTS` is true exactly when `I: InducingVariables<K>`: the inherent
/// constant exists only when the bound holds, otherwise the blanket trait's `false` is found.
struct Probe<I, K>(std::marker::PhantomData<(I, K)>);
trait NotInducing {
    const IMPLEMENTS: bool = false;
}
impl<I, K> NotInducing for Probe<I, K> {}
impl<I: InducingVariables<K>, K: Kernel> Probe<I, K> {
    const IMPLEMENTS: bool = true;
}

#[test]
fn fourier_features_pair_only_with_the_matern_sum_and_product_kernels() {
    use burn_gp::kernels::{Linear, Rbf};
    // a non-Matérn kernel (or the Euclidean-distance Matérn) with Fourier features does not compile
    let pairs = [
        ("AdditiveMatern", Probe::<FourierFeatures, AdditiveMatern>::IMPLEMENTS, true),
        ("SeparableMatern", Probe::<FourierFeatures, SeparableMatern>::IMPLEMENTS, true),
        ("Rbf", Probe::<FourierFeatures, Rbf>::IMPLEMENTS, false),
        ("Linear", Probe::<FourierFeatures, Linear>::IMPLEMENTS, false),
        ("Matern", Probe::<FourierFeatures, Matern>::IMPLEMENTS, false),
        // inducing points take any kernel (the probe is not constant)
        ("Rbf, for InducingPoints", Probe::<burn_gp::inducing::InducingPoints, Rbf>::IMPLEMENTS, true),
    ];
    for (name, implements, expected) in pairs {
        assert_eq!(implements, expected, "FourierFeatures: InducingVariables<{name}>");
    }
}

/// `Σ_ij c_ij K_ij` of the additive kernel by plain tensor ops (Burn's own autodiff) and by the
/// fused op, with gradients with respect to x, z, the lengthscales and the variances.
fn weighted_gram(fused: bool, nu: MaternNu, x: &[f64], z: &[f64], ls: &[f64], var: &[f64]) -> (f64, Vec<Vec<f64>>) {
    use burn_gp::kernels::{matern_factors, matern_rates};
    let ad = ad_device();
    let d = ls.len();
    let (n, m) = (x.len() / d, z.len() / d);
    let kern = AdditiveMatern::new(nu, ls, var, &ad).unwrap();
    let xt = t2(x.to_vec(), n, d, &ad).require_grad();
    let zt = t2(z.to_vec(), m, d, &ad).require_grad();
    let k = if fused {
        kern.k(xt.clone(), zt.clone())
    } else {
        let f = matern_factors(nu, xt.clone(), zt.clone(), matern_rates(nu, kern.lengthscales.value()));
        (f * kern.variances.value().reshape([d, 1, 1])).sum_dim(0).reshape([n, m])
    };
    let c = t2(uniform(n * m, 5), n, m, &ad);
    let total = (k * c).sum();
    let value = scalar(total.clone());
    let g = total.backward();
    let grads = vec![
        host(xt.grad(&g).unwrap()),
        host(zt.grad(&g).unwrap()),
        host(kern.lengthscales.raw().grad(&g).unwrap()),
        host(kern.variances.raw().grad(&g).unwrap()),
    ];
    (value, grads)
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn fused_additive_matern_equals_tensor_ops_and_finite_differences() {
    let (d, n, m) = (3, 7, 5);
    let x: Vec<f64> = uniform(n * d, 41);
    let mut z: Vec<f64> = uniform(m * d, 42);
    z[..d].copy_from_slice(&x[..d]); // a coincident pair (r = 0)
    let (ls, var) = ([0.5, 0.9, 1.7], [0.3, 1.2, 0.7]);
    for nu in NUS {
        let (vf, gf) = weighted_gram(true, nu, &x, &z, &ls, &var);
        let (vt, gt) = weighted_gram(false, nu, &x, &z, &ls, &var);
        assert!(rel(vf, vt) < 1e-13, "ν={nu:?}: value {vf} vs {vt}");
        // Burn's own tensor-op gradients carry ~2e-8 relative error for ν = 5/2 (a fourth-order
        // finite difference agrees with the fused op to 1e-11 and with the tensor ops to 2e-8)
        for (a, b) in gf.iter().zip(&gt) {
            assert!(max_rel_err(a, b, 1e-6) < 1e-6, "ν={nu:?}: gradient {a:?} vs {b:?}");
        }
        // finite differences in x (the fused op's own backward against its forward)
        let fd = fd_grad(&x, 1e-6, |p| weighted_gram(true, nu, p, &z, &ls, &var).0);
        assert!(max_rel_err(&gf[0], &fd, 1e-2) < 1e-6, "ν={nu:?}: ∂/∂x {:?} vs {fd:?}", gf[0]);
        if nu == MaternNu::FiveHalves {
            // smooth enough (C⁴) for a fourth-order difference: agreement to round-off
            let h = 1e-3;
            let f = |i: usize, dx: f64| {
                let mut p = x.clone();
                p[i] += dx;
                weighted_gram(true, nu, &p, &z, &ls, &var).0
            };
            let fd4: Vec<f64> = (0..x.len())
                .map(|i| (f(i, -2.0 * h) - 8.0 * f(i, -h) + 8.0 * f(i, h) - f(i, 2.0 * h)) / (12.0 * h))
                .collect();
            assert!(max_rel_err(&gf[0], &fd4, 1e-2) < 1e-9, "ν=5/2: ∂/∂x {:?} vs {fd4:?}", gf[0]);
        }
    }
}
