//! Helpers shared by the integration tests.
#![allow(dead_code)]
pub mod hybrids;
pub mod mlp;
pub mod tables;
use burn::tensor::{Device, Tensor, TensorData};

/// The default backend's device (f64 on CPU) with autodiff.
pub fn ad_device() -> Device {
    burn_gp::device::default_device().expect("device").autodiff()
}

/// The default backend's device without autodiff.
pub fn device() -> Device {
    burn_gp::device::default_device().expect("device")
}

/// True when the default device computes in f64.
pub fn is_f64() -> bool {
    burn_gp::device::precision(&device()) == burn_gp::device::Precision::F64
}

/// True (after printing that `test` is skipped, and why) when the default device computes in f32:
/// for the checks inside a test that only f64 can make (finite differences, f64 tolerances),
/// after the parts that hold in either precision.
pub fn skip_unless_f64(test: &str) -> bool {
    let skip = !is_f64();
    if skip {
        eprintln!("skipped in f32: the rest of {test} (finite differences or f64 tolerances)");
    }
    skip
}

/// Tolerance by precision: `f64_tol` on CPU, `f32_tol` on GPU backends.
pub fn tol(f64_tol: f64, f32_tol: f64) -> f64 {
    if is_f64() {
        f64_tol
    } else {
        f32_tol
    }
}

/// Deterministic uniform(-1, 1) numbers.
pub fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// A `[r, c]` tensor from a row-major vector.
pub fn t2(v: Vec<f64>, r: usize, c: usize, dev: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(v, [r, c]), dev)
}

/// A `[b, r, c]` tensor from a row-major vector.
pub fn t3(v: Vec<f64>, b: usize, r: usize, c: usize, dev: &Device) -> Tensor<3> {
    Tensor::from_data(TensorData::new(v, [b, r, c]), dev)
}

/// Reads any tensor back as f64.
pub fn host<const D: usize>(t: Tensor<D>) -> Vec<f64> {
    t.into_data().convert::<f64>().try_into_vec::<f64>().unwrap()
}

/// Reads a one-element tensor.
pub fn scalar<const D: usize>(t: Tensor<D>) -> f64 {
    host(t)[0]
}

/// Max relative error `|a−b| / max(|b|, floor)`.
pub fn max_rel_err(a: &[f64], b: &[f64], floor: f64) -> f64 {
    assert_eq!(a.len(), b.len(), "length mismatch");
    a.iter().zip(b).map(|(x, y)| (x - y).abs() / y.abs().max(floor)).fold(0.0, f64::max)
}

/// Central finite-difference gradient of `f` at `x`.
pub fn fd_grad(x: &[f64], h: f64, mut f: impl FnMut(&[f64]) -> f64) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let mut p = x.to_vec();
            p[i] += h;
            let fp = f(&p);
            p[i] -= 2.0 * h;
            let fm = f(&p);
            (fp - fm) / (2.0 * h)
        })
        .collect()
}

/// A random SPD matrix `X Xᵀ / c + I` (row-major n×n) built from `x` (n×c).
pub fn spd_host(x: &[f64], n: usize, c: usize) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..c).map(|k| x[i * c + k] * x[j * c + k]).sum();
            a[i * n + j] = s / c as f64 + if i == j { 1.0 } else { 0.0 };
        }
    }
    a
}

/// The data directory, or `None` (after saying so) when there is none and CI does not demand it
/// (`BURN_GP_REQUIRE_DATA=1` makes a missing directory a failure).
pub fn data_root_or_skip() -> Option<std::path::PathBuf> {
    let required = std::env::var("BURN_GP_REQUIRE_DATA").is_ok_and(|v| v == "1");
    match burn_gp::data::data_root(None) {
        Ok(root) => Some(root),
        Err(e) if !required => {
            eprintln!("skipping real-data test: {e}");
            None
        }
        Err(e) => panic!("BURN_GP_REQUIRE_DATA=1 but no data directory: {e}"),
    }
}

/// Standard normal CDF from `libm`.
pub fn phi_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

/// `P(f_c is the largest)` for independent `f_k ~ N(μ_k, σ²_k)` by the trapezoid rule over
/// `z ∈ [−12, 12]` (step 1e-3) of `φ(z) Π_{k≠c} Φ((μ_c + σ_c z − μ_k)/σ_k)`; the integrand is
/// entire and Gaussian-decaying, so this is accurate to rounding.
pub fn argmax_probabilities_exact(mean: &[f64], var: &[f64]) -> Vec<f64> {
    let h = 1e-3;
    let n = (24.0 / h) as usize;
    (0..mean.len())
        .map(|c| {
            (0..=n)
                .map(|i| {
                    let z = -12.0 + i as f64 * h;
                    let f = mean[c] + var[c].sqrt() * z;
                    let prod: f64 =
                        (0..mean.len()).filter(|&k| k != c).map(|k| phi_cdf((f - mean[k]) / var[k].sqrt())).product();
                    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt() * prod
                })
                .sum::<f64>()
                * h
        })
        .collect()
}

/// Host rows `v` with `cols` columns as a `[v.len() / cols, cols]` tensor on `dev` (no checks: a
/// model's own input checks see NaN and ragged rows).
pub fn by_cols(v: &[f64], cols: usize, dev: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(v.to_vec(), [v.len() / cols.max(1), cols]), dev)
}

/// Host values `v` of `rows` rows as a `[rows, v.len() / rows]` tensor on `dev`.
pub fn by_rows(v: &[f64], rows: usize, dev: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(v.to_vec(), [rows, v.len() / rows.max(1)]), dev)
}
