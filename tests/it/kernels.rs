//! Kernels against their closed forms; positive definiteness; combinations.
use crate::common::*;
use burn_gp::kernels::{ArcSine, Kernel, Linear, Matern, MaternNu, Product, Rbf, Sum};

fn sqdist(a: &[f64], b: &[f64], ls: &[f64]) -> f64 {
    a.iter().zip(b).zip(ls).map(|((x, y), l)| ((x - y) / l).powi(2)).sum()
}

#[test]
fn stationary_kernels_match_closed_forms() {
    let dev = device();
    let (n, m, d) = (5, 4, 3);
    let xa = uniform(n * d, 1);
    let xb = uniform(m * d, 2);
    let ls = [0.5, 1.0, 2.0];
    let var = 1.7;
    type Case<'a> = (Box<dyn Fn(f64) -> f64 + 'a>, Box<dyn Fn() -> Vec<f64> + 'a>);
    let cases: Vec<Case> = vec![
        (
            Box::new(|r2: f64| var * (-0.5 * r2).exp()),
            Box::new(|| {
                host(Rbf::new(&ls, var, &dev).unwrap().k(t2(xa.clone(), n, d, &dev), t2(xb.clone(), m, d, &dev)))
            }),
        ),
        (
            Box::new(|r2: f64| var * (-r2.sqrt()).exp()),
            Box::new(|| {
                host(
                    Matern::new(MaternNu::Half, &ls, var, &dev)
                        .unwrap()
                        .k(t2(xa.clone(), n, d, &dev), t2(xb.clone(), m, d, &dev)),
                )
            }),
        ),
        (
            Box::new(|r2: f64| {
                let s = 3f64.sqrt() * r2.sqrt();
                var * (1.0 + s) * (-s).exp()
            }),
            Box::new(|| {
                host(
                    Matern::new(MaternNu::ThreeHalves, &ls, var, &dev)
                        .unwrap()
                        .k(t2(xa.clone(), n, d, &dev), t2(xb.clone(), m, d, &dev)),
                )
            }),
        ),
        (
            Box::new(|r2: f64| {
                let s = 5f64.sqrt() * r2.sqrt();
                var * (1.0 + s + s * s / 3.0) * (-s).exp()
            }),
            Box::new(|| {
                host(
                    Matern::new(MaternNu::FiveHalves, &ls, var, &dev)
                        .unwrap()
                        .k(t2(xa.clone(), n, d, &dev), t2(xb.clone(), m, d, &dev)),
                )
            }),
        ),
    ];
    for (ci, (f, k)) in cases.iter().enumerate() {
        let got = k();
        let mut want = Vec::new();
        for i in 0..n {
            for j in 0..m {
                want.push(f(sqdist(&xa[i * d..(i + 1) * d], &xb[j * d..(j + 1) * d], &ls)));
            }
        }
        assert!(max_rel_err(&got, &want, 1e-6) < tol(1e-12, 1e-5), "case {ci}: {got:?} vs {want:?}");
    }
}

#[test]
fn diagonals_linear_and_combinations() {
    let dev = device();
    let (n, d) = (6, 2);
    let x = uniform(n * d, 4);
    let xt = t2(x.clone(), n, d, &dev);
    let rbf = Rbf::new(&[0.7, 1.4], 2.0, &dev).unwrap();
    let lin = Linear::new(&[0.5, 3.0], &dev).unwrap();
    // k_diag equals the diagonal of k
    for k in [host(rbf.k(xt.clone(), xt.clone())), host(lin.k(xt.clone(), xt.clone()))].iter().enumerate() {
        let diag: Vec<f64> = (0..n).map(|i| k.1[i * n + i]).collect();
        let kd = if k.0 == 0 { host(rbf.k_diag(xt.clone())) } else { host(lin.k_diag(xt.clone())) };
        assert!(max_rel_err(&kd, &diag, 1e-6) < tol(1e-12, 1e-5));
    }
    let klin = host(lin.k(xt.clone(), xt.clone()));
    for i in 0..n {
        for j in 0..n {
            let want = 0.5 * x[i * 2] * x[j * 2] + 3.0 * x[i * 2 + 1] * x[j * 2 + 1];
            assert!((klin[i * n + j] - want).abs() < tol(1e-13, 1e-5));
        }
    }
    let krbf = host(rbf.k(xt.clone(), xt.clone()));
    let sum = host(Sum::new(rbf.clone(), lin.clone()).k(xt.clone(), xt.clone()));
    let prod = host(Product::new(rbf.clone(), lin.clone()).k(xt.clone(), xt.clone()));
    for i in 0..n * n {
        assert!((sum[i] - (krbf[i] + klin[i])).abs() < tol(1e-13, 1e-5));
        assert!((prod[i] - krbf[i] * klin[i]).abs() < tol(1e-13, 1e-5));
    }
    let sd = host(Sum::new(rbf.clone(), lin.clone()).k_diag(xt.clone()));
    assert!((sd[0] - (krbf[0] + klin[0])).abs() < tol(1e-13, 1e-5));
    assert_eq!(rbf.input_dim(), Some(2));
}

#[test]
fn kernel_matrices_are_positive_definite_and_hyperparameter_gradients_are_right() {
    let dev = device();
    let n = 20;
    let x = t2(uniform(n * 3, 8), n, 3, &dev);
    for k in [
        host(Rbf::ard(3, 0.6, 1.0, &dev).unwrap().k(x.clone(), x.clone())),
        host(Matern::new(MaternNu::Half, &[0.3, 0.4, 0.5], 1.0, &dev).unwrap().k(x.clone(), x.clone())),
    ] {
        let mut kk = k.clone();
        for i in 0..n {
            kk[i * n + i] += 1e-9;
        }
        assert!(burn_gp::linalg::host::cholesky_batch(&kk, 1, n).unwrap().1[0] == 0.0);
    }
    if skip_unless_f64("kernel_matrices_are_positive_definite_and_hyperparameter_gradients_are_right") {
        return;
    }
    // d/dℓ Σ K for the Matérn-3/2 via autodiff vs finite differences on ℓ.
    let ad = ad_device();
    let xv = uniform(8 * 2, 3);
    let f = |ls: &[f64], dev: &burn::tensor::Device| {
        Matern::new(MaternNu::ThreeHalves, ls, 1.3, dev)
            .unwrap()
            .k(t2(xv.clone(), 8, 2, dev), t2(xv.clone(), 8, 2, dev))
            .sum()
    };
    let ls = [0.8, 1.6];
    let kern = Matern::new(MaternNu::ThreeHalves, &ls, 1.3, &ad).unwrap();
    let s = kern.k(t2(xv.clone(), 8, 2, &ad), t2(xv.clone(), 8, 2, &ad)).sum();
    let g = s.backward();
    let graw = host(kern.params.lengthscales.raw().grad(&g).expect("gradient of raw lengthscales"));
    // chain rule through softplus: dℓ/draw = sigmoid(raw) = 1 − exp(−ℓ)
    let auto: Vec<f64> = graw.iter().zip(&ls).map(|(g, l)| g / (1.0 - (-l).exp())).collect();
    let base = device();
    let fd = fd_grad(&ls, 1e-6, |p| scalar(f(p, &base)));
    assert!(max_rel_err(&auto, &fd, 1e-6) < 1e-6, "{auto:?} vs {fd:?}");
}

/// GPy 1.13's `MLP` kernel on the same inputs (`GPy.kern.MLP(3, variance, weight_variance,
/// bias_variance, ARD)`, `K(xa, xb).ravel()` and `Kdiag(xa)`), which is also the closed form.
#[test]
fn arcsine_kernel_matches_gpy_mlp_and_its_gradients_are_right() {
    let dev = device();
    let xa = vec![0.3, -1.2, 0.5, 1.5, 0.2, -0.7, -0.4, 0.9, 2.1];
    let xb = vec![0.0, 0.0, 0.0, 2.0, -1.0, 0.5, -1.1, 0.3, 0.8, 0.6, 0.6, -0.6];
    let (a, b) = (t2(xa.clone(), 3, 3, &dev), t2(xb.clone(), 4, 3, &dev));
    let ard = ArcSine::new(&[0.5, 1.0, 2.0], 0.8, 1.7, &dev).unwrap();
    let gpy_ard = [
        0.3371292440466066,
        0.7308773423968827,
        0.31209159076551923,
        -0.13710907558156,
        0.3299969622640372,
        0.33676501151785737,
        -0.30844093537589057,
        0.7461060399780894,
        0.1912083480079994,
        0.22328462546855835,
        0.8474438193082791,
        -0.23900662661892882,
    ];
    let gpy_diag = [0.8948571688305323, 0.9121322600676242, 1.2455333432523443];
    assert!(max_rel_err(&host(ard.k(a.clone(), b.clone())), &gpy_ard, 1e-6) < tol(1e-13, 1e-5));
    assert!(max_rel_err(&host(ard.k_diag(a.clone())), &gpy_diag, 1e-6) < tol(1e-13, 1e-5));
    let kaa = host(ard.k(a.clone(), a.clone()));
    let diag: Vec<f64> = (0..3).map(|i| kaa[i * 3 + i]).collect();
    assert!(max_rel_err(&diag, &gpy_diag, 1e-6) < tol(1e-13, 1e-5));
    assert_eq!(ard.input_dim(), Some(3));
    let iso = ArcSine::new(&[1.0], 1.0, 1.0, &dev).unwrap();
    let gpy_iso = [
        0.2369709342607265,
        0.3959443160940445,
        0.1177946111004894,
        0.02986332321209153,
        0.20966741277342954,
        0.39863714392982863,
        -0.17073985405295175,
        0.43875598966844753,
        0.16763607621543752,
        0.03047311442082241,
        0.4328015224960509,
        0.00534123480454623,
    ];
    assert!(max_rel_err(&host(iso.k(a, b)), &gpy_iso, 1e-6) < tol(1e-13, 1e-5));
    assert_eq!(iso.input_dim(), None);
    assert!(ArcSine::new(&[1.0], 0.0, 1.0, &dev).is_err(), "a zero bias variance is refused");

    // Positive definite on 20 points, including inputs far from the origin.
    let n = 20;
    let x: Vec<f64> = uniform(n * 3, 8).iter().map(|v| 30.0 * v).collect();
    let mut k = host(ard.k(t2(x.clone(), n, 3, &dev), t2(x, n, 3, &dev)));
    for i in 0..n {
        k[i * n + i] += 1e-9;
    }
    assert!(burn_gp::linalg::host::cholesky_batch(&k, 1, n).unwrap().1[0] == 0.0);
    if skip_unless_f64("arcsine_kernel_matches_gpy_mlp_and_its_gradients_are_right") {
        return;
    }
    // Autodiff gradients of Σ K(x, x) + Σ k_diag(x) in (σ_w², σ_b², σ²) against finite differences.
    let xv = uniform(8 * 2, 3);
    let objective = |p: &[f64], dev: &burn::tensor::Device| {
        let kern = ArcSine::new(&p[..2], p[2], p[3], dev).unwrap();
        let x = t2(xv.clone(), 8, 2, dev);
        (kern.k(x.clone(), x.clone()).sum(), kern.k_diag(x).sum(), kern)
    };
    let p = [0.7, 1.8, 0.4, 1.3];
    let ad = ad_device();
    let (sk, sd, kern) = objective(&p, &ad);
    let g = (sk + sd).backward();
    let raw: Vec<f64> = [&kern.weight_variances, &kern.bias_variance, &kern.variance]
        .iter()
        .flat_map(|v| host(v.raw().grad(&g).expect("gradient of a raw parameter")))
        .collect();
    // chain rule through softplus: dv/draw = 1 − exp(−v)
    let auto: Vec<f64> = raw.iter().zip(&p).map(|(g, v)| g / (1.0 - (-v).exp())).collect();
    let base = device();
    let fd = fd_grad(&p, 1e-6, |q| {
        let (sk, sd, _) = objective(q, &base);
        scalar(sk) + scalar(sd)
    });
    assert!(max_rel_err(&auto, &fd, 1e-6) < 1e-6, "{auto:?} vs {fd:?}");
}
