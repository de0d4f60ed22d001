//! Special functions: error functions, the standard normal distribution and its logarithm,
//! the normal quantile, log-sum-exp and Gauss–Hermite quadrature.
//!
//! The functions at this level are host scalar f64 functions, accurate to a few ulp against
//! 50-digit references (see each function's tests). [`tensor`] has the differentiable tensor
//! versions (`log_ndtr`, `inv_mills`, `norm_cdf`, `log_sum_exp_dim`), built on the backend
//! extension [`GpSpecialOps`].

mod consts;
mod erf;
mod erfcx;
mod exp_slice;
mod exp_square;
mod gauss_hermite;
mod log_ndtr;
mod log_sum_exp;
mod ndtri;
mod normal;
mod ops;
pub mod tensor;
#[cfg(test)]
mod test_util;

pub(crate) use consts::LN_SQRT_2PI;
pub use erf::{erf, erfc};
pub use erfcx::erfcx;
pub(crate) use exp_slice::{exp_in_place, madd};
pub use gauss_hermite::{gauss_hermite, gauss_hermite_normal};
pub use log_ndtr::{inv_mills, log_ndtr};
pub use log_sum_exp::log_sum_exp;
pub use ndtri::{ndtri, ndtri_from_log};
pub use normal::norm_logpdf;
pub use normal::{norm_cdf, norm_pdf};
pub use ops::GpSpecialOps;
