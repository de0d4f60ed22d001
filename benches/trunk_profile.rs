//! Where the MNIST trunk's training step spends its time on the CPU backend (issue 19's CNN row):
//! each convolution's forward pass and the two halves of its backward pass (input gradient,
//! weight gradient) timed alone, at the trunk's shapes, batch 128, f32.
//!
//! ```text
//! cargo bench --bench trunk_profile            # median of 10 runs per row
//! ```
//! Prints one Markdown table. Burn computes a convolution's weight gradient as another
//! convolution, of the input with the output gradient as its kernel (for conv2: a 22×22 kernel
//! over 128 "channels"), which its im2col + gemm then runs as 32 thin products with 9 columns each.
use std::time::Instant;

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::tensor::{Device, Distribution, Tensor};
use burn_gp::device::{device_with_precision, Precision};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median seconds of `f` over `reps` runs after one warm-up.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// Forward, input-gradient and weight-gradient seconds of `conv` on inputs `[batch, c_in, side, side]`.
fn profile(conv: &Conv2d, batch: usize, c_in: usize, side: usize, device: &Device, reps: usize) -> [f64; 3] {
    let x = Tensor::<4>::random([batch, c_in, side, side], Distribution::Normal(0.0, 1.0), device);
    let forward = time(reps, || {
        let _ = conv.forward(x.clone()).into_data();
    });
    let input_grad = time(reps, || {
        let xs = x.clone().require_grad();
        let grads = conv.clone().no_grad().forward(xs.clone()).sum().backward();
        let _ = xs.grad(&grads).expect("input gradient").into_data();
    });
    let weight_grad = time(reps, || {
        let grads = conv.forward(x.clone().detach()).sum().backward();
        let _ = conv.weight.grad(&grads).expect("weight gradient").into_data();
    });
    // the weight-gradient pass also runs the forward: report the backward part alone
    [forward, (input_grad - forward).max(0.0), (weight_grad - forward).max(0.0)]
}

fn main() {
    let reps = 10;
    let device = device_with_precision("flex", Some(Precision::F32)).expect("flex backend").autodiff();
    let conv1 = Conv2dConfig::new([1, 32], [5, 5]).init(&device);
    let conv2 = Conv2dConfig::new([32, 64], [3, 3]).init(&device);
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all".into());
    println!("MNIST trunk convolutions, batch 128, f32, flex backend, {threads} threads, median of {reps} runs");
    println!();
    println!("| layer | forward s | input-gradient s | weight-gradient s |");
    println!("|---|---|---|---|");
    for (name, conv, c_in, side) in
        [("conv1 1→32 5×5 on 28×28", &conv1, 1, 28), ("conv2 32→64 3×3 on 24×24", &conv2, 32, 24)]
    {
        let [f, gx, gw] = profile(conv, 128, c_in, side, &device, reps);
        println!("| {name} | {f:.4} | {gx:.4} | {gw:.4} |");
    }
}
