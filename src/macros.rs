//! Crate-internal macros.

/// Implements a backend-extension trait (with its default host bodies) for every compiled-in
/// backend: `NdArray`, `Flex`, and `Cube` (wgpu / cuda).
macro_rules! impl_for_compiled_backends {
    ($ext:ident) => {
        #[cfg(feature = "ndarray")]
        #[allow(deprecated)]
        impl $ext for burn::backend::NdArray {}
        #[cfg(feature = "flex")]
        impl $ext for burn::backend::Flex {}
        #[cfg(any(feature = "wgpu", feature = "cuda"))]
        impl $ext for burn::backend::Cube {}
    };
}
pub(crate) use impl_for_compiled_backends;
