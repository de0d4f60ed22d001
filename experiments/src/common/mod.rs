//! Command-line options and set-up shared by the drivers and the short examples.
use std::path::PathBuf;

use burn::tensor::Device;
use burn_gp::train::{CheckpointConfig, LrSchedule, OptimizerConfig, TrainConfig};

pub mod plot;

/// Mean and sample standard deviation (divisor `n − 1`; 0 for one value), for "mean ± sd" over
/// splits or repeats.
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    (mean, burn_gp::metrics::sample_std(v).unwrap_or(0.0))
}

/// Every example allocates with mimalloc: see `[dev-dependencies]` in Cargo.toml.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tells mimalloc to keep the memory it frees mapped (`mi_option_purge_delay`, index 15 of
/// mimalloc.h's options, set to −1): the hybrid drivers' steps free and reallocate buffers of
/// the same sizes, and pages handed back to the OS are zeroed again on first touch
/// (docs/results/benchmarks.md, "The main job's serial part on the CPU").
pub fn keep_freed_memory() {
    unsafe { libmimalloc_sys::mi_option_set(15, -1) }
}

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
    /// Anneal the learning rate along half a cosine to this fraction of --lr at the last step
    /// (default: constant; 1 = constant).
    #[arg(long)]
    pub lr_final_fraction: Option<f64>,
    /// Optimiser: adam, adamw (weight decay 1e-4), adadelta (ρ 0.9, ε 1e-5: use --lr 1) or
    /// sign-adaptive (initial step 1e-2).
    #[arg(long, value_enum, default_value_t = OptimizerArg::Adam)]
    pub optimizer: OptimizerArg,
    /// Random seed (network initialisation, splits, inducing points, minibatch order).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Data root (default: $BURN_GP_DATA, else ../shared/data).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Backend to run on (flex, ndarray, wgpu, cuda); default: the first compiled in.
    #[arg(long)]
    pub device: Option<String>,
    /// Float precision (f32 or f64); default: $BURN_GP_PRECISION, else f64 on CPU and f32 on GPU.
    #[arg(long)]
    pub precision: Option<String>,
    /// Write the per-epoch curve to this CSV file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Print one final JSON line.
    #[arg(long)]
    pub json: bool,
    /// Hide the progress bar (print progress lines instead: every epoch, or about 20 for long runs).
    #[arg(long)]
    pub no_progress: bool,
    /// `--plot DIR`: the example's figures as SVG files.
    #[command(flatten)]
    pub plot: plot::PlotOptions,
}

/// `--save FILE` / `--load FILE` of the examples that keep their trained model
/// (`burn_gp::saved`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ModelFileOptions {
    /// Save the trained model (description and weights) to this file.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Load a model saved by --save (run with the same data options) and only evaluate it.
    #[arg(long)]
    pub load: Option<PathBuf>,
}

/// `--checkpoint-dir DIR` / `--resume` of the examples that train through the library's
/// checkpointing loops (`burn_gp::train::CheckpointConfig`; docs/examples.md lists them).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CheckpointOptions {
    /// Write a checkpoint of every training run (model, optimiser and loop state, epochs done,
    /// history) atomically after every epoch: `DIR/<Model>.ckpt`, or `DIR/<run>/<Model>.ckpt`
    /// where one invocation trains several models (docs/examples.md names the sub-folders).
    #[arg(long, value_name = "DIR")]
    pub checkpoint_dir: Option<PathBuf>,
    /// With --checkpoint-dir: continue every run from its checkpoint there, if any (rerun with
    /// the same options); each run ends bit for bit where the uninterrupted run ends, and a
    /// finished run is read back without training.
    #[arg(long, requires = "checkpoint_dir")]
    pub resume: bool,
}

impl CheckpointOptions {
    /// The checkpoint settings of one training run: a checkpoint after every epoch in
    /// `--checkpoint-dir` (`run` empty) or in its sub-folder `run` (one per model trained, so
    /// that no two runs share a file); `None` without `--checkpoint-dir`.
    pub fn config(&self, run: &str) -> Option<CheckpointConfig> {
        let dir = self.checkpoint_dir.as_ref()?;
        let dir = if run.is_empty() { dir.clone() } else { dir.join(run) };
        Some(CheckpointConfig { dir, every_epochs: 1, resume: self.resume })
    }
}

/// The `--optimizer` choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerArg {
    /// Adam (Burn's defaults).
    Adam,
    /// AdamW, weight decay 1e-4.
    Adamw,
    /// Adadelta, ρ = 0.9, ε = 1e-5.
    Adadelta,
    /// The sign-adaptive step of the EP classifier paper.
    SignAdaptive,
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
        let precision = match self.precision.as_deref() {
            None => burn_gp::device::precision_from_env()?,
            Some("f32") => Some(burn_gp::device::Precision::F32),
            Some("f64") => Some(burn_gp::device::Precision::F64),
            Some(other) => return Err(burn_gp::Error::invalid("precision", format!("f32 or f64, got `{other}`"))),
        };
        let base = burn_gp::device::device_with_precision(&backend, precision)?;
        // Parameter initialisation and sampling ops draw from the backend's generator: seed it so
        // that the same --seed, backend and thread count repeat a run on one machine.
        base.seed(self.seed);
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
            schedule: match self.lr_final_fraction {
                Some(final_fraction) => LrSchedule::Cosine { final_fraction },
                None => LrSchedule::Constant,
            },
            optimizer: match self.optimizer {
                OptimizerArg::Adam => OptimizerConfig::Adam,
                OptimizerArg::Adamw => OptimizerConfig::AdamW { weight_decay: 1e-4 },
                OptimizerArg::Adadelta => OptimizerConfig::Adadelta { rho: 0.9, epsilon: 1e-5 },
                OptimizerArg::SignAdaptive => OptimizerConfig::SignAdaptive { initial_step: 1e-2 },
            },
            checkpoint: None,
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

/// Data, device and output options of the examples that do not train with [`RunOptions`]'s
/// single Adam schedule.
#[derive(clap::Args, Debug, Clone)]
pub struct BasicOptions {
    /// Data root (default: $BURN_GP_DATA, else ../shared/data).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Backend to run on (flex, ndarray, wgpu, cuda); default: the first compiled in.
    #[arg(long)]
    pub device: Option<String>,
    /// Print JSON lines (see the example's documentation).
    #[arg(long)]
    pub json: bool,
    /// Hide progress bars (print a few progress lines per run instead).
    #[arg(long)]
    pub no_progress: bool,
}

impl BasicOptions {
    /// The evaluation device (precision from `BURN_GP_PRECISION`, else the backend's default) and
    /// its autodiff twin for training.
    pub fn devices(&self) -> burn_gp::Result<(Device, Device)> {
        let backend = self.device.clone().unwrap_or_else(burn_gp::device::default_backend_name);
        let base = burn_gp::device::device_with_precision(&backend, burn_gp::device::precision_from_env()?)?;
        let train = base.clone().autodiff();
        Ok((base, train))
    }
    /// Whether to draw progress bars.
    pub fn progress(&self) -> bool {
        !self.no_progress && !self.json
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

/// Parses `A` from the command line with some of its defaults replaced (`(argument id, value)`),
/// so examples can share [`RunOptions`] but pick their own batch size, epochs or learning rate.
pub fn parse_with_defaults<A: clap::Parser>(defaults: &[(&'static str, &'static str)]) -> A {
    let mut command = A::command();
    for &(id, value) in defaults {
        command = command.mut_arg(id, |a| a.default_value(value));
    }
    let matches = command.get_matches();
    A::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}
