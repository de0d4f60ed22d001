//! Active-learning curves of the two query policies of the multi-class Bayesian SVM paper
//! (§4.3.1): the `--csv` file of `active_learning` (`set,query,policy,test_error`), read back, and
//! the paper's Fig. 5a statistic over several runs (seeds): the mean rank of the two policies at
//! each query count, rank 1 = the lower test error, ties 1.5.
use std::io::Write;
use std::path::Path;

use burn_gp::metrics::{average_ranks, sign_test_p_value, standard_error};
use burn_gp::{Error, Result};

/// The header of the curves file.
const HEADER: &str = "set,query,policy,test_error";

/// The two query policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Variation ratio from posterior samples (Bayesian).
    Vr,
    /// Entropy of softmax of the latent means (point estimate).
    Entropy,
}

impl Policy {
    /// Name in the curves file and the output.
    pub fn key(self) -> &'static str {
        match self {
            Policy::Vr => "vr",
            Policy::Entropy => "entropy",
        }
    }
}

/// The test-error curves of both policies on one set, after 0..=Q queries.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyCurves {
    /// The set's name.
    pub set: String,
    /// Querying by the variation ratio (the Bayesian policy).
    pub vr: Vec<f64>,
    /// Querying by the entropy of softmax of the latent means (the point-estimate policy).
    pub entropy: Vec<f64>,
}

impl PolicyCurves {
    /// Ranks `[vr, entropy]` after query `q`.
    pub fn ranks(&self, q: usize) -> [f64; 2] {
        let r = average_ranks(&[self.vr[q], self.entropy[q]]);
        [r[0], r[1]]
    }

    /// Mean rank of each policy over queries 1..=Q.
    pub fn mean_ranks(&self) -> [f64; 2] {
        let q_max = self.vr.len() - 1;
        let sum = (1..=q_max).map(|q| self.ranks(q)).fold([0.0; 2], |a, r| [a[0] + r[0], a[1] + r[1]]);
        [sum[0] / q_max as f64, sum[1] / q_max as f64]
    }
}

/// Writes `sets` as `set,query,policy,test_error` rows.
pub fn write_csv(path: &Path, sets: &[&PolicyCurves]) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    writeln!(f, "{HEADER}").map_err(io)?;
    for s in sets {
        for (policy, curve) in [(Policy::Vr, &s.vr), (Policy::Entropy, &s.entropy)] {
            for (q, e) in curve.iter().enumerate() {
                writeln!(f, "{},{q},{},{e}", s.set, policy.key()).map_err(io)?;
            }
        }
    }
    f.flush().map_err(io)
}

/// Reads a file written by [`write_csv`]: every set with both policies' curves over the same
/// queries 0..=Q in order, Q ≥ 1, errors in [0, 1]; sets in the file's order.
pub fn read_csv(path: &Path) -> Result<Vec<PolicyCurves>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let bad = |line: usize, reason: String| {
        Error::invalid("curves file", format!("{}, line {line}: {reason}", path.display()))
    };
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim() == HEADER => {}
        _ => return Err(bad(1, format!("the header must be `{HEADER}`"))),
    }
    let mut sets: Vec<PolicyCurves> = Vec::new();
    for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [set, query, policy, error] = fields[..] else {
            return Err(bad(i + 1, format!("expected 4 fields, found {}", fields.len())));
        };
        let query: usize = query.parse().map_err(|_| bad(i + 1, format!("query `{query}` is not a count")))?;
        let error: f64 = error.parse().map_err(|_| bad(i + 1, format!("test error `{error}` is not a number")))?;
        if !(0.0..=1.0).contains(&error) {
            return Err(bad(i + 1, format!("test error {error} is outside [0, 1]")));
        }
        if sets.last().is_none_or(|s| s.set != set) {
            if sets.iter().any(|s| s.set == set) {
                return Err(bad(i + 1, format!("set {set} appears in two places")));
            }
            sets.push(PolicyCurves { set: set.to_string(), vr: Vec::new(), entropy: Vec::new() });
        }
        let curves = sets.last_mut().expect("pushed above");
        let curve = if policy == Policy::Vr.key() {
            &mut curves.vr
        } else if policy == Policy::Entropy.key() {
            &mut curves.entropy
        } else {
            return Err(bad(i + 1, format!("policy `{policy}` is neither vr nor entropy")));
        };
        if query != curve.len() {
            return Err(bad(i + 1, format!("{set} {policy}: query {query} where {} was next", curve.len())));
        }
        curve.push(error);
    }
    if sets.is_empty() {
        return Err(bad(1, "no curves".into()));
    }
    for s in &sets {
        if s.vr.len() != s.entropy.len() || s.vr.len() < 2 {
            return Err(Error::invalid(
                "curves file",
                format!(
                    "{}: set {} has {} vr and {} entropy points (need the same number, at least 2)",
                    path.display(),
                    s.set,
                    s.vr.len(),
                    s.entropy.len()
                ),
            ));
        }
    }
    Ok(sets)
}

/// The two policies compared over runs (one [`PolicyCurves`] list a run, e.g. a seed each).
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Runs read.
    pub runs: usize,
    /// Distinct sets over all runs.
    pub sets: usize,
    /// Curves (set × run pairs).
    pub curves: usize,
    /// Queries Q (every curve has Q + 1 points).
    pub queries: usize,
    /// Mean rank `[vr, entropy]` over all curves after each query 0..=Q (the paper's Fig. 5a).
    pub rank_at: Vec<[f64; 2]>,
    /// Mean test error `[vr, entropy]` over all curves after each query 0..=Q.
    pub error_at: Vec<[f64; 2]>,
    /// Curves where VR's error is lower / equal / higher, after each query 0..=Q.
    pub better_at: Vec<[usize; 3]>,
    /// Mean rank `[vr, entropy]` over all curves and queries 1..=Q.
    pub mean_rank: [f64; 2],
    /// VR's mean rank over queries 1..=Q and the run's sets, per run.
    pub run_mean_rank_vr: Vec<f64>,
    /// Standard error of VR's mean rank over the runs (0 with one run).
    pub se_rank_vr_runs: f64,
    /// Per set: its name, the runs that have it, and VR's mean rank over those runs and
    /// queries 1..=Q.
    pub set_mean_rank_vr: Vec<(String, usize, f64)>,
    /// Standard error of VR's mean rank over the sets' means.
    pub se_rank_vr_sets: f64,
    /// Sets where VR's mean rank is below / at / above 1.5.
    pub set_wins_ties_losses: [usize; 3],
    /// Two-sided sign test over the sets' wins and losses.
    pub sign_test_p: f64,
}

/// Compares the policies over `runs`; every curve must have the same number of queries.
pub fn compare(runs: &[Vec<PolicyCurves>]) -> Result<Comparison> {
    let all: Vec<&PolicyCurves> = runs.iter().flatten().collect();
    let Some(first) = all.first() else {
        return Err(Error::invalid("curves", "no runs with curves"));
    };
    let points = first.vr.len();
    if let Some(c) = all.iter().find(|c| c.vr.len() != points || c.entropy.len() != points || points < 2) {
        return Err(Error::invalid(
            "curves",
            format!("set {} has {} points where the first curve has {points} (every run needs the same --queries, at least 1)", c.set, c.vr.len()),
        ));
    }
    let n = all.len() as f64;
    let rank_at: Vec<[f64; 2]> = (0..points)
        .map(|q| {
            let s = all.iter().map(|c| c.ranks(q)).fold([0.0; 2], |a, r| [a[0] + r[0], a[1] + r[1]]);
            [s[0] / n, s[1] / n]
        })
        .collect();
    let error_at: Vec<[f64; 2]> = (0..points)
        .map(|q| [all.iter().map(|c| c.vr[q]).sum::<f64>() / n, all.iter().map(|c| c.entropy[q]).sum::<f64>() / n])
        .collect();
    let better_at: Vec<[usize; 3]> = (0..points)
        .map(|q| {
            let better = all.iter().filter(|c| c.vr[q] < c.entropy[q]).count();
            let worse = all.iter().filter(|c| c.vr[q] > c.entropy[q]).count();
            [better, all.len() - better - worse, worse]
        })
        .collect();
    let per_curve: Vec<[f64; 2]> = all.iter().map(|c| c.mean_ranks()).collect();
    let mean_rank = [per_curve.iter().map(|r| r[0]).sum::<f64>() / n, per_curve.iter().map(|r| r[1]).sum::<f64>() / n];
    // `all` holds the runs' curves in order, so run k's are the next `runs[k].len()` of `per_curve`.
    let mut start = 0;
    let run_mean_rank_vr: Vec<f64> = runs
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| {
            let ranks = &per_curve[start..start + r.len()];
            start += r.len();
            ranks.iter().map(|x| x[0]).sum::<f64>() / r.len() as f64
        })
        .collect();
    let se_rank_vr_runs = standard_error(&run_mean_rank_vr).unwrap_or(0.0);
    let mut names: Vec<&str> = Vec::new();
    for c in &all {
        if !names.contains(&c.set.as_str()) {
            names.push(&c.set);
        }
    }
    let set_mean_rank_vr: Vec<(String, usize, f64)> = names
        .iter()
        .map(|&name| {
            let ranks: Vec<f64> =
                all.iter().zip(&per_curve).filter(|(c, _)| c.set == name).map(|(_, r)| r[0]).collect();
            (name.to_string(), ranks.len(), ranks.iter().sum::<f64>() / ranks.len() as f64)
        })
        .collect();
    let se_rank_vr_sets = standard_error(&set_mean_rank_vr.iter().map(|s| s.2).collect::<Vec<_>>()).unwrap_or(0.0);
    let wins = set_mean_rank_vr.iter().filter(|s| s.2 < 1.5).count();
    let losses = set_mean_rank_vr.iter().filter(|s| s.2 > 1.5).count();
    Ok(Comparison {
        runs: run_mean_rank_vr.len(),
        sets: names.len(),
        curves: all.len(),
        queries: points - 1,
        rank_at,
        error_at,
        better_at,
        mean_rank,
        run_mean_rank_vr,
        se_rank_vr_runs,
        set_wins_ties_losses: [wins, names.len() - wins - losses, losses],
        sign_test_p: sign_test_p_value(wins, losses),
        set_mean_rank_vr,
        se_rank_vr_sets,
    })
}
