//! Benchmark: Cholesky + triangular solve + backward through burn-gp's differentiable ops, against
//! the same computation written directly in `faer` on the host (same machine, same run).
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example linalg_bench -- --bench
//! ```
//! Workload per size n: `A = X Xᵀ/n + I` (n×n), `L = chol(A)`, `Y = L⁻¹ B` with `B` n×256,
//! loss `Σ W ⊙ Y`, gradient with respect to `A` and `B`. Prints median seconds and the ratio
//! ours / faer (lower is better; 1 = no overhead over hand-written faer).
//!
//! `--vector-state` measures instead what faer's x86 matrix kernels cost the code that runs after
//! them (see `burn_gp::linalg::host`): per size n, the seconds of
//! `exp` over `--exp-values` values right after an n×n product by faer directly (registers left
//! dirty) and right after the same product by `burn_gp::linalg::host::matmul` (registers cleared),
//! median of `--reps` runs each, and their ratio (about 1 on machines without the penalty).
use std::time::Instant;

use burn::tensor::{Tensor, TensorData};
use burn_gp::linalg::{cholesky, host, solve_triangular, Triangle};
use clap::Parser;
use faer::{Mat, Par};

/// Command-line options.
#[derive(Parser, Debug)]
struct Args {
    /// Matrix sizes.
    #[arg(long, value_delimiter = ',', default_value = "128,256,512,1024")]
    sizes: Vec<usize>,
    /// Right-hand-side columns.
    #[arg(long, default_value_t = 256)]
    rhs: usize,
    /// Repetitions per size (the median is reported).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Accepted for `cargo bench`-style invocations; ignored.
    #[arg(long)]
    bench: bool,
    /// Print one JSON line per size.
    #[arg(long)]
    json: bool,
    /// Time `exp` after faer's product and after burn-gp's instead (see the module documentation).
    #[arg(long)]
    vector_state: bool,
    /// Values `exp` runs over per timing with `--vector-state`.
    #[arg(long, default_value_t = 4_000_000)]
    exp_values: usize,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn data(n: usize, k: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut s = 12345u64;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    };
    let x: Vec<f64> = (0..n * n).map(|_| next()).collect();
    let xm = host::to_mat(&x, n, n);
    let a = &xm * xm.transpose() * faer::Scale(1.0 / n as f64) + Mat::<f64>::identity(n, n);
    let mut av = Vec::with_capacity(n * n);
    host::push_row_major(a.as_ref(), &mut av);
    let b: Vec<f64> = (0..n * k).map(|_| next()).collect();
    let w: Vec<f64> = (0..n * k).map(|_| next()).collect();
    (av, b, w)
}

fn ours(n: usize, k: usize, a: &[f64], b: &[f64], w: &[f64], dev: &burn::tensor::Device) -> f64 {
    let at = Tensor::<2>::from_data(TensorData::new(a.to_vec(), [n, n]), dev).require_grad();
    let bt = Tensor::<2>::from_data(TensorData::new(b.to_vec(), [n, k]), dev).require_grad();
    let wt = Tensor::<2>::from_data(TensorData::new(w.to_vec(), [n, k]), dev);
    let t0 = Instant::now();
    let l = cholesky(at.clone()).expect("SPD");
    let y = solve_triangular(l, bt.clone(), Triangle::Lower, false).expect("shapes");
    let loss = (y * wt).sum();
    let g = loss.backward();
    let ga = at.grad(&g).expect("dA");
    let gb = bt.grad(&g).expect("dB");
    // force completion on asynchronous backends
    let _ = ga.into_data();
    let _ = gb.into_data();
    t0.elapsed().as_secs_f64()
}

fn faer_direct(n: usize, k: usize, a: &[f64], b: &[f64], w: &[f64]) -> f64 {
    let t0 = Instant::now();
    let am = host::to_mat(a, n, n);
    let l = am.llt(faer::Side::Lower).expect("SPD").L().to_owned();
    let mut y = host::to_mat(b, n, k);
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l.as_ref(), y.as_mut(), Par::rayon(0));
    // backward: Ȳ = W; B̄ = L⁻ᵀ Ȳ; L̄ = −tril(B̄ Yᵀ); Ā = chol_backward(L, L̄)
    let mut gb = host::to_mat(w, n, k);
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(l.transpose(), gb.as_mut(), Par::rayon(0));
    let gl = &gb * y.transpose() * faer::Scale(-1.0);
    let mut lv = Vec::with_capacity(n * n);
    host::push_row_major(l.as_ref(), &mut lv);
    let mut glv = Vec::with_capacity(n * n);
    host::push_row_major(gl.as_ref(), &mut glv);
    let ga = host::cholesky_backward_batch(&lv, &glv, 1, n);
    std::hint::black_box((ga, gb));
    t0.elapsed().as_secs_f64()
}

/// Seconds of `exp` over `values` right after an n×n product, by faer directly or by burn-gp's
/// host kernel.
fn exp_after_product(a: &[f64], n: usize, values: &[f64], through_burn_gp: bool) -> f64 {
    if through_burn_gp {
        let op = host::Operand { data: a, rows: n, cols: n, transpose: false };
        std::hint::black_box(host::matmul(op, op));
    } else {
        let am = host::to_mat(a, n, n);
        let mut c = Mat::<f64>::zeros(n, n);
        faer::linalg::matmul::matmul(c.as_mut(), faer::Accum::Replace, am.as_ref(), am.as_ref(), 1.0, Par::Seq);
        std::hint::black_box(c);
    }
    let t0 = Instant::now();
    let s: f64 = values.iter().map(|v| v.exp()).sum();
    std::hint::black_box(s);
    t0.elapsed().as_secs_f64()
}

/// The `--vector-state` table.
fn vector_state(args: &Args) {
    println!("exp over {} values after an n×n product, median of {} runs", args.exp_values, args.reps);
    println!("| n | after faer's product, s | after burn-gp's, s | ratio |");
    println!("|---|---|---|---|");
    let values: Vec<f64> = (0..args.exp_values).map(|i| -((i % 1000) as f64) * 0.003).collect();
    for &n in &args.sizes {
        let (a, _, _) = data(n, 1);
        let time = |through| median((0..args.reps).map(|_| exp_after_product(&a, n, &values, through)).collect());
        let (dirty, clean) = (time(false), time(true));
        println!("| {n} | {dirty:.4} | {clean:.4} | {:.1} |", dirty / clean);
        if args.json {
            println!(
                "{}",
                serde_json::json!({"example": "linalg_bench", "mode": "vector_state", "n": n, "exp_after_faer_s": dirty, "exp_after_burn_gp_s": clean, "ratio": dirty / clean})
            );
        }
    }
}

fn main() {
    let args = Args::parse();
    if args.vector_state {
        return vector_state(&args);
    }
    let dev = burn_gp::device::default_device().expect("device").autodiff();
    println!(
        "Cholesky + triangular solve (n×{}) + backward, median of {} runs, backend {}",
        args.rhs,
        args.reps,
        burn_gp::device::default_backend_name()
    );
    println!("| n | burn-gp s | faer s | ratio |");
    println!("|---|---|---|---|");
    for &n in &args.sizes {
        let (a, b, w) = data(n, args.rhs);
        let _ = ours(n, args.rhs, &a, &b, &w, &dev); // warm-up
        let _ = faer_direct(n, args.rhs, &a, &b, &w);
        let o = median((0..args.reps).map(|_| ours(n, args.rhs, &a, &b, &w, &dev)).collect());
        let f = median((0..args.reps).map(|_| faer_direct(n, args.rhs, &a, &b, &w)).collect());
        println!("| {n} | {o:.5} | {f:.5} | {:.2} |", o / f);
        if args.json {
            println!(
                "{}",
                serde_json::json!({"example": "linalg_bench", "n": n, "ours_s": o, "faer_s": f, "ratio": o / f})
            );
        }
    }
}
