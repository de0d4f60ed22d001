//! Linear algebra: values against closed forms, gradients against central finite differences.
use crate::common::*;
use burn::tensor::Tensor;
use burn_gp::linalg::{cholesky, cholesky_solve, logdet_from_cholesky, solve_triangular, tri_inverse, Triangle};
use burn_gp::Error;

/// SPD matrix from X as tensor ops, so gradients flow to X.
fn spd(x: Tensor<2>) -> Tensor<2> {
    let [n, c] = x.dims();
    let dev = x.device();
    x.clone().matmul(x.transpose()).div_scalar(c as f64) + Tensor::<2>::eye(n, &dev)
}

/// Checks d/dX Σ W ⊙ g(X) by autodiff against central differences (max relative error).
fn check_grad(n: usize, c: usize, seed: u64, g: impl Fn(Tensor<2>) -> Tensor<2>) -> f64 {
    let (auto, fd) = autodiff_and_fd(n, c, seed, &g);
    max_rel_err(&auto, &fd, 1e-3)
}

/// d/dX Σ W ⊙ g(X) by autodiff and by central differences, at a uniform random X `[n, c]`.
fn autodiff_and_fd(n: usize, c: usize, seed: u64, g: &dyn Fn(Tensor<2>) -> Tensor<2>) -> (Vec<f64>, Vec<f64>) {
    let ad = ad_device();
    let base = device();
    let xv = uniform(n * c, seed);
    let out_shape = g(t2(xv.clone(), n, c, &base)).dims();
    let wv = uniform(out_shape[0] * out_shape[1], seed + 100);
    let x = t2(xv.clone(), n, c, &ad).require_grad();
    let w = t2(wv.clone(), out_shape[0], out_shape[1], &ad);
    let loss = (g(x.clone()) * w).sum();
    let grads = loss.backward();
    let auto = host(x.grad(&grads).expect("gradient"));
    let w0 = t2(wv, out_shape[0], out_shape[1], &base);
    let fd = fd_grad(&xv, 1e-6, |p| scalar((g(t2(p.to_vec(), n, c, &base)) * w0.clone()).sum()));
    (auto, fd)
}

#[test]
fn cholesky_matches_closed_form_2x2() {
    let dev = device();
    let a = t2(vec![4.0, 2.0, 2.0, 3.0], 2, 2, &dev);
    let l = host(cholesky(a).unwrap());
    let expect = [2.0, 0.0, 1.0, 2f64.sqrt()];
    assert!(max_rel_err(&l, &expect, 1.0) < tol(1e-14, 1e-6), "{l:?}");
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn cholesky_gradient_matches_finite_differences() {
    let err = check_grad(6, 8, 7, |x| cholesky(spd(x)).unwrap());
    assert!(err < 1e-6, "relative error {err}");
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn tri_inverse_and_solves_gradients_match_finite_differences() {
    let b_cols = 3;
    let rhs = |n: usize, dev: &burn::tensor::Device| t2(uniform(n * b_cols, 5), n, b_cols, dev);
    let e1 = check_grad(5, 7, 11, |x| tri_inverse(cholesky(spd(x)).unwrap()));
    assert!(e1 < 1e-6, "tri_inverse {e1}");
    for (tri, trans) in
        [(Triangle::Lower, false), (Triangle::Lower, true), (Triangle::Upper, false), (Triangle::Upper, true)]
    {
        let e = check_grad(5, 7, 13, |x| {
            let dev = x.device();
            let l = cholesky(spd(x)).unwrap();
            let t = if tri == Triangle::Upper { l.transpose() } else { l };
            solve_triangular(t, rhs(5, &dev), tri, trans).unwrap()
        });
        assert!(e < 1e-6, "solve_triangular {tri:?} trans={trans}: {e}");
    }
    // gradient with respect to the right-hand side
    let l_fixed = {
        let base = device();
        host(cholesky(spd(t2(uniform(35, 17), 5, 7, &base))).unwrap())
    };
    let e_b = check_grad(5, 3, 19, |b| {
        let l = t2(l_fixed.clone(), 5, 5, &b.device());
        solve_triangular(l, b, Triangle::Lower, true).unwrap()
    });
    assert!(e_b < 1e-6, "d/dB {e_b}");
    let e_cs = check_grad(5, 7, 23, |x| {
        let dev = x.device();
        cholesky_solve(cholesky(spd(x)).unwrap(), rhs(5, &dev)).unwrap()
    });
    assert!(e_cs < 1e-6, "cholesky_solve {e_cs}");
    let e_ld = check_grad(6, 4, 29, |x| logdet_from_cholesky(cholesky(spd(x)).unwrap()).reshape([1, 1]));
    assert!(e_ld < 1e-6, "logdet {e_ld}");
}

/// The fused triangular solve on a batch `[2, n, n]` (one op) and the broadcast fallback
/// (`[1, n, n]` against `[2, n, k]`), differentiated with respect to the factors and the
/// right-hand sides at once.
#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn batched_and_broadcast_solves_gradients_match_finite_differences() {
    let rhs = |x: &Tensor<2>| Tensor::stack::<3>(vec![x.clone().slice([0..4, 0..3]), x.clone().slice([0..4, 3..6])], 0);
    for trans in [false, true] {
        let batched = check_grad(4, 6, 31, |x| {
            let l1 = cholesky(spd(x.clone())).unwrap();
            let l2 = cholesky(spd(x.clone().mul_scalar(0.5))).unwrap();
            let l = Tensor::stack::<3>(vec![l1, l2], 0);
            solve_triangular(l, rhs(&x), Triangle::Lower, trans).unwrap().reshape([4, 6])
        });
        assert!(batched < 1e-6, "batched solve trans={trans}: {batched}");
        let broadcast = check_grad(4, 6, 37, |x| {
            let l = cholesky(spd(x.clone())).unwrap().unsqueeze::<3>();
            solve_triangular(l, rhs(&x), Triangle::Lower, trans).unwrap().reshape([4, 6])
        });
        assert!(broadcast < 1e-6, "broadcast solve trans={trans}: {broadcast}");
    }
    let cs = check_grad(4, 6, 41, |x| {
        let l = Tensor::stack::<3>(vec![cholesky(spd(x.clone())).unwrap(); 2], 0);
        cholesky_solve(l, rhs(&x)).unwrap().reshape([4, 6])
    });
    assert!(cs < 1e-6, "batched cholesky_solve {cs}");
}

#[test]
fn dense_matmul_matches_burn_and_its_gradient_matches_finite_differences() {
    let dev = device();
    let a = t2(uniform(7 * 5, 41), 7, 5, &dev);
    let b = t2(uniform(5 * 3, 42), 5, 3, &dev);
    let ours = host(burn_gp::linalg::matmul(a.clone(), b.clone()).unwrap());
    assert!(max_rel_err(&ours, &host(a.matmul(b)), 1e-3) < tol(1e-14, 1e-6));
    let bad = burn_gp::linalg::matmul(t2(vec![0.0; 6], 2, 3, &dev), t2(vec![0.0; 4], 2, 2, &dev));
    assert!(matches!(bad, Err(Error::ShapeMismatch { .. })));
    if skip_unless_f64("dense_matmul_matches_burn_and_its_gradient_matches_finite_differences") {
        return;
    }
    // all four transpose combinations, gradients with respect to both operands
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let fixed_b = uniform(24, 43);
        let (br, bc) = if tb { (6, 4) } else { (4, 6) };
        let (ar, ac) = if ta { (4, 5) } else { (5, 4) };
        let e_a = check_grad(ar, ac, 44, |x| {
            let dev = x.device();
            burn_gp::linalg::matmul_transposed(x, t2(fixed_b.clone(), br, bc, &dev), ta, tb).unwrap()
        });
        let fixed_a = uniform(20, 46);
        let e_b = check_grad(br, bc, 45, |x| {
            let dev = x.device();
            burn_gp::linalg::matmul_transposed(t2(fixed_a.clone(), ar, ac, &dev), x, ta, tb).unwrap()
        });
        assert!(e_a < 1e-6 && e_b < 1e-6, "ta={ta} tb={tb}: {e_a} {e_b}");
    }
}

#[test]
fn solves_invert_their_products() {
    let dev = device();
    let n = 9;
    let a = spd_host(&uniform(n * 12, 3), n, 12);
    let at = t2(a.clone(), n, n, &dev);
    let l = cholesky(at.clone()).unwrap();
    let recon = host(l.clone().matmul(l.clone().transpose()));
    assert!(max_rel_err(&recon, &a, 1.0) < tol(1e-12, 1e-5));
    let b = t2(uniform(n * 4, 8), n, 4, &dev);
    let x = cholesky_solve(l.clone(), b.clone()).unwrap();
    let back = host(at.matmul(x));
    assert!(max_rel_err(&back, &host(b.clone()), 1.0) < tol(1e-11, 1e-4));
    let y = solve_triangular(l.clone().transpose(), b.clone(), Triangle::Upper, false).unwrap();
    let back = host(l.transpose().matmul(y));
    assert!(max_rel_err(&back, &host(b), 1.0) < tol(1e-11, 1e-4));
    // log det against the product of pivots from an independent 2x2 case
    let l2 = cholesky(t2(vec![4.0, 2.0, 2.0, 3.0], 2, 2, &dev)).unwrap();
    let ld = scalar(logdet_from_cholesky(l2));
    assert!((ld - 8f64.ln()).abs() < tol(1e-13, 1e-5));
}

#[test]
fn batched_cholesky_equals_per_matrix() {
    let dev = device();
    let n = 5;
    let a1 = spd_host(&uniform(n * 6, 1), n, 6);
    let a2 = spd_host(&uniform(n * 6, 2), n, 6);
    let batch = t3([a1.clone(), a2.clone()].concat(), 2, n, n, &dev);
    let lb = host(cholesky(batch).unwrap());
    let l1 = host(cholesky(t2(a1, n, n, &dev)).unwrap());
    let l2 = host(cholesky(t2(a2, n, n, &dev)).unwrap());
    assert!(max_rel_err(&lb, &[l1, l2].concat(), 1.0) < 1e-12);
}

#[test]
fn batched_solves_equal_per_matrix_solves() {
    let dev = device();
    let n = 4;
    let a1 = spd_host(&uniform(n * 6, 71), n, 6);
    let a2 = spd_host(&uniform(n * 6, 72), n, 6);
    let b1 = uniform(n * 3, 73);
    let b2 = uniform(n * 3, 74);
    let l = cholesky(t3([a1.clone(), a2.clone()].concat(), 2, n, n, &dev)).unwrap();
    let b = t3([b1.clone(), b2.clone()].concat(), 2, n, 3, &dev);
    for (tri, trans) in [(Triangle::Lower, false), (Triangle::Lower, true)] {
        let batched = host(solve_triangular(l.clone(), b.clone(), tri, trans).unwrap());
        let mut single = Vec::new();
        for (a, bb) in [(&a1, &b1), (&a2, &b2)] {
            let li = cholesky(t2(a.clone(), n, n, &dev)).unwrap();
            single.extend(host(solve_triangular(li, t2(bb.clone(), n, 3, &dev), tri, trans).unwrap()));
        }
        assert!(max_rel_err(&batched, &single, 1e-6) < tol(1e-12, 1e-5));
    }
    let batched = host(cholesky_solve(l, b).unwrap());
    let mut single = Vec::new();
    for (a, bb) in [(&a1, &b1), (&a2, &b2)] {
        let li = cholesky(t2(a.clone(), n, n, &dev)).unwrap();
        single.extend(host(cholesky_solve(li, t2(bb.clone(), n, 3, &dev)).unwrap()));
    }
    assert!(max_rel_err(&batched, &single, 1e-6) < tol(1e-12, 1e-5));
}

#[test]
fn bad_inputs_give_typed_errors() {
    let dev = device();
    let indefinite = t2(vec![1.0, 0.0, 0.0, -3.0], 2, 2, &dev);
    match cholesky(indefinite) {
        Err(Error::NotPositiveDefinite { n: 2, .. }) => {}
        other => panic!("expected NotPositiveDefinite, got {other:?}"),
    }
    let nan = t2(vec![1.0, f64::NAN, f64::NAN, 1.0], 2, 2, &dev);
    assert!(matches!(cholesky(nan), Err(Error::NonFinite { .. })));
    let rect = t2(vec![1.0; 6], 2, 3, &dev);
    assert!(matches!(cholesky(rect), Err(Error::ShapeMismatch { .. })));
    let l = t2(vec![1.0, 0.0, 0.5, 1.0], 2, 2, &dev);
    let b = t2(vec![1.0; 3], 3, 1, &dev);
    assert!(matches!(solve_triangular(l, b, Triangle::Lower, false), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn singular_matrix_is_rescued_by_jitter() {
    let dev = device();
    let v = [1.0, 2.0, 3.0];
    let a: Vec<f64> = (0..9).map(|k| v[k / 3] * v[k % 3]).collect();
    let (l, jit) = burn_gp::linalg::cholesky_with_jitter(t2(a, 3, 3, &dev)).unwrap();
    assert!(jit[0] > 0.0 && jit[0] <= 1e-2 * 14.0 / 3.0);
    assert!(host(l).iter().all(|v| v.is_finite()));
}

#[test]
fn batched_matmul_matches_burn_and_its_gradient_matches_finite_differences() {
    let dev = device();
    let a = t3(uniform(3 * 4 * 5, 61), 3, 4, 5, &dev);
    let b = t3(uniform(3 * 5 * 2, 62), 3, 5, 2, &dev);
    let ours = host(burn_gp::linalg::batched_matmul(a.clone(), b.clone(), false, false).unwrap());
    assert!(max_rel_err(&ours, &host(a.clone().matmul(b.clone())), 1e-3) < tol(1e-14, 1e-6));
    // transposed operands: (bᵀ aᵀ) = (a b)ᵀ
    let tt = host(burn_gp::linalg::batched_matmul(b.clone(), a.clone(), true, true).unwrap());
    assert!(max_rel_err(&tt, &host(a.clone().matmul(b.clone()).swap_dims(1, 2)), 1e-3) < tol(1e-14, 1e-6));
    let bad_batch = burn_gp::linalg::batched_matmul(a.clone(), t3(uniform(2 * 5 * 2, 63), 2, 5, 2, &dev), false, false);
    assert!(matches!(bad_batch, Err(Error::ShapeMismatch { .. })));
    let bad_inner = burn_gp::linalg::batched_matmul(a, b, true, false);
    assert!(matches!(bad_inner, Err(Error::ShapeMismatch { .. })));
    if skip_unless_f64("batched_matmul_matches_burn_and_its_gradient_matches_finite_differences") {
        return;
    }
    // gradients with respect to both stored operands, batch of 2, every transpose combination
    let (n, k, m) = (3, 4, 2);
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let a_dims = if ta { [2, k, n] } else { [2, n, k] };
        let b_dims = if tb { [2, m, k] } else { [2, k, m] };
        let (fixed_a, fixed_b) = (uniform(2 * n * k, 64), uniform(2 * k * m, 65));
        let product = |lhs: Tensor<3>, rhs: Tensor<3>| {
            let out = burn_gp::linalg::batched_matmul(lhs, rhs, ta, tb).unwrap();
            out.reshape([2 * n, m])
        };
        let e_a = check_grad(2 * a_dims[1], a_dims[2], 66, |x| {
            let dev = x.device();
            product(x.reshape(a_dims), t3(fixed_b.clone(), 2, b_dims[1], b_dims[2], &dev))
        });
        let e_b = check_grad(2 * b_dims[1], b_dims[2], 67, |x| {
            let dev = x.device();
            product(t3(fixed_a.clone(), 2, a_dims[1], a_dims[2], &dev), x.reshape(b_dims))
        });
        assert!(e_a < 1e-6 && e_b < 1e-6, "ta={ta} tb={tb}: {e_a} {e_b}");
    }
}

/// `Σ_{m,m'} exp(u vᵀ)_{mm'} w_{pmm'}` by plain tensor ops, the reference for the fused op.
fn exp_bilinear_reference(u: Tensor<4>, v: Tensor<4>, w: Tensor<4>) -> Tensor<3> {
    let [g, b, m, _] = u.dims();
    let p = w.dims()[1];
    let e = u.matmul(v.swap_dims(2, 3)).exp().reshape([g, b, m * m]);
    e.matmul(w.reshape([g, p, m * m]).swap_dims(1, 2))
}

/// Symmetric operands of the fused contraction from free tensors: `xq` `[G·B·M, K_x + 1]` holds
/// `[x, q]`, giving `u = [x, q, 1]`, `v = [x, 1, q]` (`u_i·v_j = x_i·x_j + q_i + q_j`); `ω`
/// `[G·P·M, M]` gives `w = ω + ωᵀ` per block.
fn symmetric_operands(xq: Tensor<2>, omega: Tensor<2>, g: usize, b: usize, m: usize, p: usize) -> [Tensor<4>; 3] {
    let [rows, c] = xq.dims();
    let kx = c - 1;
    let ones = Tensor::<2>::ones([rows, 1], &xq.device());
    let (x, q) = (xq.clone().narrow(1, 0, kx), xq.narrow(1, kx, 1));
    let u = Tensor::cat(vec![x.clone(), q.clone(), ones.clone()], 1).reshape([g, b, m, kx + 2]);
    let v = Tensor::cat(vec![x, ones, q], 1).reshape([g, b, m, kx + 2]);
    let om: Tensor<4> = omega.reshape([g, p, m, m]);
    let w = om.clone() + om.swap_dims(2, 3);
    [u, v, w]
}

#[test]
fn exp_bilinear_contract_matches_tensor_ops_and_finite_differences() {
    let dev = device();
    let (g, b, m, kx, p) = (2, 3, 9, 2, 2); // m = 9 exercises the vector tail
    let xq = |dev: &burn::tensor::Device| t2(uniform(g * b * m * (kx + 1), 71), g * b * m, kx + 1, dev);
    let omega = |dev: &burn::tensor::Device| t2(uniform(g * p * m * m, 73), g * p * m, m, dev);
    let [u, v, w] = symmetric_operands(xq(&dev), omega(&dev), g, b, m, p);
    let ours = host(burn_gp::linalg::exp_bilinear_contract(u.clone(), v.clone(), w.clone()).unwrap());
    let reference = host(exp_bilinear_reference(u.clone(), v.clone(), w.clone()));
    assert!(max_rel_err(&ours, &reference, 1e-3) < tol(1e-13, 1e-5));
    let bad_w = burn_gp::linalg::exp_bilinear_contract(u.clone(), v.clone(), w.narrow(3, 0, 4));
    assert!(matches!(bad_w, Err(Error::ShapeMismatch { .. })));
    let bad_v = burn_gp::linalg::exp_bilinear_contract(
        u.clone(),
        v.narrow(3, 0, 3),
        t2(uniform(g * p * m * m, 1), g * p * m, m, &dev).reshape([g, p, m, m]),
    );
    assert!(matches!(bad_v, Err(Error::ShapeMismatch { .. })));
    if skip_unless_f64("exp_bilinear_contract_matches_tensor_ops_and_finite_differences") {
        return;
    }
    // gradients in the free parameters; the error is relative to the largest gradient entry, since
    // central differences of this sum of exponentials carry an absolute round-off of ~1e-7 that
    // small entries cannot absorb
    let normalised = |(auto, fd): (Vec<f64>, Vec<f64>)| {
        let scale = fd.iter().fold(0.0f64, |acc, x| acc.max(x.abs()));
        auto.iter().zip(&fd).map(|(a, b)| (a - b).abs() / scale).fold(0.0, f64::max)
    };
    let contract =
        |[u, v, w]: [Tensor<4>; 3]| burn_gp::linalg::exp_bilinear_contract(u, v, w).unwrap().reshape([g * b, p]);
    let e_xq = normalised(autodiff_and_fd(g * b * m, kx + 1, 74, &|x| {
        let dev = x.device();
        contract(symmetric_operands(x, omega(&dev), g, b, m, p))
    }));
    let e_w = normalised(autodiff_and_fd(g * p * m, m, 76, &|x| {
        let dev = x.device();
        contract(symmetric_operands(xq(&dev), x, g, b, m, p))
    }));
    assert!(e_xq < 1e-6 && e_w < 1e-6, "x, q {e_xq}; w {e_w}");
}

/// Textbook Cholesky–Banachiewicz (row by row, f64): an independent reference for T2.
fn reference_cholesky(a: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            l[i * n + j] = if i == j { (a[i * n + i] - s).sqrt() } else { (a[i * n + j] - s) / l[j * n + j] };
        }
    }
    l
}

/// Forward substitution `L X = B` for `B` `[n, k]` (reference).
fn reference_forward(l: &[f64], b: &[f64], n: usize, k: usize) -> Vec<f64> {
    let mut x = vec![0.0; n * k];
    for c in 0..k {
        for i in 0..n {
            let s: f64 = (0..i).map(|j| l[i * n + j] * x[j * k + c]).sum();
            x[i * k + c] = (b[i * k + c] - s) / l[i * n + i];
        }
    }
    x
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn t2_cholesky_and_solves_match_a_reference_up_to_size_300() {
    let dev = device();
    for (s, n) in [1, 2, 3, 8, 31, 100, 300].into_iter().enumerate() {
        let c = n + 5; // X Xᵀ/c + I: eigenvalues in [1, ~5]
        let a = spd_host(&uniform(n * c, 200 + s as u64), n, c);
        let l = host(cholesky(t2(a.clone(), n, n, &dev)).unwrap());
        let l_ref = reference_cholesky(&a, n);
        let e_chol = max_rel_err(&l, &l_ref, 1.0);
        let b = uniform(n * 3, 300 + s as u64);
        let lt = t2(l_ref.clone(), n, n, &dev);
        let x = host(solve_triangular(lt.clone(), t2(b.clone(), n, 3, &dev), Triangle::Lower, false).unwrap());
        let e_solve = max_rel_err(&x, &reference_forward(&l_ref, &b, n, 3), 1.0);
        // Lᵀ X = B through the transposed solve: L Lᵀ X = L B must give back L B
        let xt = solve_triangular(lt.clone(), t2(b.clone(), n, 3, &dev), Triangle::Lower, true).unwrap();
        let e_trans = max_rel_err(&host(lt.transpose().matmul(xt)), &b, 1.0);
        assert!(e_chol < 1e-12 && e_solve < 1e-12 && e_trans < 1e-12, "n = {n}: {e_chol} {e_solve} {e_trans}");
    }
    // not positive definite even after the whole jitter ladder: a typed error
    let indefinite = t2(vec![2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0], 3, 3, &dev);
    assert!(matches!(burn_gp::linalg::cholesky_with_jitter(indefinite), Err(Error::NotPositiveDefinite { n: 3, .. })));
}
