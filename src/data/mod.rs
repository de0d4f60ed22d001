//! Dataset loaders (in progress).
