//! A fit that stops at its iteration limit says so on stderr and still writes its model
//! (exit 0); a fit that converges prints nothing there. `margin evaluate` warns once per model
//! with the number of folds that did not converge.

use crate::common;

use std::process::Output;

use common::{fails_with, margin, stdout};

/// `margin train ARGS -o MODEL`: the run (which must succeed) and whether the model was
/// written and predicts.
fn train(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.margin");
    let m = model.to_str().unwrap();
    let mut all = vec!["train"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", m]);
    let out = margin(&all);
    stdout(&out);
    let data = args.last().unwrap();
    stdout(&margin(&["predict", m, data]));
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const ADVICE: &str = "raise --max-iter or loosen --tol (scaling the features often helps too)\n";

/// Asserts that `margin train NAME FLAGS --max-iter 1 DATA` warns, and only warns, that
/// NAME's solver stopped at the limit, with the advice of a model that has a tolerance.
fn warns_cut_off(name: &str, flags: &[&str], data: &str) {
    let mut args = vec![name];
    args.extend_from_slice(flags);
    args.extend(["--max-iter", "1", data]);
    assert_eq!(
        stderr(&train(&args)),
        format!(
            "warning: {name} did not converge: the solver stopped at --max-iter 1 before converging; {ADVICE}"
        ),
        "{args:?}"
    );
}

#[test]
fn logistic_cut_off_warns_and_writes_its_model() {
    for solver in ["lbfgs", "newton", "gd", "sgd"] {
        warns_cut_off("logistic", &["--solver", solver], "datasets/heart_scale");
    }
}

#[test]
fn a_limit_of_zero_iterations_is_refused_not_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.margin");
    let m = model.to_str().unwrap();
    for name in ["logistic", "lasso", "svc", "perceptron"] {
        let args = [
            "train",
            name,
            "--max-iter",
            "0",
            "datasets/heart_scale",
            "-o",
            m,
        ];
        fails_with(&args, 2, "--max-iter: expected at least 1");
        assert!(!model.exists(), "{name}");
    }
}

#[test]
fn lasso_and_kmeans_cut_off_warn() {
    warns_cut_off("lasso", &["--alpha", "0.05"], "datasets/housing_scale");
    warns_cut_off("kmeans", &["--n-clusters", "3"], "datasets/heart_scale");
}

#[test]
fn a_model_of_several_problems_counts_those_cut_off() {
    // dna has three classes: three one-vs-rest problems, each stopped after one epoch.
    let out = train(&["linear-svc", "--max-iter", "1", "datasets/dna.scale"]);
    assert_eq!(
        stderr(&out),
        format!(
            "warning: linear-svc did not converge: 3 of its 3 solver runs stopped at --max-iter 1 before converging; {ADVICE}"
        )
    );
}

#[test]
fn a_model_without_a_tolerance_is_not_told_to_loosen_one() {
    let out = train(&["perceptron", "--max-iter", "1", "datasets/heart_scale"]);
    assert_eq!(
        stderr(&out),
        "warning: perceptron did not converge: the solver stopped at --max-iter 1 before converging; it stops early only after an epoch without a mistake, which never comes on data it cannot separate; raise --max-iter if the data are separable\n"
    );
}

#[test]
fn boosting_warns_only_when_early_stopping_never_fired() {
    let out = train(&[
        "gradient-boosting",
        "--early-stopping",
        "true",
        "--max-iter",
        "1",
        "datasets/heart_scale",
    ]);
    assert_eq!(
        stderr(&out),
        "boosting iterations: 1\nwarning: gradient-boosting did not converge: the solver stopped at --max-iter 1 before converging; its held-out loss was still improving by more than --tol; raise --max-iter or loosen --tol\n"
    );
    // Without early stopping --max-iter is the size of the ensemble, not a limit reached.
    let out = train(&[
        "gradient-boosting",
        "--early-stopping",
        "false",
        "--max-iter",
        "1",
        "datasets/heart_scale",
    ]);
    assert_eq!(stderr(&out), "boosting iterations: 1\n");
    // Early stopping that fires: the iterations grown, nothing more.
    let out = train(&[
        "gradient-boosting",
        "--early-stopping",
        "true",
        "datasets/heart_scale",
    ]);
    let err = stderr(&out);
    assert!(
        err.starts_with("boosting iterations: ") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn smo_models_cut_off_warn_as_libsvm_once_per_run() {
    // LIBSVM prints its warning after a blank line, for each solver run at the limit.
    let libsvm = "\nWARNING: reaching max number of iterations\n";
    let out = train(&["svc", "--max-iter", "1", "datasets/heart_scale"]);
    assert_eq!(stderr(&out), libsvm);
    let out = train(&["svr", "--max-iter", "1", "datasets/housing_scale"]);
    assert_eq!(stderr(&out), libsvm);
    // Three classes, one-vs-one: three problems.
    let out = train(&["svc", "--max-iter", "1", "datasets/dna.scale"]);
    assert_eq!(stderr(&out), libsvm.repeat(3));
    // Probability estimates: the problem and the five cross-validation runs behind its
    // sigmoid, as LIBSVM's svm_binary_svc_probability warns for each.
    let out = train(&[
        "svc",
        "--probability",
        "true",
        "--max-iter",
        "1",
        "datasets/heart_scale",
    ]);
    assert_eq!(stderr(&out), libsvm.repeat(6));
}

#[test]
fn converged_fits_print_nothing_on_stderr() {
    for args in [
        &["logistic", "datasets/heart_scale"][..],
        &["lasso", "--alpha", "0.05", "datasets/housing_scale"],
        &["kmeans", "--n-clusters", "3", "datasets/heart_scale"],
        &["svc", "datasets/heart_scale"],
        &["linear-svc", "datasets/heart_scale"],
    ] {
        let out = train(args);
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

#[test]
fn evaluate_warns_once_with_the_folds_that_did_not_converge() {
    let out = margin(&[
        "evaluate",
        "logistic",
        "--max-iter",
        "1",
        "datasets/heart_scale",
        "--cv",
        "3",
    ]);
    stdout(&out);
    assert_eq!(
        stderr(&out),
        format!(
            "warning: logistic did not converge in 3 of 3 cross-validation folds: the solver stopped at --max-iter 1; {ADVICE}"
        )
    );
    let out = margin(&["evaluate", "logistic", "datasets/heart_scale", "--cv", "3"]);
    stdout(&out);
    assert_eq!(stderr(&out), "");
}

#[test]
fn svm_train_warns_as_libsvm_for_each_run_at_its_limit() {
    // svm-train keeps LIBSVM's limit, max(10^7, 100·l); on these 40 samples a tolerance of
    // 1e-30 is never met, so every solver run below stops after 10^7 iterations (under a
    // second each). LIBSVM's svm-train prints the same on the same data and options: the
    // warning goes to stderr (`fprintf(stderr, …)` in `Solver::Solve`, not `info()`), so it
    // stays off stdout and `-q` does not silence it.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("heart40");
    let text = std::fs::read_to_string(common::root().join("datasets/heart_scale")).unwrap();
    let head: String = text.lines().take(40).map(|l| format!("{l}\n")).collect();
    std::fs::write(&data, head).unwrap();
    let (d, model) = (data.to_str().unwrap(), dir.path().join("heart40.model"));
    let m = model.to_str().unwrap();
    let libsvm = "\nWARNING: reaching max number of iterations\n";
    let out = margin(&["svm-train", "-e", "1e-30", d, m]);
    let report = stdout(&out);
    assert_eq!(stderr(&out), libsvm);
    // A progress mark every 40 iterations but the last (249999, as LIBSVM 3.37 prints), the
    // `*` of the final gradient rebuild, then the block.
    let at = report.find("\noptimization finished").unwrap_or(0);
    assert_eq!(report[..at].matches('.').count(), 10_000_000 / 40 - 1);
    assert!(
        report[..at].ends_with(".*"),
        "{}",
        &report[at.saturating_sub(10)..]
    );
    assert!(
        report[at..].starts_with("\noptimization finished, #iter = 10000000\n"),
        "{report}"
    );
    assert!(!report.contains("WARNING"), "{report}");
    assert!(
        std::fs::read_to_string(&model)
            .unwrap()
            .starts_with("svm_type c_svc\n")
    );
    // Cross-validation, quiet: still once per fold.
    let out = margin(&["svm-train", "-q", "-v", "3", "-e", "1e-30", d]);
    assert!(stdout(&out).starts_with("Cross Validation Accuracy = "));
    assert_eq!(stderr(&out), libsvm.repeat(3));
    // At LIBSVM's default tolerance the same data converges: nothing on stderr.
    let out = margin(&["svm-train", "-q", d, m]);
    stdout(&out);
    assert_eq!(stderr(&out), "");
}
