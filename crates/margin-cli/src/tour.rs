//! `margin tour`: every model family on the bundled datasets with sensible defaults, one row
//! per (model, dataset) with its held-out score and its fit and predict times, and a ROC chart
//! of the binary classifiers that score a9a.
//!
//! The tour is the table [`CASES`]: a new model family adds one line there. Everything is
//! seeded (splits and models), so the scores are the same on every run; only the times vary.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use margin_core::split::train_test_split;
use margin_core::{Dataset, DecisionFunction, Error, Fit, Label, Predict, Transform};
use margin_io::datasets;
use margin_kernels::{Gamma, Rbf};
use margin_linear::{
    BernoulliNB, ElasticNet, GaussianNB, KernelRidge, LinearRegression, LogisticRegression,
    Perceptron, Ridge,
};
use margin_neighbors::{KNeighborsClassifier, KNeighborsRegressor, Weights};
use margin_preprocessing::MinMaxScaler;
use margin_svm::{LinearSvc, Svc, Svr};
use margin_tree::{
    AdaBoostClassifier, Criterion, DecisionTreeClassifier, GradientBoostingClassifier,
    GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor,
};

use crate::Failure;
use crate::output::{Out, Progress, output_error};

/// The seed of every split the tour makes (the README's examples use 42 too).
const SEED: u64 = 42;

/// The held-out fraction where a dataset ships without a test part (scikit-learn's default).
const TEST_FRACTION: f64 = 0.25;

/// Arguments of `margin tour`.
#[derive(Args, Debug)]
pub struct TourArgs {
    /// Directory for the charts (created if missing).
    #[arg(long, value_name = "DIR", default_value = "tour")]
    out: PathBuf,
    /// Skip the cases on a9a (32,561 samples), the slow part of the tour; no ROC chart then.
    #[arg(long)]
    quick: bool,
}

/// A bundled dataset as the tour splits it into a train and a test part.
struct Source {
    /// The dataset's name in chart file names (and the key of its loaded split).
    key: &'static str,
    /// Its name in the table.
    name: &'static str,
    /// Whether `--quick` skips it.
    large: bool,
    /// Loads and splits it.
    load: fn() -> Result<Split, Failure>,
}

/// The train and test parts of one dataset.
struct Split {
    /// What the models are fitted on.
    train: Dataset,
    /// What they are scored on.
    test: Dataset,
}

/// What one case measured.
struct Row {
    /// `accuracy` or `R²`.
    metric: &'static str,
    /// The metric on the test part.
    value: f64,
    /// Wall time of `fit` on the train part.
    fit: Duration,
    /// Wall time of `predict` on the test part.
    predict: Duration,
    /// For binary classifiers drawn in a ROC chart: their test scores.
    roc: Option<Scored>,
}

/// A binary classifier's scores on the test part.
struct Scored {
    /// The model's name in the chart's legend: the legend leaves about 20 characters.
    legend: &'static str,
    /// Whether each test sample is of the positive class.
    positive: Vec<bool>,
    /// The model's score for each test sample, larger meaning positive.
    scores: Vec<f64>,
}

/// One line of the tour: a model with its settings, the dataset it runs on, and how.
struct Case {
    /// The model as the table names it.
    model: &'static str,
    /// The model as `margin train` names it (its registry entry).
    entry: &'static str,
    /// The dataset.
    data: &'static Source,
    /// Fits on the train part and scores the test part.
    run: fn(&Split) -> Result<Row, Failure>,
}

/// Statlog DNA with its own test part.
static DNA: Source = Source {
    key: "dna",
    name: "dna",
    large: false,
    load: || {
        Ok(Split {
            train: datasets::dna()?,
            test: datasets::dna_test()?,
        })
    },
};

/// svmguide1 with its own test part, scaled to [−1, 1] by minima and maxima of the train part
/// as LIBSVM's practical guide does (unscaled, its features span four orders of magnitude).
static SVMGUIDE1: Source = Source {
    key: "svmguide1",
    name: "svmguide1 (scaled)",
    large: false,
    load: || {
        let (train, test) = (datasets::svmguide1()?, datasets::svmguide1_test()?);
        let scaler = MinMaxScaler::params()
            .range(-1.0, 1.0)
            .fit(&train.records)?;
        let scaled = |d: &Dataset| Dataset::new(scaler.transform(&d.records)?, d.targets.clone());
        Ok(Split {
            train: scaled(&train)?,
            test: scaled(&test)?,
        })
    },
};

/// Statlog Heart (270 samples), a stratified seeded split.
static HEART: Source = Source {
    key: "heart",
    name: "heart",
    large: false,
    load: || {
        let (train, test) = train_test_split(&datasets::heart_scale()?, TEST_FRACTION, true, SEED)?;
        Ok(Split { train, test })
    },
};

/// Boston housing (506 samples), a seeded split (a regression target cannot be stratified).
static HOUSING: Source = Source {
    key: "housing",
    name: "housing",
    large: false,
    load: || {
        let (train, test) =
            train_test_split(&datasets::housing_scale()?, TEST_FRACTION, false, SEED)?;
        Ok(Split { train, test })
    },
};

/// UCI Adult as LIBSVM's a9a, with its own test part.
static A9A: Source = Source {
    key: "a9a",
    name: "a9a",
    large: true,
    load: || {
        Ok(Split {
            train: datasets::a9a()?,
            test: datasets::a9a_test()?,
        })
    },
};

/// The tour, family by family. An RBF SVC on a9a is left out on purpose: it alone takes
/// longer than the whole tour may (15 s, see the README's speed table).
/// The registered models the tour leaves out, and why (a test checks that every other model
/// has a case).
const NOT_IN_TOUR: &[(&str, &str)] = &[
    (
        "nu-svc",
        "the SVC model with nu in place of C: svc's rows show its solver and kernels",
    ),
    (
        "nu-svr",
        "the SVR model with nu in place of epsilon: svr's row shows it",
    ),
    (
        "one-class-svm",
        "novelty detection: the tour scores labelled test parts",
    ),
    (
        "pegasos",
        "a stochastic solver for linear-svc's model: the bench compares the two",
    ),
    (
        "tree-regressor",
        "forest-regressor's base learner: the forest's housing row shows it",
    ),
    (
        "elastic-net",
        "lasso's solver with an L2 part: lasso's row shows it",
    ),
    (
        "multinomial-nb",
        "counts, which no bundled dataset holds (the bench runs it on dna)",
    ),
    (
        "kernel-perceptron",
        "quadratic in the samples; the XOR example shows it",
    ),
    (
        "kmeans",
        "clustering: the tour scores labelled test parts (the bench times it)",
    ),
    (
        "minibatch-kmeans",
        "clustering: the tour scores labelled test parts",
    ),
    (
        "pca",
        "a transform, with no score of its own (the bench times it)",
    ),
];

static CASES: &[Case] = &[
    Case {
        model: "SVC (RBF)",
        entry: "svc",
        data: &DNA,
        run: |s| classify(&Svc::params(), s),
    },
    Case {
        model: "SVC (RBF)",
        entry: "svc",
        data: &SVMGUIDE1,
        run: |s| classify(&Svc::params(), s),
    },
    Case {
        model: "SVC (RBF)",
        entry: "svc",
        data: &HEART,
        run: |s| classify(&Svc::params(), s),
    },
    Case {
        model: "LinearSVC",
        entry: "linear-svc",
        data: &A9A,
        run: |s| classify_with_roc(&LinearSvc::params(), s, LinearSvc::classes, "LinearSVC"),
    },
    Case {
        model: "LinearSVC",
        entry: "linear-svc",
        data: &DNA,
        run: |s| classify(&LinearSvc::params(), s),
    },
    Case {
        model: "LogisticRegression",
        entry: "logistic",
        data: &A9A,
        run: |s| {
            let labels = LogisticRegression::classes;
            classify_with_roc(&LogisticRegression::params(), s, labels, "logistic")
        },
    },
    Case {
        model: "LogisticRegression",
        entry: "logistic",
        data: &DNA,
        run: |s| classify(&LogisticRegression::params(), s),
    },
    Case {
        model: "BernoulliNB",
        entry: "bernoulli-nb",
        data: &DNA,
        run: |s| classify(&BernoulliNB::params(), s),
    },
    Case {
        model: "GaussianNB",
        entry: "gaussian-nb",
        data: &HEART,
        run: |s| classify(&GaussianNB::params(), s),
    },
    Case {
        model: "Perceptron",
        entry: "perceptron",
        data: &HEART,
        run: |s| classify(&Perceptron::params(), s),
    },
    Case {
        model: "DecisionTree",
        entry: "tree",
        data: &DNA,
        run: |s| classify(&DecisionTreeClassifier::params(), s),
    },
    Case {
        model: "DecisionTree (entropy)",
        entry: "tree",
        data: &HEART,
        run: |s| {
            classify(
                &DecisionTreeClassifier::params().criterion(Criterion::Entropy),
                s,
            )
        },
    },
    Case {
        model: "RandomForest",
        entry: "forest",
        data: &DNA,
        run: |s| classify(&RandomForestClassifier::params().seed(SEED), s),
    },
    Case {
        model: "AdaBoost (stumps)",
        entry: "adaboost",
        data: &HEART,
        run: |s| classify(&AdaBoostClassifier::params().seed(SEED), s),
    },
    Case {
        model: "GradientBoosting",
        entry: "gradient-boosting",
        data: &A9A,
        run: |s| {
            let labels = GradientBoostingClassifier::classes;
            let params = GradientBoostingClassifier::params().seed(SEED);
            classify_with_roc(&params, s, labels, "gradient boosting")
        },
    },
    Case {
        model: "kNN (k = 5)",
        entry: "knn-classifier",
        data: &SVMGUIDE1,
        run: |s| classify(&KNeighborsClassifier::params(), s),
    },
    Case {
        model: "kNN (k = 5)",
        entry: "knn-classifier",
        data: &DNA,
        run: |s| classify(&KNeighborsClassifier::params(), s),
    },
    Case {
        model: "LinearRegression",
        entry: "linear",
        data: &HOUSING,
        run: |s| regress(&LinearRegression::params(), s),
    },
    Case {
        model: "Ridge",
        entry: "ridge",
        data: &HOUSING,
        run: |s| regress(&Ridge::params(), s),
    },
    Case {
        model: "Lasso (alpha 0.05)",
        entry: "lasso",
        data: &HOUSING,
        run: |s| regress(&ElasticNet::lasso_params().alpha(0.05), s),
    },
    Case {
        model: "KernelRidge (RBF)",
        entry: "kernel-ridge",
        data: &HOUSING,
        // scikit-learn's `KernelRidge(kernel="rbf")`: γ = 1 / n_features.
        run: |s| {
            let gamma = Gamma::Auto.resolve(&s.train.records)?;
            regress(&KernelRidge::params().kernel(Rbf::with_gamma(gamma)?), s)
        },
    },
    Case {
        model: "SVR (RBF)",
        entry: "svr",
        data: &HOUSING,
        run: |s| regress(&Svr::params(), s),
    },
    Case {
        model: "RandomForest",
        entry: "forest-regressor",
        data: &HOUSING,
        run: |s| regress(&RandomForestRegressor::params().seed(SEED), s),
    },
    Case {
        model: "GradientBoosting",
        entry: "gradient-boosting-regressor",
        data: &HOUSING,
        run: |s| regress(&GradientBoostingRegressor::params().seed(SEED), s),
    },
    Case {
        model: "kNN (k = 5, distance)",
        entry: "knn-regressor",
        data: &HOUSING,
        run: |s| regress(&KNeighborsRegressor::params().weights(Weights::Distance), s),
    },
];

/// Fits `params` on the train part and times it.
fn timed_fit<P: Fit>(params: &P, split: &Split) -> Result<(P::Model, Duration), Failure> {
    let started = Instant::now();
    let model = params.fit(&split.train)?;
    Ok((model, started.elapsed()))
}

/// The test part's labels as the data spell them.
fn true_labels(test: &Dataset) -> Result<Vec<Label>, Failure> {
    let classes = test.targets.to_classes()?;
    Ok(classes
        .indices()
        .iter()
        .map(|&k| classes.labels()[k].clone())
        .collect())
}

/// A classifier's accuracy on the test part.
fn classify<P>(params: &P, split: &Split) -> Result<Row, Failure>
where
    P: Fit,
    P::Model: Predict<Output = Vec<Label>>,
{
    Ok(score_labels(timed_fit(params, split)?, split)?.0)
}

/// Times `predict` and scores its labels; hands the model back for more questions.
fn score_labels<M: Predict<Output = Vec<Label>>>(
    (model, fit): (M, Duration),
    split: &Split,
) -> Result<(Row, M), Failure> {
    let started = Instant::now();
    let predicted = model.predict(&split.test.records)?;
    let predict = started.elapsed();
    let row = Row {
        metric: "accuracy",
        value: margin_metrics::accuracy(&true_labels(&split.test)?, &predicted)?,
        fit,
        predict,
        roc: None,
    };
    Ok((row, model))
}

/// A binary classifier's accuracy, plus its decision scores for a ROC chart; `labels` gives
/// the model's classes, the second of which its positive scores mean.
fn classify_with_roc<P>(
    params: &P,
    split: &Split,
    labels: fn(&P::Model) -> &[Label],
    legend: &'static str,
) -> Result<Row, Failure>
where
    P: Fit,
    P::Model: Predict<Output = Vec<Label>> + DecisionFunction,
{
    let (mut row, model) = score_labels(timed_fit(params, split)?, split)?;
    let positive_label = labels(&model).get(1).ok_or(Error::TooFewClasses {
        found: 1,
        required: 2,
    })?;
    let positive = true_labels(&split.test)?
        .iter()
        .map(|l| l == positive_label)
        .collect();
    let scores = model.decision_function(&split.test.records)?;
    let scores = (0..scores.nrows()).map(|i| scores.get(i, 0)).collect();
    row.roc = Some(Scored {
        legend,
        positive,
        scores,
    });
    Ok(row)
}

/// A regressor's R² on the test part.
fn regress<P>(params: &P, split: &Split) -> Result<Row, Failure>
where
    P: Fit,
    P::Model: Predict<Output = Vec<f64>>,
{
    let (model, fit) = timed_fit(params, split)?;
    let started = Instant::now();
    let predicted = model.predict(&split.test.records)?;
    let predict = started.elapsed();
    Ok(Row {
        metric: "R²",
        value: margin_metrics::r2_score(&split.test.targets.values()?, &predicted)?,
        fit,
        predict,
        roc: None,
    })
}

/// Seconds down to a tenth of one, then milliseconds, then microseconds, so that the short
/// fits of the small models read as more than `0.0`.
fn format_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 0.1 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// Prefixes a failure's message with the case it came from.
fn in_case(case: &Case, f: Failure) -> Failure {
    f.within(format_args!("tour: {} on {}", case.model, case.data.name))
}

/// Draws one ROC curve per scored model on `dataset` into `path`; returns their areas.
fn write_roc(path: &Path, dataset: &str, curves: &[&Scored]) -> Result<Vec<f64>, Failure> {
    let mut names = Vec::with_capacity(curves.len());
    let mut points = Vec::with_capacity(curves.len());
    let mut areas = Vec::with_capacity(curves.len());
    for s in curves {
        let curve = margin_metrics::roc_curve(&s.positive, &s.scores, true)?;
        let auc = margin_metrics::roc_auc(&s.positive, &s.scores)?;
        names.push(format!("{}: AUC {auc:.4}", s.legend));
        points.push(curve.fpr.into_iter().zip(curve.tpr).collect());
        areas.push(auc);
    }
    let mut series: Vec<margin_metrics::plot::Series<'_>> = names
        .iter()
        .zip(points)
        .map(|(name, points)| margin_metrics::plot::Series {
            name,
            points,
            dashed: false,
        })
        .collect();
    series.push(margin_metrics::plot::Series {
        name: "chance",
        points: vec![(0.0, 0.0), (1.0, 1.0)],
        dashed: true,
    });
    let svg = margin_metrics::plot::line_chart(
        &format!("ROC curves, {dataset} test part"),
        "false positive rate",
        "true positive rate",
        &series,
        Some((0.0, 1.0)),
        Some((0.0, 1.0)),
    );
    margin_metrics::plot::write_chart(path, &svg).map_err(|e| output_error(path, e))?;
    Ok(areas)
}

/// Runs `margin tour`.
pub fn run(args: &TourArgs) -> Result<(), Failure> {
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| !(args.quick && c.data.large))
        .collect();
    // Created first, so an unwritable directory fails before a minute of fitting.
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let progress = Progress::new(cases.len());
    let mut splits: BTreeMap<&str, Split> = BTreeMap::new();
    let mut rows: Vec<(&Case, usize, usize, Row)> = Vec::with_capacity(cases.len());
    for (k, case) in cases.iter().enumerate() {
        progress.show(k, &format!("{} on {}", case.model, case.data.name));
        // Each dataset is loaded once and shared by its cases; load time is not fit time.
        let split = match splits.entry(case.data.key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert((case.data.load)().map_err(|f| in_case(case, f))?),
        };
        let row = (case.run)(split).map_err(|f| in_case(case, f))?;
        rows.push((case, split.train.n_samples(), split.train.n_features(), row));
    }
    progress.clear();

    let header = [
        "model",
        "dataset",
        "n_train × d",
        "metric",
        "value",
        "fit",
        "predict",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|(case, n, d, row)| {
            [
                case.model.to_owned(),
                case.data.name.to_owned(),
                format!("{n} × {d}"),
                row.metric.to_owned(),
                format!("{:.6}", row.value),
                format_duration(row.fit),
                format_duration(row.predict),
            ]
        })
        .collect();
    // Widths in characters, not bytes: `×` and `²` are two bytes each.
    let width = |j: usize| {
        cells
            .iter()
            .map(|c| c[j].chars().count())
            .chain([header[j].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    // Text columns align left, numbers right.
    let left_aligned = [true, true, false, true, false, false, false];
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (j, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = " ".repeat(w - cell.chars().count());
            let _ = if left_aligned[j] {
                write!(s, "{cell}{pad}")
            } else {
                write!(s, "{pad}{cell}")
            };
            s.push_str(if j + 1 < cells.len() { "  " } else { "\n" });
        }
        s
    };
    let mut text = line(&header);
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    text.push_str(&line(&rule.iter().map(String::as_str).collect::<Vec<_>>()));
    for c in &cells {
        text.push_str(&line(&c.iter().map(String::as_str).collect::<Vec<_>>()));
    }

    // One chart per dataset that has scored models, so a new scored case joins its curve.
    let mut scored: BTreeMap<&str, Vec<(&Case, &Scored)>> = BTreeMap::new();
    for (case, _, _, row) in &rows {
        if let Some(roc) = &row.roc {
            scored.entry(case.data.key).or_default().push((case, roc));
        }
    }
    for (key, curves) in &scored {
        let path = args.out.join(format!("roc_{key}.svg"));
        let name = curves.first().map_or(*key, |(case, _)| case.data.name);
        let chart: Vec<&Scored> = curves.iter().map(|c| c.1).collect();
        let areas = write_roc(&path, name, &chart)?;
        let _ = writeln!(
            text,
            "\nROC curves on the {name} test part: {}",
            path.display()
        );
        for ((case, _), auc) in curves.iter().zip(areas) {
            let _ = writeln!(text, "  {}: AUC {auc:.6}", case.model);
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for case in CASES {
        if !names.contains(&case.entry) {
            names.push(case.entry);
        }
    }
    let _ = writeln!(
        text,
        "\nThe rows' models train on your data as `margin train NAME DATA -o MODEL`, NAME one of:"
    );
    for chunk in names.chunks(8) {
        let _ = writeln!(text, "  {}", chunk.join(", "));
    }
    let _ = writeln!(text, "Also registered, not in the tour:");
    for (name, why) in NOT_IN_TOUR {
        let _ = writeln!(text, "  {name:<18} {why}");
    }
    let mut out = Out::stdout();
    out.write_all(text.as_bytes())?;
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tour_knows_every_registered_model_or_says_why_not() {
        for entry in crate::models::registry() {
            let in_tour = CASES.iter().any(|c| c.entry == entry.name);
            let left_out = NOT_IN_TOUR.iter().any(|(name, _)| *name == entry.name);
            assert!(
                in_tour != left_out,
                "{}: in the tour {in_tour}, listed as left out {left_out}",
                entry.name
            );
        }
        for case in CASES {
            assert!(crate::models::find(case.entry).is_ok(), "{}", case.entry);
        }
        for (name, _) in NOT_IN_TOUR {
            assert!(crate::models::find(name).is_ok(), "{name}");
        }
    }
}
