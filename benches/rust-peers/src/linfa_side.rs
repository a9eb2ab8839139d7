//! The linfa side of each case it can run (descriptions and deviations in `main.rs`'s table).

use linfa::dataset::Pr;
use linfa::metrics::BinaryClassification;
use linfa::prelude::*;
use linfa_nn::distance::L2Dist;
use linfa_nn::{KdTree, LinearSearch, NearestNeighbour};
use ndarray::{Array1, Array2, ArrayView2};

use crate::Outcome;
use crate::data::{self, Classes, DataArgs, Dense, Res, timed};

fn matrix(data: &Dense) -> Res<Array2<f64>> {
    Ok(Array2::from_shape_vec((data.n, data.d), data.x.clone())?)
}

/// Class indices, with the training set's class count.
fn classes(train: &Dense, test: &Dense) -> (Array1<usize>, Vec<usize>) {
    let classes = Classes::of(&train.y);
    (
        Array1::from(classes.encode(&train.y)),
        classes.encode(&test.y),
    )
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

/// Binary C-SVC, RBF kernel `exp(−‖x−y‖²/ε)` with ε = d (γ = 1/d), C = 1, stopping tolerance
/// 1e-3 (LIBSVM's), shrinking on (LIBSVM's default).
pub fn svc_rbf(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let positive = *train
        .y
        .iter()
        .max_by(|a, b| a.total_cmp(b))
        .ok_or("no rows")?;
    let records = matrix(&train)?;
    let targets: Array1<bool> = train.y.iter().map(|&v| v == positive).collect();
    let dataset = Dataset::new(records, targets);
    let params = linfa_svm::Svm::<f64, bool>::params()
        .gaussian_kernel(train.d as f64)
        .pos_neg_weights(1.0, 1.0)
        .eps(1e-3)
        .shrinking(true);
    let (model, fit_s) = timed(|| params.fit(&dataset));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let truth: Vec<bool> = test.y.iter().map(|&v| v == positive).collect();
    let score = data::accuracy(&truth, predicted.as_slice().ok_or("non-contiguous")?);
    Ok(Outcome {
        n_sv: Some(model.nsupport()),
        ..outcome(fit_s, predict_s, score, "accuracy", &train)
    })
}

/// Gini, no depth limit, `min_impurity_decrease` at the smallest value linfa accepts (f64
/// epsilon; its default 1e-5 would prune).
pub fn decision_tree(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes(&train, &test);
    let dataset = Dataset::new(matrix(&train)?, y);
    let params = linfa_trees::DecisionTree::params()
        .split_quality(linfa_trees::SplitQuality::Gini)
        .max_depth(None)
        .min_impurity_decrease(f64::EPSILON);
    let (model, fit_s) = timed(|| params.fit(&dataset));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = data::accuracy(&truth, &predicted.to_vec());
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

pub fn gaussian_nb(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes(&train, &test);
    let dataset = Dataset::new(matrix(&train)?, y);
    let params = linfa_bayes::GaussianNb::params();
    let (model, fit_s) = timed(|| params.fit(&dataset));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = data::accuracy(&truth, &predicted.to_vec());
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// α = 1 (linfa's default, as scikit-learn's), dense input.
pub fn multinomial_nb(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let (y, truth) = classes(&train, &test);
    let dataset = Dataset::new(matrix(&train)?, y);
    let params = linfa_bayes::MultinomialNb::params().alpha(1.0);
    let (model, fit_s) = timed(|| params.fit(&dataset));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = data::accuracy(&truth, &predicted.to_vec());
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// Indices of the `k` nearest training rows of every query row.
fn neighbours(
    index: &dyn linfa_nn::NearestNeighbourIndex<f64>,
    queries: ArrayView2<'_, f64>,
    k: usize,
) -> Res<Vec<Vec<usize>>> {
    queries
        .rows()
        .into_iter()
        .map(|q| Ok(index.k_nearest(q, k)?.into_iter().map(|(_, i)| i).collect()))
        .collect()
}

/// Brute force (linfa-nn `LinearSearch`), k = 5, majority vote (ties to the smaller class
/// index); fit = building the index over the training rows.
pub fn knn_brute(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::split(args)?;
    let test = test.head(crate::KNN_QUERIES);
    let (y, truth) = classes(&train, &test);
    let n_classes = y.iter().max().map_or(0, |m| m + 1);
    let x = matrix(&train)?;
    let x_test = matrix(&test)?;
    let (index, fit_s) = timed(|| LinearSearch::new().from_batch(&x, L2Dist));
    let index = index?;
    let (predicted, predict_s) = timed(|| -> Res<Vec<usize>> {
        Ok(neighbours(index.as_ref(), x_test.view(), 5)?
            .iter()
            .map(|near| {
                let mut votes = vec![0usize; n_classes];
                for &i in near {
                    votes[y[i]] += 1;
                }
                // The first class with the most votes.
                (0..n_classes).rev().max_by_key(|&c| votes[c]).unwrap_or(0)
            })
            .collect())
    });
    let score = data::accuracy(&truth, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "accuracy", &train))
}

/// kd-tree (linfa-nn `KdTree`, leaf size 30 as scikit-learn's), k = 5, mean of the
/// neighbours' targets.
pub fn knn_kd_tree(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let x = matrix(&train)?;
    let x_test = matrix(&test)?;
    let (index, fit_s) = timed(|| KdTree::new().from_batch_with_leaf_size(&x, 30, L2Dist));
    let index = index?;
    let (predicted, predict_s) = timed(|| -> Res<Vec<f64>> {
        Ok(neighbours(index.as_ref(), x_test.view(), 5)?
            .iter()
            .map(|near| near.iter().map(|&i| train.y[i]).sum::<f64>() / near.len() as f64)
            .collect())
    });
    let score = data::r2(&test.y, &predicted?);
    Ok(outcome(fit_s, predict_s, score, "r2", &train))
}

/// Lloyd from the first 10 training rows (`KMeansInit::Precomputed`), one run, at most 300
/// iterations, tolerance 1e-4 (linfa's is on the centres' movement, scikit-learn's relative
/// to the data's variance).
pub fn kmeans(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let x = matrix(&train)?;
    let dataset = DatasetBase::from(x.clone());
    let init = x.slice(ndarray::s![..10, ..]).to_owned();
    let params = linfa_clustering::KMeans::params(10)
        .n_runs(1)
        .max_n_iterations(300)
        .tolerance(1e-4)
        .init_method(linfa_clustering::KMeansInit::Precomputed(init));
    let (model, fit_s) = timed(|| params.fit(&dataset));
    let model = model?;
    let x_test = matrix(&test)?;
    let (_, predict_s) = timed(|| model.predict(&x_test));
    // linfa's `inertia()` is a mean over the rows; the table's is the sum of squared distances
    // to the nearest centre, recomputed here (untimed) from linfa's centres.
    let centres = model.centroids();
    let score = data::inertia(&train, centres.as_slice().ok_or("non-contiguous centres")?);
    Ok(outcome(fit_s, predict_s, score, "inertia", &train))
}

/// 10 components by linfa's truncated SVD (LOBPCG, its only pure-Rust path); scored by the
/// variance the 10 explain over the total (linfa's own `explained_variance_ratio` divides by
/// the retained components' variance only, so it always sums to 1).
pub fn pca_10(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let dataset = DatasetBase::from(matrix(&train)?);
    let params = linfa_reduction::Pca::params(10);
    let (model, fit_s) = timed(|| params.fit(&dataset));
    let model = model?;
    let x_test = matrix(&test)?;
    let (_, predict_s) = timed(|| model.predict(&x_test));
    let explained: f64 = model.singular_values().iter().map(|s| s * s).sum();
    let score = explained / data::total_variance(&train);
    Ok(outcome(fit_s, predict_s, score, "evr10", &train))
}

/// Ordinary least squares with an intercept.
pub fn linear_regression(args: &DataArgs) -> Res<Outcome> {
    let (train, test) = data::regression(args)?;
    let dataset = Dataset::new(matrix(&train)?, Array1::from(train.y.clone()));
    let params = linfa_linear::LinearRegression::new();
    let (model, fit_s) = timed(|| params.fit(&dataset));
    let model = model?;
    let x_test = matrix(&test)?;
    let (predicted, predict_s) = timed(|| model.predict(&x_test));
    let score = data::r2(&test.y, &predicted.to_vec());
    Ok(outcome(fit_s, predict_s, score, "r2", &train))
}

/// linfa's ROC curve and its area, from the scores as `Pr` (linfa's probability type, f32).
pub fn auroc(args: &DataArgs) -> Res<Outcome> {
    let (scores, positive) = data::scores(args)?;
    let probabilities = scores
        .iter()
        .map(|&s| Pr::try_from(s as f32).map_err(|p| format!("score {p} is not in [0, 1]")))
        .collect::<Result<Vec<Pr>, _>>()?;
    let truth: Vec<bool> = positive.iter().map(|&p| p > 0.5).collect();
    let (auc, fit_s) = timed(|| {
        probabilities
            .as_slice()
            .roc(&truth)
            .map(|roc| roc.area_under_curve())
    });
    Ok(Outcome {
        fit_s,
        predict_s: None,
        score: f64::from(auc?),
        metric: "auc".into(),
        n: scores.len(),
        d: 1,
        n_sv: None,
    })
}
