//! Variable reordering for the Genz integrand (Gibbs; Genz & Bretz 2009 §4.1.3), host f64,
//! outside any gradient.
use crate::special::{inv_mills, log_ndtr};

/// The greedy ordering of the variables of `Φ_d(a; Σ)` (`cov` row-major `d × d`): at step `i`,
/// among the variables not yet placed, the one with the smallest conditional probability
/// `Φ(ũ_j)`, `ũ_j = (a_j − C_{j,<i} ȳ_{<i}) / √(Σ_jj − ‖C_{j,<i}‖²)`, is placed next, and
/// `ȳ_i = E[Y | Y < ũ_i] = −φ(ũ_i)/Φ(ũ_i)`; `C` is the Cholesky factor built along the way.
///
/// Putting the most constraining variables first makes the later, noisier factors of the
/// integrand close to 1 and cuts the QMC variance by orders of magnitude. Returns the
/// permutation: position `i` holds variable `perm[i]`. A non-positive conditional variance (a
/// matrix that is not positive definite) is floored, leaving the error to the Cholesky
/// factorisation that follows.
pub(crate) fn genz_order(a: &[f64], cov: &[f64]) -> Vec<usize> {
    let d = a.len();
    let mut perm: Vec<usize> = (0..d).collect();
    // rows of the partial factor, indexed by position; column k filled at step k
    let mut c = vec![0.0; d * d];
    let mut ybar = vec![0.0; d];
    let floor = 1e-300;
    for i in 0..d {
        let cond = |pos: usize, c: &[f64], perm: &[usize]| {
            let v = perm[pos];
            let var = (cov[v * d + v] - (0..i).map(|k| c[pos * d + k].powi(2)).sum::<f64>()).max(floor);
            let mean: f64 = (0..i).map(|k| c[pos * d + k] * ybar[k]).sum();
            ((a[v] - mean) / var.sqrt(), var)
        };
        let mut best = i;
        let mut best_score = f64::INFINITY;
        for pos in i..d {
            let score = log_ndtr(cond(pos, &c, &perm).0);
            if score < best_score {
                best_score = score;
                best = pos;
            }
        }
        perm.swap(i, best);
        for k in 0..i {
            c.swap(i * d + k, best * d + k);
        }
        let (u, var) = cond(i, &c, &perm);
        let cii = var.sqrt();
        c[i * d + i] = cii;
        let vi = perm[i];
        for pos in i + 1..d {
            let v = perm[pos];
            let dot: f64 = (0..i).map(|k| c[pos * d + k] * c[i * d + k]).sum();
            c[pos * d + i] = (cov[v * d + vi] - dot) / cii;
        }
        ybar[i] = if u.is_finite() { -inv_mills(u) } else { 0.0 };
    }
    perm
}

/// `a[perm]` and `cov[perm, perm]`; `perm` may select a subset of the `a.len()` variables.
pub(crate) fn permute(a: &[f64], cov: &[f64], perm: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let (d, full) = (perm.len(), a.len());
    let pa = perm.iter().map(|&p| a[p]).collect();
    let pc = (0..d * d).map(|k| cov[perm[k / d] * full + perm[k % d]]).collect();
    (pa, pc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_constraining_variable_goes_first_and_order_is_a_permutation() {
        let a = [2.0, -1.5, 0.3, 5.0];
        let cov = [1.0, 0.2, 0.1, 0.0, 0.2, 1.0, 0.3, 0.1, 0.1, 0.3, 1.0, 0.2, 0.0, 0.1, 0.2, 1.0];
        let perm = genz_order(&a, &cov);
        assert_eq!(perm[0], 1);
        assert_eq!(perm[3], 3);
        let mut sorted = perm.clone();
        sorted.sort();
        assert_eq!(sorted, vec![0, 1, 2, 3]);
        let (pa, pc) = permute(&a, &cov, &perm);
        assert_eq!(pa[0], -1.5);
        assert_eq!(pc[0], 1.0);
        assert_eq!(pc[1], cov[perm[0] * 4 + perm[1]]);
    }
}
