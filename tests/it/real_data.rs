//! SVGP end to end on the real datasets: regression (UCI kin8nm), binary probit classification
//! (PMLB banana) and multi-class robust-max classification (scikit-learn iris).
use crate::common::*;
use burn::tensor::Tensor;
use burn_gp::data::{load_iris, load_pmlb_classification, load_uci, random_split, Standardiser, TargetStandardiser};
use burn_gp::inducing::{inducing_subset, InducingPoints};
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::{one_hot, BernoulliProbit, Gaussian, RobustMax};
use burn_gp::metrics;
use burn_gp::models::SvgpConfig;
use burn_gp::tensors::matrix;
use burn_gp::train::{fit, TrainConfig};

fn quiet(epochs: usize, batch_size: usize, lr: f64) -> TrainConfig {
    TrainConfig { epochs, batch_size, lr, seed: 0, progress: false, ..Default::default() }
}

#[test]
fn svgp_regression_on_kin8nm_beats_the_mean_predictor() {
    let Some(root) = data_root_or_skip() else { return };
    let split = load_uci(&root, "kin8nm", 0).unwrap();
    let (tr, te) = (split.train, split.test);
    let xs = Standardiser::fit(&tr.x, tr.n, tr.d).unwrap();
    let ys = TargetStandardiser::fit(&tr.y).unwrap();
    let x_train = xs.transform(&tr.x).unwrap();
    let dev = ad_device();
    let x = matrix(x_train.clone(), tr.n, tr.d, &dev).unwrap();
    let y = matrix(ys.transform(&tr.y), tr.n, 1, &dev).unwrap();
    let m = 64;
    let z = inducing_subset(&x_train, tr.n, tr.d, m, 0).unwrap();
    let model = SvgpConfig::new(tr.n)
        .init(
            Rbf::ard(tr.d, 1.0, 1.0, &dev).unwrap(),
            InducingPoints::new(&z, m, tr.d, &dev).unwrap(),
            Gaussian::new(0.1, &dev).unwrap(),
            &dev,
        )
        .unwrap();
    let (model, hist) =
        fit(model, tr.n, &quiet(4, 256, 0.03), |m, idx| m.minibatch_loss(&x, &y, idx), |_, _| Ok(vec![])).unwrap();
    assert!(hist.records[3].objective < hist.records[0].objective);
    let model = burn::module::Module::valid(&model);
    let xt = matrix(xs.transform(&te.x).unwrap(), te.n, te.d, &device()).unwrap();
    let (mean, var) = model.predict_y(xt).unwrap();
    let mu = ys.inverse_mean(&host(mean));
    let s2 = ys.inverse_var(&host(var));
    let rmse = metrics::rmse(&mu, &te.y).unwrap();
    let ll = metrics::gaussian_log_likelihood(&mu, &s2, &te.y).unwrap();
    let y_std = ys.std();
    eprintln!("kin8nm: RMSE {rmse:.4}, test LL {ll:.4}");
    // the mean predictor has RMSE ≈ std(y) ≈ 0.26; a fitted GP is far better
    assert!(rmse < 0.6 * y_std, "RMSE {rmse} vs std {y_std}");
    assert!(ll > 0.0, "test log-likelihood {ll}");
}

#[test]
fn svgp_probit_classifies_banana() {
    let Some(root) = data_root_or_skip() else { return };
    let (data, labels) = load_pmlb_classification(&root, "banana").unwrap();
    assert_eq!(labels.num_classes(), 2);
    let split = random_split(data.table.n, 0.3, 1).unwrap();
    let train = data.select_rows(&split.train).unwrap();
    let test = data.select_rows(&split.test).unwrap();
    let d = train.table.d;
    let n = train.table.n;
    let dev = ad_device();
    let to_y = |t: &[usize]| t.iter().map(|&c| c as f64).collect::<Vec<_>>();
    let x = matrix(train.table.x.clone(), n, d, &dev).unwrap();
    let y = matrix(to_y(train.labels()), n, 1, &dev).unwrap();
    let m = 32;
    let z = inducing_subset(&train.table.x, n, d, m, 0).unwrap();
    let model = SvgpConfig::new(n)
        .init(
            Rbf::ard(d, 1.0, 1.0, &dev).unwrap(),
            InducingPoints::new(&z, m, d, &dev).unwrap(),
            BernoulliProbit::default(),
            &dev,
        )
        .unwrap();
    let (model, _) =
        fit(model, n, &quiet(8, 128, 0.05), |m, idx| m.minibatch_loss(&x, &y, idx), |_, _| Ok(vec![])).unwrap();
    let model = burn::module::Module::valid(&model);
    let xt = matrix(test.table.x.clone(), test.table.n, d, &device()).unwrap();
    let (p, _) = model.predict_y(xt).unwrap();
    let probs = metrics::binary_probs(&host(p)).unwrap();
    let acc = metrics::accuracy(&probs, 2, test.labels()).unwrap();
    let nll = metrics::nll(&probs, 2, test.labels()).unwrap();
    eprintln!("banana: accuracy {acc:.4}, NLL {nll:.4}");
    // GP classifiers reach about 0.89–0.90 on banana
    assert!(acc > 0.86, "accuracy {acc}");
    assert!(nll < 0.35, "NLL {nll}");
}

#[test]
fn svgp_robustmax_classifies_iris() {
    let Some(root) = data_root_or_skip() else { return };
    let data = load_iris(&root).unwrap();
    let k = data.num_classes();
    let split = random_split(data.table.n, 0.3, 3).unwrap();
    let train = data.select_rows(&split.train).unwrap();
    let test = data.select_rows(&split.test).unwrap();
    let (n, d) = (train.table.n, train.table.d);
    let xs = Standardiser::fit(&train.table.x, n, d).unwrap();
    let x_train = xs.transform(&train.table.x).unwrap();
    let dev = ad_device();
    let x = matrix(x_train.clone(), n, d, &dev).unwrap();
    let y = one_hot(train.labels(), k, &dev).unwrap();
    let m = 20;
    let z = inducing_subset(&x_train, n, d, m, 0).unwrap();
    let model = SvgpConfig::new(n)
        .with_num_latent(k)
        .init(
            Rbf::ard(d, 1.0, 1.0, &dev).unwrap(),
            InducingPoints::new(&z, m, d, &dev).unwrap(),
            RobustMax::default(),
            &dev,
        )
        .unwrap();
    let (model, _) =
        fit(model, n, &quiet(150, n, 0.05), |m, idx| m.minibatch_loss(&x, &y, idx), |_, _| Ok(vec![])).unwrap();
    let model = burn::module::Module::valid(&model);
    let xt: Tensor<2> = matrix(xs.transform(&test.table.x).unwrap(), test.table.n, d, &device()).unwrap();
    let (p, _) = model.predict_y(xt).unwrap();
    let acc = metrics::accuracy(&host(p), k, test.labels()).unwrap();
    eprintln!("iris: accuracy {acc:.4}");
    assert!(acc > 0.9, "accuracy {acc}");
}
