//! Initial placements of inducing inputs.
use crate::error::{Error, Result};

/// Inducing inputs initialised at `m` rows of `x` chosen uniformly without replacement (seeded).
pub fn inducing_subset(x: &[f64], n: usize, d: usize, m: usize, seed: u64) -> Result<Vec<f64>> {
    use rand::{seq::SliceRandom, SeedableRng};
    if m == 0 || m > n {
        return Err(Error::invalid("m", format!("need 1 ≤ m ≤ n = {n}, got {m}")));
    }
    if x.len() != n * d {
        return Err(Error::shape("inducing_subset", [n, d], [x.len()]));
    }
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    idx.shuffle(&mut rng);
    let mut z = Vec::with_capacity(m * d);
    for &i in &idx[..m] {
        z.extend_from_slice(&x[i * d..(i + 1) * d]);
    }
    Ok(z)
}
