//! A user-written Burn network for the GP-head tests: a two-layer perceptron `d → h → f` (ReLU in
//! between), a `Trunk` for table rows and saveable through `burn_gp::saved::Blueprint`.
use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::{Device, Tensor};
use burn_gp::nets::Trunk;
use burn_gp::saved::{Blueprint, Spec};

/// `d → h → f`, ReLU in between.
#[derive(Module, Debug)]
pub struct Mlp {
    hidden: Linear,
    out: Linear,
}

impl Mlp {
    /// An MLP with `d` inputs, `h` hidden units and `f` features.
    pub fn new(d: usize, h: usize, f: usize, dev: &Device) -> Self {
        Self { hidden: LinearConfig::new(d, h).init(dev), out: LinearConfig::new(h, f).init(dev) }
    }
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
        Ok(Self::new(spec.sizes[0], spec.sizes[1], spec.sizes[2], device))
    }
}
