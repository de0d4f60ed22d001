//! Training loop: an optimiser (Adam by default) over shuffled minibatches with a progress bar and
//! a CSV log.
mod checkpoint;
pub(crate) mod divergence;
mod history;
#[cfg(feature = "learner")]
mod lr_scheduler;
mod optimizer;
mod trainer;

pub use checkpoint::CheckpointConfig;
pub(crate) use checkpoint::{f64_bytes, optimizer_bytes, BlobReader, Checkpoint};
pub use history::{EpochRecord, History};
#[cfg(feature = "learner")]
pub use lr_scheduler::ScheduledLr;
pub use optimizer::OptimizerConfig;
pub use trainer::{fit, fit_loop, fit_with_hook, LrSchedule, StepIndex, TrainConfig};
pub(crate) use trainer::{
    fit_loop_checkpointed, fit_loop_resumable, fit_loop_with_optimizer, loss_step, LoopPosition, LoopStart, LoopState,
};
