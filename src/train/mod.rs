//! Training loop: an optimiser (Adam by default) over shuffled minibatches with a progress bar and
//! a CSV log.
mod history;
#[cfg(feature = "learner")]
mod lr_scheduler;
mod optimizer;
mod trainer;

pub use history::{EpochRecord, History};
#[cfg(feature = "learner")]
pub use lr_scheduler::ScheduledLr;
pub use optimizer::OptimizerConfig;
pub use trainer::{fit, fit_loop, fit_with_hook, LrSchedule, StepIndex, TrainConfig};
