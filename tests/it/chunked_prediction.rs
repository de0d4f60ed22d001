//! Prediction in chunks (issue 93): every scalable model's `predict_f` goes through its rows in
//! chunks of bounded memory (at least 2 048 rows, split into equal blocks), and the chunk size
//! does not change a bit of the result. Each model predicts 3 000 rows in one piece and in
//! chunks of at most 1 024, 1 100 and 2 999 rows (blocks of 1 000, 1 000 and 1 500 rows). Chunks
//! of 256 rows or fewer do change the last bit of some values (Burn's CPU kernels take other
//! paths for small tensors), which is why the models never make them.
use crate::common::by_cols;
use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::data::RandomFunction;
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::Gaussian;
use burn_gp::models::ep::EpGpClassifierConfig;
use burn_gp::models::{BayesianSvmConfig, DecoupledGpConfig, EpGpClassifier, Odvgp, Sgpr, SvgpConfig};
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::TrainConfig;

const ROWS: usize = 3000;
const CHUNKS: [usize; 3] = [1024, 1100, 2999];

fn base() -> Device {
    burn_gp::device::default_device().unwrap()
}

/// The bits of a pair of `[n, P]` moments.
fn bits((m, v): (Tensor<2>, Tensor<2>)) -> Vec<u64> {
    to_vec(m).into_iter().chain(to_vec(v)).map(f64::to_bits).collect()
}

/// Asserts that `predict(x, chunk)` equals `predict(x, ROWS)` bit for bit for every chunk size.
fn assert_chunks_agree(model: &str, whole: Vec<u64>, mut chunked: impl FnMut(usize) -> Vec<u64>) {
    assert_eq!(whole.len() % ROWS, 0, "{model}: {} values for {ROWS} rows", whole.len());
    for chunk in CHUNKS {
        let got = chunked(chunk);
        let first = got.iter().zip(&whole).position(|(a, b)| a != b);
        assert!(first.is_none(), "{model}: chunks of {chunk} rows differ from one piece at value {first:?}");
    }
}

/// `(start, rows)` of `⌈ROWS / chunk⌉` equal blocks.
fn blocks(chunk: usize) -> Vec<(usize, usize)> {
    let k = ROWS.div_ceil(chunk);
    (0..k).map(|i| (i * ROWS / k, (i + 1) * ROWS / k - i * ROWS / k)).collect()
}

/// 3 000 test rows of a 3-input function and 200 training rows with regression targets.
fn data() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let f = RandomFunction::new(3, 1, 1.5, 64, 5).unwrap();
    let (x, y) = f.regression(0..200, 0.1).unwrap();
    (x, y, f.inputs(1 << 40..(1 << 40) + ROWS as u64))
}

#[test]
fn svgp_and_bayesian_svm_predictions_do_not_depend_on_the_chunk_size() {
    let dev = base();
    let train = dev.clone().autodiff();
    let (x, y, test) = data();
    let xs = matrix(test, ROWS, 3, &dev).unwrap();
    let model = SvgpConfig::new(200)
        .init(
            Rbf::ard(3, 1.0, 1.0, &train).unwrap(),
            InducingPoints::new(&x[..30], 10, 3, &train).unwrap(),
            Gaussian::new(0.1, &train).unwrap(),
            &train,
        )
        .unwrap();
    let config = TrainConfig { epochs: 2, batch_size: 50, progress: false, ..Default::default() };
    let (xt, yt) = (matrix(x.clone(), 200, 3, &train).unwrap(), matrix(y, 200, 1, &train).unwrap());
    let model = model.fit(&xt, &yt, &config).unwrap().0.valid();
    let whole = bits(model.predict_f_chunked(xs.clone(), ROWS).unwrap());
    assert_eq!(whole, bits(model.predict_f(xs.clone()).unwrap()), "predict_f is one chunk at 3 000 rows");
    assert_chunks_agree("SVGP", whole, |c| bits(model.predict_f_chunked(xs.clone(), c).unwrap()));

    // three latent GPs: the [P, rows, M] product is chunked too
    let labels: Vec<usize> = x.chunks(3).map(|r| usize::from(r[0] > 0.0) + usize::from(r[1] > 0.5)).collect();
    let bsvm = BayesianSvmConfig::tabular(3).with_num_inducing(12).init(&by_cols(&x, 3, &train), &labels).unwrap();
    let bsvm = bsvm.fit(&xt, &labels, &config).unwrap().0.valid();
    let whole = bits(bsvm.predict_f_chunked(xs.clone(), ROWS).unwrap());
    assert_chunks_agree("Bayesian SVM", whole, |c| bits(bsvm.predict_f_chunked(xs.clone(), c).unwrap()));
}

#[test]
fn sgpr_decoupled_and_ep_predictions_do_not_depend_on_the_chunk_size() {
    let dev = base();
    let (x, y, test) = data();
    let xs = matrix(test, ROWS, 3, &dev).unwrap();
    let (xt, yt) = (matrix(x.clone(), 200, 3, &dev).unwrap(), matrix(y.clone(), 200, 1, &dev).unwrap());
    let kernel = || Rbf::new(&[0.8, 1.3, 1.1], 1.5, &dev).unwrap();
    let noise = || Gaussian::new(0.1, &dev).unwrap();

    let sgpr = Sgpr::new(kernel(), InducingPoints::new(&x[..30], 10, 3, &dev).unwrap(), noise(), xt, yt, 1e-6).unwrap();
    let whole = bits(sgpr.predict_f(xs.clone()).unwrap());
    // Sgpr chunks on its own: compare with its predictions of equal blocks through the public API
    let pieces = |chunk: usize| {
        let (mut m, mut v) = (Vec::new(), Vec::new());
        for (start, rows) in blocks(chunk) {
            let (a, b) = sgpr.predict_f(xs.clone().narrow(0, start, rows)).unwrap();
            m.extend(to_vec(a));
            v.extend(to_vec(b));
        }
        m.into_iter().chain(v).map(f64::to_bits).collect()
    };
    assert_chunks_agree("SGPR", whole, pieces);

    let odvgp: Odvgp<Rbf, Gaussian> = DecoupledGpConfig::new(200)
        .with_jitter(1e-6)
        .init(
            kernel(),
            Some(InducingPoints::new(&x[..21], 7, 3, &dev).unwrap()),
            InducingPoints::new(&x[30..42], 4, 3, &dev).unwrap(),
            noise(),
            &dev,
        )
        .unwrap();
    let whole = bits(odvgp.predict_f_chunked(xs.clone(), ROWS).unwrap());
    assert_chunks_agree("ODVGP", whole, |c| bits(odvgp.predict_f_chunked(xs.clone(), c).unwrap()));

    // EP: host-side predictions, chunked inside predict_latent_with
    let train = dev.clone().autodiff();
    let labels: Vec<usize> = y.iter().map(|&v| usize::from(v > 0.0)).collect();
    let ep = EpGpClassifier::new(
        Rbf::new(&[1.0, 1.0, 1.0], 1.0, &train).unwrap(),
        InducingPoints::new(&x[..24], 8, 3, &train).unwrap(),
        1e-3,
        1e-8,
        &train,
    )
    .unwrap();
    let fit = ep
        .fit(
            &matrix(x, 200, 3, &train).unwrap(),
            &labels,
            &EpGpClassifierConfig::new().paper_train_config().with_epochs(3).with_progress(false),
        )
        .unwrap();
    let xp = xs.to_device(&train);
    let (m, v) = fit.0.predict_latent_with(&xp, fit.0.posterior().unwrap()).unwrap();
    let whole: Vec<u64> = m.iter().chain(&v).map(|a| a.to_bits()).collect();
    let pieces = |chunk: usize| {
        let (mut m, mut v) = (Vec::new(), Vec::new());
        for (start, rows) in blocks(chunk) {
            let (a, b) =
                fit.0.predict_latent_with(&xp.clone().narrow(0, start, rows), fit.0.posterior().unwrap()).unwrap();
            m.extend(a);
            v.extend(b);
        }
        m.into_iter().chain(v).map(f64::to_bits).collect()
    };
    assert_chunks_agree("EP", whole, pieces);
}
