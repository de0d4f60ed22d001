//! Tabular-data plumbing shared by the `bsvm_pmlb` and `active_learning` examples: the PMLB
//! multi-class sets of the paper, stratified z-scored splits, several models built from one
//! initial kernel and set of inducing inputs, chunked prediction and small report helpers.
use std::path::Path;

use burn::tensor::{Device, Tensor};
use burn_gp::data::{load_pmlb_classification, require_dir, stratified_split, ClassTable, Standardiser};
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::Likelihood;
use burn_gp::models::{BayesianSvmConfig, ClassPredictive, Svgp, SvgpConfig};
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::{Error, Result};

/// Folder of the multi-class PMLB sets under the data root.
pub const PMLB_MULTICLASS: &str = "pmlb_multiclass";

/// Fraction of each class held out for testing (80/20 splits; `docs/papers/003-bayesian-svm.md`,
/// section "Defaults").
pub const TEST_FRACTION: f64 = 0.2;

/// Rows per chunk when predicting (bounds memory on the large sets).
const PREDICT_CHUNK: usize = 4096;

/// The paper's 68 sets (§4.1; `docs/papers/003-bayesian-svm.md`, section "Experiments") in its order,
/// by rows, as `(local folder name, rows)`.
pub const PAPER_SETS: [(&str, usize); 68] = [
    ("lymphography", 148),
    ("iris", 150),
    ("tae", 151),
    ("hayes_roth", 160),
    ("flags", 178),
    ("wine_recognition", 178),
    ("auto", 202),
    ("glass", 205),
    ("prnn_fglass", 205),
    ("new_thyroid", 215),
    ("cleveland", 303),
    ("cleveland_nominal", 303),
    ("solar_flare_1", 315),
    ("ecoli", 327),
    ("movement_libras", 360),
    ("dermatology", 366),
    ("cars", 392),
    ("cars1", 392),
    ("calendarDOW", 399),
    ("analcatdata_germangss", 400),
    ("collins", 485),
    ("balance_scale", 625),
    ("soybean", 675),
    ("analcatdata_dmft", 797),
    ("analcatdata_authorship", 841),
    ("vehicle", 846),
    ("vowel", 990),
    ("solar_flare_2", 1066),
    ("cmc", 1473),
    ("contraceptive", 1473),
    ("yeast", 1479),
    ("wine_quality_red", 1599),
    ("car", 1728),
    ("car_evaluation", 1728),
    ("mfeat_factors", 2000),
    ("mfeat_fourier", 2000),
    ("mfeat_karhunen", 2000),
    ("mfeat_morphological", 2000),
    ("mfeat_pixel", 2000),
    ("mfeat_zernike", 2000),
    ("segmentation", 2310),
    ("dna", 3186),
    ("splice", 3188),
    ("led24", 3200),
    ("led7", 3200),
    ("allhypo", 3770),
    ("allhyper", 3771),
    ("allbp", 3772),
    ("allrep", 3772),
    ("wine_quality_white", 4893),
    ("waveform_21", 5000),
    ("waveform_40", 5000),
    ("page_blocks", 5473),
    ("texture", 5500),
    ("optdigits", 5620),
    ("satimage", 6435),
    ("ann_thyroid", 7200),
    ("pendigits", 10992),
    ("nursery", 12958),
    ("letter", 20000),
    ("krkopt", 28056),
    ("shuttle", 58000),
    ("connect_4", 67557),
    ("mnist", 70000),
    ("fars", 100968),
    ("sleep", 105908),
    ("kddcup", 494020),
    ("poker", 1025009),
];

/// Which PMLB multi-class sets to use and how much of them.
#[derive(clap::Args, Debug, Clone)]
pub struct SetOptions {
    /// Comma-separated PMLB set names (`wine-recognition` = `wine_recognition`); default: every set
    /// in <data>/pmlb_multiclass, in the paper's order (smallest first).
    #[arg(long, value_delimiter = ',')]
    pub sets: Vec<String>,
    /// Skip sets with more rows than this (0 = no limit).
    #[arg(long, default_value_t = 0)]
    pub max_rows: usize,
    /// Subsample larger training splits to about this many rows (stratified, seeded; 0 = all).
    #[arg(long, default_value_t = 0)]
    pub max_train: usize,
}

impl SetOptions {
    /// The sets to run, in order: `--sets` as given, else every folder of `<root>/pmlb_multiclass`
    /// (the paper's sets by rows, then any others by name). Sets the paper lists with more than
    /// `--max-rows` rows are dropped here; others are checked once loaded ([`Self::too_big`]).
    pub fn resolve(&self, root: &Path) -> Result<Vec<String>> {
        let mut names: Vec<String> = if self.sets.is_empty() {
            let mut found = set_folders(root, PMLB_MULTICLASS)?;
            found.sort_by_key(|name| (paper_index(name).unwrap_or(PAPER_SETS.len()), name.clone()));
            found
        } else {
            self.sets.iter().map(|s| s.trim().replace('-', "_")).filter(|s| !s.is_empty()).collect()
        };
        names.retain(|name| paper_rows(name).is_none_or(|rows| !self.too_big(rows)));
        Ok(names)
    }
    /// Whether a set of `rows` rows exceeds `--max-rows`.
    pub fn too_big(&self, rows: usize) -> bool {
        self.max_rows > 0 && rows > self.max_rows
    }
}

/// The names of the set folders in `<root>/<folder>` (e.g. `pmlb_multiclass`), sorted.
pub fn set_folders(root: &Path, folder: &str) -> Result<Vec<String>> {
    let dir = require_dir(&root.join(folder), "the PMLB sets (see its SOURCE.md)")?;
    let entries = std::fs::read_dir(&dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
    let mut found: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    found.sort();
    Ok(found)
}

/// Position of `name` in [`PAPER_SETS`].
fn paper_index(name: &str) -> Option<usize> {
    PAPER_SETS.iter().position(|(n, _)| *n == name)
}

/// Rows of `name` as the paper's list gives them.
fn paper_rows(name: &str) -> Option<usize> {
    paper_index(name).map(|i| PAPER_SETS[i].1)
}

/// A PMLB multi-class set in memory.
pub struct TabularSet {
    /// Set name (folder name).
    pub name: String,
    /// Features and class indices `0..C`.
    pub table: ClassTable,
}

/// One train/test split, z-scored with the training statistics.
pub struct Split {
    /// Training features `[n_train, d]`, row-major.
    pub x_train: Vec<f64>,
    /// Training labels.
    pub y_train: Vec<usize>,
    /// Test features `[n_test, d]`.
    pub x_test: Vec<f64>,
    /// Test labels.
    pub y_test: Vec<usize>,
    /// Number of features.
    pub d: usize,
    /// Number of classes of the whole set.
    pub classes: usize,
    /// Training rows before `--max-train` subsampling.
    pub train_full: usize,
}

impl Split {
    /// Training rows.
    pub fn n_train(&self) -> usize {
        self.y_train.len()
    }
    /// Test rows.
    pub fn n_test(&self) -> usize {
        self.y_test.len()
    }
    /// Whether `--max-train` subsampled the training part.
    pub fn subsampled(&self) -> bool {
        self.n_train() < self.train_full
    }
}

impl TabularSet {
    /// Loads set `name` from `<root>/pmlb_multiclass` (or the other PMLB folders).
    pub fn load(root: &Path, name: &str) -> Result<Self> {
        let (table, _) = load_pmlb_classification(root, name)?;
        if table.num_classes() < 2 {
            return Err(Error::invalid("set", format!("{name} has {} class(es), need 2+", table.num_classes())));
        }
        Ok(Self { name: name.to_string(), table })
    }
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.table.table.n
    }
    /// Number of classes C.
    pub fn classes(&self) -> usize {
        self.table.num_classes()
    }
    /// A stratified 80/20 split drawn with `seed`; a training part larger than `max_train` (> 0) is
    /// subsampled to about `max_train` rows, stratified and seeded; then both parts are z-scored
    /// with the (kept) training rows' means and standard deviations.
    pub fn split(&self, seed: u64, max_train: usize) -> Result<Split> {
        let parts = stratified_split(self.table.labels(), TEST_FRACTION, seed)?;
        let train = self.table.select_rows(&parts.train)?;
        let test = self.table.select_rows(&parts.test)?;
        let train_full = train.table.n;
        let train = if max_train > 0 && train_full > max_train {
            let drop = 1.0 - max_train as f64 / train_full as f64;
            let keep = stratified_split(train.labels(), drop, seed.wrapping_add(0x5eed))?;
            train.select_rows(&keep.train)?
        } else {
            train
        };
        let d = train.table.d;
        let scaler = Standardiser::fit(&train.table.x, train.table.n, d)?;
        Ok(Split {
            x_train: scaler.transform(&train.table.x)?,
            y_train: train.table.y,
            x_test: scaler.transform(&test.table.x)?,
            y_test: test.table.y,
            d,
            classes: self.classes(),
            train_full,
        })
    }
}

/// Host copy of a model's initial kernel (ARD RBF) and inducing inputs, so several models can
/// start from exactly the same point.
pub struct InitParts {
    /// Initial ARD lengthscales.
    pub lengthscales: Vec<f64>,
    /// Initial signal variance σ².
    pub variance: f64,
    /// Initial inducing inputs `[p, d]`, row-major.
    pub z: Vec<f64>,
    /// Number of inducing points P.
    pub p: usize,
    /// Input dimension.
    pub d: usize,
    /// Jitter on `K_ZZ`.
    pub jitter: f64,
}

impl InitParts {
    /// Kernel and inducing inputs as `cfg` places them on rows `x` `[n, d]` (median-heuristic
    /// lengthscale, k-means or subset inducing inputs), with `cfg`'s jitter for `device`.
    pub fn place(cfg: &BayesianSvmConfig, x: &[f64], d: usize, device: &Device) -> Result<Self> {
        let n = x.len() / d.max(1);
        let (kernel, inducing) = cfg.kernel_and_inducing(x, n, d, device)?;
        let jitter = cfg.jitter_for(device);
        let z = inducing.z();
        let [p, d] = z.dims();
        Ok(Self {
            lengthscales: to_vec(kernel.params.lengthscales.value()),
            variance: to_vec(kernel.params.variance.value())[0],
            z: to_vec(z),
            p,
            d,
            jitter,
        })
    }
    /// A fresh kernel with the initial hyperparameters.
    pub fn kernel(&self, device: &Device) -> Result<Rbf> {
        Rbf::new(&self.lengthscales, self.variance, device)
    }
    /// Fresh inducing points at the initial inputs.
    pub fn inducing(&self, device: &Device) -> Result<InducingPoints> {
        InducingPoints::new(&self.z, self.p, self.d, device)
    }
    /// A model with `latent` GPs on these parts for `num_data` training points, its `q(u)`
    /// initialised as `BayesianSvmConfig` initialises one (`cfg`'s `R` scale, mean noise and seed).
    pub fn model<L: Likelihood>(
        &self,
        cfg: &BayesianSvmConfig,
        likelihood: L,
        latent: usize,
        num_data: usize,
        device: &Device,
    ) -> Result<Svgp<Rbf, InducingPoints, L>> {
        SvgpConfig::new(num_data)
            .with_num_latent(latent)
            .with_jitter(self.jitter)
            .with_q_sqrt_init(cfg.q_sqrt_init)
            .with_q_mu_init_std(cfg.q_mu_init_std)
            .with_seed(cfg.seed)
            .init(self.kernel(device)?, self.inducing(device)?, likelihood, device)
    }
}

/// `f` applied to the rows of `x` `[n, d]` in chunks on `device`; its two outputs `[n, k]` come
/// back to the host, concatenated.
pub fn predict_host<F>(x: &[f64], d: usize, device: &Device, mut f: F) -> Result<(Vec<f64>, Vec<f64>)>
where
    F: FnMut(Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)>,
{
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for rows in x.chunks(PREDICT_CHUNK * d) {
        let (first, second) = f(matrix(rows.to_vec(), rows.len() / d, d, device)?)?;
        a.extend(to_vec(first));
        b.extend(to_vec(second));
    }
    Ok((a, b))
}

/// Latent class marginals of a model's `predict_f` on rows `x` `[n, d]` (chunked).
pub fn class_predictive<F>(x: &[f64], d: usize, device: &Device, f: F) -> Result<ClassPredictive>
where
    F: FnMut(Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)>,
{
    let n = x.len() / d;
    let (mean, var) = predict_host(x, d, device, f)?;
    let classes = mean.len().checked_div(n).unwrap_or(0);
    ClassPredictive::new(mean, var, classes)
}

/// Fraction of `predicted` equal to `labels`.
pub fn accuracy(predicted: &[usize], labels: &[usize]) -> f64 {
    let hits = predicted.iter().zip(labels).filter(|(p, y)| p == y).count();
    hits as f64 / labels.len().max(1) as f64
}

/// A JSON number, or `null` when not finite (keeps the lines strict JSON).
pub fn num(x: f64) -> serde_json::Value {
    if x.is_finite() {
        serde_json::json!(x)
    } else {
        serde_json::Value::Null
    }
}

/// Mean of the finite values (NaN if none).
pub fn mean(values: &[f64]) -> f64 {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        f64::NAN
    } else {
        finite.iter().sum::<f64>() / finite.len() as f64
    }
}

/// Median of the finite values (NaN if none).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let h = v.len() / 2;
    if v.len() % 2 == 1 {
        v[h]
    } else {
        0.5 * (v[h - 1] + v[h])
    }
}
