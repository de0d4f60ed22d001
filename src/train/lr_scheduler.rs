//! [`ScheduledLr`]: a [`TrainConfig`]'s learning-rate schedule as a Burn [`LrScheduler`], so that
//! burn-train's `Learner` steps the learning rate as [`fit_loop`](super::fit_loop) does.
use burn::optim::lr_scheduler::{LrScheduler, LrSchedulerRecord};
use burn::optim::LearningRate;

use super::{StepIndex, TrainConfig};
use crate::error::{Error, Result};

/// The learning rate of [`TrainConfig::lr_at`] at steps 1, 2, … of a run of `steps` steps (a Burn
/// [`LrScheduler`]; its record is the number of steps taken, so a checkpointed run resumes where
/// it stopped).
#[derive(Clone, Debug)]
pub struct ScheduledLr {
    config: TrainConfig,
    steps: usize,
    taken: usize,
}

impl ScheduledLr {
    /// The schedule of `config` over `config.epochs` epochs of `steps_per_epoch` steps each
    /// (`⌈n / batch_size⌉` for `n` training examples).
    pub fn new(config: &TrainConfig, steps_per_epoch: usize) -> Result<Self> {
        config.validate()?;
        if steps_per_epoch == 0 {
            return Err(Error::invalid("steps_per_epoch", "must be at least 1"));
        }
        Ok(Self { config: config.clone(), steps: steps_per_epoch * config.epochs.max(1), taken: 0 })
    }
}

impl LrScheduler for ScheduledLr {
    fn step(&mut self) -> LearningRate {
        self.taken += 1;
        self.config.lr_at(StepIndex { step: self.taken, epoch: 0, steps: self.steps })
    }

    fn to_record(&self) -> LrSchedulerRecord {
        LrSchedulerRecord::new().with_scalar("taken", self.taken as u64)
    }

    fn load_record(&mut self, record: LrSchedulerRecord) {
        if let Some(taken) = record.scalar::<u64>("taken") {
            self.taken = taken as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::LrSchedule;

    #[test]
    fn steps_through_the_configured_cosine_and_resumes_from_its_record() {
        let config = TrainConfig {
            lr: 0.2,
            epochs: 2,
            schedule: LrSchedule::Cosine { final_fraction: 0.1 },
            ..Default::default()
        };
        let mut lr = ScheduledLr::new(&config, 3).unwrap();
        let rates: Vec<f64> = (0..6).map(|_| lr.step()).collect();
        let expected: Vec<f64> = (1..=6).map(|step| config.lr_at(StepIndex { step, epoch: 0, steps: 6 })).collect();
        assert_eq!(rates, expected);
        assert_eq!(rates[0], 0.2);
        assert!((rates[5] - 0.02).abs() < 1e-15);
        let mut resumed = ScheduledLr::new(&config, 3).unwrap();
        let mut first = ScheduledLr::new(&config, 3).unwrap();
        first.step();
        first.step();
        resumed.load_record(first.to_record());
        assert_eq!(resumed.step(), expected[2]);
        assert!(ScheduledLr::new(&config, 0).is_err());
    }
}
