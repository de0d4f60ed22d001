//! The skew GP on an f32 device: the nugget floor that keeps its SUN joint matrix positive
//! definite.
use burn::tensor::{Device, Tensor, TensorData};
use burn_gp::device::{default_backend_name, device_with_precision, precision, Precision};
use burn_gp::kernels::Rbf;
use burn_gp::models::skew_gp::{SkewGp, SkewGpConfig, SkewGpPosterior, F32_NUGGET_FLOOR};
use burn_gp::Error;

fn device() -> Device {
    device_with_precision(&default_backend_name(), Some(Precision::F32)).expect("f32 device")
}

/// `n` one-dimensional inputs spread over [−3, 3] (a fixed irregular grid) and labels from the
/// sign of a smooth function with every seventh label flipped: with an RBF of lengthscale 1,
/// `K(X, X)` is far more ill-conditioned than f32's rounding of its entries.
fn smooth_data(n: usize) -> (Vec<f64>, Vec<usize>) {
    let x: Vec<f64> = (0..n).map(|i| -3.0 + 6.0 * ((i as f64 * 0.618_034) % 1.0)).collect();
    let y = x.iter().enumerate().map(|(i, v)| usize::from(((1.7 * v).sin() > 0.0) != (i % 7 == 0))).collect();
    (x, y)
}

fn column(x: &[f64], dev: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(x.to_vec(), [x.len(), 1]), dev)
}

#[test]
fn skew_gp_raises_its_nugget_to_the_f32_floor_and_trains() {
    let dev = device();
    assert_eq!(precision(&dev), Precision::F32);
    let (x, y) = smooth_data(120);
    // Without the floor: the f64 default nugget leaves the SUN's joint matrix indefinite in f32.
    let bare = SkewGp::new(Rbf::new(&[1.0], 1.0, &dev).unwrap(), &[], &[], &[], 1e-6, &dev).unwrap();
    let err = SkewGpPosterior::new(bare, column(&x, &dev), &y).err();
    assert!(matches!(err, Some(Error::NotPositiveDefinite { .. })), "expected NotPositiveDefinite, got {err:?}");
    // With the config's default (1e-6), the nugget used on this device is the floor, and training works.
    let config = SkewGpConfig::new()
        .with_latent_dim(0)
        .with_qmc_points(128)
        .with_qmc_shifts(4)
        .with_samples(500)
        .with_burn_in(50);
    assert_eq!(config.jitter, 1e-6);
    assert_eq!(config.nugget_on(&dev), F32_NUGGET_FLOOR);
    let ad = dev.clone().autodiff();
    let xt = column(&x, &ad);
    let model = config.init(Rbf::new(&[1.0], 1.0, &ad).unwrap(), &xt).unwrap();
    let train = config.paper_train_config().with_epochs(10).with_lr(0.05).with_progress(false);
    let (fit, history) = model.fit(&xt, &y, &train).unwrap();
    let records = &history.records;
    assert!(records.iter().all(|r| r.objective.is_finite()));
    let test: Vec<f64> = (0..25).map(|i| -2.9 + 0.24 * i as f64).collect();
    let pred = fit.posterior().unwrap().predict_details(&column(&test, &dev)).unwrap();
    assert!(pred.prob.iter().all(|p| *p > 0.0 && *p < 1.0));
    let correct = test.iter().zip(&pred.prob).filter(|(v, p)| ((1.7 * **v).sin() > 0.0) == (**p > 0.5)).count();
    assert!(correct >= 20, "{correct} of 25 test points on the right side");
}
