//! Saving and loading fitted models: one file holds a model's description (its type, shapes,
//! settings and any host-side state, such as EP sites or a skew-GP posterior's draws) and its
//! trained tensors (Burn's burnpack format), and loads without the training data or a
//! placeholder model.
//!
//! Every model, and every piece a model is built from (kernel, inducing variables, likelihood,
//! trunk), implements [`Blueprint`]: it describes itself as a [`Spec`] and rebuilds an untrained
//! copy of itself from one. [`SavedModel`] then saves any blueprinted module, or a model with
//! host-side posterior state (the EP classifiers, the skew GP), to a file, and loads it back with
//! typed errors:
//! [`Error::BadFormat`](crate::Error::BadFormat) for a file that is not a burn-gp model file or is damaged,
//! [`Error::ModelMismatch`](crate::Error::ModelMismatch) for one that holds another model type, or shapes and settings that do
//! not fit its weights.
//!
//! ```no_run
//! use burn_gp::prelude::*;
//! use burn_gp::saved::SavedModel;
//! # fn main() -> burn_gp::Result<()> {
//! # let device = default_device()?;
//! # let model: BayesianSvm = unimplemented!();
//! model.save("bsvm.bgp")?;
//! let back = BayesianSvm::<Rbf>::load("bsvm.bgp", &device)?; // predictions equal bit for bit
//! # Ok(())
//! # }
//! ```
//!
//! A network of your own saves with its GP head once it implements [`Blueprint`] (describe its
//! widths in a [`Spec`], rebuild it from them).
mod atomic;
mod budget;
mod file;
mod models;
mod networks;
mod pieces;
mod spec;

use std::path::Path;

use burn::module::Module;
use burn::tensor::Device;

pub(crate) use atomic::write_atomically;
pub(crate) use file::{module_bytes, module_from_bytes};
pub use spec::Spec;

use crate::error::Result;

/// A piece of a model that can describe itself and be rebuilt, untrained, from the description
/// (the trained tensors are loaded into the rebuilt copy afterwards).
pub trait Blueprint: Sized {
    /// Type, shapes and settings: everything the trained tensors do not hold.
    fn describe(&self) -> Spec;
    /// An untrained copy on `device` with the shapes and settings of `spec`; errors (any
    /// [`Error`](crate::Error)) if `spec` does not describe this type.
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self>;
}

/// A fitted model that saves to one file and loads from it.
pub trait SavedModel: Sized {
    /// Writes the model (description and weights) to `path`, atomically: the bytes go to a
    /// temporary file in the same folder, which is synced and then renamed over `path`, so a
    /// crash or a full disk during the save leaves the previous file at `path` intact.
    fn save(&self, path: impl AsRef<Path>) -> Result<()>;
    /// Reads a model written by [`save`](Self::save) onto `device` (of any precision: the weights
    /// are cast to the device's).
    fn load(path: impl AsRef<Path>, device: &Device) -> Result<Self>;
}

impl<M: Blueprint + Module> SavedModel for M {
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        file::write(path.as_ref(), &self.describe(), self.clone())
    }
    fn load(path: impl AsRef<Path>, device: &Device) -> Result<Self> {
        let path = path.as_ref();
        let weights = file::read(path)?;
        let skeleton = weights.rebuild(|spec| M::rebuild(spec, device)).map_err(|e| file::mismatch(path, e))?;
        Ok(weights.fill(path, skeleton)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::inducing::InducingPoints;
    use crate::kernels::Rbf;
    use crate::likelihoods::Gaussian;
    use crate::models::{Svgp, SvgpConfig};

    type Regression = Svgp<Rbf, InducingPoints, Gaussian>;

    fn model(m: usize, device: &Device) -> Regression {
        let z: Vec<f64> = (0..m).map(|i| i as f64).collect();
        let inducing = InducingPoints::new(&z, m, 1, device).unwrap();
        let kernel = Rbf::new(&[1.0], 1.0, device).unwrap();
        SvgpConfig::new(10).init(kernel, inducing, Gaussian::new(0.5, device).unwrap(), device).unwrap()
    }

    #[test]
    fn a_description_that_does_not_fit_the_weights_is_a_typed_error() {
        let device = crate::device::default_device().unwrap();
        let path = std::env::temp_dir().join(format!("burn-gp-saved-unit-{}", std::process::id()));
        // The description says 6 inducing points, the weights hold 4.
        let mut spec = model(4, &device).describe();
        spec.parts[1].sizes[0] = 6;
        file::write(&path, &spec, model(4, &device)).unwrap();
        assert!(matches!(Regression::load(&path, &device), Err(Error::ModelMismatch { .. })));
        // A description with a piece of the wrong arity.
        let mut spec = model(4, &device).describe();
        spec.parts[0].sizes.push(3);
        file::write(&path, &spec, model(4, &device)).unwrap();
        assert!(matches!(Regression::load(&path, &device), Err(Error::ModelMismatch { .. })));
        // Stray bytes between the description and the weights.
        model(4, &device).save(&path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let len = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) + 1;
        bytes[8..16].copy_from_slice(&len.to_le_bytes());
        std::fs::write(&path, bytes).unwrap();
        assert!(matches!(Regression::load(&path, &device), Err(Error::BadFormat { .. })));
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn a_save_that_fails_midway_keeps_the_previous_model() {
        let device = crate::device::default_device().unwrap();
        let dir = std::env::temp_dir().join(format!("burn-gp-saved-fail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, other) = (dir.join("good.bgp"), dir.join("other.bgp"));
        model(4, &device).save(&path).unwrap();
        model(6, &device).save(&other).unwrap();
        let before = std::fs::read(&path).unwrap();
        let newer = std::fs::read(&other).unwrap();
        let failed = atomic::write_atomically_with(&path, |out| {
            out.write_all(&newer[..newer.len() / 2])?;
            Err(std::io::Error::other("the disk filled up"))
        });
        assert!(matches!(failed, Err(Error::Io { .. })));
        assert_eq!(std::fs::read(&path).unwrap(), before, "the previous file changed");
        let loaded = Regression::load(&path, &device).unwrap();
        assert_eq!(loaded.num_inducing(), 4);
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "a temporary file was left behind: {names:?}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
