//! How data-parallel EP combines its shards' statistics (paper §2.3, "Distributed training"): a
//! [`ShardReducer`] sums one flat f64 buffer per shard (site sums `Lᵀ S_p L` and `Lᵀe_p`, `Σ log s̃`,
//! the likelihood term's gradient) and hands the total back, as an all-reduce does.
//!
//! * [`HostReducer`]: the shards' buffers are added on the host in shard order. Used on CPU
//!   backends, and the default.
//! * [`BurnCollective`]: Burn's own collective `all_reduce` (`burn::tensor::distributed`), one
//!   participant per device, each issued from its own thread as Burn's DDP does. Burn 0.22.1
//!   implements that collective only for CUDA devices (NCCL, in `cubecl-cuda`) and for its
//!   `remote` backend; its CPU backends have none:
//!   * the default body of `DistributedOps::all_reduce` is `unimplemented!()`;
//!   * the `Flex` and `NdArray` backends keep those defaults (`Flex` "does not support collective
//!     operations");
//!   * Burn's backend dispatcher marks only the `Cube` and `Remote` backends as distributed and
//!     panics "Distributed operations are not supported for device" for any other device;
//!   * of the cubecl runtimes only CUDA implements collectives; wgpu and cubecl's CPU runtime
//!     answer `all_reduce` with `Err(NoDeviceTransport)`.
//!
//!   burn 0.22.1 depends on no `burn-collective`/`burn-communication` crate (burn-train 0.19–0.20's
//!   DDP used `burn_collective::CollectiveConfig`); burn-train 0.22.1's DDP strategy takes the same
//!   `DistributedContext` (`ExecutionStrategy::DistributedDataParallel { devices, context }`,
//!   docs.rs/burn-train/0.22.1), so it has no CPU collective either. [`BurnCollective`] therefore
//!   refuses non-CUDA devices with a typed error instead of reaching those panics.
//!
//! Across nodes, Burn 0.22.1's route is its `remote` backend (a `Device` that is a device of a
//! `burn-remote` server); `all_reduce` over such devices is the same call, so [`BurnCollective`]
//! needs no change — only the device list does. Networking is Burn's, none is written here.
use burn::tensor::distributed::{all_reduce, DistributedConfig, DistributedContext, ReduceOperation};
use burn::tensor::{Device, Tensor, TensorData};

use crate::error::{Error, Result};
use crate::tensors::to_vec;

/// Sums one equally long buffer per shard and returns the total (an all-reduce with `Sum`).
pub trait ShardReducer: Sync {
    /// The device each shard computes on (shard `p` on `devices()[p]`), or `None` when every
    /// shard uses the device of the training inputs.
    fn devices(&self) -> Option<&[Device]>;
    /// `Σ_p parts[p]`, elementwise; `parts` has one buffer per shard, all of the same length.
    fn all_reduce_sum(&self, parts: Vec<Vec<f64>>) -> Result<Vec<f64>>;
}

/// Checks that `parts` is non-empty with buffers of one length and returns that length.
fn common_len(parts: &[Vec<f64>]) -> Result<usize> {
    let len = parts.first().map(Vec::len).ok_or_else(|| Error::invalid("shards", "nothing to reduce"))?;
    if let Some(bad) = parts.iter().find(|p| p.len() != len) {
        return Err(Error::shape("ShardReducer: shard buffers", len, bad.len()));
    }
    Ok(len)
}

/// Adds the shards' buffers on the host, in shard order.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostReducer;

impl ShardReducer for HostReducer {
    fn devices(&self) -> Option<&[Device]> {
        None
    }
    fn all_reduce_sum(&self, parts: Vec<Vec<f64>>) -> Result<Vec<f64>> {
        common_len(&parts)?;
        let mut parts = parts.into_iter();
        let mut total = parts.next().expect("checked non-empty");
        for part in parts {
            total.iter_mut().zip(&part).for_each(|(t, v)| *t += v);
        }
        Ok(total)
    }
}

/// Burn's collective `all_reduce` over one device per shard (see the module documentation for
/// which devices Burn 0.22.1 supports). Keeps Burn's [`DistributedContext`] alive while it exists.
#[derive(Debug)]
pub struct BurnCollective {
    devices: Vec<Device>,
    _context: DistributedContext,
}

impl BurnCollective {
    /// A reducer over `devices` (one shard each). Errors unless this build has the `cuda`
    /// feature and every device is a CUDA device: Burn 0.22.1 has no collective for the others.
    pub fn new(devices: Vec<Device>) -> Result<Self> {
        if devices.is_empty() {
            return Err(Error::invalid("devices", "a collective needs at least one device"));
        }
        if let Some(bad) = devices.iter().find(|d| !supports_collectives(d)) {
            return Err(Error::Device(format!(
                "Burn 0.22.1 implements all_reduce only on CUDA devices (and its remote backend); {bad:?} has no \
                 collective — use HostReducer (see burn_gp::models::ep::reducer)"
            )));
        }
        let context =
            DistributedContext::init(devices.clone(), DistributedConfig { all_reduce_op: ReduceOperation::Sum });
        Ok(Self { devices, _context: context })
    }
}

/// Whether Burn 0.22.1 can run a collective on `device` in this build (a CUDA device).
#[allow(unused_variables)]
fn supports_collectives(device: &Device) -> bool {
    #[cfg(feature = "cuda")]
    {
        let plain = device.clone().without_autodiff();
        burn::tensor::Device::enumerate(burn::tensor::DeviceType::Cuda).into_vec().contains(&plain)
    }
    #[cfg(not(feature = "cuda"))]
    false
}

impl ShardReducer for BurnCollective {
    fn devices(&self) -> Option<&[Device]> {
        Some(&self.devices)
    }
    fn all_reduce_sum(&self, parts: Vec<Vec<f64>>) -> Result<Vec<f64>> {
        let len = common_len(&parts)?;
        if parts.len() != self.devices.len() {
            return Err(Error::shape("BurnCollective: one buffer per device", self.devices.len(), parts.len()));
        }
        // every participant issues its share from its own thread (as burn-train's DDP workers do)
        let reduced: Vec<Vec<f64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .into_iter()
                .zip(&self.devices)
                .map(|(part, device)| {
                    let devices = self.devices.clone();
                    scope.spawn(move || {
                        let local = Tensor::<1>::from_data(TensorData::new(part, [len]), device);
                        to_vec(all_reduce(local, ReduceOperation::Sum, devices).resolve())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("an all_reduce thread panicked")).collect()
        });
        Ok(reduced.into_iter().next().expect("checked non-empty"))
    }
}
