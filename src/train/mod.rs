//! Training loop: an optimiser (Adam by default) over shuffled minibatches with a progress bar and
//! a CSV log.
mod history;
mod optimizer;
mod trainer;

pub use history::{EpochRecord, History};
pub use optimizer::OptimizerConfig;
pub use trainer::{fit, fit_loop, fit_with_hook, LrSchedule, StepIndex, TrainConfig};
