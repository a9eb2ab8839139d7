//! The estimator battery: one set of bad and awkward inputs every margin model must survive,
//! as scikit-learn's `check_estimator` does for its estimators.
//!
//! A model crate's tests call [`check_estimator`] with a params value; it runs every case and
//! panics with the list of failures (so it belongs in tests only). A case passes when the
//! estimator returns the typed error the case calls for, or, where the case allows it, a
//! finite answer of the right length. A panic is always a failure.
//!
//! One case forges model files: [`FORGERIES`] deterministic alterations of the fitted model's
//! encoded body, sealed again with a valid checksum ([`forged_body`]), each of which must be
//! refused with [`Error::ModelFile`] or load into a model that predicts on dense and sparse
//! probes without panicking. Kinds the battery does not reach (transformers) and methods other
//! than `predict` run the same forgeries through [`check_forged_files`].
//!
//! ```
//! # use margin_testing::battery::{check_estimator, Task};
//! # fn demo<P>(params: &P) where P: margin_core::Fit + Sync,
//! #   P::Model: margin_core::Predict + margin_io::ModelFile + margin_core::Hyperparams,
//! #   <P::Model as margin_core::Predict>::Output: margin_testing::battery::Prediction {
//! check_estimator(params, Task::Classification);
//! # }
//! ```

use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

use rand::Rng;

use margin_core::params::Hyperparams;
use margin_core::split::rng_from_seed;
use margin_core::{
    CsrMatrix, Dataset, DenseMatrix, Error, Fit, Label, Predict, Records, Result, Targets,
};
use margin_io::ModelFile;

mod forge;
mod linear;
mod observed;
mod params;

pub use linear::check_linear_shape;
pub use observed::check_observed;

pub use params::{check_defaults, check_params};

pub use forge::{
    FORGERIES, MAX_PROBE_WIDTH, RawMatrix, asked_width, check_forged_files, check_refused,
    forge_data, forged_body, forged_file_failures, loaded_model_failure, probe_records,
};

/// What the estimator learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Two or more classes; a single class must be refused with [`Error::TooFewClasses`].
    Classification,
    /// Continuous targets.
    Regression,
    /// Learns from records alone (one-class SVM): one class is fine.
    Unsupervised,
}

/// What a prediction must offer the battery.
pub trait Prediction: PartialEq + Debug + Send {
    /// Number of predicted samples.
    fn n_predictions(&self) -> usize;
    /// Whether every predicted value is finite.
    fn all_finite(&self) -> bool;
}

impl Prediction for Vec<f64> {
    fn n_predictions(&self) -> usize {
        self.len()
    }
    fn all_finite(&self) -> bool {
        self.iter().all(|v| v.is_finite())
    }
}

impl Prediction for Vec<Label> {
    fn n_predictions(&self) -> usize {
        self.len()
    }
    fn all_finite(&self) -> bool {
        self.iter()
            .all(|l| !matches!(l, Label::Number(x) if !x.is_finite()))
    }
}

/// What a case accepts from `fit` followed by `predict`.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// A finite prediction of the right length.
    Finite,
    /// A finite prediction or any typed error.
    FiniteOrError,
    /// An error matching the predicate.
    Error(fn(&Error) -> bool, &'static str),
    /// A finite prediction, or an error matching the predicate.
    FiniteOr(fn(&Error) -> bool, &'static str),
}

/// 128 sparse samples of one stored feature each, spread over 2³² − 1 features (the widest
/// records a LIBSVM file can describe): 1 kB of data whose dense copy would be 4 TiB. For
/// classification, 64 classes, so that even one dense weight vector per class is 2 TiB and is
/// refused whatever the machine; for regression, continuous targets.
pub fn huge_width(task: Task) -> Dataset {
    let n = 128;
    let indptr: Vec<usize> = (0..=n).collect();
    let indices: Vec<u32> = (0..n as u32).map(|i| i * 30_000_000).collect();
    let values: Vec<f64> = (0..n).map(|i| (i % 7 + 1) as f64 / 8.0).collect();
    let records = CsrMatrix::new(indptr, indices, values, u32::MAX as usize)
        .unwrap_or_else(|_| CsrMatrix::empty(n, u32::MAX as usize));
    let targets = (0..n)
        .map(|i| match task {
            Task::Classification => (i % 64) as f64,
            Task::Regression => i as f64 / 10.0,
            Task::Unsupervised => 1.0,
        })
        .collect();
    Dataset {
        records: records.into(),
        targets: Targets::Values(targets),
        sample_weights: None,
        feature_names: None,
    }
}

/// Asserts that `e` is the refusal of a model too large for any machine, as a fit on
/// [`huge_width`] data must end: [`Error::OutOfMemory`] for more than 1 TiB, with a message
/// that names the size (in TiB) and the way out (fewer features).
///
/// # Panics
/// When `e` is any other error or its message lacks either (tests only).
#[track_caller]
pub fn assert_refused_for_memory(e: Error) {
    assert!(
        matches!(e, Error::OutOfMemory { bytes, .. } if bytes > 1 << 40),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("TiB") && text.contains("fewer features"),
        "{text}"
    );
}

fn base_records(n: usize, d: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = rng_from_seed(seed);
    (0..n)
        .map(|_| (0..d).map(|_| rng.random_range(-1.0..1.0)).collect())
        .collect()
}

fn targets_for(task: Task, rows: &[Vec<f64>]) -> Targets {
    Targets::Values(
        rows.iter()
            .map(|r| {
                let s: f64 = r
                    .iter()
                    .enumerate()
                    .map(|(j, v)| v * (j as f64 + 1.0))
                    .sum();
                match task {
                    Task::Regression => 2.0 * s + 0.5,
                    _ => {
                        if s >= 0.0 {
                            1.0
                        } else {
                            -1.0
                        }
                    }
                }
            })
            .collect(),
    )
}

fn dataset(task: Task, rows: Vec<Vec<f64>>, d: usize) -> Dataset {
    let targets = targets_for(task, &rows);
    let n = rows.len();
    let records = DenseMatrix::from_row_major(rows.into_iter().flatten().collect(), n, d)
        .unwrap_or_else(|_| DenseMatrix::zeros(n, d));
    Dataset {
        records: records.into(),
        targets,
        sample_weights: None,
        feature_names: None,
    }
}

/// `data`'s records as CSR with their features renumbered `0..F` over the ones they store
/// (records exactly as wide as the features used), and the same records with feature `j`
/// moved to `j · step` in records 2³² − 1 wide: for checking that a model fits the same on
/// both, in memory that follows the stored entries. `step · (F − 1)` must stay below 2³² − 1.
pub fn compact_and_spread(data: &Dataset, step: u32) -> Result<(Dataset, Dataset)> {
    let csr = data.records.to_sparse();
    let mut used = csr.indices().to_vec();
    used.sort_unstable();
    used.dedup();
    let compact: Vec<u32> = csr
        .indices()
        .iter()
        .map(|f| used.partition_point(|g| g < f) as u32)
        .collect();
    let spread = compact
        .iter()
        .map(|&f| f.checked_mul(step).filter(|&j| j < u32::MAX))
        .collect::<Option<Vec<u32>>>()
        .ok_or_else(|| Error::invalid_parameter("step", step, "step · (features − 1) < 2³² − 1"))?;
    let rebuild = |indices: Vec<u32>, ncols: usize| -> Result<Dataset> {
        let x = CsrMatrix::new(csr.indptr().to_vec(), indices, csr.values().to_vec(), ncols)?;
        Ok(Dataset {
            records: x.into(),
            ..data.clone()
        })
    };
    Ok((
        rebuild(compact, used.len())?,
        rebuild(spread, u32::MAX as usize)?,
    ))
}

/// A model's hyperparameters as `(name, value as text)` pairs: as text, so that a NaN kept as
/// NaN compares equal.
fn kept_params<M: Hyperparams>(m: &M) -> Vec<(&'static str, String)> {
    m.describe_hyperparams()
        .into_iter()
        .map(|p| (p.name, p.value.to_string()))
        .collect()
}

/// What is wrong with the hyperparameters `loaded` keeps, if anything, against those of
/// `fitted`, the model it was saved from: there must be some, and each must come back with the
/// same name and value (one check for every kind, through [`Hyperparams`]).
pub fn check_kept_params<M: Hyperparams>(fitted: &M, loaded: &M) -> Option<String> {
    kept_differ(&kept_params(fitted), &kept_params(loaded))
}

fn kept_differ(
    before: &[(&'static str, String)],
    after: &[(&'static str, String)],
) -> Option<String> {
    if before.is_empty() {
        Some("hyperparameters: the fitted model describes none".into())
    } else if before != after {
        Some(format!(
            "save→load: hyperparameters changed from {before:?} to {after:?}"
        ))
    } else {
        None
    }
}

/// What is wrong with a fit of `params` on `data` that succeeds, if anything: its model file
/// must load (a fit must refuse what it cannot save).
fn saved_fit_failure<P>(params: &P, data: &Dataset) -> Option<String>
where
    P: Fit,
    P::Model: ModelFile,
{
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let model = params.fit(data).ok()?;
        Some(
            model
                .to_bytes()
                .and_then(|bytes| P::Model::from_bytes(&bytes).map(|_| ())),
        )
    }));
    match outcome {
        Err(_) => Some("panicked while saving or loading the fitted model".into()),
        Ok(Some(Err(e))) => Some(format!(
            "the fit succeeded but its model file does not load: {e}"
        )),
        Ok(_) => None,
    }
}

/// Runs the battery on `params`. Panics with every failing case listed.
///
/// Besides the bad inputs, the well-formed fit must save and load to a model that predicts
/// the same and keeps the same hyperparameters ([`check_kept_params`]).
pub fn check_estimator<P>(params: &P, task: Task)
where
    P: Fit + Sync,
    P::Model: Predict + ModelFile + Hyperparams,
    <P::Model as Predict>::Output: Prediction,
{
    let mut failures: Vec<String> = Vec::new();
    // Fits that succeed but save files that do not load (collected apart: `run` holds
    // `failures` until the last case).
    let mut unloadable: Vec<String> = Vec::new();
    let d = 3;
    let good = dataset(task, base_records(40, d, 1), d);
    let probe =
        DenseMatrix::from_rows(&base_records(7, d, 2)).unwrap_or_else(|_| DenseMatrix::zeros(7, d));

    let mut run = |name: &str, data: &Dataset, predict_on: &dyn Records, expect: Expect| {
        let outcome = catch_unwind(AssertUnwindSafe(
            || -> Result<<P::Model as Predict>::Output> {
                let model = params.fit(data)?;
                model.predict(predict_on)
            },
        ));
        let verdict = match (outcome, expect) {
            (Err(_), _) => Some("panicked".to_owned()),
            (Ok(Ok(p)), Expect::Finite | Expect::FiniteOrError | Expect::FiniteOr(..)) => {
                if p.n_predictions() != predict_on.n_samples() {
                    Some(format!(
                        "returned {} predictions for {} rows",
                        p.n_predictions(),
                        predict_on.n_samples()
                    ))
                } else if !p.all_finite() {
                    Some(format!("returned non-finite predictions {p:?}"))
                } else {
                    None
                }
            }
            (Ok(Err(e)), Expect::Finite) => Some(format!("failed on valid input: {e}")),
            (Ok(Err(_)), Expect::FiniteOrError) => None,
            (Ok(Ok(p)), Expect::Error(_, want)) => {
                Some(format!("returned {p:?} where {want} was expected"))
            }
            (Ok(Err(e)), Expect::Error(ok, want) | Expect::FiniteOr(ok, want)) => {
                (!ok(&e)).then(|| format!("returned `{e}` where {want} was expected"))
            }
        };
        if let Some(v) = verdict {
            failures.push(format!("{name}: {v}"));
        }
    };

    run("well-formed data", &good, &probe, Expect::Finite);

    let non_finite = Expect::Error(|e| matches!(e, Error::NonFinite { .. }), "Error::NonFinite");
    for (label, bad) in [
        ("NaN", f64::NAN),
        ("+inf", f64::INFINITY),
        ("-inf", f64::NEG_INFINITY),
    ] {
        let mut rows = base_records(40, d, 1);
        rows[5][2] = bad;
        let mut data = dataset(task, base_records(40, d, 1), d);
        data.records = DenseMatrix::from_rows(&rows)
            .unwrap_or_else(|_| DenseMatrix::zeros(0, d))
            .into();
        run(
            &format!("{label} in the records"),
            &data,
            &probe,
            non_finite,
        );
        let mut probe_bad = probe.clone();
        probe_bad.row_mut(3)[1] = bad;
        run(
            &format!("{label} in the records to predict"),
            &good,
            &probe_bad,
            non_finite,
        );
    }
    if task == Task::Regression {
        let mut data = good.clone();
        if let Targets::Values(v) = &mut data.targets {
            v[4] = f64::NAN;
        }
        run("NaN target", &data, &probe, non_finite);
    }

    let empty = Expect::Error(
        |e| matches!(e, Error::EmptyDataset(_)),
        "Error::EmptyDataset",
    );
    run("no samples", &dataset(task, Vec::new(), d), &probe, empty);
    let no_features = Dataset {
        records: DenseMatrix::zeros(10, 0).into(),
        ..dataset(task, base_records(10, 1, 3), 1)
    };
    run(
        "no features",
        &no_features,
        &DenseMatrix::zeros(2, 0),
        empty,
    );

    let mut short = good.clone();
    short.targets = good.targets.select(&(0..39).collect::<Vec<_>>());
    run(
        "one target fewer than samples",
        &short,
        &probe,
        Expect::Error(
            |e| matches!(e, Error::ShapeMismatch { .. }),
            "Error::ShapeMismatch",
        ),
    );

    run(
        "one sample",
        &dataset(task, base_records(1, d, 4), d),
        &probe,
        Expect::FiniteOrError,
    );

    let mut one_class = good.clone();
    one_class.targets = Targets::Values(vec![1.0; 40]);
    let one_class_expect = match task {
        Task::Classification => Expect::Error(
            |e| matches!(e, Error::TooFewClasses { .. }),
            "Error::TooFewClasses",
        ),
        _ => Expect::FiniteOrError,
    };
    run("a single class", &one_class, &probe, one_class_expect);

    let constant: Vec<Vec<f64>> = base_records(40, d, 5)
        .into_iter()
        .map(|mut r| {
            r[0] = 3.0;
            r
        })
        .collect();
    let mut constant_data = dataset(task, constant, d);
    constant_data.targets = good.targets.clone();
    run(
        "a constant feature",
        &constant_data,
        &probe,
        Expect::FiniteOrError,
    );

    let all_constant = Dataset {
        records: DenseMatrix::from_row_major(vec![1.0; 40 * d], 40, d)
            .unwrap_or_else(|_| DenseMatrix::zeros(40, d))
            .into(),
        ..good.clone()
    };
    run(
        "all features constant",
        &all_constant,
        &probe,
        Expect::FiniteOrError,
    );

    let mut dup_rows = base_records(20, d, 6);
    dup_rows.extend(dup_rows.clone());
    run(
        "every row duplicated",
        &dataset(task, dup_rows, d),
        &probe,
        Expect::FiniteOrError,
    );

    // Extreme magnitudes: where squares (1e154) or sums (1e307) overflow. A fit may refuse
    // them, but a fit that succeeds must save a model file that loads.
    for scale in [1e307, 1e300, 1e154, 1e-300] {
        let rows: Vec<Vec<f64>> = base_records(40, d, 1)
            .into_iter()
            .map(|r| r.into_iter().map(|v| v * scale).collect())
            .collect();
        let mut data = dataset(task, rows, d);
        data.targets = good.targets.clone();
        let mut scaled_probe = probe.clone();
        scaled_probe
            .as_mut_slice()
            .iter_mut()
            .for_each(|v| *v *= scale);
        let name = format!("magnitudes around {scale:e}");
        run(&name, &data, &scaled_probe, Expect::FiniteOrError);
        unloadable.extend(saved_fit_failure::<P>(params, &data).map(|f| format!("{name}: {f}")));
    }
    if task == Task::Regression {
        for scale in [1e307, 1e154] {
            let mut data = good.clone();
            if let Targets::Values(v) = &mut data.targets {
                v.iter_mut().for_each(|t| *t = (*t + 1.5) * scale);
            }
            let name = format!("targets around {scale:e}");
            run(&name, &data, &probe, Expect::FiniteOrError);
            unloadable
                .extend(saved_fit_failure::<P>(params, &data).map(|f| format!("{name}: {f}")));
        }
    }

    let huge = huge_width(task);
    run(
        "sparse records 2³² − 1 features wide",
        &huge,
        &huge.records,
        Expect::FiniteOr(
            |e| {
                matches!(
                    e,
                    Error::OutOfMemory { .. } | Error::InvalidParameter { .. }
                )
            },
            "a finite prediction, Error::OutOfMemory (memory must follow the stored entries, or be refused) or a parameter refused for 64 classes",
        ),
    );

    let wide = DenseMatrix::zeros(2, d + 1);
    run(
        "predict with one feature more",
        &good,
        &wide,
        Expect::Error(
            |e| matches!(e, Error::ShapeMismatch { .. }),
            "Error::ShapeMismatch",
        ),
    );
    run(
        "predict on zero rows",
        &good,
        &DenseMatrix::zeros(0, d),
        Expect::Finite,
    );

    // Save → load identity, determinism, and independence from the thread count.
    type Kept = Vec<(&'static str, String)>;
    let fitted = |threads: usize| -> Option<(Vec<u8>, <P::Model as Predict>::Output, Kept)> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .ok()?;
        pool.install(|| {
            catch_unwind(AssertUnwindSafe(|| {
                let model = params.fit(&good).ok()?;
                let bytes = model.to_bytes().ok()?;
                let pred = model.predict(&probe).ok()?;
                Some((bytes, pred, kept_params(&model)))
            }))
            .ok()
            .flatten()
        })
    };
    match (fitted(1), fitted(1), fitted(2)) {
        (Some((b1, p1, kept)), Some((b1_again, p1_again, _)), Some((b2, p2, _))) => {
            if b1 != b1_again || p1 != p1_again {
                failures.push("determinism: two fits with the same params differ".into());
            }
            if b1 != b2 || p1 != p2 {
                failures.push("thread count: fits on 1 and 2 threads differ".into());
            }
            if let Ok(back) = P::Model::from_bytes(&b1) {
                failures.extend(kept_differ(&kept, &kept_params(&back)));
            }
            match P::Model::from_bytes(&b1).and_then(|m| m.predict(&probe)) {
                Ok(p) if p == p1 => {}
                Ok(p) => failures.push(format!(
                    "save→load: predictions changed from {p1:?} to {p:?}"
                )),
                Err(e) => failures.push(format!("save→load: reloading failed: {e}")),
            }
            let mut flipped = b1.clone();
            let last = flipped.len() - 1;
            flipped[last] ^= 0x10;
            if !matches!(P::Model::from_bytes(&flipped), Err(Error::ModelFile { .. })) {
                failures.push(
                    "save→load: a corrupted file was not refused with Error::ModelFile".into(),
                );
            }
            match P::Model::from_bytes(&b1) {
                Ok(model) => failures.extend(forged_file_failures(&model, d, FORGERIES, |m, x| {
                    Ok(vec![m.predict(x)?.n_predictions()])
                })),
                Err(e) => failures.push(format!("forged files: reloading failed: {e}")),
            }
        }
        _ => failures
            .push("save→load: fitting, saving or predicting the well-formed case failed".into()),
    }
    failures.extend(unloadable);

    assert!(
        failures.is_empty(),
        "estimator battery failed {} case(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
