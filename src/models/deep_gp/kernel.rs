//! The exponentiated-quadratic (EQ-ARD) kernel batched over the functions of a layer.
//!
//! Shapes: `D` functions, each with its own inducing inputs `Z_d` `[M, D_in]`; hyperparameters are
//! either one set per function (`H = D`) or one set shared by the layer (`H = 1`), broadcast.
//!
//! `log k(a, b) = log σ² − ½‖a − b‖²` (inputs scaled by `1/ℓ`) is formed as ONE batched product of
//! augmented rows `[a, log σ² − ½‖a‖², 1] · [b, 1, −½‖b‖²]ᵀ`: no `[D, B, M]` broadcast additions,
//! whose backward (un-broadcasting reductions) is slow on the CPU backend.
use burn::tensor::Tensor;

/// `exp` of the augmented product: rows `a` `[D, B, D_in]` (with `log σ²` `[H, 1, 1]`) against rows
/// `b` `[D, M, D_in]` → `[D, B, M]`.
fn exp_quadratic(a: Tensor<3>, b: Tensor<3>, log_sf2: Tensor<3>) -> Tensor<3> {
    let [d, n, _] = a.dims();
    let m = b.dims()[1];
    let device = a.device();
    let a_tail = a.clone().powi_scalar(2).sum_dim(2).mul_scalar(-0.5) + log_sf2; // [D, B, 1]
    let b_tail = b.clone().powi_scalar(2).sum_dim(2).mul_scalar(-0.5); // [D, M, 1]
    let a_aug = Tensor::cat(vec![a, a_tail, Tensor::ones([d, n, 1], &device)], 2);
    let b_aug = Tensor::cat(vec![b, Tensor::ones([d, m, 1], &device), b_tail], 2);
    a_aug.matmul(b_aug.swap_dims(1, 2)).exp()
}

/// `k_d(x_b, z_dm) = σ²_{f,h} exp(−½ Σ_j (x_bj − z_dmj)² / ℓ²_{hj})`: `x` `[B, D_in]`, `z` `[D, M, D_in]`,
/// `ell2` `[H, D_in]`, `sf2` `[H]` → `[D, B, M]`.
pub(crate) fn eq_cross(x: Tensor<2>, z: Tensor<3>, ell2: Tensor<2>, sf2: Tensor<1>) -> Tensor<3> {
    let [d, _, din] = z.dims();
    let [b, _] = x.dims();
    let h = ell2.dims()[0];
    let ell = ell2.sqrt().reshape([h, 1, din]);
    let a = (x.reshape([1, b, din]) / ell.clone()).expand([d, b, din]);
    let log_sf2 = sf2.log().reshape([h, 1, 1]);
    exp_quadratic(a, z / ell, log_sf2)
}

/// `K_d = k_d(Z_d, Z_d) + jitter·I`: `z` `[D, M, D_in]` → `[D, M, M]`.
pub(crate) fn eq_kuu(z: Tensor<3>, ell2: Tensor<2>, sf2: Tensor<1>, jitter: f64) -> Tensor<3> {
    let [d, m, din] = z.dims();
    let h = ell2.dims()[0];
    let zs = z / ell2.sqrt().reshape([h, 1, din]);
    let k = exp_quadratic(zs.clone(), zs, sf2.log().reshape([h, 1, 1]));
    let eye = Tensor::<2>::eye(m, &k.device()).reshape([1, m, m]);
    k + eye.mul_scalar(jitter).expand([d, m, m])
}
