//! A user's first hour, as the course runs it: ten small programs on the user's own data, each
//! through the entry points a newcomer reaches for (`Dataset::classification/regression` on
//! plain Rust values, the generators, scorers by name, pipelines), each answer checked against
//! what it must be: a closed form, a hand computation, or a brute-force count.

use margin::cluster::{KMeans, KMeansInit, NComponents, Pca};
use margin::kernels::{Kernel, Linear, Polynomial, Rbf};
use margin::linalg::RowView;
use margin::linear::{
    KernelPerceptron, KernelRidge, LinearRegression, LogisticRegression, MultinomialNB, Perceptron,
    Ridge,
};
use margin::neighbors::{KNeighborsClassifier, KNeighborsRegressor};
use margin::prelude::*;
use margin::preprocessing::PipelineModel;
use margin::svm::{LinearSolver, LinearSvc, Svc, SvmLoss};
use margin::tree::{
    DecisionTreeClassifier, GradientBoostingClassifier, RandomForestClassifier, export_text,
};
use margin::{DenseMatrix, labels_to};

fn assert_close(got: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (got - expected).abs() <= tol * (1.0 + expected.abs()),
        "{what}: {got} vs {expected}"
    );
}

/// Task 1: Ordinary least squares on a line, with standard errors and a prediction interval.
#[test]
fn ols_with_intervals_matches_the_textbook_formulas() {
    let x: Vec<Vec<f64>> = (0..8).map(|i| vec![i as f64]).collect();
    let y = [1.1, 2.9, 5.2, 6.8, 9.1, 11.0, 12.8, 15.2];
    let model = LinearRegression::params()
        .fit(&Dataset::regression(&x, y).unwrap())
        .unwrap();

    let n = y.len() as f64;
    let xs: Vec<f64> = x.iter().map(|r| r[0]).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|v| (v - mx) * (v - mx)).sum();
    let sxy: f64 = xs.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    assert_close(model.coef().get(0, 0), slope, 1e-12, "slope");
    assert_close(model.intercept()[0], intercept, 1e-12, "intercept");

    let rss: f64 = xs
        .iter()
        .zip(&y)
        .map(|(a, b)| (b - intercept - slope * a).powi(2))
        .sum();
    let s2 = rss / (n - 2.0);
    let se = model.coef_standard_errors().unwrap();
    assert_close(se[0], (s2 / sxx).sqrt(), 1e-10, "slope standard error");

    // The 95 % interval at x0 = 10: ŷ ± t(0.975, 6) s √(1 + 1/n + (x0 − x̄)²/Sxx), with
    // t(0.975, 6) = 2.446911851144969 (from tables).
    let x0 = 10.0;
    let interval = model.predict_interval(&[[x0]], 0.95).unwrap();
    let half = 2.446911851144969 * (s2 * (1.0 + 1.0 / n + (x0 - mx).powi(2) / sxx)).sqrt();
    assert_close(
        interval.upper[0] - interval.prediction[0],
        half,
        1e-9,
        "half width",
    );
}

/// Task 2: Ridge on one feature, and kernel ridge with a linear kernel, which is ridge without an
/// intercept.
#[test]
fn ridge_and_kernel_ridge_match_their_closed_forms() {
    let x = vec![vec![1.0], vec![2.0], vec![4.0], vec![5.0]];
    let y = [2.0, 3.5, 8.5, 9.0];
    let alpha = 2.0;
    let data = Dataset::regression(&x, y).unwrap();
    let (mx, my): (f64, f64) = (3.0, 23.0 / 4.0);
    let sxx: f64 = x.iter().map(|r: &Vec<f64>| (r[0] - mx).powi(2)).sum();
    let sxy: f64 = x.iter().zip(&y).map(|(r, b)| (r[0] - mx) * (b - my)).sum();
    let ridge = Ridge::params().alpha(alpha).fit(&data).unwrap();
    assert_close(
        ridge.coef().get(0, 0),
        sxy / (sxx + alpha),
        1e-12,
        "ridge slope",
    );

    // Without an intercept: w = Σxy / (Σx² + α); kernel ridge predicts w·x.
    let sxy0: f64 = x.iter().zip(&y).map(|(r, b)| r[0] * b).sum();
    let sxx0: f64 = x.iter().map(|r| r[0] * r[0]).sum();
    let w = sxy0 / (sxx0 + alpha);
    let kernel_ridge = KernelRidge::params()
        .alpha(alpha)
        .kernel(Linear)
        .fit(&data)
        .unwrap();
    let predicted = kernel_ridge.predict(&[[3.0]]).unwrap();
    assert_close(predicted[0], 3.0 * w, 1e-10, "kernel ridge prediction");
}

/// Task 3: Logistic regression on two points, where the optimum solves w = 2C·σ(−w), and its ROC.
#[test]
fn logistic_regression_solves_its_one_dimensional_optimum_and_ranks_perfectly() {
    let data = Dataset::classification([[-1.0], [1.0]], ["no", "yes"]).unwrap();
    let c = 1.5;
    let model = LogisticRegression::params()
        .c(c)
        .fit_intercept(false)
        .tol(1e-10)
        .fit(&data)
        .unwrap();
    // ½w² + C Σ log(1 + e^(−w)): the derivative vanishes where w = 2C σ(−w) (bisection).
    let sigma = |t: f64| 1.0 / (1.0 + (-t).exp());
    let (mut lo, mut hi) = (0.0, 10.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid - 2.0 * c * sigma(-mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    assert_close(model.coef().get(0, 0), lo, 1e-6, "w");
    assert_eq!(Scoring::RocAuc.score(&model, &data).unwrap(), 1.0);

    let moons = make_moons(&Moons::default().n_samples(200).noise(0.2).seed(3)).unwrap();
    let folds = StratifiedKFold::new(5).shuffle(1).split(&moons).unwrap();
    let auc = cross_validate(&LogisticRegression::params(), &moons, &folds, "roc_auc").unwrap();
    assert!(auc.iter().all(|&a| a > 0.85 && a <= 1.0), "{auc:?}");
}

/// Task 4: Multinomial naive Bayes on word counts: posteriors by hand with Laplace smoothing.
#[test]
fn naive_bayes_posteriors_equal_the_hand_computation() {
    // Columns: "free", "money", "meeting".
    let counts = [
        [2.0, 1.0, 0.0],
        [1.0, 2.0, 0.0],
        [0.0, 0.0, 2.0],
        [0.0, 1.0, 1.0],
    ];
    let data = Dataset::classification(counts, ["spam", "spam", "ham", "ham"]).unwrap();
    let model = MultinomialNB::params().fit(&data).unwrap();
    let message = [[1.0, 1.0, 1.0]];
    let proba = model.predict_proba(&message).unwrap();

    // ham (class 0): word totals (0, 1, 3), 4 in all; spam: (3, 3, 0), 6 in all; V = 3.
    let likelihood = |totals: [f64; 3], all: f64| -> f64 {
        totals
            .iter()
            .map(|t| (t + 1.0) / (all + 3.0))
            .product::<f64>()
            * 0.5
    };
    let (ham, spam) = (
        likelihood([0.0, 1.0, 3.0], 4.0),
        likelihood([3.0, 3.0, 0.0], 6.0),
    );
    assert_eq!(model.classes(), ["ham", "spam"]);
    assert_close(
        proba.get(0, 1),
        spam / (ham + spam),
        1e-12,
        "P(spam | message)",
    );
}

/// Task 5: Perceptrons on XOR: no line separates it; the degree-2 polynomial kernel does.
#[test]
fn perceptrons_on_xor_fail_linearly_and_succeed_with_a_kernel() {
    let xor = Dataset::classification(
        [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]],
        [-1, 1, 1, -1],
    )
    .unwrap();
    let primal = Perceptron::params().max_iter(50).fit(&xor).unwrap();
    assert!(!primal.convergence().converged());
    assert!(Scoring::Accuracy.score(&primal, &xor).unwrap() <= 0.75);

    let quadratic = Polynomial::with_degree(2).unwrap().with_coef0(1.0).unwrap();
    let dual = KernelPerceptron::params()
        .kernel(quadratic)
        .max_iter(50)
        .fit(&xor)
        .unwrap();
    assert!(dual.convergence().converged());
    assert_eq!(dual.predict(&xor.records).unwrap(), [-1, 1, 1, -1]);
}

/// Task 6: A hard-margin SVM on two points has w = 1, b = 0, α = ½ each; a soft margin with a
/// composed kernel separates the moons.
#[test]
fn svms_hard_margin_is_exact_and_composed_kernels_train() {
    let two = Dataset::classification([[-1.0], [1.0]], [-1, 1]).unwrap();
    let hard = Svc::params()
        .kernel(Linear)
        .c(1e6)
        .tol(1e-10)
        .fit(&two)
        .unwrap();
    assert_close(hard.coef().unwrap().get(0, 0), 1.0, 1e-8, "w");
    assert_close(hard.intercept()[0], 0.0, 1e-8, "b");
    let alpha = hard.dual_coef().unwrap();
    assert_close(alpha.get(0, 0).abs(), 0.5, 1e-8, "α");
    assert_close(hard.margin().unwrap()[0], 1.0, 1e-8, "margin");

    // The line: an RBF scaled by ½ plus a polynomial, straight into the builder.
    let kernel = Rbf::with_gamma(0.5)
        .unwrap()
        .scaled(0.5)
        .unwrap()
        .plus(Polynomial::with_degree(2).unwrap().with_coef0(1.0).unwrap());
    let (x, z) = ([0.3, -0.2], [1.0, 0.5]);
    let expected = 0.5 * (-0.5f64 * (0.7f64.powi(2) + 0.7f64.powi(2))).exp()
        + (0.3f64 * 1.0 - 0.2 * 0.5 + 1.0).powi(2);
    assert_close(
        kernel.eval(RowView::Dense(&x), RowView::Dense(&z)),
        expected,
        1e-14,
        "composed kernel",
    );
    let moons = make_moons(&Moons::default().n_samples(200).noise(0.1).seed(5)).unwrap();
    let soft = Svc::params().kernel(kernel).c(1.0).fit(&moons).unwrap();
    assert!(Scoring::Accuracy.score(&soft, &moons).unwrap() > 0.95);
}

/// Task 7: Pegasos against dual coordinate descent on the same hinge-loss problem.
#[test]
fn pegasos_reaches_the_objective_dual_coordinate_descent_finds() {
    let blobs = make_blobs(&Blobs::default().n_samples(300).centers(2).seed(11)).unwrap();
    let objective = |model: &LinearSvc| model.fit_report().runs()[0].objective.unwrap();
    let dcd = LinearSvc::params()
        .loss(SvmLoss::Hinge)
        .tol(1e-6)
        .fit(&blobs)
        .unwrap();
    // Pegasos is stochastic sub-gradient descent: its objective comes down towards the
    // optimum as it runs longer, from above.
    let pegasos = |epochs| {
        let solver = match LinearSolver::pegasos() {
            LinearSolver::Pegasos {
                batch_size,
                projection,
                iterate,
                ..
            } => LinearSolver::Pegasos {
                epochs,
                batch_size,
                projection,
                iterate,
            },
            dcd => dcd,
        };
        let model = LinearSvc::params()
            .solver(solver)
            .c(dcd.c())
            .fit(&blobs)
            .unwrap();
        objective(&model)
    };
    let (short, long) = (pegasos(50), pegasos(2000));
    assert!(objective(&dcd) <= long * (1.0 + 1e-9) && long < short);
    assert!(
        long <= objective(&dcd) * 1.02,
        "{long} vs {}",
        objective(&dcd)
    );
    assert_eq!(Scoring::Accuracy.score(&dcd, &blobs).unwrap(), 1.0);
}

/// Task 8: A tree splits a step at the midpoint between the classes and exports with the data's
/// feature names; a forest and boosting fit the moons.
#[test]
fn trees_split_at_midpoints_and_ensembles_fit_the_moons() {
    let x: Vec<Vec<f64>> = [0.0, 1.0, 2.0, 5.0, 6.0, 7.0]
        .iter()
        .map(|&v| vec![v])
        .collect();
    let data = Dataset::classification(&x, ["low", "low", "low", "high", "high", "high"])
        .unwrap()
        .with_feature_names(vec!["temperature".into()])
        .unwrap();
    let tree = DecisionTreeClassifier::params().fit(&data).unwrap();
    let root = tree.tree().nodes().next().unwrap();
    assert_eq!(root.threshold(), Some(3.5));
    let text = export_text(tree.tree(), &tree.export_options());
    assert!(text.contains("temperature <= 3.5"), "{text}");

    let moons = make_moons(&Moons::default().n_samples(300).noise(0.2).seed(7)).unwrap();
    let (train, test) = train_test_split(&moons, 0.3, true, 2).unwrap();
    let forest = RandomForestClassifier::params()
        .seed(1)
        .fit(&train)
        .unwrap();
    let boosting = GradientBoostingClassifier::params().fit(&train).unwrap();
    assert!(Scoring::Accuracy.score(&forest, &test).unwrap() > 0.9);
    assert!(Scoring::Accuracy.score(&boosting, &test).unwrap() > 0.9);
}

/// Task 9: k nearest neighbours: k = 1 gives back the training labels; the regressor averages the k
/// nearest targets, found here by sorting every distance.
#[test]
fn nearest_neighbours_match_brute_force() {
    let x = [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 3.0], [5.0, 1.0]];
    let y = [1.0, 2.0, 4.0, 8.0, 16.0];
    let one = KNeighborsClassifier::params()
        .n_neighbors(1)
        .fit(&Dataset::classification(x, ["a", "b", "c", "d", "e"]).unwrap())
        .unwrap();
    assert_eq!(one.predict(&x).unwrap(), ["a", "b", "c", "d", "e"]);

    let query: [f64; 2] = [0.9, 1.1];
    let mut by_distance: Vec<(f64, f64)> = x
        .iter()
        .zip(y)
        .map(|(r, t)| ((r[0] - query[0]).powi(2) + (r[1] - query[1]).powi(2), t))
        .collect();
    by_distance.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mean3 = by_distance[..3].iter().map(|p| p.1).sum::<f64>() / 3.0;
    let three = KNeighborsRegressor::params()
        .n_neighbors(3)
        .fit(&Dataset::regression(x, y).unwrap())
        .unwrap();
    assert_close(
        three.predict(&[query]).unwrap()[0],
        mean3,
        1e-12,
        "3-NN mean",
    );
}

/// Task 10: k-means centres are their clusters' means and its inertia their squared distances; the
/// first principal component is the top eigenvector of the 2 × 2 covariance.
#[test]
fn kmeans_and_pca_match_means_and_eigenvectors() {
    let x = DenseMatrix::from_rows(&[
        [0.0, 0.0],
        [0.0, 1.0],
        [1.0, 0.0],
        [10.0, 10.0],
        [10.0, 11.0],
        [12.0, 10.0],
    ])
    .unwrap();
    let kmeans = KMeans::params()
        .n_clusters(2)
        .init(KMeansInit::Centers(
            DenseMatrix::from_rows(&[[0.0, 0.0], [10.0, 10.0]]).unwrap(),
        ))
        .n_init(1)
        .fit(&x)
        .unwrap();
    let centers = kmeans.cluster_centers();
    assert_close(centers.get(0, 0), 1.0 / 3.0, 1e-12, "centre x");
    assert_close(centers.get(0, 1), 1.0 / 3.0, 1e-12, "centre y");
    assert_close(centers.get(1, 0), 32.0 / 3.0, 1e-12, "centre x");
    assert_close(centers.get(1, 1), 31.0 / 3.0, 1e-12, "centre y");
    let inertia: f64 = x
        .rows()
        .zip(kmeans.labels())
        .map(|(r, &k)| (r[0] - centers.get(k, 0)).powi(2) + (r[1] - centers.get(k, 1)).powi(2))
        .sum();
    assert_close(kmeans.inertia(), inertia, 1e-12, "inertia");

    // Covariance [[a, b], [b, c]]: top eigenvalue λ = (a + c)/2 + √(((a − c)/2)² + b²), its
    // eigenvector ∝ (b, λ − a).
    let n = x.nrows() as f64;
    let mean = [
        x.rows().map(|r| r[0]).sum::<f64>() / n,
        x.rows().map(|r| r[1]).sum::<f64>() / n,
    ];
    let cov = |i: usize, j: usize| {
        x.rows()
            .map(|r| (r[i] - mean[i]) * (r[j] - mean[j]))
            .sum::<f64>()
            / (n - 1.0)
    };
    let (a, b, c) = (cov(0, 0), cov(0, 1), cov(1, 1));
    let lambda = (a + c) / 2.0 + (((a - c) / 2.0).powi(2) + b * b).sqrt();
    let norm = (b * b + (lambda - a).powi(2)).sqrt();
    let pca = Pca::params()
        .n_components(NComponents::Count(1))
        .fit(&x)
        .unwrap();
    let pc = pca.components().row(0);
    let sign = pc[0].signum();
    assert_close(sign * pc[0], b / norm, 1e-12, "component x");
    assert_close(sign * pc[1], (lambda - a) / norm, 1e-12, "component y");
    assert_close(
        pca.explained_variance()[0],
        lambda,
        1e-12,
        "explained variance",
    );
}

/// Own data in, labels out, grid search over a pipeline by name, the best model saved and
/// loaded back.
#[test]
fn own_data_through_a_searched_pipeline_saved_and_loaded() {
    let blobs = make_blobs(&Blobs::default().n_samples(120).centers(3).seed(21)).unwrap();
    let rows: Vec<Vec<f64>> = blobs
        .records
        .to_dense()
        .unwrap()
        .rows()
        .map(<[f64]>::to_vec)
        .collect();
    let names = ["red", "green", "blue"];
    let labels: Vec<&str> = blobs
        .labels()
        .unwrap()
        .iter()
        .map(|l| match i64::try_from(l.clone()) {
            Ok(k @ 0..=2) => names[k as usize],
            other => panic!("make_blobs gave class {other:?}"),
        })
        .collect();
    let data = Dataset::classification(&rows, labels.iter().copied()).unwrap();
    // Rows of the program's own may be ragged: a checked conversion makes them records.
    let records = Matrix::try_from(rows).unwrap();

    let pipe = Pipeline::new("scale", StandardScaler::params()).step("svc", Svc::params());
    let grid = Grid::new(pipe)
        .param("svc__C", [0.1, 1.0, 10.0])
        .unwrap()
        .param("svc__gamma", [0.1, 1.0])
        .unwrap();
    let folds = StratifiedKFold::new(3).shuffle(4).split(&data).unwrap();
    let result = search(grid.candidates().unwrap(), &data, &folds, "f1_macro").unwrap();
    assert!(result.mean_scores()[result.best] > 0.95);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.model");
    result.model.save(&path).unwrap();
    let loaded =
        PipelineModel::<(margin::preprocessing::StandardScaler,), Svc>::load(&path).unwrap();
    let predicted = loaded.predict(&records).unwrap();
    assert_eq!(predicted, result.model.predict(&records).unwrap());
    let as_text: Vec<String> = labels_to(&predicted).unwrap();
    let right = as_text.iter().zip(&labels).filter(|(p, t)| p == t).count();
    assert!(right as f64 / labels.len() as f64 > 0.95);

    // The user's own kernel type, used like the library's.
    struct Cosine;
    impl Kernel for Cosine {
        fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
            x.dot(&z) / (x.dot(&x) * z.dot(&z)).sqrt().max(f64::MIN_POSITIVE)
        }
        fn name(&self) -> String {
            "cosine".into()
        }
    }
    let own = Svc::params()
        .kernel(margin::kernels::UserKernel::new(Cosine))
        .fit(&data)
        .unwrap();
    assert!(Scoring::Accuracy.score(&own, &data).unwrap() > 0.5);
}
