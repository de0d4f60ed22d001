//! Per-epoch training records and their CSV log.
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One epoch's summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EpochRecord {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Mean training objective over the epoch's minibatches (e.g. −ELBO / N).
    pub objective: f64,
    /// Seconds spent in this epoch's optimisation steps (evaluation excluded).
    pub epoch_s: f64,
    /// Seconds since training started, evaluation included.
    pub elapsed_s: f64,
    /// Named evaluation metrics after the epoch.
    pub metrics: Vec<(String, f64)>,
}

/// The training curve.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct History {
    /// One record per epoch.
    pub records: Vec<EpochRecord>,
}

impl History {
    /// Mean seconds per epoch of optimisation (evaluation excluded).
    pub fn mean_epoch_s(&self) -> f64 {
        if self.records.is_empty() {
            return 0.0;
        }
        self.records.iter().map(|r| r.epoch_s).sum::<f64>() / self.records.len() as f64
    }
    /// The last value of the metric `name`, if recorded.
    pub fn last_metric(&self, name: &str) -> Option<f64> {
        self.records.last()?.metrics.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }
    /// Writes `epoch,objective,epoch_s,elapsed_s,<metrics...>` rows to `path`.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        let mut f = std::fs::File::create(path).map_err(io)?;
        let names: Vec<&str> =
            self.records.first().map(|r| r.metrics.iter().map(|(k, _)| k.as_str()).collect()).unwrap_or_default();
        let mut header = String::from("epoch,objective,epoch_s,elapsed_s");
        for n in &names {
            header.push(',');
            header.push_str(n);
        }
        writeln!(f, "{header}").map_err(io)?;
        for r in &self.records {
            let mut line = format!("{},{},{},{}", r.epoch, r.objective, r.epoch_s, r.elapsed_s);
            for (_, v) in &r.metrics {
                line.push_str(&format!(",{v}"));
            }
            writeln!(f, "{line}").map_err(io)?;
        }
        Ok(())
    }
}
