//! The smartcore side of each case it can run (descriptions and deviations in `main.rs`'s
//! table).

use smartcore::algorithm::neighbour::KNNAlgorithmName;
use smartcore::cluster::kmeans::{KMeans, KMeansParameters};
use smartcore::decomposition::pca::{PCA, PCAParameters};
use smartcore::ensemble::random_forest_classifier::{
    RandomForestClassifier, RandomForestClassifierParameters,
};
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::linear::linear_regression::{
    LinearRegression, LinearRegressionParameters, LinearRegressionSolverName,
};
use smartcore::linear::ridge_regression::{
    RidgeRegression, RidgeRegressionParameters, RidgeRegressionSolverName,
};
use smartcore::naive_bayes::gaussian::{GaussianNB, GaussianNBParameters};
use smartcore::naive_bayes::multinomial::{MultinomialNB, MultinomialNBParameters};
use smartcore::neighbors::knn_classifier::{KNNClassifier, KNNClassifierParameters};
use smartcore::neighbors::knn_regressor::{KNNRegressor, KNNRegressorParameters};
use smartcore::svm::Kernels;
use smartcore::svm::svc::{MultiClassSVC, SVCParameters};
use smartcore::tree::decision_tree_classifier::{
    DecisionTreeClassifier, DecisionTreeClassifierParameters, SplitCriterion,
};

use crate::Outcome;
use crate::data::{self, Classes, DataArgs, Dense, Res, timed};

fn matrix(data: &Dense) -> Res<DenseMatrix<f64>> {
    Ok(DenseMatrix::new(data.n, data.d, data.x.clone(), false)?)
}

/// Class indices (smartcore's classifiers take integer labels).
fn classes<T: TryFrom<usize>>(train: &Dense, test: &Dense) -> Res<(Vec<T>, Vec<usize>)> {
    let classes = Classes::of(&train.y);
    let y = classes
        .encode(&train.y)
        .into_iter()
        .map(|c| T::try_from(c).map_err(|_| "too many classes".into()))
        .collect::<Res<_>>()?;
    Ok((y, classes.encode(&test.y)))
}

/// Accuracy of predicted class indices (of any numeric type) against the true ones.
fn index_accuracy<T: Copy + Into<f64>>(truth: &[usize], predicted: &[T]) -> f64 {
    let predicted: Vec<usize> = predicted
        .iter()
        .map(|&p| {
            let p: f64 = p.into();
            // A negative or fractional prediction is simply wrong.
            if p >= 0.0 && p.fract() == 0.0 {
                p as usize
            } else {
                usize::MAX
            }
        })
        .collect();
    data::accuracy(truth, &predicted)
}

fn outcome(fit_s: f64, predict_s: f64, score: f64, metric: &str, train: &Dense) -> Outcome {
    Outcome {
        fit_s,
        predict_s: Some(predict_s),
        score,
        metric: metric.into(),
        n: train.n,
        d: train.d,
        n_sv: None,
    }
}

/// `MultiClassSVC` (one-vs-one; one classifier for two classes), RBF γ = 1/d, C = 1, tol 1e-3,
/// 2 epochs (smartcore's default: its solver is the online LASVM, not SMO), seed 0.
pub fn svc_rbf(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes::<i32>(&train, &test)?;
    let x = matrix(&train)?;
    let params = SVCParameters::default()
        .with_c(1.0)
        .with_tol(1e-3)
        .with_kernel(Kernels::rbf().with_gamma(1.0 / train.d as f64))
        .with_seed(Some(0));
    let (model, fit_s) = timed(|| MultiClassSVC::fit(&x, &y, &params));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = index_accuracy(&truth, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// Gini, no depth limit (smartcore's defaults), seed-free (it tries every feature).
pub fn decision_tree(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes::<u32>(&train, &test)?;
    let x = matrix(&train)?;
    let params = DecisionTreeClassifierParameters::default().with_criterion(SplitCriterion::Gini);
    let (model, fit_s) = timed(|| DecisionTreeClassifier::fit(&x, &y, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = index_accuracy(&truth, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// 100 trees, gini, no depth limit, √d features per split (smartcore's default `m`), seed 0;
/// single-threaded (smartcore has no parallel fit).
pub fn random_forest(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes::<u32>(&train, &test)?;
    let x = matrix(&train)?;
    let params = RandomForestClassifierParameters::default()
        .with_n_trees(100)
        .with_criterion(SplitCriterion::Gini)
        .with_seed(0);
    let (model, fit_s) = timed(|| RandomForestClassifier::fit(&x, &y, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = index_accuracy(&truth, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

pub fn gaussian_nb(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes::<u32>(&train, &test)?;
    let x = matrix(&train)?;
    let (model, fit_s) = timed(|| GaussianNB::fit(&x, &y, GaussianNBParameters::default()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = index_accuracy(&truth, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// α = 1; smartcore's multinomial model takes unsigned integer counts, so the (0/1) features
/// are rounded to `u32`.
pub fn multinomial_nb(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes::<u32>(&train, &test)?;
    let counts = |d: &Dense| -> Res<DenseMatrix<u32>> {
        let x = d.x.iter().map(|&v| v.round().max(0.0) as u32).collect();
        Ok(DenseMatrix::new(d.n, d.d, x, false)?)
    };
    let x = counts(&train)?;
    let params = MultinomialNBParameters::default().with_alpha(1.0);
    let (model, fit_s) = timed(|| MultinomialNB::fit(&x, &y, params.clone()));
    let model = model?;
    let x_test = counts(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = index_accuracy(&truth, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// k = 5, brute force (`LinearSearch`), uniform weights, Euclidean distance.
pub fn knn_brute(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let test = test.head(crate::KNN_QUERIES);
    let (y, truth) = classes::<u32>(&train, &test)?;
    let x = matrix(&train)?;
    let params = KNNClassifierParameters::default()
        .with_k(5)
        .with_algorithm(KNNAlgorithmName::LinearSearch);
    let (model, fit_s) = timed(|| KNNClassifier::fit(&x, &y, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = index_accuracy(&truth, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// k = 5, cover tree (smartcore has no kd-tree), uniform weights.
pub fn knn_cover_tree(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let x = matrix(&train)?;
    let params = KNNRegressorParameters::default()
        .with_k(5)
        .with_algorithm(KNNAlgorithmName::CoverTree);
    let (model, fit_s) = timed(|| KNNRegressor::fit(&x, &train.y, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = data::r2(&test.y, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "r2", &train))
}

/// k = 10, at most 300 iterations, seed 0; smartcore chooses its own starting centres
/// (k-means++), so it does not start from the first 10 rows as the other sides do. Its
/// inertia is not exposed: the score is the sum of squared distances of the training rows to
/// the means of the clusters smartcore assigns them to (untimed).
pub fn kmeans(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let x = matrix(&train)?;
    let params = KMeansParameters {
        seed: Some(0),
        ..KMeansParameters::default()
    }
    .with_k(10)
    .with_max_iter(300);
    let (model, fit_s) = timed(|| KMeans::<f64, u32, _, Vec<u32>>::fit(&x, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (_, predict_s) = timed(|| model.predict(&x_test));
    let assigned = model.predict(&x)?;
    let score = data::inertia(&train, &cluster_means(&train, &assigned, 10));
    Ok(outcome(fit_s, predict_s, score, "inertia", &train))
}

/// The mean of each cluster's rows, row-major `k × d` (an empty cluster's mean is put far away).
fn cluster_means(data: &Dense, assigned: &[u32], k: usize) -> Vec<f64> {
    let mut sums = vec![0.0; k * data.d];
    let mut counts = vec![0usize; k];
    for (row, &c) in data.x.chunks_exact(data.d).zip(assigned) {
        let c = c as usize;
        counts[c] += 1;
        sums[c * data.d..(c + 1) * data.d]
            .iter_mut()
            .zip(row)
            .for_each(|(s, v)| *s += v);
    }
    for (c, &count) in counts.iter().enumerate() {
        let mean = &mut sums[c * data.d..(c + 1) * data.d];
        if count == 0 {
            mean.fill(f64::MAX);
        } else {
            mean.iter_mut().for_each(|s| *s /= count as f64);
        }
    }
    sums
}

/// PCA by the eigendecomposition of the covariance matrix (smartcore's only method: no
/// randomized solver), keeping `n_components`; scored by the variance of the training rows'
/// first 10 projections over the total variance (untimed: smartcore does not expose its
/// eigenvalues).
fn pca(args: &DataArgs, n_components: Option<usize>) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let x = matrix(&train)?;
    let params = PCAParameters::default().with_n_components(n_components.unwrap_or(train.d));
    let (model, fit_s) = timed(|| PCA::fit(&x, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (_, predict_s) = timed(|| model.transform(&x_test));
    let projected = model.transform(&x)?;
    let score = first_columns_variance(&projected, train.n, 10) / data::total_variance(&train);
    Ok(outcome(fit_s, predict_s, score, "evr10", &train))
}

/// `Σ_j Σ_i (p_ij − mean_j)²` over the first `k` columns of an `n`-row matrix.
fn first_columns_variance(p: &DenseMatrix<f64>, n: usize, k: usize) -> f64 {
    use smartcore::linalg::basic::arrays::Array;
    (0..k)
        .map(|j| {
            let column: Vec<f64> = (0..n).map(|i| *p.get((i, j))).collect();
            let mean = column.iter().sum::<f64>() / n as f64;
            column.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
        })
        .sum()
}

pub fn pca_full(args: &DataArgs) -> Res<Outcome> {
    pca(args, None)
}

pub fn pca_10(args: &DataArgs) -> Res<Outcome> {
    pca(args, Some(10))
}

/// Ordinary least squares with an intercept, QR solver.
pub fn linear_regression(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let x = matrix(&train)?;
    let params = LinearRegressionParameters::default().with_solver(LinearRegressionSolverName::QR);
    let (model, fit_s) = timed(|| LinearRegression::fit(&x, &train.y, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = data::r2(&test.y, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "r2", &train))
}

/// α = 1, Cholesky, intercept fitted, no normalisation (smartcore normalises by default;
/// scikit-learn and margin do not).
pub fn ridge(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let x = matrix(&train)?;
    let params = RidgeRegressionParameters::default()
        .with_alpha(1.0)
        .with_normalize(false)
        .with_solver(RidgeRegressionSolverName::Cholesky);
    let (model, fit_s) = timed(|| RidgeRegression::fit(&x, &train.y, params.clone()));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = data::r2(&test.y, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "r2", &train))
}

/// smartcore's `roc_auc_score` on the generated scores.
pub fn auroc(args: &DataArgs) -> Res<Outcome> {
    let (scores, positive) = data::scores(args)?;
    let (auc, fit_s) = timed(|| smartcore::metrics::roc_auc_score(&positive, &scores));
    Ok(Outcome {
        fit_s,
        predict_s: None,
        score: auc,
        metric: "auc".into(),
        n: scores.len(),
        d: 1,
        n_sv: None,
    })
}
