//! The models `margin train` offers, in the order its model list shows them: each an estimator
//! of margin-any's registry (kind, role and parameters come from there) with its one-line
//! summary, the score its ROC curve ranks by and, where the command line adds options or
//! reports, its own training.

use crate::models::{ModelEntry, Roc};
use crate::{boosting_models, neighbor_models, tree_models};

/// Every model `margin train` knows.
pub const ENTRIES: &[ModelEntry] = &[
    ModelEntry {
        name: "svc",
        summary: "C-support vector classifier (LIBSVM's C-SVC; scikit-learn's SVC)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Decision),
    },
    ModelEntry {
        name: "svr",
        summary: "epsilon-support vector regression (LIBSVM's epsilon-SVR; scikit-learn's SVR)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "nu-svc",
        summary: "nu-support vector classifier (LIBSVM's nu-SVC; scikit-learn's NuSVC)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Decision),
    },
    ModelEntry {
        name: "nu-svr",
        summary: "nu-support vector regression (LIBSVM's nu-SVR; scikit-learn's NuSVR)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "one-class-svm",
        summary: "one-class SVM for novelty detection (+1 inlier, -1 outlier)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "linear-svc",
        summary: "linear SVM by dual coordinate descent (LIBLINEAR -s 1/-s 3; scikit-learn's LinearSVC)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Decision),
    },
    ModelEntry {
        name: "pegasos",
        summary: "linear SVM (hinge loss) by Pegasos stochastic sub-gradient descent",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Decision),
    },
    ModelEntry {
        name: "logistic",
        summary: "logistic regression, binary or multinomial (scikit-learn's LogisticRegression)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Decision),
    },
    ModelEntry {
        name: "lasso",
        summary: "L1-penalized least squares by coordinate descent (scikit-learn's Lasso)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "elastic-net",
        summary: "L1 + L2 penalized least squares by coordinate descent (scikit-learn's ElasticNet)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "multinomial-nb",
        summary: "multinomial naive Bayes for non-negative counts (scikit-learn's MultinomialNB)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "bernoulli-nb",
        summary: "Bernoulli naive Bayes for binary features (scikit-learn's BernoulliNB)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "gaussian-nb",
        summary: "Gaussian naive Bayes for continuous features (scikit-learn's GaussianNB)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "knn-classifier",
        summary: "k-nearest-neighbour vote (scikit-learn's KNeighborsClassifier)",
        params_help: "",
        own_training: Some(neighbor_models::train_classifier),
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "knn-regressor",
        summary: "k-nearest-neighbour mean (scikit-learn's KNeighborsRegressor)",
        params_help: "",
        own_training: Some(neighbor_models::train_regressor),
        roc: None,
    },
    ModelEntry {
        name: "linear",
        summary: "least-squares linear regression (scikit-learn's LinearRegression)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "ridge",
        summary: "ridge regression: least squares + alpha·|w|² (scikit-learn's Ridge)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "kernel-ridge",
        summary: "kernel ridge regression, no intercept (scikit-learn's KernelRidge)",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "perceptron",
        summary: "the perceptron rule w += eta0·y·x on mistakes (scikit-learn's Perceptron)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Decision),
    },
    ModelEntry {
        name: "kernel-perceptron",
        summary: "the perceptron rule in the dual, with a kernel (default (x·z + 1)²)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Decision),
    },
    ModelEntry {
        name: "tree",
        summary: "CART decision tree classifier (scikit-learn's DecisionTreeClassifier)",
        params_help: tree_models::TREE_HELP,
        own_training: Some(tree_models::train_tree),
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "tree-regressor",
        summary: "CART regression tree (scikit-learn's DecisionTreeRegressor)",
        params_help: tree_models::TREE_REGRESSOR_HELP,
        own_training: Some(tree_models::train_tree_regressor),
        roc: None,
    },
    ModelEntry {
        name: "forest",
        summary: "random forest classifier (scikit-learn's RandomForestClassifier)",
        params_help: "",
        own_training: Some(tree_models::train_forest),
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "forest-regressor",
        summary: "random forest regressor (scikit-learn's RandomForestRegressor)",
        params_help: "",
        own_training: Some(tree_models::train_forest_regressor),
        roc: None,
    },
    ModelEntry {
        name: "adaboost",
        summary: "AdaBoost (SAMME) over decision stumps (scikit-learn's AdaBoostClassifier)",
        params_help: "",
        own_training: None,
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "gradient-boosting",
        summary: "histogram gradient boosting, log loss (scikit-learn's HistGradientBoostingClassifier)",
        params_help: "",
        own_training: Some(boosting_models::train_classifier),
        roc: Some(Roc::Probability),
    },
    ModelEntry {
        name: "gradient-boosting-regressor",
        summary: "histogram gradient boosting regression (scikit-learn's HistGradientBoostingRegressor)",
        params_help: "",
        own_training: Some(boosting_models::train_regressor),
        roc: None,
    },
    ModelEntry {
        name: "kmeans",
        summary: "k-means clustering, Lloyd's or Elkan's algorithm (scikit-learn's KMeans); predict gives cluster indices",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "minibatch-kmeans",
        summary: "mini-batch k-means for large data (scikit-learn's MiniBatchKMeans); predict gives cluster indices",
        params_help: "",
        own_training: None,
        roc: None,
    },
    ModelEntry {
        name: "pca",
        summary: "principal component analysis (scikit-learn's PCA); apply with `margin transform`",
        params_help: "",
        own_training: None,
        roc: None,
    },
];

#[cfg(test)]
mod tests {
    use super::ENTRIES;

    /// [`crate::models::ModelEntry::estimator`] relies on it: every entry names an estimator
    /// of margin-any's registry, and no name is listed twice.
    #[test]
    fn every_entry_is_a_registered_estimator() {
        for (i, entry) in ENTRIES.iter().enumerate() {
            assert!(
                margin_any::registry::estimator(entry.name).is_some(),
                "`{}` is not registered in margin-any",
                entry.name
            );
            assert!(
                ENTRIES[..i].iter().all(|e| e.name != entry.name),
                "`{}` listed twice",
                entry.name
            );
        }
    }
}
