//! Every fitted model reports the width it was fitted on through `NFeatures`, the one accessor
//! code that handles many model kinds (the CLI's shape rules) relies on.

use margin::linalg::{CsrMatrix, Dataset, DenseMatrix, Fit, Matrix, NFeatures, Targets};
use margin::preprocessing::{
    KBinsDiscretizer, MinMaxScaler, OneHotEncoder, PolynomialFeatures, StandardScaler,
};
use margin::{cluster, kernels, linear, neighbors, svm, tree};

/// 40 samples of three non-negative integer features (counts, for the naive Bayes models),
/// two classes; dense, or the same values stored sparse.
fn data(sparse: bool) -> Dataset {
    let values: Vec<f64> = (0..40 * 3)
        .map(|k| ((k / 3) * 7 + (k % 3) * 3) % 5)
        .map(|v| v as f64)
        .collect();
    let dense = DenseMatrix::from_row_major(values, 40, 3).unwrap();
    let records: Matrix = if sparse {
        CsrMatrix::from_dense(&dense).into()
    } else {
        dense.into()
    };
    let y = (0..40).map(|i| (i % 2) as f64).collect();
    Dataset::new(records, Targets::Values(y)).unwrap()
}

fn width<M: NFeatures>(m: M) -> usize {
    m.n_features()
}

#[test]
fn every_fitted_model_knows_its_width() {
    for sparse in [false, true] {
        let d = &data(sparse);
        let x = &d.records;
        let widths = [
            ("Svc", width(svm::Svc::params().fit(d).unwrap())),
            ("Svr", width(svm::Svr::params().fit(d).unwrap())),
            (
                "LibsvmModel",
                width(svm::LibsvmModel::Svc(svm::Svc::params().fit(d).unwrap())),
            ),
            (
                "OneClassSvm",
                width(svm::OneClassSvm::params().fit(d).unwrap()),
            ),
            ("LinearSvc", width(svm::LinearSvc::params().fit(d).unwrap())),
            (
                "Logistic",
                width(linear::LogisticRegression::params().fit(d).unwrap()),
            ),
            (
                "Perceptron",
                width(linear::Perceptron::params().fit(d).unwrap()),
            ),
            (
                "KernelPerceptron",
                width(linear::KernelPerceptron::params().fit(d).unwrap()),
            ),
            (
                "MultinomialNB",
                width(linear::MultinomialNB::params().fit(d).unwrap()),
            ),
            (
                "BernoulliNB",
                width(linear::BernoulliNB::params().fit(d).unwrap()),
            ),
            (
                "GaussianNB",
                width(linear::GaussianNB::params().fit(d).unwrap()),
            ),
            (
                "Linear",
                width(linear::LinearRegression::params().fit(d).unwrap()),
            ),
            ("Ridge", width(linear::Ridge::params().fit(d).unwrap())),
            (
                "KernelRidge",
                width(linear::KernelRidge::params().fit(d).unwrap()),
            ),
            (
                "ElasticNet",
                width(linear::ElasticNet::params().fit(d).unwrap()),
            ),
            (
                "KnnC",
                width(neighbors::KNeighborsClassifier::params().fit(d).unwrap()),
            ),
            (
                "KnnR",
                width(neighbors::KNeighborsRegressor::params().fit(d).unwrap()),
            ),
            (
                "Nearest",
                width(neighbors::NearestNeighbors::params().fit(x).unwrap()),
            ),
            (
                "Tree",
                width(tree::DecisionTreeClassifier::params().fit(d).unwrap()),
            ),
            (
                "TreeR",
                width(tree::DecisionTreeRegressor::params().fit(d).unwrap()),
            ),
            (
                "Forest",
                width(
                    tree::RandomForestClassifier::params()
                        .n_estimators(3)
                        .fit(d)
                        .unwrap(),
                ),
            ),
            (
                "ForestR",
                width(
                    tree::RandomForestRegressor::params()
                        .n_estimators(3)
                        .fit(d)
                        .unwrap(),
                ),
            ),
            (
                "AdaBoost",
                width(tree::AdaBoostClassifier::params().fit(d).unwrap()),
            ),
            (
                "Boosting",
                width(
                    tree::GradientBoostingClassifier::params()
                        .max_iter(2)
                        .fit(d)
                        .unwrap(),
                ),
            ),
            (
                "BoostingR",
                width(
                    tree::GradientBoostingRegressor::params()
                        .max_iter(2)
                        .fit(d)
                        .unwrap(),
                ),
            ),
            (
                "KMeans",
                width(cluster::KMeans::params().n_clusters(2).fit(x).unwrap()),
            ),
            (
                "MiniBatchKMeans",
                width(
                    cluster::MiniBatchKMeans::params()
                        .n_clusters(2)
                        .fit(x)
                        .unwrap(),
                ),
            ),
            ("Pca", width(cluster::Pca::params().fit(x).unwrap())),
            (
                "StandardScaler",
                width(StandardScaler::params().fit(x).unwrap()),
            ),
            (
                "MinMaxScaler",
                width(MinMaxScaler::params().fit(x).unwrap()),
            ),
            (
                "Polynomial",
                width(PolynomialFeatures::params().fit(x).unwrap()),
            ),
            ("OneHot", width(OneHotEncoder::params().fit(x).unwrap())),
            ("KBins", width(KBinsDiscretizer::params().fit(x).unwrap())),
            (
                "Nystroem",
                width(
                    kernels::Nystroem::params()
                        .kernel(kernels::Rbf::with_gamma(0.5).unwrap())
                        .n_components(5)
                        .fit(x)
                        .unwrap(),
                ),
            ),
            (
                "RandomFourier",
                width(
                    kernels::RandomFourierFeatures::params()
                        .gamma(0.5)
                        .fit(x)
                        .unwrap(),
                ),
            ),
        ];
        for (name, w) in widths {
            assert_eq!(w, 3, "{name} (sparse: {sparse})");
        }
    }
}
