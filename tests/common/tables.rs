//! Small synthetic tables for the GP-head tests: three Gaussian blobs to classify and a noisy sine
//! to regress.
use burn_gp::data::{ClassTable, Table};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

/// Three 2-D Gaussian blobs (unit spread, centres 4 apart) as a classification table.
pub fn blobs(n: usize, seed: u64) -> ClassTable {
    let mut rng = StdRng::seed_from_u64(seed);
    let noise = Normal::new(0.0, 1.0).unwrap();
    let centres = [(0.0, 0.0), (4.0, 0.0), (2.0, 3.5)];
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for i in 0..n {
        let c = i % 3;
        x.push(centres[c].0 + noise.sample(&mut rng));
        x.push(centres[c].1 + noise.sample(&mut rng));
        y.push(c);
    }
    ClassTable::new(Table::new(x, y, 2).unwrap(), vec!["a".into(), "b".into(), "c".into()]).unwrap()
}

/// `y = sin(2x) + 0.1 ε` on `x ∈ [−3, 3]` as a regression table.
pub fn sine(n: usize, seed: u64) -> Table {
    let mut rng = StdRng::seed_from_u64(seed);
    let noise = Normal::new(0.0, 0.1).unwrap();
    let x: Vec<f64> = (0..n).map(|i| -3.0 + 6.0 * ((i * 7919) % n) as f64 / n as f64).collect();
    let y = x.iter().map(|v| (2.0 * v).sin() + noise.sample(&mut rng)).collect();
    Table::new(x, y, 1).unwrap()
}
