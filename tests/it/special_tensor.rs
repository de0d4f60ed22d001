//! Tensor special functions: values against the host functions, gradients against the analytic
//! derivatives and central finite differences.
use crate::common::*;
use burn::tensor::{DType, Tensor, TensorData};
use burn_gp::special;
use burn_gp::special::tensor::{inv_mills, log_ndtr, log_sum_exp_dim, norm_cdf};

/// Points from the far left tail to the far right tail.
const Z: [f64; 20] = [
    -1e6, -1e3, -40.0, -38.0, -30.0, -20.0, -10.0, -5.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 5.0, 8.0, 10.0, 20.0,
    40.0,
];

/// Points where finite differences of `ln Φ` are well conditioned (its value and slope are not
/// both tiny), left tail included.
const Z_GRAD: [f64; 14] = [-40.0, -30.0, -20.0, -10.0, -5.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0];

fn t1(v: &[f64], dev: &burn::tensor::Device) -> Tensor<1> {
    Tensor::from_data(TensorData::new(v.to_vec(), [v.len()]), dev)
}

fn map(f: fn(f64) -> f64, z: &[f64]) -> Vec<f64> {
    z.iter().map(|&z| f(z)).collect()
}

/// Positive weights, so no gradient component is accidentally near zero.
fn weights(n: usize) -> Vec<f64> {
    uniform(n, 7).into_iter().map(|u| 1.0 + 0.5 * u).collect()
}

/// Largest `|a − b| / max(|b|, floor)`; equal values (infinities included) count as 0 and any
/// other non-finite mismatch (NaN included) as infinite.
fn max_err(a: &[f64], b: &[f64], floor: f64) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let e = if x == y { 0.0 } else { (x - y).abs() / y.abs().max(floor) };
            if e.is_nan() {
                f64::INFINITY
            } else {
                e
            }
        })
        .fold(0.0, f64::max)
}

/// Largest relative error `|a − b| / |b|` (see [`max_err`]).
fn rel_errs(a: &[f64], b: &[f64]) -> f64 {
    max_err(a, b, 0.0)
}

/// Autodiff gradient of `Σ w·f(z)` for an elementwise tensor function `f`.
fn autodiff_grad(f: fn(Tensor<1>) -> Tensor<1>, z: &[f64], w: &[f64]) -> Vec<f64> {
    let dev = ad_device();
    let x = t1(z, &dev).require_grad();
    let loss = (f(x.clone()) * t1(w, &dev)).sum();
    let grads = loss.backward();
    host(x.grad(&grads).expect("gradient"))
}

/// Central finite differences of `Σ w·f(z)`, through the tensor function itself. `f` is
/// elementwise, so shifting every coordinate at once gives all partial derivatives together.
fn central_differences(f: fn(Tensor<1>) -> Tensor<1>, z: &[f64], w: &[f64], h: f64) -> Vec<f64> {
    let dev = device();
    let up = host(f(t1(z, &dev).add_scalar(h)));
    let down = host(f(t1(z, &dev).sub_scalar(h)));
    (0..z.len()).map(|i| w[i] * (up[i] - down[i]) / (2.0 * h)).collect()
}

#[test]
fn log_ndtr_equals_the_host_function() {
    let got = host(log_ndtr(t1(&Z, &device())));
    let err = rel_errs(&got, &map(special::log_ndtr, &Z));
    eprintln!("log_ndtr tensor vs host: {err:.2e}");
    assert!(err <= tol(1e-15, 1e-6), "{got:?}");
    assert!(got.iter().all(|v| v.is_finite()), "{got:?}");
    // Same values through the autodiff device (untracked) and in a 2-D layout.
    let z2 = Tensor::<2>::from_data(TensorData::new(Z.to_vec(), [4, 5]), &ad_device());
    assert_eq!(host(log_ndtr(z2)), got);
}

#[test]
fn inv_mills_and_norm_cdf_equal_the_host_functions() {
    let dev = device();
    let lambda = host(inv_mills(t1(&Z, &dev)));
    let err = rel_errs(&lambda, &map(special::inv_mills, &Z));
    eprintln!("inv_mills tensor vs host: {err:.2e}");
    assert!(err <= tol(1e-15, 1e-6), "{lambda:?}");
    // Φ through exp(ln Φ): relative error ≈ |ln Φ|·ε, about 1e-13 at z = −40.
    let cdf = host(norm_cdf(t1(&Z, &dev)));
    let err = rel_errs(&cdf, &map(special::norm_cdf, &Z));
    eprintln!("norm_cdf tensor vs host: {err:.2e}");
    assert!(err <= tol(1e-12, 1e-5), "{cdf:?}");
}

#[test]
fn log_ndtr_gradient_is_inv_mills_and_matches_finite_differences() {
    let w = weights(Z_GRAD.len());
    let auto = autodiff_grad(log_ndtr, &Z_GRAD, &w);
    let exact: Vec<f64> = Z_GRAD.iter().zip(&w).map(|(&z, w)| w * special::inv_mills(z)).collect();
    assert!(rel_errs(&auto, &exact) <= tol(1e-15, 1e-6), "{auto:?}");
    if is_f64() {
        let fd = central_differences(log_ndtr, &Z_GRAD, &w, 1e-5);
        let err = rel_errs(&auto, &fd);
        eprintln!("d/dz Σ w·log_ndtr(z) vs central differences: {err:.2e}");
        assert!(err < 1e-6, "autodiff {auto:?}\nfinite differences {fd:?}");
    }
}

#[test]
fn far_tail_gradient_is_finite_and_close_to_minus_z() {
    let z = [-1e6, -1e3, -100.0];
    let auto = autodiff_grad(log_ndtr, &z, &[1.0; 3]);
    assert!(rel_errs(&auto, &[1e6, 1e3, 100.0]) < 1e-4, "{auto:?}");
}

#[test]
fn inv_mills_gradient_matches_finite_differences() {
    let w = weights(Z_GRAD.len());
    let auto = autodiff_grad(inv_mills, &Z_GRAD, &w);
    let exact: Vec<f64> = Z_GRAD
        .iter()
        .zip(&w)
        .map(|(&z, w)| {
            let l = special::inv_mills(z);
            -w * l * (z + l)
        })
        .collect();
    assert!(rel_errs(&auto, &exact) <= tol(1e-14, 1e-5), "{auto:?}");
    if is_f64() {
        let fd = central_differences(inv_mills, &Z_GRAD, &w, 1e-5);
        let err = rel_errs(&auto, &fd);
        eprintln!("d/dz Σ w·inv_mills(z) vs central differences: {err:.2e}");
        assert!(err < 1e-6, "autodiff {auto:?}\nfinite differences {fd:?}");
    }
}

#[test]
fn norm_cdf_gradient_is_norm_pdf() {
    let w = weights(Z_GRAD.len());
    let auto = autodiff_grad(norm_cdf, &Z_GRAD, &w);
    let exact: Vec<f64> = Z_GRAD.iter().zip(&w).map(|(&z, w)| w * special::norm_pdf(z)).collect();
    assert!(rel_errs(&auto, &exact) <= tol(1e-12, 1e-5), "{auto:?}");
}

#[test]
fn log_ndtr_on_f32_tensors_is_finite_down_to_minus_30() {
    let z: Vec<f64> = (0..=600).map(|i| -0.05 * f64::from(i)).collect();
    let x = Tensor::<1>::from_data(TensorData::new(z.clone(), [z.len()]), (&device(), DType::F32));
    let out = log_ndtr(x);
    assert_eq!(out.dtype(), DType::F32);
    let got = host(out);
    // Reference: the f64 function at the f32-rounded inputs.
    let want: Vec<f64> = z.iter().map(|&z| special::log_ndtr(f64::from(z as f32))).collect();
    assert!(got.iter().all(|v| v.is_finite() && *v < 0.0), "{got:?}");
    assert!(rel_errs(&got, &want) < 1e-7);
}

#[test]
fn log_sum_exp_dim_matches_host_and_keeps_the_dimension() {
    let ninf = f64::NEG_INFINITY;
    #[rustfmt::skip]
    let rows = [
        [1000.0, 1000.0, 999.0, -5.0],
        [ninf, ninf, ninf, ninf],
        [0.3, -1.2, 2.5, 0.0],
        [-800.0, -790.0, ninf, -805.0],
    ];
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    let x = t2(flat, 4, 4, &device());

    // The tensor version computes ln Σ exp(x − m) without the host version's ln_1p, so it is
    // accurate relative to max(|result|, 1).
    let by_row = log_sum_exp_dim(x.clone(), 1);
    assert_eq!(by_row.dims(), [4, 1]);
    let want: Vec<f64> = rows.iter().map(|r| special::log_sum_exp(r)).collect();
    assert!(max_err(&host(by_row), &want, 1.0) <= tol(1e-15, 1e-6));

    let by_column = log_sum_exp_dim(x, 0);
    assert_eq!(by_column.dims(), [1, 4]);
    let want: Vec<f64> = (0..4).map(|j| special::log_sum_exp(&rows.map(|r| r[j]))).collect();
    assert!(max_err(&host(by_column), &want, 1.0) <= tol(1e-15, 1e-6));
}

#[test]
fn log_sum_exp_dim_gradient_is_the_softmax() {
    let (r, c) = (3, 5);
    let v: Vec<f64> = uniform(r * c, 3).into_iter().map(|u| 50.0 * u).collect();
    let dev = ad_device();
    let x = t2(v.clone(), r, c, &dev).require_grad();
    let grads = log_sum_exp_dim(x.clone(), 1).sum().backward();
    let auto = host(x.grad(&grads).expect("gradient"));
    let softmax: Vec<f64> = v
        .chunks(c)
        .flat_map(|row| {
            let lse = special::log_sum_exp(row);
            row.iter().map(move |x| (x - lse).exp())
        })
        .collect();
    assert!(max_err(&auto, &softmax, 1e-12) <= tol(1e-12, 1e-5), "{auto:?}");
}
