//! Predictions over a whole image set, a chunk of 500 images at a time: the same as one pass.
use crate::common::device;
use burn::module::Module;
use burn_gp::data::ImageSet;
use burn_gp::nets::{image_batch, Cifar10TrunkConfig, HybridConfig, SoftmaxNet};
use burn_gp::tensors::to_vec;

#[test]
fn chunked_image_predictions_equal_one_pass_over_the_set() {
    let dev = device();
    let n = 520; // a chunk of 500 and one of 20
    let pixels: Vec<u8> = (0..n * 3 * 32 * 32).map(|i| ((i * 7919) % 251) as u8).collect();
    let labels: Vec<u8> = (0..n).map(|i| (i % 10) as u8).collect();
    let set = ImageSet::new(pixels, labels, [3, 32, 32], 10).unwrap();
    let train = dev.clone().autodiff();
    train.seed(3);
    let recipe = HybridConfig::classes(10);
    let net = recipe.init(Cifar10TrunkConfig::new().with_width(4).init(&train), &set, &train).unwrap().valid();
    let all: Vec<usize> = (0..n).collect();
    let whole = image_batch(&set, &all, &dev).unwrap().images;
    let chunked = net.predict_images(&set, &dev).unwrap();
    let (mean, var) = net.marginals(whole.clone()).unwrap();
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(a, b)| (a - b).abs() <= 1e-9 * (1.0 + b.abs()));
    assert_eq!(chunked.mean.len(), n * 10);
    assert!(close(&chunked.mean, &to_vec(mean)) && close(&chunked.var, &to_vec(var)));
    let softmax = SoftmaxNet::new(Cifar10TrunkConfig::new().with_width(4).init(&dev), 10, &dev);
    let logits = softmax.logits_of_images(&set, &dev).unwrap();
    assert!(close(&logits, &to_vec(softmax.logits(whole))));
    let probs = softmax.probabilities_of_images(&set, &dev).unwrap();
    assert!(probs.chunks(10).all(|p| (p.iter().sum::<f64>() - 1.0).abs() < 1e-9));
}
