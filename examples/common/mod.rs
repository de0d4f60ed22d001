//! Command-line options and set-up shared by the examples.
use std::path::PathBuf;

use burn::tensor::Device;
use burn_gp::train::TrainConfig;

/// Options every training example takes.
#[derive(clap::Args, Debug, Clone)]
pub struct RunOptions {
    /// Minibatch size.
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Training epochs.
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// Adam learning rate.
    #[arg(long, default_value_t = 0.01)]
    pub lr: f64,
    /// Random seed (splits, inducing-point subset, minibatch order).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Data root (default: $BURN_GP_DATA, else ../shared/data).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Backend to run on (flex, ndarray, wgpu, cuda); default: the first compiled in.
    #[arg(long)]
    pub device: Option<String>,
    /// Write the per-epoch curve to this CSV file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Print one final JSON line.
    #[arg(long)]
    pub json: bool,
    /// Hide the progress bar (print one line per epoch instead).
    #[arg(long)]
    pub no_progress: bool,
}

/// The chosen backend's name, its device, and the same device with autodiff.
pub struct Devices {
    /// Backend name (`flex`, `wgpu`, …).
    pub backend: String,
    /// Device for evaluation.
    pub base: Device,
    /// Device for training.
    pub train: Device,
}

impl RunOptions {
    /// Sets up the device named by `--device` (or the default).
    pub fn devices(&self) -> burn_gp::Result<Devices> {
        let backend = self.device.clone().unwrap_or_else(burn_gp::device::default_backend_name);
        let base = burn_gp::device::device_by_name(&backend)?;
        let train = base.clone().autodiff();
        Ok(Devices { backend, base, train })
    }

    /// The trainer settings these options describe.
    pub fn train_config(&self) -> TrainConfig {
        TrainConfig {
            epochs: self.epochs,
            batch_size: self.batch,
            lr: self.lr,
            seed: self.seed,
            progress: !self.no_progress && !self.json,
        }
    }

    /// Writes the training curve if `--csv` was given.
    pub fn write_curve(&self, history: &burn_gp::train::History) -> burn_gp::Result<()> {
        match &self.csv {
            Some(path) => history.write_csv(path),
            None => Ok(()),
        }
    }
}

/// Prints `title` and a two-column markdown table of `(metric, value)` rows.
pub fn print_table(title: &str, rows: &[(&str, String)]) {
    println!("{title}");
    println!("| metric | value |");
    println!("|---|---|");
    for (name, value) in rows {
        println!("| {name} | {value} |");
    }
}

/// Runs an example's `run`, printing a failure as one line on stderr with exit status 1.
pub fn exit_on_error(result: burn_gp::Result<()>) {
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
