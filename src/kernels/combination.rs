//! Sums and products of kernels.
use burn::module::Module;
use burn::tensor::Tensor;

use super::Kernel;

/// `k = k_a + k_b`.
#[derive(Module, Debug)]
pub struct Sum<A: Kernel, B: Kernel> {
    /// First summand.
    pub a: A,
    /// Second summand.
    pub b: B,
}

/// `k = k_a · k_b`.
#[derive(Module, Debug)]
pub struct Product<A: Kernel, B: Kernel> {
    /// First factor.
    pub a: A,
    /// Second factor.
    pub b: B,
}

impl<A: Kernel, B: Kernel> Sum<A, B> {
    /// The sum of two kernels.
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }
}

impl<A: Kernel, B: Kernel> Product<A, B> {
    /// The product of two kernels.
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }
}

fn common_dim(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    a.or(b)
}

impl<A: Kernel, B: Kernel> Kernel for Sum<A, B> {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        self.a.k(x.clone(), x2.clone()) + self.b.k(x, x2)
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.a.k_diag(x.clone()) + self.b.k_diag(x)
    }
    fn input_dim(&self) -> Option<usize> {
        common_dim(self.a.input_dim(), self.b.input_dim())
    }
}

impl<A: Kernel, B: Kernel> Kernel for Product<A, B> {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        self.a.k(x.clone(), x2.clone()) * self.b.k(x, x2)
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.a.k_diag(x.clone()) * self.b.k_diag(x)
    }
    fn input_dim(&self) -> Option<usize> {
        common_dim(self.a.input_dim(), self.b.input_dim())
    }
}
