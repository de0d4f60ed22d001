//! The full-EP GP classifier (R&W §3.6; the skew GP paper's GP-EP baseline) against references:
//! sequential EP and dense algebra for the sites, `log Z_EP` and predictions, the one-point
//! closed form, central differences of the converged energy for the gradient, training, saving and
//! bad input.
use crate::common::*;
use crate::ep_support::*;
use burn::module::Module;
use burn::tensor::{Device, Gradients};
use burn_gp::error::Error;
use burn_gp::kernels::Rbf;
use burn_gp::models::ep::{EpMode, EpSites};
use burn_gp::models::full_ep::{full_ep_pass, FullEpClassifier, FullEpPosterior};
use burn_gp::models::EpGpClassifier;
use burn_gp::models::FullEpClassifierConfig;
use burn_gp::saved::SavedModel;
use burn_gp::tensors::to_vec;
use burn_gp::train::TrainConfig;
use faer::MatRef;

/// An isotropic RBF full-EP classifier without jitter.
fn model(lengthscale: f64, variance: f64, dev: &Device) -> FullEpClassifier<Rbf> {
    FullEpClassifier::new(Rbf::new(&[lengthscale], variance, dev).unwrap(), 0.0).unwrap()
}

/// `K` of `model` on the rows of `x` (row-major `[n, d]`), on the host.
fn covariance(model: &FullEpClassifier<Rbf>, x: &[f64], d: usize, dev: &Device) -> Vec<f64> {
    to_vec(model.training_covariance(&rows(x, d, dev)))
}

/// EP at the prior covariance `k` by the library's parallel passes (damping ½) to `tol`,
/// warm-started from `sites`; returns the sites and `log Z_EP`.
fn converge_dense(k: &[f64], y: &[f64], mut sites: EpSites, tol: f64) -> (EpSites, f64) {
    let n = y.len();
    for _ in 0..5000 {
        let (report, log_z) = full_ep_pass(MatRef::from_row_major_slice(k, n, n), y, &mut sites, 0.5).unwrap();
        if report.max_change < tol {
            return (sites, log_z);
        }
    }
    panic!("EP did not converge to {tol}");
}

#[test]
fn sites_energy_and_predictions_match_sequential_ep_and_dense_algebra() {
    let dev = device();
    let (x, y) = toy_a();
    let m = model(0.2f64.sqrt(), 2.0, &dev);
    let kff = covariance(&m, &x, 1, &dev);
    let (sites, log_z) = converge_dense(&kff, &y, EpSites::zeros(20), 1e-13);
    let (tau, nu) = full_ep(&kff, &y);
    for i in 0..20 {
        assert!((sites.nu[i] - tau[i]).abs() < 1e-8, "site {i}: ν̃ {} vs {}", sites.nu[i], tau[i]);
        assert!((sites.mu[i] - nu[i]).abs() < 1e-8, "site {i}: μ̃ {} vs {}", sites.mu[i], nu[i]);
    }
    let reference = full_ep_log_z(&kff, &y, &tau, &nu);
    assert!((log_z - reference).abs() < 1e-9, "log Z {log_z} vs {reference}");
    let fit = m.with_sites(&rows(&x, 1, &dev), sites, log_z).unwrap();
    let xs = [-2.0, 0.0, 0.5, 2.5];
    let (mean, var) = fit.predict_f(&rows(&xs, 1, &dev)).unwrap();
    let (mean, var) = (host(mean), host(var));
    let k = |a: f64, b: f64| 2.0 * (-(a - b) * (a - b) / 0.4).exp();
    for (j, &xj) in xs.iter().enumerate() {
        let ks: Vec<f64> = x.iter().map(|&xi| k(xi, xj)).collect();
        let (m_ref, v_ref) = full_gp_predict(&kff, &tau, &nu, &ks, 2.0);
        assert!((mean[j] - m_ref).abs() < 1e-8 && (var[j] - v_ref).abs() < 1e-8, "x* = {xj}");
    }
}

#[test]
fn one_point_is_exact() {
    // Φ(y f) N(f | 0, k): EP is exact, log Z = log ½, mean = y k λ(0)/√(1 + k),
    // variance = k − k² λ(0)²/(1 + k) with λ(0) = √(2/π)
    let lambda = (2.0 / std::f64::consts::PI).sqrt();
    for (k, y) in [(0.3, 1.0), (2.5, -1.0)] {
        let (sites, log_z) = converge_dense(&[k], &[y], EpSites::zeros(1), 1e-14);
        let q = FullEpPosterior::new(MatRef::from_row_major_slice(&[k], 1, 1), &sites).unwrap();
        let (mean, var) = q.latent(MatRef::from_row_major_slice(&[k], 1, 1), &[k]).unwrap();
        assert!((log_z - 0.5f64.ln()).abs() < 1e-12, "log Z {log_z}");
        assert!((mean[0] - y * k * lambda / (1.0 + k).sqrt()).abs() < 1e-12, "mean {}", mean[0]);
        assert!((var[0] - (k - k * k * lambda * lambda / (1.0 + k))).abs() < 1e-12, "variance {}", var[0]);
    }
}

/// `d/d log σ²` and `d/d log ℓ` of an isotropic RBF classifier's softplus-positive parameters.
fn log_coordinates(model: &FullEpClassifier<Rbf>, grads: &Gradients) -> [f64; 2] {
    let p = &model.kernel.params;
    let sigmoid = |r: f64| 1.0 / (1.0 + (-r).exp());
    let chain = |value: f64, raw: f64, g: f64| value * g / sigmoid(raw);
    [
        chain(host(p.variance.value())[0], host(p.variance.raw())[0], host(p.variance.raw().grad(grads).unwrap())[0]),
        chain(
            host(p.lengthscales.value())[0],
            host(p.lengthscales.raw())[0],
            host(p.lengthscales.raw().grad(grads).unwrap())[0],
        ),
    ]
}

#[test]
fn gradient_matches_finite_differences_of_the_converged_energy() {
    let (ad, dev) = (ad_device(), device());
    let (x, y, _) = random_problem_d(40, 1, 2, 17);
    let (ell, var) = (0.9, 1.7);
    let at = |ell: f64, var: f64, sites: EpSites| {
        converge_dense(&covariance(&model(ell, var, &dev), &x, 2, &dev), &y, sites, 1e-13)
    };
    let (sites, _) = at(ell, var, EpSites::zeros(40));
    let m = model(ell, var, &ad);
    let objective = m.fixed_site_objective(&rows(&x, 2, &ad), &sites).unwrap();
    let g = log_coordinates(&m, &objective.backward());
    let h = 1e-5;
    let energy = |dlv: f64, dll: f64| at(ell * dll.exp(), var * dlv.exp(), sites.clone()).1;
    let fd = [(energy(h, 0.0) - energy(-h, 0.0)) / (2.0 * h), (energy(0.0, h) - energy(0.0, -h)) / (2.0 * h)];
    for (name, (a, b)) in ["log σ²", "log ℓ"].iter().zip(g.iter().zip(fd)) {
        eprintln!("full EP ∂log Z/∂{name}: autodiff {a:.9}, central difference {b:.9}");
        assert!((a - b).abs() < 1e-6 * (1.0 + b.abs()), "{name}: {a} vs {b}");
    }
}

#[test]
fn training_raises_the_converged_energy_and_fits_load_bit_for_bit() {
    let (ad, dev) = (ad_device(), device());
    let (x, y, _) = random_problem_d(60, 1, 2, 5);
    let labels = classes(&y);
    let (ell, var) = (0.3, 0.5);
    let (_, before) = converge_dense(&covariance(&model(ell, var, &dev), &x, 2, &dev), &y, EpSites::zeros(60), 1e-10);
    let schedule = FullEpClassifierConfig::new().with_jitter(0.0).with_mode(EpMode::Outer);
    let config = schedule.paper_train_config().with_epochs(25).with_progress(false);
    let outer = schedule.init(Rbf::new(&[ell], var, &ad).unwrap()).unwrap();
    let (fit, history) = outer.fit(&rows(&x, 2, &ad), &labels, &config).unwrap();
    let log_z = fit.log_marginal_likelihood().unwrap();
    eprintln!("full EP: converged log Z {before:.4} at the initial kernel, {log_z:.4} after training");
    assert!(log_z > before + 1.0, "{log_z} vs {before}");
    assert_eq!(history.records.len(), 25);
    let acc = fit.predict(&rows(&x, 2, &ad)).unwrap().accuracy(&labels).unwrap();
    assert!(acc > 0.8, "training accuracy {acc}");

    let path = std::env::temp_dir().join(format!("burn_gp_full_ep_{}.bin", std::process::id()));
    fit.save(&path).unwrap();
    crate::saved_mutation::assert_loads_survive_damage("full-ep-fit", &path, |p| FullEpClassifier::<Rbf>::load(p, &ad));
    let loaded = FullEpClassifier::<Rbf>::load(&path, &ad).unwrap();
    let xs = rows(&uniform(20, 3), 2, &ad);
    assert_eq!(fit.predict_proba(&xs).unwrap(), loaded.predict_proba(&xs).unwrap());
    // a model without autodiff predicts rows without autodiff the same
    let plain = fit.clone().valid().predict_proba(&xs.clone().inner()).unwrap();
    let tracked = fit.predict_proba(&xs).unwrap();
    assert_eq!(fit.predict_proba(&xs.clone().inner()).unwrap(), plain, "the trained model on rows without autodiff");
    assert!(plain.iter().zip(&tracked).all(|(a, b)| (a - b).abs() < 1e-12), "{plain:?} vs {tracked:?}");
    assert_eq!(fit.sites().unwrap().nu, loaded.sites().unwrap().nu);
    assert_eq!(fit.sites().unwrap().mu, loaded.sites().unwrap().mu);
    assert_eq!(fit.log_marginal_likelihood(), loaded.log_marginal_likelihood());
    assert!(matches!(EpGpClassifier::<Rbf>::load(&path, &ad), Err(Error::ModelMismatch { .. })));
    // an untrained model saves and loads too, and predicts the prior
    model(ell, var, &ad).save(&path).unwrap();
    let prior = FullEpClassifier::<Rbf>::load(&path, &ad).unwrap();
    assert!(prior.sites().is_none());
    let (mean, var) = prior.predict_f(&xs).unwrap();
    assert!(host(mean).iter().all(|&m| m == 0.0) && host(var).iter().all(|&v| (v - 0.5).abs() < 1e-12));
    let _ = std::fs::remove_file(path);
}

#[test]
fn bad_input_gets_typed_errors() {
    let ad = ad_device();
    let x = rows(&uniform(20, 8), 2, &ad);
    let labels: Vec<usize> = (0..10).map(|i| i % 2).collect();
    let paper = FullEpClassifierConfig::new().paper_train_config();
    let fit =
        |config: TrainConfig, labels: &[usize]| model(1.0, 1.0, &ad).fit(&x, labels, &config.with_progress(false));
    let invalid = |r: burn_gp::Result<(FullEpClassifier<Rbf>, _)>| matches!(r, Err(Error::InvalidArgument { .. }));
    let minibatch =
        FullEpClassifierConfig::new().with_mode(EpMode::Minibatch).init(Rbf::new(&[1.0], 1.0, &ad).unwrap());
    assert!(invalid(minibatch.unwrap().fit(&x, &labels, &paper)));
    let bad_damping = burn_gp::models::EpSchedule::new().with_damping(Some(1.5));
    let damping = FullEpClassifierConfig::new().with_schedule(bad_damping).init(Rbf::new(&[1.0], 1.0, &ad).unwrap());
    assert!(matches!(damping, Err(Error::InvalidArgument { .. })));
    // SPSA takes no gradients: refused by name
    let spsa = paper.clone().with_optimizer(burn_gp::train::OptimizerConfig::Spsa { a: 0.1, c: 0.1 });
    assert!(matches!(fit(spsa, &labels), Err(Error::InvalidArgument { ref name, .. }) if name == "optimizer"));
    assert!(fit(paper.clone(), &labels[..9]).is_err());
    assert!(fit(paper.clone(), &[2; 10]).is_err());
    assert!(matches!(
        FullEpClassifier::new(Rbf::new(&[1.0], 1.0, &ad).unwrap(), -1.0),
        Err(Error::InvalidArgument { .. })
    ));
    let (trained, _) = fit(paper.with_epochs(2), &labels).unwrap();
    assert!(matches!(trained.predict(&rows(&uniform(9, 1), 3, &ad)), Err(Error::ShapeMismatch { .. })));
    let k = [1.0, 0.0, 0.0, 1.0];
    let r = full_ep_pass(MatRef::from_row_major_slice(&k, 2, 2), &[1.0; 3], &mut EpSites::zeros(3), 0.5);
    assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
    let bad = EpSites { nu: vec![f64::NAN; 10], mu: vec![0.0; 10] };
    assert!(matches!(trained.with_sites(&x, bad, 0.0), Err(Error::NonFinite { .. })));
}
