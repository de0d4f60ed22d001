//! Which backends are compiled in, the default device, and the float precision.
//!
//! The backend is chosen at compile time by a cargo feature and the device at run time:
//!
//! | feature | device | precision |
//! |---|---|---|
//! | `flex` (default) | Burn's pure-Rust CPU backend | f64 |
//! | `ndarray` | Burn's older CPU backend (deprecated upstream) | f64 |
//! | `wgpu` | GPU via wgpu (Vulkan/Metal/DX12; Mesa's lavapipe on CPU-only machines) | f32 |
//! | `cuda` | NVIDIA GPU via CUDA | f32 |
//!
//! When several are compiled in, [`default_device`] prefers `cuda`, then `wgpu`, then `flex`,
//! then `ndarray`; the environment variable `BURN_GP_DEVICE` (`cuda`, `wgpu`, `flex`, `ndarray`)
//! overrides that choice.
//!
//! f64 is used wherever the backend computes it correctly: Burn's CPU backends do. On wgpu, f64
//! arithmetic works but `exp`/`log`/`erf` silently return wrong values (measured with burn 0.22.1),
//! so GPU devices always run in f32; the m×m factorisations still run in f64 on the host
//! (see [`crate::linalg`]). The precision must be set on a device before its first tensor is made;
//! [`device_by_name`] and [`default_device`] do that once per process.
use std::sync::Mutex;

use burn::tensor::{Device, FloatDType};

use crate::error::{Error, Result};

/// Floating-point precision a device computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// 64-bit floats (CPU backends).
    F64,
    /// 32-bit floats (GPU backends).
    F32,
}

impl Precision {
    /// Burn's float dtype for this precision.
    pub fn dtype(self) -> FloatDType {
        match self {
            Precision::F64 => FloatDType::F64,
            Precision::F32 => FloatDType::F32,
        }
    }
}

/// Names of the backends compiled into this build, in order of preference.
pub fn compiled_backends() -> Vec<&'static str> {
    let mut v = Vec::new();
    if cfg!(feature = "cuda") {
        v.push("cuda");
    }
    if cfg!(feature = "wgpu") {
        v.push("wgpu");
    }
    if cfg!(feature = "flex") {
        v.push("flex");
    }
    if cfg!(feature = "ndarray") {
        v.push("ndarray");
    }
    v
}

/// The precision burn-gp uses by default on the named backend (f64 on CPU, f32 on GPU).
pub fn precision_of(backend: &str) -> Precision {
    match backend {
        "flex" | "ndarray" | "cpu" => Precision::F64,
        _ => Precision::F32,
    }
}

/// The precision requested by `BURN_GP_PRECISION` (`f32` or `f64`), if set.
pub fn precision_from_env() -> Result<Option<Precision>> {
    match std::env::var("BURN_GP_PRECISION").ok().filter(|s| !s.is_empty()).as_deref() {
        None => Ok(None),
        Some("f32") => Ok(Some(Precision::F32)),
        Some("f64") => Ok(Some(Precision::F64)),
        Some(other) => Err(Error::Device(format!("BURN_GP_PRECISION must be f32 or f64, got `{other}`"))),
    }
}

static CONFIGURED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// The device of the named backend (`flex`, `ndarray`, `wgpu`, `cuda`), configured to the
/// precision of `BURN_GP_PRECISION` if set, else of [`precision_of`]. Errors if the backend is not
/// compiled in.
pub fn device_by_name(name: &str) -> Result<Device> {
    device_with_precision(name, precision_from_env()?)
}

/// As [`device_by_name`] with an explicit precision (`None`: the backend's default). f32 on a CPU
/// backend halves memory and roughly halves the time of convolutional networks; f64 on a GPU
/// backend is refused, because Burn's wgpu kernels compute f64 `exp`/`log`/`erf` wrongly. A device
/// keeps the precision of its first configuration for the life of the process.
#[allow(unreachable_code, unused_variables, unused_mut, clippy::needless_return)]
pub fn device_with_precision(name: &str, precision: Option<Precision>) -> Result<Device> {
    let (key, mut device): (&'static str, Device) = match name {
        #[cfg(feature = "flex")]
        "flex" | "cpu" => ("flex", Device::flex()),
        #[cfg(feature = "ndarray")]
        #[allow(deprecated)]
        "ndarray" => ("ndarray", Device::ndarray()),
        #[cfg(feature = "wgpu")]
        "wgpu" | "gpu" => ("wgpu", Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)),
        #[cfg(feature = "cuda")]
        "cuda" => ("cuda", Device::cuda(0)),
        other => {
            return Err(Error::Device(format!(
                "backend `{other}` is not compiled in; this build has {:?} (enable it with `--features {other}`)",
                compiled_backends()
            )))
        }
    };
    let precision = precision.unwrap_or_else(|| precision_of(key));
    if precision == Precision::F64 && precision_of(key) == Precision::F32 {
        return Err(Error::Device(format!("{key} runs in f32 only (its f64 transcendental functions are wrong)")));
    }
    let mut done = CONFIGURED.lock().unwrap_or_else(|p| p.into_inner());
    if !done.contains(&key) {
        match device.configure(precision.dtype()) {
            Ok(()) => {}
            Err(e) => {
                // Already initialised elsewhere: accept it only if the precision matches.
                let current = device.settings().float_dtype;
                if current != precision.dtype() {
                    return Err(Error::Device(format!(
                        "{key} device was initialised with {current:?} before burn-gp could set {:?}: {e:?}; \
                         create burn-gp's device before any tensor",
                        precision.dtype()
                    )));
                }
            }
        }
        done.push(key);
    }
    Ok(device)
}

/// The name of the backend [`default_device`] picks: `BURN_GP_DEVICE` if set, else the first
/// compiled backend in the order cuda, wgpu, flex, ndarray.
pub fn default_backend_name() -> String {
    std::env::var("BURN_GP_DEVICE")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| compiled_backends().first().copied().unwrap_or("none").to_string())
}

/// The default (non-autodiff) device, configured to its precision. Call `.autodiff()` on it to train.
pub fn default_device() -> Result<Device> {
    device_by_name(&default_backend_name())
}

/// The float precision tensors on `device` are created in by default.
pub fn precision(device: &Device) -> Precision {
    if device.settings().float_dtype == FloatDType::F64 {
        Precision::F64
    } else {
        Precision::F32
    }
}
