//! Checkpoints that resume bit for bit (issue 95): a hybrid run stopped after its second epoch's
//! checkpoint and resumed in a fresh network (new parameter ids, as in a new process) ends
//! exactly where the uninterrupted run ends, natural-gradient state, optimiser moments, schedule
//! and minibatch order included; so do the SVM, deep-GP, EP, full-EP and natural-gradient
//! decoupled fits; a checkpoint of another run and a loop that writes none are typed errors.
use crate::common::mlp::Mlp;
use crate::common::{by_cols, by_rows};
use burn::module::Module;
use burn::tensor::Device;
use burn_gp::data::{ClassTable, Table};
use burn_gp::nets::{fit_hybrid, HybridConfig, HybridNet};
use burn_gp::saved::SavedModel;
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

/// A fresh network with new parameter ids. Its values come from the backend's generator, which
/// tests running beside this one draw from too: the runs compared below start from copies of one
/// network loaded from its file (not clones: a clone shares Burn's running statistics of batch
/// normalisation with the original), and a fresh one is only the skeleton a checkpoint loads
/// into.
fn fresh(set: &ClassTable, recipe: &HybridConfig, device: &Device) -> HybridNet<Mlp> {
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
    std::fs::create_dir_all(&dir).unwrap();
    let start_file = dir.join("start.bgp");
    fresh(&set, &recipe, &device).save(&start_file).unwrap();
    let start = || HybridNet::<Mlp>::load(&start_file, &device).unwrap();
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
    let (net, history) = fit_hybrid(start(), &set, &recipe, &config(None), none).unwrap();
    let uninterrupted = outcome(net, &set, &history);

    // Killed during epoch 3: the evaluation after it fails, so the last checkpoint is epoch 2's.
    let with = config(Some(CheckpointConfig::every_epoch(&dir)));
    let killed = |_: &HybridNet<Mlp>, epoch: usize| match epoch {
        3 => Err(Error::invalid("test", "the run is killed in epoch 3")),
        _ => Ok(vec![]),
    };
    assert!(fit_hybrid(start(), &set, &recipe, &with, killed).is_err());
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
fn a_resumed_bayesian_svm_fit_ends_bit_for_bit_where_the_uninterrupted_one_ends() {
    use burn_gp::models::{BayesianSvm, BayesianSvmConfig};
    let device = crate::common::ad_device();
    let set = table(120);
    let dir = std::env::temp_dir().join(format!("burn-gp-checkpoints-bsvm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let start_file = dir.join("start.bgp");
    let model =
        BayesianSvmConfig::tabular(3).with_num_inducing(6).init(&by_cols(&set.table.x, 2, &device), &set.table.y);
    model.unwrap().save(&start_file).unwrap();
    let start = || BayesianSvm::load(&start_file, &device).unwrap();
    let x = matrix(set.table.x.clone(), 120, 2, &device).unwrap();
    let config =
        |checkpoint| TrainConfig { epochs: 5, batch_size: 32, progress: false, checkpoint, ..Default::default() };
    let params = |m: BayesianSvm| to_vec(m.valid().predict_f(x.clone().inner()).unwrap().0);
    let none = |_: &BayesianSvm, _: usize| Ok(vec![]);
    let (model, history) = start().fit_evaluated(&x, &set.table.y, &config(None), none).unwrap();
    let objectives: Vec<u64> = history.records.iter().map(|r| r.objective.to_bits()).collect();
    let uninterrupted = params(model);
    let with = config(Some(CheckpointConfig::every_epoch(&dir)));
    let killed = |_: &BayesianSvm, epoch: usize| match epoch {
        3 => Err(Error::invalid("test", "the run is killed in epoch 3")),
        _ => Ok(vec![]),
    };
    assert!(start().fit_evaluated(&x, &set.table.y, &with, killed).is_err());
    assert!(dir.join("Svgp.ckpt").exists());
    let mut trained = 0;
    let count = |_: &BayesianSvm, _: usize| {
        trained += 1;
        Ok(vec![])
    };
    let skeleton =
        BayesianSvmConfig::tabular(3).with_num_inducing(6).init(&by_cols(&set.table.x, 2, &device), &set.table.y);
    let (model, history) = skeleton.unwrap().fit_evaluated(&x, &set.table.y, &with, count).unwrap();
    assert_eq!(trained, 3, "the resumed fit trained {trained} epochs, not the last 3 of 5");
    assert_eq!(history.records.iter().map(|r| r.objective.to_bits()).collect::<Vec<_>>(), objectives);
    assert!(params(model) == uninterrupted, "the resumed model predicts other latent means");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One-vs-rest Bayesian SVMs share a type and settings: with checkpoints each class's model
/// writes a folder of its own (`class<c>/`), so a checkpointed fit, and a rerun that reads the
/// finished models back, end where the fit without checkpoints ends (one shared file would hand
/// class 0's model to every class).
#[test]
fn one_vs_rest_models_checkpoint_each_in_a_folder_of_its_own() {
    use burn_gp::kernels::Rbf;
    use burn_gp::models::{BayesianSvmConfig, OneVsRestBsvm};
    let device = crate::common::ad_device();
    let set = table(60);
    let dir = fresh_dir("ovr");
    let init = BayesianSvmConfig::tabular(3)
        .with_num_inducing(5)
        .init_one_vs_rest(&by_cols(&set.table.x, 2, &device), &set.table.y);
    let start = dir.join("start.bgp");
    init.unwrap().save(&start).unwrap();
    let load = || OneVsRestBsvm::<Rbf>::load(&start, &device).unwrap();
    let x = matrix(set.table.x.clone(), 60, 2, &device).unwrap();
    let config =
        |checkpoint| TrainConfig { epochs: 2, batch_size: 20, progress: false, checkpoint, ..Default::default() };
    let means = |m: OneVsRestBsvm<Rbf>| bits(&to_vec(m.valid().predict_f(x.clone().inner()).unwrap().0));
    let plain = means(load().fit(&x, &set.table.y, &config(None)).unwrap().0);
    let with = config(Some(CheckpointConfig::every_epoch(dir.join("ckpt"))));
    assert!(means(load().fit(&x, &set.table.y, &with).unwrap().0) == plain, "the checkpointed fit ends elsewhere");
    for c in 0..3 {
        assert!(dir.join(format!("ckpt/class{c}/Svgp.ckpt")).exists(), "no checkpoint of class {c}");
    }
    assert!(means(load().fit(&x, &set.table.y, &with).unwrap().0) == plain, "the models read back differ");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn loops_without_checkpoints_refuse_a_config_that_asks_for_them() {
    use burn_gp::models::BayesianSvmConfig;
    let device = crate::common::ad_device();
    let set = table(60);
    let x = matrix(set.table.x.clone(), 60, 2, &device).unwrap();
    let config = TrainConfig {
        epochs: 1,
        progress: false,
        checkpoint: Some(CheckpointConfig::every_epoch("unused")),
        ..Default::default()
    };
    let refused =
        |r: burn_gp::Result<History>| matches!(r, Err(Error::InvalidArgument { ref name, .. }) if name == "checkpoint");
    // A loop with a hook whose state it cannot save.
    let model = BayesianSvmConfig::tabular(3)
        .with_num_inducing(5)
        .init(&by_cols(&set.table.x, 2, &device), &set.table.y)
        .unwrap();
    let y = matrix(
        set.table.y.iter().flat_map(|&c| (0..3).map(move |k| f64::from(u8::from(k == c)))).collect(),
        60,
        3,
        &device,
    )
    .unwrap();
    let hooked = burn_gp::train::fit_with_hook(
        model,
        60,
        &config,
        |m, idx| m.minibatch_loss(&x, &y, idx),
        |m, _| Ok(m),
        |_, _| Ok(vec![]),
    );
    assert!(refused(hooked.map(|r| r.1)));
}

#[test]
fn a_resumed_deep_gp_fit_ends_bit_for_bit_where_the_uninterrupted_one_ends() {
    use burn_gp::models::{DeepGp, DeepGpConfig};
    let device = crate::common::ad_device();
    let set = table(80);
    let targets: Vec<f64> = set.table.x.chunks(2).map(|r| r[0].sin() + 0.3 * r[1]).collect();
    let dir = std::env::temp_dir().join(format!("burn-gp-checkpoints-dgp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let start_file = dir.join("start.bgp");
    let build = || {
        DeepGpConfig::new(2)
            .with_hidden(vec![2])
            .with_num_inducing(6)
            .init(&by_cols(&set.table.x, 2, &device), &by_rows(&targets, 80, &device))
    };
    build().unwrap().save(&start_file).unwrap();
    let start = || DeepGp::load(&start_file, &device).unwrap();
    let (x, y) =
        (matrix(set.table.x.clone(), 80, 2, &device).unwrap(), matrix(targets.clone(), 80, 1, &device).unwrap());
    let config =
        |checkpoint| TrainConfig { epochs: 5, batch_size: 16, progress: false, checkpoint, ..Default::default() };
    let means = |m: DeepGp| to_vec(m.valid().predict_moments(x.clone().inner()).unwrap().0);
    let none = |_: &DeepGp, _: usize| Ok(vec![]);
    let (model, history) = start().fit_evaluated(&x, &y, &config(None), none).unwrap();
    let objectives: Vec<u64> = history.records.iter().map(|r| r.objective.to_bits()).collect();
    let uninterrupted = means(model);
    let with = config(Some(CheckpointConfig::every_epoch(&dir)));
    let killed = |_: &DeepGp, epoch: usize| match epoch {
        3 => Err(Error::invalid("test", "the run is killed in epoch 3")),
        _ => Ok(vec![]),
    };
    assert!(start().fit_evaluated(&x, &y, &with, killed).is_err());
    assert!(dir.join("DeepGp.ckpt").exists());
    let mut trained = 0;
    let count = |_: &DeepGp, _: usize| {
        trained += 1;
        Ok(vec![])
    };
    let (model, history) = build().unwrap().fit_evaluated(&x, &y, &with, count).unwrap();
    assert_eq!(trained, 3, "the resumed fit trained {trained} epochs, not the last 3 of 5");
    assert_eq!(history.records.iter().map(|r| r.objective.to_bits()).collect::<Vec<_>>(), objectives);
    assert!(means(model) == uninterrupted, "the resumed deep GP predicts other means");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The child process of [`a_run_killed_by_sigkill_resumes_bit_for_bit_in_a_new_process`]: 20
/// epochs of the hybrid above from a seeded network, with checkpoints in `DIR` when
/// `BURN_GP_CHECKPOINT_CHILD` is `DIR:OUT` (none when it is `:OUT`), writing the outcome's bits to
/// `OUT` when it finishes, then the number of epochs this process trained.
#[test]
#[ignore = "runs only as the child process of a_run_killed_by_sigkill_resumes_bit_for_bit_in_a_new_process"]
fn checkpoint_child_process() {
    let Ok(task) = std::env::var("BURN_GP_CHECKPOINT_CHILD") else {
        eprintln!("skipped: checkpoint_child_process runs only as a child process (BURN_GP_CHECKPOINT_CHILD unset)");
        return;
    };
    let (dir, out) = task.split_once(':').expect("DIR:OUT");
    let device = crate::common::ad_device();
    device.seed(3); // the only test in this process: the generator is ours
    let set = table(150);
    let recipe = HybridConfig::classes(3).with_init_samples(150);
    let checkpoint = (!dir.is_empty()).then(|| CheckpointConfig::every_epoch(dir));
    let config = TrainConfig {
        epochs: 20,
        batch_size: 32,
        lr: 0.01,
        seed: 9,
        progress: false,
        checkpoint,
        ..Default::default()
    };
    let mut trained = 0; // epochs this process trains
    let count = |_: &HybridNet<Mlp>, _: usize| {
        trained += 1;
        Ok(vec![])
    };
    let (net, history) = fit_hybrid(fresh(&set, &recipe, &device), &set, &recipe, &config, count).unwrap();
    let (mean, objectives) = outcome(net, &set, &history);
    let lines: Vec<String> = mean.iter().map(|v| v.to_bits()).chain(objectives).map(|b| format!("{b:016x}")).collect();
    std::fs::write(out, format!("{}\n{trained}", lines.join("\n"))).unwrap();
}

/// Polls (every 2 ms, at most 300 s) until the running `child` has written `file`.
fn wait_for_first_checkpoint(child: &mut std::process::Child, file: &std::path::Path) {
    let started = std::time::Instant::now();
    while !file.exists() {
        assert!(started.elapsed().as_secs() < 300, "no checkpoint after 300 s");
        assert!(child.try_wait().unwrap().is_none(), "the child ended before its first checkpoint");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Issue 95's end-to-end check: a training process killed by SIGKILL at a seeded random moment
/// after its first checkpoint (perhaps while it writes one) is resumed by a new process, which
/// ends bit for bit where an uninterrupted process ends.
#[test]
fn a_run_killed_by_sigkill_resumes_bit_for_bit_in_a_new_process() {
    use rand::{RngExt, SeedableRng};
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let dir = std::env::temp_dir().join(format!("burn-gp-sigkill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (ckpt, plain_out, resumed_out) = (dir.join("ckpt"), dir.join("plain.txt"), dir.join("resumed.txt"));
    let exe = std::env::current_exe().unwrap();
    let child = |task: String| {
        let mut c = Command::new(&exe);
        c.args(["--exact", "checkpoints::checkpoint_child_process", "--ignored", "--test-threads", "1"]);
        c.env("BURN_GP_CHECKPOINT_CHILD", task).stdout(Stdio::null()).stderr(Stdio::null());
        c
    };
    let task = |d: &std::path::Path, out: &std::path::Path| format!("{}:{}", d.display(), out.display());
    assert!(child(format!(":{}", plain_out.display())).status().unwrap().success(), "the uninterrupted child failed");

    let mut run = child(task(&ckpt, &resumed_out)).spawn().unwrap();
    wait_for_first_checkpoint(&mut run, &ckpt.join("HybridNet.ckpt"));
    let delay = rand::rngs::StdRng::seed_from_u64(95).random_range(0..400);
    std::thread::sleep(Duration::from_millis(delay));
    run.kill().unwrap(); // SIGKILL on Unix
    run.wait().unwrap();
    assert!(!resumed_out.exists(), "the child finished before it was killed: the test checked nothing");

    assert!(child(task(&ckpt, &resumed_out)).status().unwrap().success(), "the resumed child failed");
    let read = |path: &std::path::Path| {
        let text = std::fs::read_to_string(path).unwrap();
        let (bits, trained) = text.rsplit_once('\n').unwrap();
        (bits.to_string(), trained.parse::<usize>().unwrap())
    };
    let ((plain, all), (resumed, rest)) = (read(&plain_out), read(&resumed_out));
    assert_eq!(all, 20);
    assert!((1..20).contains(&rest), "the new process trained {rest} epochs: it did not resume");
    eprintln!(
        "killed after {delay} ms past the first checkpoint; the new process trained the last {rest} of 20 epochs"
    );
    assert!(plain == resumed, "the resumed process ended elsewhere than the uninterrupted one");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The compiled example `name` beside this test binary (`target/<profile>/deps/it-…` →
/// `target/<profile>/examples/<name>`), if it is there and takes `--checkpoint-dir` (an older
/// build does not); else why not.
fn example_binary(name: &str) -> Result<std::path::PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let profile = exe.parent().and_then(|deps| deps.parent()).ok_or("no target/<profile> above the test binary")?;
    let path = profile.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let help = std::process::Command::new(&path).arg("--help").output();
    match help {
        Ok(out) if String::from_utf8_lossy(&out.stdout).contains("--checkpoint-dir") => Ok(path),
        Ok(_) => Err(format!("{} is an older build without --checkpoint-dir", path.display())),
        Err(e) => Err(format!("{} is not built ({e})", path.display())),
    }
}

/// The last stdout line of an example run with `--json`, without its timing keys (`…_s`,
/// `…time…`, `…elapsed…`), and its stderr.
fn final_json_line(out: std::process::Output) -> (serde_json::Map<String, serde_json::Value>, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "the example failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = stdout.lines().last().unwrap_or_default();
    let serde_json::Value::Object(mut keys) = serde_json::from_str(line).unwrap() else {
        panic!("not an object: {line}")
    };
    keys.retain(|k, _| !(k.ends_with("_s") || k.contains("time") || k.contains("elapsed")));
    (keys, stderr)
}

/// Issue 95's end-to-end check on an example: `svgp_uci` (300 epochs on yacht, a checkpoint
/// after each) killed by SIGKILL at a seeded random moment after its first checkpoint, then
/// rerun with `--resume`, prints the final `--json` line of an uninterrupted run (timings aside).
/// The example binary is built by `cargo test` with no filter or `cargo build --examples`;
/// without it (`cargo test --test it`) the test says it is skipped and why.
#[cfg(unix)]
#[test]
fn an_example_killed_by_sigkill_resumes_to_the_uninterrupted_json_line() {
    use rand::{RngExt, SeedableRng};
    use std::process::{Command, Stdio};
    use std::time::Instant;
    let test = "checkpoints::an_example_killed_by_sigkill_resumes_to_the_uninterrupted_json_line";
    let exe = match example_binary("svgp_uci") {
        Ok(exe) => exe,
        Err(why) => {
            eprintln!("SKIPPED {test}: {why}; run `cargo build --examples` (or `cargo test` with no filter) first");
            return;
        }
    };
    let Some(root) = crate::common::data_root_or_skip() else {
        eprintln!("SKIPPED {test}: no data directory (uci_regression/yacht)");
        return;
    };
    let dir = fresh_dir("example-sigkill");
    let run = |extra: &[&str]| {
        let mut c = Command::new(&exe);
        c.args(["--dataset", "yacht", "--split", "0", "--m", "16", "--batch", "32", "--epochs", "300"])
            .args(["--json", "--no-progress", "--data"])
            .arg(&root)
            .args(extra)
            .env("RAYON_NUM_THREADS", "1") // the same threads in every run, and light on CI's cores
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    };
    let t0 = Instant::now();
    let (plain, _) = final_json_line(run(&[]).output().unwrap());
    let plain_s = t0.elapsed();
    let ckpt = dir.join("ckpt");
    let with = ["--checkpoint-dir", ckpt.to_str().unwrap()];
    let mut child = run(&with).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    wait_for_first_checkpoint(&mut child, &ckpt.join("Svgp.ckpt"));
    // a checkpointed run takes longer than the plain one: 10–70 % of that is well before its end
    let fraction = rand::rngs::StdRng::seed_from_u64(95).random_range(0.1..0.7);
    std::thread::sleep(plain_s.mul_f64(fraction));
    assert!(child.try_wait().unwrap().is_none(), "the example finished before it was killed: nothing was tested");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let (resumed, stderr) = final_json_line(run(&[with[0], with[1], "--resume"]).output().unwrap());
    assert!(!stderr.contains("epoch 1/300 "), "the rerun trained from epoch 1: it did not resume\n{stderr}");
    assert!(plain.contains_key("rmse") && plain.contains_key("objective"), "{plain:?}");
    assert_eq!(resumed, plain, "the resumed example printed another final line");
    eprintln!(
        "{test}: killed {:.0} ms after the first checkpoint ({:.0} % of the plain run's {:.2} s); resumed to the same line",
        plain_s.mul_f64(fraction).as_secs_f64() * 1e3,
        fraction * 100.0,
        plain_s.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An empty folder of its own for the test `name`.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("burn-gp-checkpoints-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An evaluation that kills the run in epoch 3 (its checkpoint is then epoch 2's).
fn killed_in_epoch_3(epoch: usize) -> burn_gp::Result<Vec<(String, f64)>> {
    match epoch {
        3 => Err(Error::invalid("test", "the run is killed in epoch 3")),
        _ => Ok(vec![]),
    }
}

/// The bits of `values`.
fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// A checkpoint resumed in the wrong run: a typed `checkpoint` error.
fn refused_checkpoint<T>(result: burn_gp::Result<T>) -> bool {
    matches!(result, Err(Error::InvalidArgument { ref name, .. }) if name == "checkpoint")
}

/// The sparse EP classifier in both schedules with state beyond the model: minibatch SEP
/// (Adadelta's moments, the sites, the stored directions and site sums) and batch SEP
/// (sign-adaptive steps, the sites, `log Z_q`). Killed in epoch (iteration) 3 of 5 and resumed
/// from a skeleton with other inducing inputs, each run ends bit for bit where the uninterrupted
/// one ends; a damaged checkpoint and one of another mode are typed errors.
#[test]
fn a_resumed_ep_classifier_fit_ends_bit_for_bit_where_the_uninterrupted_one_ends() {
    use crate::ep_support::{classes, model_2d, random_problem_on};
    use burn_gp::models::ep::{EpGpClassifierConfig, EpMode};
    let device = crate::common::ad_device();
    let (n, m) = (90, 8);
    let (_, y, z, x) = random_problem_on(n, m, 17, &device);
    let (_, _, other_z) = crate::ep_support::random_problem(n, m, 18);
    let labels = classes(&y);
    let dir = fresh_dir("ep");
    let outcome = |fit: (burn_gp::models::EpGpClassifier<burn_gp::kernels::Rbf>, burn_gp::train::History)| {
        let mut v = fit.0.predict_proba(&x).unwrap();
        v.extend(&fit.0.ep_state().unwrap().sites.nu);
        v.extend(&fit.0.ep_state().unwrap().sites.mu);
        v.extend(fit.0.log_marginal_likelihood());
        v.push(fit.0.ep_state().unwrap().skipped as f64);
        (bits(&v), fit.1.records.iter().map(|r| r.objective.to_bits()).collect::<Vec<_>>())
    };
    for mode in [EpMode::Minibatch, EpMode::Inner] {
        let schedule = EpGpClassifierConfig::new().with_mode(mode);
        let model_2d = |z: &[f64], device| model_2d(z, device).with_ep_schedule(&schedule).unwrap();
        let config = |checkpoint| {
            schedule
                .paper_train_config()
                .with_epochs(5)
                .with_batch_size(20)
                .with_seed(3)
                .with_progress(false)
                .with_checkpoint(checkpoint)
        };
        let none = |_: &_, _: &_, _: usize| Ok(vec![]);
        let uninterrupted = outcome(model_2d(&z, &device).fit_evaluated(&x, &labels, &config(None), none).unwrap());
        let with = config(Some(CheckpointConfig::every_epoch(&dir)));
        let killed = model_2d(&z, &device).fit_evaluated(&x, &labels, &with, |_, _, e| killed_in_epoch_3(e));
        assert!(killed.is_err());
        let mut trained = 0;
        let count = |_: &_, _: &_, _: usize| {
            trained += 1;
            Ok(vec![])
        };
        let resumed = model_2d(&other_z, &device).fit_evaluated(&x, &labels, &with, count).unwrap();
        assert_eq!(trained, 3, "{mode:?}: the resumed fit trained {trained} epochs, not the last 3 of 5");
        let resumed = outcome(resumed);
        assert_eq!(resumed.1, uninterrupted.1, "{mode:?}: the objectives per epoch differ");
        assert!(resumed.0 == uninterrupted.0, "{mode:?}: the resumed fit ends elsewhere (model, sites or log Z)");
        // the finished checkpoint resumes to the same end with no epoch left to train
        let again = model_2d(&other_z, &device).fit(&x, &labels, &with).unwrap();
        assert!(outcome(again) == uninterrupted, "{mode:?}: resuming a finished run changed it");
        if mode == EpMode::Inner {
            // a checkpoint of the other batch schedule (same data, steps and seed) is refused
            let outer = model_2d(&z, &device).with_ep_schedule(&schedule.clone().with_mode(EpMode::Outer)).unwrap();
            assert!(refused_checkpoint(outer.fit(&x, &labels, &with)));
        }
        std::fs::remove_file(dir.join("EpGpClassifier.ckpt")).unwrap();
    }
    // a damaged file is BadFormat, not a panic
    let with = EpGpClassifierConfig::new().paper_train_config().with_epochs(2).with_progress(false);
    let with = with.with_checkpoint(Some(CheckpointConfig::every_epoch(&dir)));
    model_2d(&z, &device).fit(&x, &labels, &with).unwrap();
    let path = dir.join("EpGpClassifier.ckpt");
    let bytes = std::fs::read(&path).unwrap();
    for cut in [bytes.len() - 1, bytes.len() / 2, 20] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let result = model_2d(&z, &device).fit(&x, &labels, &with);
        assert!(matches!(result, Err(Error::BadFormat { .. })), "cut at {cut}: {:?}", result.err());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Full EP (sign-adaptive steps on the kernel, the sites of every point) killed in step 3 of 5
/// and resumed from a skeleton with another kernel ends bit for bit where the uninterrupted fit
/// ends; the sparse classifier's checkpoint in its place is a foreign file, a typed error.
#[test]
fn a_resumed_full_ep_fit_ends_bit_for_bit_where_the_uninterrupted_one_ends() {
    use crate::ep_support::{classes, random_problem_d, rows};
    use burn_gp::kernels::Rbf;
    use burn_gp::models::ep::EpMode;
    use burn_gp::models::{FullEpClassifier, FullEpClassifierConfig};
    let device = crate::common::ad_device();
    let (x, y, _) = random_problem_d(50, 1, 2, 5);
    let (x, labels) = (rows(&x, 2, &device), classes(&y));
    let with_mode = |ell: f64, mode| {
        let schedule = FullEpClassifierConfig::new().with_jitter(0.0).with_mode(mode);
        schedule.init(Rbf::new(&[ell], 0.5, &device).unwrap()).unwrap()
    };
    let dir = fresh_dir("full-ep");
    let outcome = |(fit, history): (FullEpClassifier<Rbf>, burn_gp::train::History)| {
        let mut v = fit.predict_proba(&x).unwrap();
        v.extend(&fit.sites().unwrap().nu);
        v.extend(&fit.sites().unwrap().mu);
        v.extend([fit.log_marginal_likelihood().unwrap(), fit.skipped() as f64]);
        (bits(&v), history.records.iter().map(|r| r.objective.to_bits()).collect::<Vec<_>>())
    };
    for mode in [EpMode::Inner, EpMode::Outer] {
        let model = |ell: f64| with_mode(ell, mode);
        let config = |checkpoint| {
            FullEpClassifierConfig::new()
                .paper_train_config()
                .with_epochs(5)
                .with_progress(false)
                .with_checkpoint(checkpoint)
        };
        let uninterrupted = outcome(model(0.3).fit(&x, &labels, &config(None)).unwrap());
        let with = config(Some(CheckpointConfig::every_epoch(&dir)));
        assert!(model(0.3).fit_evaluated(&x, &labels, &with, |_, e| killed_in_epoch_3(e)).is_err());
        let mut trained = 0;
        let count = |_: &_, _: usize| {
            trained += 1;
            Ok(vec![])
        };
        let resumed = model(0.7).fit_evaluated(&x, &labels, &with, count).unwrap();
        assert_eq!(trained, 3, "{mode:?}: the resumed fit trained {trained} steps, not the last 3 of 5");
        let resumed = outcome(resumed);
        assert_eq!(resumed.1, uninterrupted.1, "{mode:?}: the objectives per step differ");
        assert!(resumed.0 == uninterrupted.0, "{mode:?}: the resumed fit ends elsewhere (kernel or sites)");
        std::fs::remove_file(dir.join("FullEpClassifier.ckpt")).unwrap();
    }
    // a sparse EP checkpoint renamed into full EP's place is refused by its kind
    let ep = crate::ep_support::model_2d(&[0.1, 0.2, -0.3, 0.4], &device);
    let with = FullEpClassifierConfig::new().paper_train_config().with_epochs(2).with_progress(false);
    let with = with.with_checkpoint(Some(CheckpointConfig::every_epoch(&dir)));
    ep.fit(&x, &labels, &with).unwrap();
    std::fs::rename(dir.join("EpGpClassifier.ckpt"), dir.join("FullEpClassifier.ckpt")).unwrap();
    assert!(refused_checkpoint(with_mode(0.3, EpMode::Inner).fit(&x, &labels, &with)));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The decoupled GP with natural gradients (Adam on the hyperparameters and the mean basis, a
/// natural-gradient step on `(m_β, L_S)` after every Adam step: their state is the model's)
/// killed in epoch 3 of 5 and resumed ends bit for bit where the uninterrupted fit ends.
#[test]
fn a_resumed_natural_gradient_decoupled_fit_ends_bit_for_bit_where_the_uninterrupted_one_ends() {
    use crate::decoupled_fourier::support::{golden_data, golden_model};
    use burn_gp::models::{fit_decoupled, Odvff};
    type Model = Odvff<burn_gp::kernels::AdditiveMatern, burn_gp::likelihoods::Gaussian>;
    let device = crate::common::ad_device();
    let (x, y) = golden_data(&device);
    let dir = fresh_dir("decoupled");
    let config = |checkpoint| TrainConfig {
        epochs: 5,
        batch_size: 3,
        lr: 0.05,
        progress: false,
        checkpoint,
        ..Default::default()
    };
    let outcome = |(m, history): (Model, History)| {
        let (mean, var) = m.valid().predict_f(x.clone().inner()).unwrap();
        let mut v = to_vec(mean);
        v.extend(to_vec(var));
        (bits(&v), history.records.iter().map(|r| r.objective.to_bits()).collect::<Vec<_>>())
    };
    let none = |_: &Model, _: usize| Ok(vec![]);
    let uninterrupted = outcome(fit_decoupled(golden_model(&device, true), &x, &y, &config(None), 0.5, none).unwrap());
    let with = config(Some(CheckpointConfig::every_epoch(&dir)));
    let killed = fit_decoupled(golden_model(&device, true), &x, &y, &with, 0.5, |_, e| killed_in_epoch_3(e));
    assert!(killed.is_err());
    assert!(dir.join("DecoupledGp.ckpt").exists());
    let mut trained = 0;
    let count = |_: &Model, _: usize| {
        trained += 1;
        Ok(vec![])
    };
    let resumed = fit_decoupled(golden_model(&device, true), &x, &y, &with, 0.5, count).unwrap();
    assert_eq!(trained, 3, "the resumed fit trained {trained} epochs, not the last 3 of 5");
    let resumed = outcome(resumed);
    assert_eq!(resumed.1, uninterrupted.1, "the objectives per epoch differ");
    assert!(resumed.0 == uninterrupted.0, "the resumed decoupled GP predicts otherwise");
    // Adam alone writes the same file but does not resume a natural-gradient run
    let adam_only = fit_decoupled(golden_model(&device, false), &x, &y, &with, 0.5, none);
    assert!(refused_checkpoint(adam_only));
    let _ = std::fs::remove_dir_all(&dir);
}
