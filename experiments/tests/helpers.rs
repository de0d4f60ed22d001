//! The drivers' shared helpers that compute or draw results without a model: the regression
//! stump behind the skew GP paper's Fig. 10 (against a brute force over every split, and its
//! permutation p-value under a null and a clear step), the active-learning curves of paper 003's
//! §4.3.1 (the curves file read back as written, bad files as typed errors, and the policies'
//! ranks over runs against values worked by hand), and the `--plot` figures (each kind writes one
//! well-formed SVG with its labels; nothing without `--plot`; bad folders are typed errors).
use burn_gp_experiments::common::plot;
use burn_gp_experiments::{learning_curves, regression_stump};

use std::path::{Path, PathBuf};

use burn_gp::train::{EpochRecord, History};
use plot::{HistogramPanel, Panel, PlotOptions, ScatterPanel, Series, StepPanel};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Sum of squares of `v` about its mean.
fn sum_of_squares(v: &[f64]) -> f64 {
    let m = v.iter().sum::<f64>() / v.len() as f64;
    v.iter().map(|y| (y - m).powi(2)).sum()
}

/// The best split by brute force: every threshold between distinct sorted `x` with at least
/// `min_leaf` points a side, its fall in the sum of squares computed from the two sides directly.
fn brute_force_split(points: &[(f64, f64)], min_leaf: usize) -> Option<(f64, usize, f64)> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ys: Vec<f64> = sorted.iter().map(|p| p.1).collect();
    let total = sum_of_squares(&ys);
    let mut best: Option<(f64, usize, f64)> = None;
    for k in min_leaf..=sorted.len().saturating_sub(min_leaf) {
        if k == 0 || k == sorted.len() || sorted[k - 1].0 == sorted[k].0 {
            continue;
        }
        let gain = total - sum_of_squares(&ys[..k]) - sum_of_squares(&ys[k..]);
        if best.is_none_or(|b| gain > b.2 + 1e-12) {
            best = Some((0.5 * (sorted[k - 1].0 + sorted[k].0), k, gain));
        }
    }
    best
}

#[test]
fn stump_split_matches_brute_force_over_every_split() {
    let mut rng = StdRng::seed_from_u64(7);
    for case in 0..40 {
        let n = 10 + case;
        // rounded x so that ties occur and must not be split between
        let points: Vec<(f64, f64)> = (0..n)
            .map(|_| {
                let x = (rng.random::<f64>() * 12.0).round() / 4.0;
                (x, (x - 1.5).signum() * 0.7 + rng.random::<f64>() - 0.5)
            })
            .collect();
        let min_leaf = 1 + case % 5;
        let stump = regression_stump::fit(&points, min_leaf, 0, 1);
        let brute = brute_force_split(&points, min_leaf);
        match (stump, brute) {
            (Some(s), Some((threshold, k, gain))) => {
                assert_eq!(s.threshold, threshold, "case {case}");
                assert_eq!(s.left.0, k, "case {case}");
                assert_eq!(s.right.0, n - k, "case {case}");
                assert!((s.gain - gain).abs() <= 1e-9 * gain.abs().max(1.0), "case {case}: {} vs {gain}", s.gain);
                let mut sorted = points.clone();
                sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
                let left_mean = sorted[..k].iter().map(|p| p.1).sum::<f64>() / k as f64;
                assert!((s.left.1 - left_mean).abs() < 1e-12, "case {case}");
                assert_eq!(s.p_value, 1.0, "no permutations: p = 1");
            }
            (None, None) => {}
            (s, b) => panic!("case {case}: stump {s:?}, brute force {b:?}"),
        }
    }
}

#[test]
fn stump_rejects_too_few_points_and_constant_x() {
    let line: Vec<(f64, f64)> = (0..9).map(|i| (i as f64, i as f64)).collect();
    assert!(regression_stump::fit(&line, 5, 10, 0).is_none(), "9 points cannot give 5 a side");
    assert!(regression_stump::fit(&line, 4, 10, 0).is_some());
    let flat: Vec<(f64, f64)> = (0..20).map(|i| (1.0, i as f64)).collect();
    assert!(regression_stump::fit(&flat, 1, 10, 0).is_none(), "no split between equal x");
    // non-finite points are dropped before counting
    let mut holed = line.clone();
    holed.push((f64::NAN, 1.0));
    holed.push((2.0, f64::INFINITY));
    let with = regression_stump::fit(&holed, 2, 10, 3).unwrap();
    assert_eq!(with, regression_stump::fit(&line, 2, 10, 3).unwrap());
}

#[test]
fn stump_permutation_p_value_is_uniform_under_the_null_and_small_at_a_step() {
    // a clear step: no shuffle of y reaches the observed split's gain
    let mut rng = StdRng::seed_from_u64(11);
    let step: Vec<(f64, f64)> =
        (0..40).map(|i| (i as f64, if i < 20 { 0.0 } else { 1.0 } + 0.05 * rng.random::<f64>())).collect();
    let s = regression_stump::fit(&step, 5, 199, 0).unwrap();
    assert_eq!(s.threshold, 19.5);
    assert_eq!(s.p_value, 1.0 / 200.0);
    // y independent of x: P(p ≤ 0.1) should be about 0.1 (binomial sd over 300 runs: 0.017)
    let runs = 300;
    let small = (0..runs)
        .filter(|&r| {
            let points: Vec<(f64, f64)> = (0..30).map(|_| (rng.random::<f64>(), rng.random::<f64>())).collect();
            regression_stump::fit(&points, 5, 99, r).unwrap().p_value <= 0.1
        })
        .count() as f64
        / runs as f64;
    assert!((0.05..=0.16).contains(&small), "P(p ≤ 0.1) under the null = {small}");
}

/// The folder the figure tests write into (kept after the run, for a look at the SVGs).
fn figure_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("example_figures").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The SVG written for `figure`, checked to be one whole document.
fn svg(dir: &Path, figure: &str) -> String {
    let path = dir.join(format!("test_{figure}.svg"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(text.starts_with("<svg"), "{figure}: {}", &text[..text.len().min(80)]);
    assert!(text.trim_end().ends_with("</svg>"), "{figure}");
    text
}

fn history(objectives: &[f64]) -> History {
    History {
        records: objectives
            .iter()
            .enumerate()
            .map(|(epoch, &objective)| EpochRecord {
                epoch,
                objective,
                epoch_s: 0.0,
                elapsed_s: 0.0,
                metrics: vec![("accuracy".to_string(), 0.5 + 0.01 * epoch as f64)],
            })
            .collect(),
    }
}

#[test]
fn every_figure_kind_writes_one_svg_with_its_labels() {
    let dir = figure_dir("kinds");
    let figures = PlotOptions { plot: Some(dir.clone()) }.figures("test").unwrap();
    assert!(figures.enabled());

    figures
        .curves("curves", "training", &[("adam", history(&[3.0, 2.0, 1.5])), ("sgd", history(&[3.0, 2.5, 2.2]))])
        .unwrap();
    let text = svg(&dir, "curves");
    for label in ["training", "objective", "accuracy", "adam", "sgd", "epoch"] {
        assert!(text.contains(label), "curves lacks {label}");
    }

    let panels = [Panel {
        y_label: "error".into(),
        series: vec![Series { name: "pool".into(), points: vec![(0.0, 0.3), (1.0, f64::NAN), (2.0, 0.1)] }],
    }];
    figures.lines("lines", "learning curve", "labels", &panels).unwrap();
    assert!(svg(&dir, "lines").contains("learning curve"));

    // two classes, confident and right on 3 of 4 points: ECE in the title as metrics computes it
    let probs = [0.9, 0.1, 0.2, 0.8, 0.7, 0.3, 0.4, 0.6];
    let labels = [0, 1, 0, 0];
    figures.reliability("rel", "calibration", &probs, 2, &labels, 5).unwrap();
    let ece = burn_gp::metrics::ece(&probs, 2, &labels, 5).unwrap();
    assert!(svg(&dir, "rel").contains(&format!("ECE {ece:.4} (5 bins, n = 4)")));
    figures.binary_reliability("binrel", "binary", &[0.9f64.ln(), 0.8f64.ln(), 0.3f64.ln()], &[1, 0, 1], 4).unwrap();
    assert!(svg(&dir, "binrel").contains("n = 3"));

    // the area in the legend is the trapezoid sum: 1 for a perfect curve, 0.5 for the diagonal
    let curves = vec![
        ("perfect".to_string(), vec![(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)]),
        ("chance".to_string(), vec![(0.0, 0.0), (1.0, 1.0)]),
    ];
    figures.roc("roc", "detection", &curves).unwrap();
    let text = svg(&dir, "roc");
    assert!(text.contains("perfect (AUC 1.000)") && text.contains("chance (AUC 0.500)"));

    let hist = [HistogramPanel {
        caption: "class 3".into(),
        series: vec![("GP".into(), vec![1, 4, 2]), ("SkewGP".into(), vec![0, 5, 2])],
    }];
    figures.histogram("hist", "entropy", "nats", (0.0, 1.5), &hist).unwrap();
    let text = svg(&dir, "hist");
    assert!(text.contains("class 3") && text.contains("SkewGP"));

    let scatter = [ScatterPanel { caption: "p(y)".into(), series: vec![("all".into(), vec![(0.1, 0.2), (0.5, 0.4)])] }];
    figures.scatter("scatter", "agreement", ("GP", "SkewGP"), &scatter).unwrap();
    assert!(svg(&dir, "scatter").contains("all (2)"));

    let step = [StepPanel {
        caption: "SkewGP0".into(),
        points: vec![(0.1, -0.2), (0.5, 0.1), (f64::NAN, 0.0), (0.9, 0.3)],
        steps: vec![(0.1, 0.3, -0.2), (0.3, 0.9, 0.2)],
    }];
    figures.scatter_step("fig10", "gain", ("skewness", "gain"), &step).unwrap();
    let text = svg(&dir, "fig10");
    assert!(text.contains("sets (3)") && text.contains("regression tree"));

    let observed: Vec<(f64, f64)> = (0..7000).map(|i| (i as f64 / 7000.0, (i as f64).sin())).collect();
    figures.band("band", "fit", ("x", "y"), &observed, &[(0.5, 0.0, 1.0), (0.0, 0.1, 0.5), (1.0, 0.2, 0.2)]).unwrap();
    assert!(svg(&dir, "band").contains("training points (every 3th)"));

    let mut written: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    written.sort();
    let expected = ["band", "binrel", "curves", "fig10", "hist", "lines", "rel", "roc", "scatter"];
    assert_eq!(written, expected.iter().map(|f| format!("test_{f}.svg")).collect::<Vec<_>>());
}

#[test]
fn figures_write_nothing_without_plot_or_finite_data_and_name_files_safely() {
    let off = PlotOptions::default().figures("test").unwrap();
    assert!(!off.enabled());
    off.roc("roc", "t", &[("a".to_string(), vec![(0.0, 0.0), (1.0, 1.0)])]).unwrap();

    let dir = figure_dir("empty");
    let figures = PlotOptions { plot: Some(dir.clone()) }.figures("test").unwrap();
    let mut loaded = history(&[f64::NAN]);
    loaded.records[0].metrics.clear();
    figures.curves("curves", "t", &[("loaded", loaded)]).unwrap();
    figures.lines("lines", "t", "x", &[]).unwrap();
    figures.scatter("scatter", "t", ("a", "b"), &[]).unwrap();
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no figure from no finite data");

    figures.roc("a/b c", "t", &[]).unwrap();
    assert!(dir.join("test_a_b_c.svg").is_file());
}

#[test]
fn plot_into_a_file_is_a_typed_error() {
    let dir = figure_dir("file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("not_a_folder");
    std::fs::write(&file, "x").unwrap();
    assert!(PlotOptions { plot: Some(file) }.figures("test").is_err());
}

/// The curves of one set: VR's and entropy's test error after 0, 1, 2 queries.
fn curves(set: &str, vr: [f64; 3], entropy: [f64; 3]) -> learning_curves::PolicyCurves {
    learning_curves::PolicyCurves { set: set.into(), vr: vr.to_vec(), entropy: entropy.to_vec() }
}

#[test]
fn learning_curves_are_read_back_as_written_and_bad_files_are_typed_errors() {
    let dir = figure_dir("learning_curves");
    std::fs::create_dir_all(&dir).unwrap();
    let written =
        vec![curves("s1", [0.5, 0.2, 0.1], [0.5, 0.3, 0.1]), curves("s2", [0.4, 0.4, 1.0 / 3.0], [0.4, 0.2, 0.0])];
    let path = dir.join("a.csv");
    learning_curves::write_csv(&path, &written.iter().collect::<Vec<_>>()).unwrap();
    assert_eq!(learning_curves::read_csv(&path).unwrap(), written);

    let header = "set,query,policy,test_error\n";
    let cases = [
        ("no header", "s1,0,vr,0.5\n".to_string(), "header"),
        ("three fields", format!("{header}s1,0,vr\n"), "4 fields"),
        ("query skipped", format!("{header}s1,0,vr,0.5\ns1,2,vr,0.4\n"), "query 2 where 1"),
        ("unknown policy", format!("{header}s1,0,bald,0.5\n"), "bald"),
        ("error above 1", format!("{header}s1,0,vr,1.5\n"), "outside [0, 1]"),
        ("not a number", format!("{header}s1,0,vr,x\n"), "not a number"),
        ("split set", format!("{header}s1,0,vr,0.5\ns2,0,vr,0.5\ns1,1,vr,0.5\n"), "two places"),
        ("one policy", format!("{header}s1,0,vr,0.5\ns1,1,vr,0.4\n"), "0 entropy"),
        ("one point", format!("{header}s1,0,vr,0.5\ns1,0,entropy,0.5\n"), "at least 2"),
        ("empty", header.to_string(), "no curves"),
    ];
    for (what, text, needle) in cases {
        let bad = dir.join("bad.csv");
        std::fs::write(&bad, text).unwrap();
        let err = learning_curves::read_csv(&bad).expect_err(what).to_string();
        assert!(err.contains(needle), "{what}: {err}");
    }
    assert!(learning_curves::read_csv(&dir.join("missing.csv")).is_err());
}

#[test]
fn learning_curves_ranks_over_runs_match_the_hand_worked_values() {
    // Run A: on s1 VR is ahead after query 1 and level after 2 (ranks 1, 1.5: mean 1.25); on s2
    // behind at both (2). Run B: s1 level, then ahead (1.25); s3, only in B, ahead at both (1).
    let a = vec![curves("s1", [0.5, 0.2, 0.1], [0.5, 0.3, 0.1]), curves("s2", [0.4, 0.4, 0.3], [0.4, 0.2, 0.2])];
    let b = vec![curves("s1", [0.5, 0.1, 0.1], [0.5, 0.1, 0.2]), curves("s3", [0.3, 0.1, 0.0], [0.3, 0.2, 0.1])];
    let c = learning_curves::compare(&[a.clone(), b]).unwrap();
    let close = |x: f64, y: f64| assert!((x - y).abs() < 1e-12, "{x} != {y}");
    assert_eq!((c.runs, c.sets, c.curves, c.queries), (2, 3, 4, 2));
    assert_eq!(c.rank_at[0], [1.5, 1.5]);
    close(c.rank_at[1][0], 5.5 / 4.0);
    close(c.rank_at[1][1], 6.5 / 4.0);
    close(c.rank_at[2][0], 5.5 / 4.0);
    assert_eq!(c.better_at[1], [2, 1, 1]);
    close(c.error_at[2][0], 0.5 / 4.0);
    close(c.error_at[2][1], 0.6 / 4.0);
    close(c.mean_rank[0], 5.5 / 4.0);
    close(c.mean_rank[1], 6.5 / 4.0);
    close(c.run_mean_rank_vr[0], 1.625);
    close(c.run_mean_rank_vr[1], 1.125);
    close(c.se_rank_vr_runs, 0.25); // sd of (1.625, 1.125) is 0.25·√2, over √2 runs
    let names: Vec<(&str, usize)> = c.set_mean_rank_vr.iter().map(|s| (s.0.as_str(), s.1)).collect();
    assert_eq!(names, [("s1", 2), ("s2", 1), ("s3", 1)]);
    close(c.set_mean_rank_vr[0].2, 1.25);
    let sets = [1.25, 2.0, 1.0];
    let m = sets.iter().sum::<f64>() / 3.0;
    close(c.se_rank_vr_sets, (sets.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 2.0 / 3.0).sqrt());
    assert_eq!(c.set_wins_ties_losses, [2, 0, 1]);
    close(c.sign_test_p, 1.0); // 2 wins, 1 loss: P(X ≤ 1 | n = 3) = 1/2, two-sided 1
                               // one run: no spread over runs
    assert_eq!(learning_curves::compare(std::slice::from_ref(&a)).unwrap().se_rank_vr_runs, 0.0);

    let short = vec![learning_curves::PolicyCurves { set: "s4".into(), vr: vec![0.5, 0.4], entropy: vec![0.5, 0.4] }];
    assert!(learning_curves::compare(&[a, short]).unwrap_err().to_string().contains("same --queries"));
    assert!(learning_curves::compare(&[]).is_err());
}
