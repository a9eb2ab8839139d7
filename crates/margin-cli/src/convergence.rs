//! Telling the user when a fit stopped at its iteration limit: one mechanism for every
//! iterative model.
//!
//! A family's `train` function returns a [`Fitted`]: the model file's bytes and, for a model
//! that implements [`Iterative`], how its solver runs ended. The commands then warn on stderr
//! and go on (the model is usable, only not optimal to its tolerance; it is still written and
//! the exit code stays 0):
//! - `margin train`: models fitted by LIBSVM's SMO solver (SVC, ν-SVC, SVR, ν-SVR, one-class)
//!   print LIBSVM 3.37's own warning once per solver run that reached the limit, as
//!   `svm-train` does; every other model (gradient boosting only with early stopping on)
//!   prints one line in the spirit of scikit-learn's `ConvergenceWarning`, naming the model,
//!   the limit reached and what to change.
//! - `margin evaluate`: one line per model, with the number of folds that did not converge.
//! - `margin svm-train`: LIBSVM's warning for each run, also within `-v` cross-validation and
//!   the cross-validation behind `-b 1`.

use margin_core::{Convergence, Iterative};

use margin_io::ModelFile;
use margin_svm::{MAX_ITER_WARNING, OneClassSvm, Svc, Svr};
use margin_tree::{GradientBoostingClassifier, GradientBoostingRegressor};

use crate::Failure;
use crate::models::ModelEntry;
use crate::output::warn;

/// A trained model as a family's `train` function hands it back.
pub struct Fitted {
    /// The model file.
    pub bytes: Vec<u8>,
    /// How the solver runs ended, for a model fitted by an iterative solver.
    pub convergence: Option<Convergence>,
}

impl Fitted {
    /// A model without an iteration limit (closed form, or a fixed schedule).
    pub fn new<M: ModelFile>(model: &M) -> Result<Self, Failure> {
        Ok(Self {
            bytes: model.to_bytes()?,
            convergence: None,
        })
    }

    /// A model fitted by an iterative solver.
    pub fn iterative<M: ModelFile + Iterative>(model: &M) -> Result<Self, Failure> {
        Ok(Self {
            bytes: model.to_bytes()?,
            convergence: Some(model.convergence()),
        })
    }
}

/// Prints LIBSVM's warning once for each run that stopped at the limit.
fn warn_as_libsvm(convergence: &Convergence) {
    for _ in 0..convergence.at_limit {
        warn(MAX_ITER_WARNING);
    }
}

/// Whether models of this kind are fitted by LIBSVM's SMO solver (and so warn as LIBSVM).
fn libsvm_solver(kind: &str) -> bool {
    [Svc::KIND, Svr::KIND, OneClassSvm::KIND].contains(&kind)
}

/// Warns after `margin train` when the fit stopped at its iteration limit.
pub fn warn_after_train(entry: &ModelEntry, convergence: Option<Convergence>) {
    let Some(c) = convergence.filter(|c| !c.converged()) else {
        return;
    };
    if libsvm_solver(entry.kind()) {
        warn_as_libsvm(&c);
        return;
    }
    let what = if c.runs == 1 {
        "the solver".to_owned()
    } else {
        format!("{} of its {} solver runs", c.at_limit, c.runs)
    };
    warn(train_message(entry, &what, &c));
}

/// The line `margin train` prints, `what` saying which runs stopped.
fn train_message(entry: &ModelEntry, what: &str, c: &Convergence) -> String {
    format!(
        "warning: {} did not converge: {what} stopped at --max-iter {} before converging; {}",
        entry.name,
        c.limit,
        advice(entry)
    )
}

/// Warns once after `margin evaluate` when some folds' fits stopped at their iteration limit.
pub fn warn_after_cross_validation(entry: &ModelEntry, folds: &[Option<Convergence>]) {
    let unconverged: Vec<&Convergence> =
        folds.iter().flatten().filter(|c| !c.converged()).collect();
    let Some(limit) = unconverged.iter().map(|c| c.limit).max() else {
        return;
    };
    warn(format_args!(
        "warning: {} did not converge in {} of {} cross-validation folds: the solver stopped at --max-iter {limit}; {}",
        entry.name,
        unconverged.len(),
        folds.len(),
        advice(entry)
    ));
}

/// What to change: raise `--max-iter`, or loosen `--tol` where the model has one. The models
/// without one are the perceptrons, which stop only on an epoch without a mistake: on data
/// they cannot separate that never comes, and more epochs do not help. Boosting reaches its
/// limit only with early stopping on, and scaling does not change its trees.
fn advice(entry: &ModelEntry) -> &'static str {
    let has_tol = entry.params().iter().any(|p| p.name == "tol");
    let boosting = [
        GradientBoostingClassifier::KIND,
        GradientBoostingRegressor::KIND,
    ]
    .contains(&entry.kind());
    match (has_tol, boosting) {
        (true, true) => {
            "its held-out loss was still improving by more than --tol; raise --max-iter or loosen --tol"
        }
        (true, false) => "raise --max-iter or loosen --tol (scaling the features often helps too)",
        (false, _) => {
            "it stops early only after an epoch without a mistake, which never comes on data it cannot separate; raise --max-iter if the data are separable"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::find;

    #[test]
    fn the_advice_names_tol_only_for_models_that_take_it() {
        let logistic = find("logistic").unwrap();
        assert!(advice(logistic).contains("loosen --tol"));
        let kmeans = find("kmeans").unwrap();
        assert!(advice(kmeans).contains("loosen --tol"));
        for name in ["gradient-boosting", "gradient-boosting-regressor"] {
            let entry = find(name).unwrap();
            assert!(advice(entry).contains("held-out loss"), "{name}");
            assert!(advice(entry).contains("loosen --tol"), "{name}");
            assert!(!advice(entry).contains("scaling"), "{name}");
        }
        for name in ["perceptron", "kernel-perceptron"] {
            let entry = find(name).unwrap();
            assert!(!advice(entry).contains("--tol"), "{name}");
            assert!(advice(entry).contains("cannot separate"), "{name}");
            assert!(advice(entry).contains("raise --max-iter"), "{name}");
        }
    }

    #[test]
    fn the_train_message_counts_runs_when_there_are_several() {
        let entry = find("linear-svc").unwrap();
        let c = Convergence {
            runs: 3,
            at_limit: 2,
            limit: 5,
        };
        assert_eq!(
            train_message(entry, "2 of its 3 solver runs", &c),
            "warning: linear-svc did not converge: 2 of its 3 solver runs stopped at --max-iter 5 before converging; raise --max-iter or loosen --tol (scaling the features often helps too)"
        );
    }

    #[test]
    fn only_the_smo_kinds_warn_as_libsvm() {
        for name in ["svc", "nu-svc", "svr", "nu-svr", "one-class-svm"] {
            assert!(libsvm_solver(find(name).unwrap().kind()), "{name}");
        }
        for name in ["linear-svc", "logistic", "lasso", "kmeans", "perceptron"] {
            assert!(!libsvm_solver(find(name).unwrap().kind()), "{name}");
        }
    }
}
