//! Crate-internal macros.

/// Implements a backend-extension trait (with its default host bodies) for every compiled-in
/// backend: `NdArray`, `Flex`, and `Cube` (wgpu / cuda).
/// The optional `cube { … }` block overrides methods for the GPU backends (whose data should not
/// make a host round trip).
macro_rules! impl_for_compiled_backends {
    ($ext:ident) => {
        $crate::macros::impl_for_compiled_backends!($ext, cube {});
    };
    ($ext:ident, cube { $($cube:tt)* }) => {
        #[cfg(feature = "ndarray")]
        #[allow(deprecated)]
        impl $ext for burn::backend::NdArray {}
        #[cfg(feature = "flex")]
        impl $ext for burn::backend::Flex {}
        #[cfg(any(feature = "wgpu", feature = "cuda"))]
        impl $ext for burn::backend::Cube {
            $($cube)*
        }
    };
}
pub(crate) use impl_for_compiled_backends;
