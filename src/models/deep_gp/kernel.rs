//! The exponentiated-quadratic (EQ-ARD) kernel batched over the functions of a layer.
//!
//! Shapes: `D` functions, each with its own inducing inputs `Z_d` `[M, D_in]`; hyperparameters are
//! either one set per function (`H = D`) or one set shared by the layer (`H = 1`), broadcast.
use burn::tensor::Tensor;

/// `k_d(x_b, z_dm) = σ²_{f,h} exp(−½ Σ_j (x_bj − z_dmj)² / ℓ²_{hj})`: `x` `[B, D_in]`, `z` `[D, M, D_in]`,
/// `ell2` `[H, D_in]`, `sf2` `[H]` → `[D, B, M]`.
pub fn eq_cross(x: Tensor<2>, z: Tensor<3>, ell2: Tensor<2>, sf2: Tensor<1>) -> Tensor<3> {
    let [d, m, din] = z.dims();
    let [b, _] = x.dims();
    let h = ell2.dims()[0];
    let ell = ell2.sqrt().reshape([h, 1, din]);
    let a = (x.reshape([1, b, din]) / ell.clone()).expand([d, b, din]);
    let zs = z / ell;
    let a2 = a.clone().powi_scalar(2).sum_dim(2); // [D, B, 1]
    let z2 = zs.clone().powi_scalar(2).sum_dim(2).reshape([d, 1, m]);
    let cross = a.matmul(zs.swap_dims(1, 2)); // [D, B, M]
    let sq = (a2 + z2 - cross.mul_scalar(2.0)).clamp_min(0.0);
    (sf2.log().reshape([h, 1, 1]) - sq.mul_scalar(0.5)).exp()
}

/// `K_d = k_d(Z_d, Z_d) + jitter·I`: `z` `[D, M, D_in]` → `[D, M, M]`.
pub fn eq_kuu(z: Tensor<3>, ell2: Tensor<2>, sf2: Tensor<1>, jitter: f64) -> Tensor<3> {
    let [d, m, din] = z.dims();
    let h = ell2.dims()[0];
    let zs = z / ell2.sqrt().reshape([h, 1, din]);
    let z2 = zs.clone().powi_scalar(2).sum_dim(2); // [D, M, 1]
    let cross = zs.clone().matmul(zs.swap_dims(1, 2));
    let sq = (z2.clone() + z2.swap_dims(1, 2) - cross.mul_scalar(2.0)).clamp_min(0.0);
    let k = (sf2.log().reshape([h, 1, 1]) - sq.mul_scalar(0.5)).exp();
    let eye = Tensor::<2>::eye(m, &k.device()).reshape([1, m, m]);
    k + eye.mul_scalar(jitter).expand([d, m, m])
}
