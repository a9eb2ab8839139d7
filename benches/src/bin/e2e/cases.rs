//! The benchmark cases: what each one runs on margin's side, its data, and what its peer is.
//! Adding a case is one entry in [`CASES`] here and one in `CASES` in `benches/peers/run.py`
//! (same name).

use std::hint::black_box;
use std::time::Instant;

use margin_cluster::{KMeans, KMeansAlgorithm, KMeansInit, NComponents, Pca, SvdSolver};
use margin_core::{Dataset, Fit, Label, Predict, Records};
use margin_kernels::Gamma;
use margin_linear::{
    BernoulliNB, ElasticNet, GaussianNB, LinearRegression, LogisticRegression, MultinomialNB, Ridge,
};
use margin_metrics::{accuracy, r2_score, roc_auc};
use margin_neighbors::{Algorithm, KNeighborsClassifier, KNeighborsRegressor};
use margin_svm::{
    KernelChoice, LabelOrder, LinearSolver, LinearSvc, LinearSvcParams, Svc, SvmLoss, SvmSolver,
};
use margin_tree::{AdaBoostClassifier, DecisionTreeClassifier, RandomForestClassifier};
use margin_tree::{EarlyStopping, GradientBoostingClassifier};
use serde::{Deserialize, Serialize};

use crate::data::{self, Data, DataArgs, Res};

/// One row of the benchmark.
pub struct Case {
    /// The name both children know the case by.
    pub name: &'static str,
    /// The data set, as shown in the table.
    pub dataset: &'static str,
    pub data: Data,
    /// margin's side, as shown in the report.
    pub margin: &'static str,
    /// The peer's side, as shown in the report.
    pub peer: &'static str,
    /// Too slow for `--quick`.
    pub full_only: bool,
    /// margin's side: load (untimed), fit and predict (timed).
    pub run: fn(&DataArgs) -> Res<Outcome>,
}

/// What a child measured (both children print this as one JSON line, with the peak memory).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Outcome {
    pub fit_s: f64,
    /// `None` where there is nothing to predict (a metric).
    pub predict_s: Option<f64>,
    pub score: f64,
    /// `accuracy`, `r2` or `auc`.
    pub metric: String,
    /// Training rows and features the child saw: the runner checks both sides agree.
    pub n: usize,
    pub d: usize,
    /// Primal objective `½‖w‖² + C Σ loss` on the training set (linear SVMs): equal
    /// objectives make equal times comparable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<f64>,
    /// Support vectors (kernel SVMs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_sv: Option<usize>,
}

const SVC: &str = "Svc RBF, C = 1, γ = 1/d, 200 MB cache, LIBSVM's label order";
const SVC_BATCHED: &str = "Svc RBF, C = 1, γ = 1/d, solver batched (margin's working-set solver)";
const LIBSVM: &str = "LIBSVM svm_train -c 1 -g 1/d -m 200 (libsvm-official, OpenMP)";

pub const CASES: &[Case] = &[
    Case {
        name: "svc-heart",
        dataset: "heart_scale",
        data: Data::Split {
            file: "heart_scale",
            n_train: 200,
            n_features: 13,
        },
        margin: SVC,
        peer: LIBSVM,
        full_only: false,
        run: svc_rbf,
    },
    Case {
        name: "svc-dna",
        dataset: "dna.scale",
        data: Data::Files {
            train: "dna.scale",
            test: "dna.scale.t",
            n_features: 180,
        },
        margin: SVC,
        peer: LIBSVM,
        full_only: false,
        run: svc_rbf,
    },
    Case {
        name: "svc-a9a",
        dataset: "a9a",
        data: Data::Files {
            train: "a9a.gz",
            test: "a9a.t.gz",
            n_features: 123,
        },
        margin: SVC,
        peer: LIBSVM,
        full_only: true,
        run: svc_rbf,
    },
    Case {
        name: "svc-w8a",
        dataset: "w8a",
        data: Data::Files {
            train: "w8a",
            test: "w8a.t",
            n_features: 300,
        },
        margin: SVC,
        peer: LIBSVM,
        full_only: true,
        run: svc_rbf,
    },
    Case {
        name: "svc-ijcnn1",
        dataset: "ijcnn1",
        data: Data::Files {
            train: "ijcnn1.trn.bz2",
            test: "ijcnn1.tst.bz2",
            n_features: 22,
        },
        margin: SVC,
        peer: LIBSVM,
        full_only: true,
        run: svc_rbf,
    },
    Case {
        name: "svc-batched-a9a",
        dataset: "a9a",
        data: Data::Files {
            train: "a9a.gz",
            test: "a9a.t.gz",
            n_features: 123,
        },
        margin: SVC_BATCHED,
        peer: LIBSVM,
        full_only: true,
        run: svc_rbf_batched,
    },
    Case {
        name: "svc-batched-w8a",
        dataset: "w8a",
        data: Data::Files {
            train: "w8a",
            test: "w8a.t",
            n_features: 300,
        },
        margin: SVC_BATCHED,
        peer: LIBSVM,
        full_only: true,
        run: svc_rbf_batched,
    },
    Case {
        name: "svc-batched-ijcnn1",
        dataset: "ijcnn1",
        data: Data::Files {
            train: "ijcnn1.trn.bz2",
            test: "ijcnn1.tst.bz2",
            n_features: 22,
        },
        margin: SVC_BATCHED,
        peer: LIBSVM,
        full_only: true,
        run: svc_rbf_batched,
    },
    Case {
        name: "linsvc-l2-a9a",
        dataset: "a9a",
        data: A9A,
        margin: "LinearSvc DCD, squared hinge, C = 1, tol 0.1",
        peer: "LIBLINEAR train -s 1 -c 1 -B 1 (eps 0.1)",
        full_only: false,
        run: dcd_squared_hinge,
    },
    Case {
        name: "linsvc-l1-a9a",
        dataset: "a9a",
        data: A9A,
        margin: "LinearSvc DCD, hinge, C = 1, tol 0.1",
        peer: "LIBLINEAR train -s 3 -c 1 -B 1 (eps 0.1)",
        full_only: false,
        run: dcd_hinge,
    },
    Case {
        name: "linsvc-l2-w8a",
        dataset: "w8a",
        data: W8A,
        margin: "LinearSvc DCD, squared hinge, C = 1, tol 0.1",
        peer: "LIBLINEAR train -s 1 -c 1 -B 1 (eps 0.1)",
        full_only: false,
        run: dcd_squared_hinge,
    },
    Case {
        name: "linsvc-l1-w8a",
        dataset: "w8a",
        data: W8A,
        margin: "LinearSvc DCD, hinge, C = 1, tol 0.1",
        peer: "LIBLINEAR train -s 3 -c 1 -B 1 (eps 0.1)",
        full_only: false,
        run: dcd_hinge,
    },
    Case {
        name: "pegasos-a9a",
        dataset: "a9a",
        data: A9A,
        margin: "LinearSvc Pegasos (50 epochs, suffix average), hinge, C = 1",
        peer: "LIBLINEAR train -s 3 -c 1 -B 1: an exact solver, so compare accuracy and objective",
        full_only: false,
        run: pegasos,
    },
    Case {
        name: "logistic-a9a",
        dataset: "a9a",
        data: A9A,
        margin: "LogisticRegression L-BFGS, C = 1, tol 1e-4, max_iter 100 (sparse input)",
        peer: "sklearn LogisticRegression() (lbfgs; sparse input)",
        full_only: false,
        run: logistic,
    },
    Case {
        name: "auroc-1e6",
        dataset: "generated",
        data: Data::Scores { n: 1_000_000 },
        margin: "margin_metrics::roc_auc",
        peer: "sklearn.metrics.roc_auc_score",
        full_only: false,
        run: auroc,
    },
    Case {
        name: "linreg-200k",
        dataset: "generated",
        data: REGRESSION,
        margin: "LinearRegression (QR)",
        peer: "sklearn LinearRegression()",
        full_only: true,
        run: linear_regression,
    },
    Case {
        name: "ridge-200k",
        dataset: "generated",
        data: REGRESSION,
        margin: "Ridge α = 1 (Cholesky)",
        peer: "sklearn Ridge(alpha=1.0)",
        full_only: true,
        run: ridge,
    },
    Case {
        name: "lasso-200k",
        dataset: "generated",
        data: REGRESSION,
        margin: "Lasso α = 0.01 (coordinate descent, tol 1e-4)",
        peer: "sklearn Lasso(alpha=0.01)",
        full_only: true,
        run: lasso,
    },
    Case {
        name: "mnb-dna",
        dataset: "dna.scale",
        data: Data::Files {
            train: "dna.scale",
            test: "dna.scale.t",
            n_features: 180,
        },
        margin: "MultinomialNB α = 1 (sparse input)",
        peer: "sklearn MultinomialNB() (sparse input)",
        full_only: false,
        run: multinomial_nb,
    },
    Case {
        name: "bnb-a9a",
        dataset: "a9a",
        data: A9A,
        margin: "BernoulliNB α = 1, binarize 0 (sparse input)",
        peer: "sklearn BernoulliNB() (sparse input)",
        full_only: false,
        run: bernoulli_nb,
    },
    Case {
        name: "gnb-letter",
        dataset: "letter.scale",
        data: Data::Split {
            file: "letter.scale",
            n_train: 10_000,
            n_features: 16,
        },
        margin: "GaussianNB (dense input)",
        peer: "sklearn GaussianNB() (dense input)",
        full_only: false,
        run: gaussian_nb,
    },
    Case {
        name: "knn-brute-ijcnn1",
        dataset: "ijcnn1 (first 10,000 test rows)",
        data: Data::Files {
            train: "ijcnn1.trn.bz2",
            test: "ijcnn1.tst.bz2",
            n_features: 22,
        },
        margin: "KNeighborsClassifier k = 5, brute (GEMM blocks), dense input",
        peer: "sklearn KNeighborsClassifier(algorithm=\"brute\", n_jobs=2), dense input",
        full_only: false,
        run: knn_brute,
    },
    Case {
        name: "knn-kdtree-d3",
        dataset: "generated 100,000 × 3 (+ 20,000 queries)",
        data: Data::Regression {
            n_train: 100_000,
            n_test: 20_000,
            d: 3,
        },
        margin: "KNeighborsRegressor k = 5, kd-tree (leaf 30)",
        peer: "sklearn KNeighborsRegressor(algorithm=\"kd_tree\", n_jobs=2)",
        full_only: false,
        run: knn_kd_tree,
    },
    Case {
        name: "knn-kdtree-d8",
        dataset: "generated 100,000 × 8 (+ 20,000 queries)",
        data: Data::Regression {
            n_train: 100_000,
            n_test: 20_000,
            d: 8,
        },
        margin: "KNeighborsRegressor k = 5, kd-tree (leaf 30)",
        peer: "sklearn KNeighborsRegressor(algorithm=\"kd_tree\", n_jobs=2)",
        full_only: false,
        run: knn_kd_tree,
    },
    Case {
        name: "gb-synthetic",
        dataset: "generated 1,000,000 × 20 (+ 200,000 test), label = (y > 0)",
        data: Data::Regression {
            n_train: 1_000_000,
            n_test: 200_000,
            d: 20,
        },
        margin: GB,
        peer: HGB,
        full_only: true,
        run: gradient_boosting,
    },
    Case {
        name: "gb-synthetic-quick",
        dataset: "generated 100,000 × 20 (+ 20,000 test), label = (y > 0)",
        data: Data::Regression {
            n_train: 100_000,
            n_test: 20_000,
            d: 20,
        },
        margin: GB,
        peer: HGB,
        full_only: false,
        run: gradient_boosting,
    },
    Case {
        name: "kmeans-100k",
        dataset: "generated 100,000 × 50 (+ 10,000 to predict)",
        data: KMEANS,
        margin: "KMeans k = 10, init = first 10 rows, n_init = 1 (Lloyd, GEMM blocks)",
        peer: "sklearn KMeans(n_clusters=10, init=X[:10], n_init=1) (Lloyd)",
        full_only: false,
        run: kmeans,
    },
    Case {
        name: "kmeans-elkan-100k",
        dataset: "generated 100,000 × 50 (+ 10,000 to predict)",
        data: KMEANS,
        margin: "KMeans k = 10, init = first 10 rows, n_init = 1, algorithm = Elkan",
        peer: "sklearn KMeans(n_clusters=10, init=X[:10], n_init=1, algorithm=\"elkan\")",
        full_only: false,
        run: kmeans_elkan,
    },
    Case {
        name: "pca-full-20k",
        dataset: "generated 20,000 × 500 (+ 2,000 to transform)",
        data: PCA,
        margin: "Pca, all components, full SVD (tall-skinny QR + SVD of R)",
        peer: "sklearn PCA(svd_solver=\"full\")",
        full_only: false,
        run: pca_full,
    },
    Case {
        name: "pca-randomized-20k",
        dataset: "generated 20,000 × 500 (+ 2,000 to transform)",
        data: PCA,
        margin: "Pca n_components = 10, randomized SVD (7 power iterations)",
        peer: "sklearn PCA(n_components=10, svd_solver=\"randomized\")",
        full_only: false,
        run: pca_randomized,
    },
    Case {
        name: "tree-ijcnn1",
        dataset: "ijcnn1.trn / ijcnn1.tst",
        data: IJCNN1,
        margin: "DecisionTreeClassifier (gini, fully grown), dense input",
        peer: "sklearn DecisionTreeClassifier(random_state=0), dense input",
        full_only: false,
        run: decision_tree,
    },
    Case {
        name: "forest-ijcnn1",
        dataset: "ijcnn1.trn / ijcnn1.tst",
        data: IJCNN1,
        margin: "RandomForestClassifier 100 trees, max_features sqrt, dense input",
        peer: "sklearn RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=0), dense input",
        full_only: true,
        run: random_forest,
    },
    Case {
        name: "adaboost-ijcnn1",
        dataset: "ijcnn1.trn / ijcnn1.tst",
        data: IJCNN1,
        margin: "AdaBoostClassifier (SAMME) 50 stumps, dense input",
        peer: "sklearn AdaBoostClassifier(random_state=0) (50 stumps), dense input",
        full_only: false,
        run: adaboost,
    },
];

const IJCNN1: Data = Data::Files {
    train: "ijcnn1.trn.bz2",
    test: "ijcnn1.tst.bz2",
    n_features: 22,
};

const GB: &str =
    "GradientBoostingClassifier, 100 iterations, 31 leaves, 255 bins, no early stopping";
const HGB: &str = "sklearn HistGradientBoostingClassifier(max_iter=100, early_stopping=False)";

const A9A: Data = Data::Files {
    train: "a9a.gz",
    test: "a9a.t.gz",
    n_features: 123,
};
const W8A: Data = Data::Files {
    train: "w8a",
    test: "w8a.t",
    n_features: 300,
};
const KMEANS: Data = Data::Regression {
    n_train: 100_000,
    n_test: 10_000,
    d: 50,
};
const PCA: Data = Data::Regression {
    n_train: 20_000,
    n_test: 2_000,
    d: 500,
};
const REGRESSION: Data = Data::Regression {
    n_train: 200_000,
    n_test: 50_000,
    d: 100,
};

/// A call shorter than this is repeated: one run of a few milliseconds is mostly scheduler
/// noise on a shared machine.
const REPEAT_BELOW_S: f64 = 0.05;
/// Repeat until this much time is spent, or [`REPEAT_MAX`] calls.
const REPEAT_BUDGET_S: f64 = 0.5;
const REPEAT_MAX: usize = 100;

/// The median of `values` (not empty).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Runs `f` and times it; a short call is repeated and the median time taken (`run.py`'s
/// `timed` follows the same rule). Returns the last call's value.
fn timed<T>(f: impl Fn() -> T) -> (T, f64) {
    let mut times = Vec::new();
    loop {
        let start = Instant::now();
        let value = black_box(f());
        times.push(start.elapsed().as_secs_f64());
        if times[0] >= REPEAT_BELOW_S
            || times.iter().sum::<f64>() >= REPEAT_BUDGET_S
            || times.len() >= REPEAT_MAX
        {
            return (value, median(times));
        }
    }
}

/// Accuracy of predicted labels against a file's numeric labels.
fn label_accuracy(test: &Dataset, predicted: &[Label]) -> Res<f64> {
    let predicted: Vec<f64> = predicted
        .iter()
        .map(|label| match label {
            Label::Number(v) => Ok(*v),
            Label::Text(t) => Err(format!("unexpected text label {t:?}")),
        })
        .collect::<Result<_, _>>()?;
    Ok(accuracy(&data::numeric_targets(test)?, &predicted)?)
}

/// Fit on the training set and predict the test set, timed apart; scored by accuracy.
fn classify<M: Predict<Output = Vec<Label>>>(
    train: &Dataset,
    test: &Dataset,
    fit: impl Fn(&Dataset) -> margin_core::Result<M>,
) -> Res<(M, Outcome)> {
    let (model, fit_s) = timed(|| fit(train));
    let model = model?;
    let (predicted, predict_s) = timed(|| model.predict(&test.records));
    let outcome = Outcome {
        fit_s,
        predict_s: Some(predict_s),
        score: label_accuracy(test, &predicted?)?,
        metric: "accuracy".into(),
        n: train.n_samples(),
        d: train.n_features(),
        objective: None,
        n_sv: None,
    };
    Ok((model, outcome))
}

fn svc_rbf(args: &DataArgs) -> Res<Outcome> {
    svc_rbf_with(args, SvmSolver::Smo)
}

fn svc_rbf_batched(args: &DataArgs) -> Res<Outcome> {
    svc_rbf_with(args, SvmSolver::Batched)
}

fn svc_rbf_with(args: &DataArgs, solver: SvmSolver) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let params = Svc::params()
        .solver(solver)
        .kernel(KernelChoice::Rbf {
            gamma: Gamma::Value(1.0 / train.n_features() as f64),
        })
        .c(1.0)
        .cache_size_mb(200.0)
        // LIBSVM's class order, so one-vs-one votes break ties as the peer's do.
        .label_order(LabelOrder::FirstSeen);
    let (model, outcome) = classify(&train, &test, |t| params.fit(t))?;
    Ok(Outcome {
        n_sv: Some(model.support_indices().len()),
        ..outcome
    })
}

/// LIBLINEAR's default stopping tolerance for `-s 1` and `-s 3`, so both sides stop on the
/// same criterion.
const LIBLINEAR_EPS: f64 = 0.1;

fn linear_svc(args: &DataArgs, params: LinearSvcParams, loss: SvmLoss) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let params = params.c(1.0).loss(loss);
    let (model, outcome) = classify(&train, &test, |t| params.fit(t))?;
    Ok(Outcome {
        objective: Some(primal_objective(&model, &train, loss)?),
        ..outcome
    })
}

fn dcd_squared_hinge(args: &DataArgs) -> Res<Outcome> {
    let params = LinearSvc::params().tol(LIBLINEAR_EPS);
    linear_svc(args, params, SvmLoss::SquaredHinge)
}

fn dcd_hinge(args: &DataArgs) -> Res<Outcome> {
    let params = LinearSvc::params().tol(LIBLINEAR_EPS);
    linear_svc(args, params, SvmLoss::Hinge)
}

fn pegasos(args: &DataArgs) -> Res<Outcome> {
    let params = LinearSvc::params().solver(LinearSolver::pegasos());
    linear_svc(args, params, SvmLoss::Hinge)
}

/// `½(‖w‖² + w_B²) + C Σ loss(y (w·x + b))` for a binary model fitted with the bias feature
/// `B = 1` (so `w_B = b`, regularized as LIBLINEAR's `-B 1`).
fn primal_objective(model: &LinearSvc, train: &Dataset, loss: SvmLoss) -> Res<f64> {
    use margin_core::DecisionFunction;
    if model.coef().nrows() != 1 {
        return Err("the primal objective is computed for binary problems only".into());
    }
    let (w, b) = (model.coef().row(0), model.intercept()[0]);
    let positive = &model.classes()[1];
    let scores = model.decision_function(&train.records)?;
    let y = data::numeric_targets(train)?;
    let total_loss: f64 = y
        .iter()
        .enumerate()
        .map(|(i, &label)| {
            let sign = if Label::Number(label) == *positive {
                1.0
            } else {
                -1.0
            };
            let slack = (1.0 - sign * scores.get(i, 0)).max(0.0);
            match loss {
                SvmLoss::Hinge => slack,
                SvmLoss::SquaredHinge => slack * slack,
            }
        })
        .sum();
    Ok(0.5 * (margin_core::dot(w, w) + b * b) + model.c() * total_loss)
}

fn auroc(args: &DataArgs) -> Res<Outcome> {
    let (scores, positive) = data::scores(args)?;
    let (auc, fit_s) = timed(|| roc_auc(&positive, &scores));
    Ok(Outcome {
        fit_s,
        predict_s: None,
        score: auc?,
        metric: "auc".into(),
        n: scores.len(),
        d: 1,
        objective: None,
        n_sv: None,
    })
}

fn regress<M: Predict<Output = Vec<f64>>>(
    args: &DataArgs,
    fit: impl Fn(&Dataset) -> margin_core::Result<M>,
) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let (model, fit_s) = timed(|| fit(&train));
    let model = model?;
    let (predicted, predict_s) = timed(|| model.predict(&test.records));
    Ok(Outcome {
        fit_s,
        predict_s: Some(predict_s),
        score: r2_score(&data::numeric_targets(&test)?, &predicted?)?,
        metric: "r2".into(),
        n: train.n_samples(),
        d: train.n_features(),
        objective: None,
        n_sv: None,
    })
}

fn linear_regression(args: &DataArgs) -> Res<Outcome> {
    let params = LinearRegression::params();
    regress(args, |t| params.fit(t))
}

fn ridge(args: &DataArgs) -> Res<Outcome> {
    let params = Ridge::params().alpha(1.0);
    regress(args, |t| params.fit(t))
}

fn lasso(args: &DataArgs) -> Res<Outcome> {
    let params = ElasticNet::lasso_params().alpha(0.01);
    regress(args, |t| params.fit(t))
}

fn logistic(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let params = LogisticRegression::params();
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

fn bernoulli_nb(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let params = BernoulliNB::params();
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

fn multinomial_nb(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let params = MultinomialNB::params();
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

fn gaussian_nb(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (train, test) = (data::densified(train)?, data::densified(test)?);
    let params = GaussianNB::params();
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

/// Queries of the brute-force kNN case: the first rows of ijcnn1's test file.
const KNN_QUERIES: usize = 10_000;

fn knn_brute(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (train, test) = (data::densified(train)?, data::densified(test)?);
    let test = test.select(&(0..KNN_QUERIES.min(test.n_samples())).collect::<Vec<_>>())?;
    let params = KNeighborsClassifier::params()
        .n_neighbors(5)
        .algorithm(Algorithm::Brute);
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

fn knn_kd_tree(args: &DataArgs) -> Res<Outcome> {
    let params = KNeighborsRegressor::params()
        .n_neighbors(5)
        .algorithm(Algorithm::KdTree);
    regress(args, |t| params.fit(t))
}

fn gradient_boosting(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let (train, test) = (
        data::positive_targets(train)?,
        data::positive_targets(test)?,
    );
    let params = GradientBoostingClassifier::params()
        .max_iter(100)
        .early_stopping(EarlyStopping::Off);
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

/// k-means from the first 10 training rows on both sides (same start, so the same iterations);
/// scored by the training inertia (lower is better), predict = nearest centre of the test rows.
fn kmeans(args: &DataArgs) -> Res<Outcome> {
    kmeans_with(args, KMeansAlgorithm::Lloyd)
}

/// As [`kmeans`], by Elkan's iteration (the same model, found with fewer distances).
fn kmeans_elkan(args: &DataArgs) -> Res<Outcome> {
    kmeans_with(args, KMeansAlgorithm::Elkan)
}

fn kmeans_with(args: &DataArgs, algorithm: KMeansAlgorithm) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let init = KMeansInit::Centers(
        train
            .records
            .select_rows(&(0..10).collect::<Vec<_>>())?
            .to_dense()
            .unwrap(),
    );
    let params = KMeans::params()
        .n_clusters(10)
        .init(init)
        .algorithm(algorithm);
    let (model, fit_s) = timed(|| params.fit(&train.records));
    let model = model?;
    let (predicted, predict_s) = timed(|| model.predict(&test.records));
    predicted?;
    Ok(Outcome {
        fit_s,
        predict_s: Some(predict_s),
        score: model.inertia(),
        metric: "inertia".into(),
        n: train.n_samples(),
        d: train.n_features(),
        objective: None,
        n_sv: None,
    })
}

/// PCA fitted on the training rows, predict = transform of the test rows; scored by the
/// explained variance ratio of the first 10 components.
fn pca(args: &DataArgs, params: margin_cluster::PcaParams) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let (model, fit_s) = timed(|| params.fit(&train.records));
    let model = model?;
    let (projected, predict_s) = timed(|| margin_core::Transform::transform(&model, &test.records));
    projected?;
    Ok(Outcome {
        fit_s,
        predict_s: Some(predict_s),
        score: model.explained_variance_ratio().iter().take(10).sum(),
        metric: "evr10".into(),
        n: train.n_samples(),
        d: train.n_features(),
        objective: None,
        n_sv: None,
    })
}

fn pca_full(args: &DataArgs) -> Res<Outcome> {
    pca(args, Pca::params().svd_solver(SvdSolver::Full))
}

fn pca_randomized(args: &DataArgs) -> Res<Outcome> {
    pca(
        args,
        Pca::params()
            .n_components(NComponents::Count(10))
            .svd_solver(SvdSolver::Randomized),
    )
}

fn decision_tree(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (train, test) = (data::densified(train)?, data::densified(test)?);
    let params = DecisionTreeClassifier::params();
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

fn random_forest(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (train, test) = (data::densified(train)?, data::densified(test)?);
    let params = RandomForestClassifier::params();
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

fn adaboost(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (train, test) = (data::densified(train)?, data::densified(test)?);
    let params = AdaBoostClassifier::params();
    Ok(classify(&train, &test, |t| params.fit(t))?.1)
}

#[cfg(test)]
mod tests {
    use super::CASES;
    use margin_benches::coverage::BENCHED;

    #[test]
    fn every_case_is_listed_in_the_coverage_table_in_order() {
        let cases: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        let listed: Vec<&str> = BENCHED.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            cases, listed,
            "benches/src/coverage.rs's BENCHED lists the cases"
        );
    }
}
