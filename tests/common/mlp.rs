//! A user-written Burn network for the GP-head tests: a two-layer perceptron `d → h → f` (ReLU in
//! between), a `Trunk` for table rows and saveable through `burn_gp::saved::Blueprint`.
//!
//! Its weights come from its own seeded generator, not the device's: the device generator is
//! shared by every test of a binary running in parallel, so a test that seeds it still gets
//! whatever draws the other tests leave, and its result varies from run to run.
use burn::module::{Module, Param};
use burn::nn::Linear;
use burn::tensor::{Device, Tensor, TensorData};
use burn_gp::nets::Trunk;
use burn_gp::saved::{Blueprint, Spec};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// `d → h → f`, ReLU in between.
#[derive(Module, Debug)]
pub struct Mlp {
    hidden: Linear,
    out: Linear,
}

impl Mlp {
    /// An MLP with `d` inputs, `h` hidden units and `f` features, its weights and biases drawn
    /// from `U(−1/√fan_in, 1/√fan_in)` (Burn's default `Linear` initialisation) by a generator
    /// seeded with `seed`: the same arguments give the same network.
    pub fn new(d: usize, h: usize, f: usize, seed: u64, dev: &Device) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        Self { hidden: linear(d, h, &mut rng, dev), out: linear(h, f, &mut rng, dev) }
    }
}

/// A `fan_in → fan_out` layer with weights and bias uniform on `±1/√fan_in`.
fn linear(fan_in: usize, fan_out: usize, rng: &mut StdRng, dev: &Device) -> Linear {
    let bound = 1.0 / (fan_in as f64).sqrt();
    let mut draw = |len: usize| (0..len).map(|_| rng.random_range(-bound..bound)).collect::<Vec<f64>>();
    let weight = Tensor::<2>::from_data(TensorData::new(draw(fan_in * fan_out), [fan_in, fan_out]), dev);
    let bias = Tensor::<1>::from_data(TensorData::new(draw(fan_out), [fan_out]), dev);
    Linear { weight: Param::from_tensor(weight), bias: Some(Param::from_tensor(bias)) }
}

impl Trunk for Mlp {
    type Input = Tensor<2>;
    fn out_dim(&self) -> usize {
        self.out.weight.dims()[1]
    }
    fn features(&self, x: Tensor<2>) -> Tensor<2> {
        self.out.forward(burn::tensor::activation::relu(self.hidden.forward(x)))
    }
}

impl Blueprint for Mlp {
    fn describe(&self) -> Spec {
        let [d, h] = self.hidden.weight.dims();
        Spec::new("Mlp").sizes(&[d, h, self.out_dim()])
    }
    fn rebuild(spec: &Spec, device: &Device) -> burn_gp::Result<Self> {
        spec.expect("Mlp", Some(3), Some(0), Some(0))?;
        // The weights are loaded over these.
        Ok(Self::new(spec.sizes[0], spec.sizes[1], spec.sizes[2], 0, device))
    }
}
