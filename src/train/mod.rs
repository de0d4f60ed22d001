//! Training loop: Adam over shuffled minibatches with a progress bar and a CSV log.
mod history;
mod trainer;

pub use history::{EpochRecord, History};
pub use trainer::{fit, fit_loop, fit_with_hook, LrSchedule, StepIndex, TrainConfig};
