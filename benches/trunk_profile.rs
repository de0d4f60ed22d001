//! Where the paper's trunks' training steps spend their time on the CPU backend (issue 92, item 3):
//! each convolution's forward pass and the two halves of its backward pass (input gradient,
//! weight and bias gradient), and each max-pool's forward pass and input gradient, timed alone
//! at the MNIST and CIFAR-10 trunks' shapes, batch 128, f32, both through Burn's modules and
//! through `burn_gp::nets::conv_forward` / `max_pool_forward` (the trunks' path: im2col and one
//! faer product per image for all three convolution passes, pooling without an index tensor).
//!
//! ```text
//! cargo bench --bench trunk_profile            # median of 10 runs per row
//! ```
//! Prints one Markdown table. Burn's CPU backend runs the forward pass as small products over
//! tiles of output positions after a single-threaded copy to channels-last order, the input
//! gradient as a transposed convolution, and the weight gradient as another convolution with
//! the output gradient as its kernel (for MNIST's conv2: a 22×22 kernel over 128 "channels").
use std::time::Instant;

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::tensor::{Device, Distribution, Tensor};
use burn_gp::device::{device_with_precision, Precision};
use burn_gp::nets::{conv_forward, max_pool_forward};

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

/// Forward, input-gradient and weight-gradient seconds of `conv` on inputs `[batch, c_in, side,
/// side]`, through `apply` (Burn's forward or burn-gp's).
fn profile(
    conv: &Conv2d,
    apply: fn(&Conv2d, Tensor<4>) -> Tensor<4>,
    [batch, c_in, side]: [usize; 3],
    device: &Device,
    reps: usize,
) -> [f64; 3] {
    let x = Tensor::<4>::random([batch, c_in, side, side], Distribution::Normal(0.0, 1.0), device);
    let forward = time(reps, || {
        let _ = apply(conv, x.clone()).into_data();
    });
    let input_grad = time(reps, || {
        let xs = x.clone().require_grad();
        let grads = apply(&conv.clone().no_grad(), xs.clone()).sum().backward();
        let _ = xs.grad(&grads).expect("input gradient").into_data();
    });
    let weight_grad = time(reps, || {
        let grads = apply(conv, x.clone().detach()).sum().backward();
        let _ = conv.weight.grad(&grads).expect("weight gradient").into_data();
    });
    // the gradient passes also run the forward: report the backward part alone
    [forward, (input_grad - forward).max(0.0), (weight_grad - forward).max(0.0)]
}

/// Forward and input-gradient seconds of a 2×2 max-pool on inputs `[batch, channels, side, side]`,
/// through `apply` (Burn's forward or burn-gp's).
fn profile_pool(
    apply: fn(&MaxPool2d, Tensor<4>) -> Tensor<4>,
    [batch, channels, side]: [usize; 3],
    device: &Device,
    reps: usize,
) -> [f64; 2] {
    let pool = MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init();
    let x = Tensor::<4>::random([batch, channels, side, side], Distribution::Normal(0.0, 1.0), device);
    let forward = time(reps, || {
        let _ = apply(&pool, x.clone()).into_data();
    });
    let input_grad = time(reps, || {
        let xs = x.clone().require_grad();
        let grads = apply(&pool, xs.clone()).sum().backward();
        let _ = xs.grad(&grads).expect("input gradient").into_data();
    });
    [forward, (input_grad - forward).max(0.0)]
}

fn main() {
    let reps = 10;
    // burn-gp-experiments' allocator (mimalloc), keeping freed memory mapped as the examples do:
    // the timings are a training step's, not the kernel's zeroing of fresh pages
    burn_gp_experiments::common::keep_freed_memory();
    let device = device_with_precision("flex", Some(Precision::F32)).expect("flex backend").autodiff();
    let layers = [
        ("MNIST conv1 1→32 5×5 on 28×28", [1, 32, 5, 28]),
        ("MNIST conv2 32→64 3×3 on 24×24", [32, 64, 3, 24]),
        ("CIFAR-10 conv1 3→128 3×3 on 32×32", [3, 128, 3, 32]),
        ("CIFAR-10 conv2 128→128 3×3 on 30×30", [128, 128, 3, 30]),
        ("CIFAR-10 conv3 128→128 3×3 on 14×14", [128, 128, 3, 14]),
    ];
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all".into());
    println!(
        "The paper's trunks' convolutions, batch 128, f32, flex backend, {threads} threads, median of {reps} runs"
    );
    println!("(Burn: `Conv2d::forward`; burn-gp: `burn_gp::nets::conv_forward`)");
    println!();
    println!("| layer | path | forward s | input-gradient s | weight-gradient s | step s |");
    println!("|---|---|---|---|---|---|");
    let burn: fn(&Conv2d, Tensor<4>) -> Tensor<4> = |conv, x| conv.forward(x);
    for (name, [c_in, c_out, k, side]) in layers {
        let conv = Conv2dConfig::new([c_in, c_out], [k, k]).init(&device);
        for (path, apply) in [("Burn", burn), ("burn-gp", conv_forward as fn(&Conv2d, Tensor<4>) -> Tensor<4>)] {
            let [f, gx, gw] = profile(&conv, apply, [128, c_in, side], &device, reps);
            println!("| {name} | {path} | {f:.4} | {gx:.4} | {gw:.4} | {:.4} |", f + gx + gw);
        }
    }
    let pools = [
        ("MNIST max-pool 2×2 of 64×22×22", [64, 22]),
        ("CIFAR-10 max-pool 2×2 of 128×28×28", [128, 28]),
        ("CIFAR-10 max-pool 2×2 of 128×12×12", [128, 12]),
    ];
    let burn_pool: fn(&MaxPool2d, Tensor<4>) -> Tensor<4> = |pool, x| pool.forward(x);
    for (name, [channels, side]) in pools {
        for (path, apply) in
            [("Burn", burn_pool), ("burn-gp", max_pool_forward as fn(&MaxPool2d, Tensor<4>) -> Tensor<4>)]
        {
            let [f, gx] = profile_pool(apply, [128, channels, side], &device, reps);
            println!("| {name} | {path} | {f:.4} | {gx:.4} | | {:.4} |", f + gx);
        }
    }
}
