//! Checkpoints of a training run (issue 95): where and how often they are written
//! ([`CheckpointConfig`], a field of [`TrainConfig`](super::TrainConfig)), and the file that holds
//! one: the loop's position (epochs and steps done, the [`History`] so far), the settings a
//! resumed run must share, and the byte blobs of the model, the optimiser state and any other
//! state the loop keeps. The file is written atomically, so a run killed while writing keeps
//! its previous checkpoint.
use std::path::{Path, PathBuf};

use burn::optim::ModuleOptimizer;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};

use super::{EpochRecord, History};
use crate::error::{Error, Result};

/// Where and how often a training loop writes checkpoints, and whether it resumes from one.
///
/// [`fit_hybrid`](crate::nets::fit_hybrid), [`fit`](super::fit) (SVGP models, the Bayesian SVM,
/// `ExactGpr`, `Sgpr`), `DeepGp::fit`, `fit_decoupled` (natural gradients included), the EP and
/// full-EP classifiers and `SkewGp::fit` (a file per training run) write them when
/// [`TrainConfig::checkpoint`](super::TrainConfig::checkpoint) asks.
/// [`fit_with_hook`](super::fit_with_hook), whose hook's state is not the loop's, refuses a
/// [`TrainConfig`](super::TrainConfig) that asks for them, with a typed error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointConfig {
    /// Folder of the checkpoint file (created if missing).
    pub dir: PathBuf,
    /// Write one every this many epochs (≥ 1), and after the last epoch.
    pub every_epochs: usize,
    /// Continue from the checkpoint in `dir` if there is one (else start afresh).
    pub resume: bool,
}

impl CheckpointConfig {
    /// Checkpoints in `dir` after every epoch, resuming from the one there if any.
    pub fn every_epoch(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into(), every_epochs: 1, resume: true }
    }
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if self.every_epochs == 0 {
            return Err(Error::invalid("checkpoint", "every_epochs must be at least 1"));
        }
        Ok(())
    }
    /// The checkpoint file of a loop of kind `kind` (e.g. `HybridNet`) in the folder.
    pub fn file(&self, kind: &str) -> PathBuf {
        self.dir.join(format!("{kind}.ckpt"))
    }
}

/// The first bytes of every checkpoint file (format version 1).
const MAGIC: &[u8; 8] = b"BURNGPC\x01";

/// One checkpoint: where the loop stands and the state it needs to go on.
#[derive(Debug)]
pub(crate) struct Checkpoint {
    /// The kind of loop that wrote it.
    pub kind: String,
    /// Settings a resumed run must share (data size, batch size, epochs, seed, …).
    pub fingerprint: Vec<u64>,
    /// Epochs completed.
    pub epochs_done: usize,
    /// Optimisation steps completed.
    pub steps_done: usize,
    /// The training curve so far.
    pub history: History,
    /// The loop's state, in an order the loop defines (model record, optimiser state, …).
    pub blobs: Vec<Vec<u8>>,
}

/// Appends a length-prefixed field.
fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Reads the fields of a checkpoint file in order, refusing anything that is not there.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("truncated at byte {}", self.at))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn word(&mut self) -> std::result::Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn count(&mut self) -> std::result::Result<usize, String> {
        let n = self.word()?;
        usize::try_from(n).ok().filter(|&n| n <= self.bytes.len()).ok_or_else(|| format!("implausible count {n}"))
    }
    fn field(&mut self) -> std::result::Result<&'a [u8], String> {
        let n = self.count()?;
        self.take(n)
    }
    fn text(&mut self) -> std::result::Result<String, String> {
        String::from_utf8(self.field()?.to_vec()).map_err(|_| "a name that is not UTF-8".to_string())
    }
}

impl Checkpoint {
    /// The file's bytes.
    fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        put(&mut out, self.kind.as_bytes());
        let words = [self.fingerprint.len() as u64, self.epochs_done as u64, self.steps_done as u64];
        words.iter().chain(&self.fingerprint).for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        out.extend_from_slice(&(self.history.records.len() as u64).to_le_bytes());
        for r in &self.history.records {
            let numbers = [r.epoch as f64, r.objective, r.epoch_s, r.elapsed_s, r.metrics.len() as f64];
            numbers.iter().for_each(|v| out.extend_from_slice(&v.to_bits().to_le_bytes()));
            for (name, value) in &r.metrics {
                put(&mut out, name.as_bytes());
                out.extend_from_slice(&value.to_bits().to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.blobs.len() as u64).to_le_bytes());
        self.blobs.iter().for_each(|b| put(&mut out, b));
        out
    }

    /// Parses a checkpoint file's bytes.
    fn decode(bytes: &[u8]) -> std::result::Result<Self, String> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not a burn-gp checkpoint (no BURNGPC header)".into());
        }
        let mut f = Fields { bytes, at: MAGIC.len() };
        let kind = f.text()?;
        let (len, epochs_done, steps_done) = (f.count()?, f.count()?, f.count()?);
        let fingerprint = (0..len).map(|_| f.word()).collect::<std::result::Result<_, _>>()?;
        let mut history = History::default();
        for _ in 0..f.count()? {
            let mut number = || f.word().map(f64::from_bits);
            let (epoch, objective, epoch_s, elapsed_s, metrics) =
                (number()?, number()?, number()?, number()?, number()?);
            if !(metrics >= 0.0 && metrics <= bytes.len() as f64 && epoch >= 0.0 && epoch <= u32::MAX as f64) {
                return Err(format!("implausible epoch record {epoch} with {metrics} metrics"));
            }
            let metrics = (0..metrics as usize)
                .map(|_| Ok((f.text()?, f64::from_bits(f.word()?))))
                .collect::<std::result::Result<_, String>>()?;
            history.records.push(EpochRecord { epoch: epoch as usize, objective, epoch_s, elapsed_s, metrics });
        }
        let blobs = (0..f.count()?).map(|_| f.field().map(<[u8]>::to_vec)).collect::<std::result::Result<_, _>>()?;
        if f.at != bytes.len() {
            return Err(format!("{} stray bytes at the end", bytes.len() - f.at));
        }
        Ok(Self { kind, fingerprint, epochs_done, steps_done, history, blobs })
    }

    /// Writes the checkpoint to `path` atomically (creating its folder).
    pub(crate) fn write(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
        }
        crate::saved::write_atomically(path, &self.encode())
    }

    /// Reads the checkpoint at `path`: `Ok(None)` if there is no file, [`Error::BadFormat`] for a
    /// damaged one, and [`Error::InvalidArgument`] for one of another kind of loop or written by a
    /// run with other settings (`fingerprint`).
    pub(crate) fn read(path: &Path, kind: &str, fingerprint: &[u64]) -> Result<Option<Self>> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(Error::Io { path: path.to_path_buf(), source }),
        };
        let checkpoint =
            Self::decode(&bytes).map_err(|reason| Error::BadFormat { path: path.to_path_buf(), reason })?;
        if checkpoint.kind != kind || checkpoint.fingerprint != fingerprint {
            return Err(Error::invalid(
                "checkpoint",
                format!(
                    "{} holds a {} run with settings {:?}; this is a {kind} run with settings {fingerprint:?} \
                     (resume with the same data, batch size, epochs and seed, or use another folder)",
                    path.display(),
                    checkpoint.kind,
                    checkpoint.fingerprint
                ),
            ));
        }
        Ok(Some(checkpoint))
    }
}

/// The state of an optimiser as a checkpoint blob.
pub(crate) fn optimizer_bytes(optim: &ModuleOptimizer) -> Result<Vec<u8>> {
    Ok(optim.into_bytes().map_err(|e| Error::invalid("checkpoint", e.to_string()))?.to_vec())
}

/// Little-endian bytes of `values` (a checkpoint blob).
pub(crate) fn f64_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Reads a checkpoint's blobs in the order its loop wrote them, each read a typed error
/// ([`Error::BadFormat`] naming the file) when the blob is missing or malformed.
pub(crate) struct BlobReader<'a> {
    path: &'a Path,
    blobs: &'a [Vec<u8>],
    next: usize,
}

impl<'a> BlobReader<'a> {
    /// A reader of `blobs`, read from the checkpoint `path`.
    pub(crate) fn new(path: &'a Path, blobs: &'a [Vec<u8>]) -> Self {
        Self { path, blobs, next: 0 }
    }
    /// [`Error::BadFormat`] for this file with `reason`.
    pub(crate) fn bad(&self, reason: impl Into<String>) -> Error {
        Error::BadFormat { path: self.path.to_path_buf(), reason: reason.into() }
    }
    /// The next blob's bytes.
    pub(crate) fn bytes(&mut self) -> Result<&'a [u8]> {
        let blob = self.blobs.get(self.next).ok_or_else(|| self.bad(format!("no state blob {}", self.next)))?;
        self.next += 1;
        Ok(blob)
    }
    /// The next blob as `len` little-endian f64s (any number with `None`).
    pub(crate) fn f64s(&mut self, len: Option<usize>) -> Result<Vec<f64>> {
        let bytes = self.bytes()?;
        if !bytes.len().is_multiple_of(8) || len.is_some_and(|l| Some(bytes.len()) != l.checked_mul(8)) {
            let want = len.map_or("a multiple of 8".to_string(), |l| format!("{}", l.saturating_mul(8)));
            return Err(self.bad(format!("state blob {} has {} bytes, not {want}", self.next - 1, bytes.len())));
        }
        Ok(bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))).collect())
    }
    /// `skeleton` with the parameters of the next blob (one of `crate::saved::module_bytes`).
    pub(crate) fn module<M: burn::module::Module>(&mut self, skeleton: M) -> Result<M> {
        let bytes = self.bytes()?;
        crate::saved::module_from_bytes(self.path, skeleton, bytes)
    }
    /// The next blob as a count (8 little-endian bytes).
    pub(crate) fn count(&mut self) -> Result<usize> {
        let bytes = self.bytes()?;
        let word: [u8; 8] = bytes.try_into().map_err(|_| self.bad(format!("a count of {} bytes", bytes.len())))?;
        usize::try_from(u64::from_le_bytes(word)).map_err(|_| self.bad("a count too large for this machine"))
    }
    /// Gives `optim` the state of the next blob.
    pub(crate) fn optimizer(&mut self, optim: &mut ModuleOptimizer) -> Result<()> {
        let bytes = Bytes::from_bytes_vec(self.bytes()?.to_vec());
        *optim = optim.clone().from_bytes(bytes).map_err(|e| self.bad(format!("optimiser state: {e}")))?;
        Ok(())
    }
    /// Checks that every blob was read.
    pub(crate) fn finish(self) -> Result<()> {
        match self.blobs.len() - self.next.min(self.blobs.len()) {
            0 => Ok(()),
            extra => Err(self.bad(format!("{extra} state blobs more than this loop keeps"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        let record = |epoch, objective| EpochRecord {
            epoch,
            objective,
            epoch_s: 1.5,
            elapsed_s: 2.0 * epoch as f64,
            metrics: vec![("test_acc".into(), 0.25), ("nll".into(), f64::NAN)],
        };
        Checkpoint {
            kind: "HybridNet".into(),
            fingerprint: vec![100, 32, 5, 7],
            epochs_done: 2,
            steps_done: 8,
            history: History { records: vec![record(1, 3.5), record(2, -0.0)] },
            blobs: vec![vec![1, 2, 3], vec![], vec![9; 40]],
        }
    }

    #[test]
    fn a_checkpoint_round_trips_and_damage_is_a_typed_error() {
        let dir = std::env::temp_dir().join(format!("burn-gp-ckpt-unit-{}", std::process::id()));
        let path = dir.join("HybridNet.ckpt");
        assert!(Checkpoint::read(&path, "HybridNet", &[100, 32, 5, 7]).unwrap().is_none());
        let c = sample();
        c.write(&path).unwrap();
        let back = Checkpoint::read(&path, "HybridNet", &[100, 32, 5, 7]).unwrap().unwrap();
        assert_eq!(back.encode(), c.encode());
        assert_eq!((back.epochs_done, back.steps_done, back.blobs.clone()), (2, 8, c.blobs.clone()));
        assert_eq!(back.history.records[1].objective.to_bits(), (-0.0f64).to_bits());
        // Another run's settings, another kind of loop.
        assert!(matches!(Checkpoint::read(&path, "HybridNet", &[100, 32, 6, 7]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(Checkpoint::read(&path, "DeepGp", &[100, 32, 5, 7]), Err(Error::InvalidArgument { .. })));
        // Every truncation and a spliced length are refused.
        let bytes = c.encode();
        for cut in 0..bytes.len() {
            assert!(Checkpoint::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = bytes.clone();
        long[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(Checkpoint::decode(&long).is_err());
        std::fs::write(&path, b"BURNGPC\x01 junk").unwrap();
        assert!(matches!(Checkpoint::read(&path, "HybridNet", &[]), Err(Error::BadFormat { .. })));
        let _ = std::fs::remove_dir_all(dir);
    }
}
