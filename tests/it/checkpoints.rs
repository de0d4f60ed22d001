//! Checkpoints that resume bit for bit (issue 95): a hybrid run stopped after its second epoch's
//! checkpoint and resumed in a fresh network (new parameter ids, as in a new process) ends
//! exactly where the uninterrupted run ends, natural-gradient state, optimiser moments, schedule
//! and minibatch order included; a checkpoint of another run and a loop that writes none are
//! typed errors.
use crate::common::mlp::Mlp;
use burn::module::Module;
use burn::tensor::Device;
use burn_gp::data::{ClassTable, Table};
use burn_gp::nets::{fit_hybrid, HybridConfig, HybridNet};
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::{CheckpointConfig, History, LrSchedule, TrainConfig};
use burn_gp::Error;

/// Three separable blobs of 2-D points.
fn table(n: usize) -> ClassTable {
    let x: Vec<f64> =
        (0..n).flat_map(|i| [(i % 3) as f64 * 2.0 + (i as f64 * 0.37).sin(), (i as f64 * 0.73).cos()]).collect();
    let labels = (0..n).map(|i| i % 3).collect();
    ClassTable::new(Table::new(x, labels, 2).unwrap(), vec!["a".into(), "b".into(), "c".into()]).unwrap()
}

/// A fresh network, the same values whatever the process (its parameter ids are new).
fn fresh(set: &ClassTable, recipe: &HybridConfig, device: &Device) -> HybridNet<Mlp> {
    device.seed(11);
    recipe.init(Mlp::new(2, 16, 4, 0, device), set, device).unwrap()
}

/// Every parameter value of `net`, and the latent means on the training inputs.
fn outcome(net: HybridNet<Mlp>, set: &ClassTable, history: &History) -> (Vec<f64>, Vec<u64>) {
    let net = net.valid();
    let x = matrix(set.table.x.clone(), set.table.n, 2, &net.head.q_mu.val().device()).unwrap();
    let mean = to_vec(net.marginals(x).unwrap().0);
    (mean, history.records.iter().map(|r| r.objective.to_bits()).collect())
}

#[test]
fn a_resumed_hybrid_run_ends_bit_for_bit_where_the_uninterrupted_one_ends() {
    let device = crate::common::ad_device();
    let set = table(150);
    let recipe = HybridConfig::classes(3).with_init_samples(150);
    let dir = std::env::temp_dir().join(format!("burn-gp-checkpoints-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = |checkpoint| TrainConfig {
        epochs: 4,
        batch_size: 32,
        lr: 0.01,
        seed: 5,
        progress: false,
        schedule: LrSchedule::Cosine { final_fraction: 0.0 },
        checkpoint,
        ..Default::default()
    };
    let none = |_: &HybridNet<Mlp>, _: usize| Ok(vec![]);
    let (net, history) = fit_hybrid(fresh(&set, &recipe, &device), &set, &recipe, &config(None), none).unwrap();
    let uninterrupted = outcome(net, &set, &history);

    // Killed during epoch 3: the evaluation after it fails, so the last checkpoint is epoch 2's.
    let with = config(Some(CheckpointConfig::every_epoch(&dir)));
    let killed = |_: &HybridNet<Mlp>, epoch: usize| match epoch {
        3 => Err(Error::invalid("test", "the run is killed in epoch 3")),
        _ => Ok(vec![]),
    };
    assert!(fit_hybrid(fresh(&set, &recipe, &device), &set, &recipe, &with, killed).is_err());
    assert!(dir.join("HybridNet.ckpt").exists());
    let (net, history) = fit_hybrid(fresh(&set, &recipe, &device), &set, &recipe, &with, none).unwrap();
    assert_eq!(history.records.len(), 4);
    let resumed = outcome(net, &set, &history);
    assert_eq!(resumed.1, uninterrupted.1, "the objectives per epoch differ");
    assert!(resumed.0 == uninterrupted.0, "the resumed network predicts other latent means");

    // The checkpoint belongs to a 4-epoch run with seed 5: another seed is a typed error.
    let other = TrainConfig { seed: 6, ..with.clone() };
    let result = fit_hybrid(fresh(&set, &recipe, &device), &set, &recipe, &other, none);
    assert!(
        matches!(result, Err(Error::InvalidArgument { ref name, .. }) if name == "checkpoint"),
        "{:?}",
        result.err()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn loops_without_checkpoints_refuse_a_config_that_asks_for_them() {
    use burn_gp::models::BayesianSvmConfig;
    let device = crate::common::ad_device();
    let set = table(60);
    let model =
        BayesianSvmConfig::tabular(3).with_num_inducing(5).init(&set.table.x, &set.table.y, 2, &device).unwrap();
    let x = matrix(set.table.x.clone(), 60, 2, &device).unwrap();
    let config = TrainConfig {
        epochs: 1,
        progress: false,
        checkpoint: Some(CheckpointConfig::every_epoch("unused")),
        ..Default::default()
    };
    let result = model.fit(&x, &set.table.y, &config);
    assert!(matches!(result, Err(Error::InvalidArgument { ref name, .. }) if name == "checkpoint"));
}
