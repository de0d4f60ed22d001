//! The model file: magic bytes, the encoded [`Spec`], then the module's burnpack record.
use std::path::Path;

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;

use super::Spec;
use crate::error::{Error, Result};

/// The first bytes of every burn-gp model file (format version 1).
const MAGIC: &[u8; 8] = b"BURNGP\x00\x01";

/// Writes `spec` and `module`'s parameters to `path`, atomically (the previous file stays intact
/// if the write fails).
pub(crate) fn write<M: Module>(path: &Path, spec: &Spec, module: M) -> Result<()> {
    let record = module.into_record().into_bytes().map_err(|e| Error::invalid("save", e.to_string()))?;
    let mut head = Vec::new();
    spec.encode(&mut head);
    let mut out = Vec::with_capacity(MAGIC.len() + 8 + head.len() + record.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(head.len() as u64).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&record);
    super::atomic::write_atomically(path, &out)
}

/// A model file read from disk: its description and its weights, not yet loaded into a module.
pub(crate) struct ReadFile {
    /// The model's description.
    pub(crate) spec: Spec,
    /// The weights.
    record: ModuleRecord,
    /// The weights' size in the file, which bounds what a rebuild from `spec` may allocate.
    weight_bytes: usize,
}

impl ReadFile {
    /// Runs `rebuild` on the description within the cell budget of the weights' bytes (see
    /// [`super::budget`]).
    pub(crate) fn rebuild<T>(&self, rebuild: impl FnOnce(&Spec) -> Result<T>) -> Result<T> {
        super::budget::within(self.weight_bytes, || rebuild(&self.spec))
    }

    /// Loads the weights into `skeleton`, and gives back the description. A skeleton with more parameters than the weights'
    /// bytes can hold (Burn's layers allocate theirs lazily, so a rebuild need not have
    /// allocated them yet), or one the record does not fit, is [`Error::ModelMismatch`].
    pub(crate) fn fill<M: Module>(self, path: &Path, skeleton: M) -> Result<(M, Spec)> {
        let (wanted, held) = (skeleton.num_params(), super::budget::cells_in(self.weight_bytes));
        if wanted > held {
            return Err(mismatch(
                path,
                format!("the description asks for {wanted} parameters, the weights hold at most {held}"),
            ));
        }
        let loaded = skeleton.try_load_record(self.record).map_err(|e| mismatch(path, e))?;
        Ok((loaded, self.spec))
    }
}

/// Reads the description and the weights' record from `path`.
pub(crate) fn read(path: &Path) -> Result<ReadFile> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let bad = |reason: String| Error::BadFormat { path: path.to_path_buf(), reason };
    if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(bad("not a burn-gp model file (no BURNGP header)".into()));
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[MAGIC.len()..MAGIC.len() + 8]);
    let start = MAGIC.len() + 8;
    let end = usize::try_from(u64::from_le_bytes(len))
        .ok()
        .and_then(|n| start.checked_add(n))
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| bad("model description truncated".into()))?;
    let (spec, used) = Spec::decode(&bytes[start..end]).map_err(bad)?;
    if used != end - start {
        return Err(bad(format!("{} stray bytes after the model description", end - start - used)));
    }
    let weight_bytes = bytes.len() - end;
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes[end..].to_vec()))
        .map_err(|e| bad(format!("weights: {e}")))?;
    Ok(ReadFile { spec, record: record.cast_to_module_dtype(), weight_bytes })
}

/// `module`'s parameters as a burnpack record's bytes (a checkpoint's model).
pub(crate) fn module_bytes<M: Module>(module: M) -> Result<Vec<u8>> {
    let record = module.into_record().into_bytes().map_err(|e| Error::invalid("checkpoint", e.to_string()))?;
    Ok(record.to_vec())
}

/// `skeleton` with the parameters of [`module_bytes`]'s `bytes` (read from the checkpoint `path`).
pub(crate) fn module_from_bytes<M: Module>(path: &Path, skeleton: M, bytes: &[u8]) -> Result<M> {
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes.to_vec()))
        .map_err(|e| Error::BadFormat { path: path.to_path_buf(), reason: format!("model: {e}") })?;
    skeleton.try_load_record(record.cast_to_module_dtype()).map_err(|e| mismatch(path, e))
}

/// [`Error::ModelMismatch`] for `path` with `reason`.
pub(crate) fn mismatch(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::ModelMismatch { path: path.to_path_buf(), reason: reason.to_string() }
}
