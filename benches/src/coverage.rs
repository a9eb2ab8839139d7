//! Which models of `margin train`'s registry the end-to-end benchmark times, and why the
//! others are not timed. Plain data with no imports: margin-cli's registry test includes this
//! file to check that every registered model is either timed here or has its reason, and the
//! `e2e` binary checks that every case it runs is listed.

/// Each case of the `e2e` benchmark (its name) with the registry entries it times (none for a
/// metric).
pub const BENCHED: &[(&str, &[&str])] = &[
    ("svc-heart", &["svc"]),
    ("svc-dna", &["svc"]),
    ("svc-a9a", &["svc"]),
    ("svc-w8a", &["svc"]),
    ("svc-ijcnn1", &["svc"]),
    ("svc-batched-a9a", &["svc"]),
    ("svc-batched-w8a", &["svc"]),
    ("svc-batched-ijcnn1", &["svc"]),
    ("linsvc-l2-a9a", &["linear-svc"]),
    ("linsvc-l1-a9a", &["linear-svc"]),
    ("linsvc-l2-w8a", &["linear-svc"]),
    ("linsvc-l1-w8a", &["linear-svc"]),
    ("pegasos-a9a", &["pegasos"]),
    ("logistic-a9a", &["logistic"]),
    ("auroc-1e6", &[]),
    ("linreg-200k", &["linear"]),
    ("ridge-200k", &["ridge"]),
    ("lasso-200k", &["lasso"]),
    ("mnb-dna", &["multinomial-nb"]),
    ("bnb-a9a", &["bernoulli-nb"]),
    ("gnb-letter", &["gaussian-nb"]),
    ("knn-brute-ijcnn1", &["knn-classifier"]),
    ("knn-kdtree-d3", &["knn-regressor"]),
    ("knn-kdtree-d8", &["knn-regressor"]),
    ("gb-synthetic", &["gradient-boosting"]),
    ("gb-synthetic-quick", &["gradient-boosting"]),
    ("kmeans-100k", &["kmeans"]),
    ("kmeans-elkan-100k", &["kmeans"]),
    ("pca-full-20k", &["pca"]),
    ("pca-randomized-20k", &["pca"]),
    ("tree-ijcnn1", &["tree"]),
    ("forest-ijcnn1", &["forest"]),
    ("adaboost-ijcnn1", &["adaboost"]),
];

/// Registry entries no case times, each with the reason.
pub const NOT_BENCHED: &[(&str, &str)] = &[
    (
        "svr",
        "the SMO solver and kernel cache the svc cases time; the LIBSVM differential tests check its answers",
    ),
    ("nu-svc", "the ν form of the SMO solver the svc cases time"),
    ("nu-svr", "the ν form of the SMO solver the svc cases time"),
    (
        "one-class-svm",
        "the SMO solver the svc cases time, on one class",
    ),
    (
        "elastic-net",
        "the coordinate descent lasso-200k times, with an L2 term",
    ),
    (
        "kernel-ridge",
        "one Gram matrix and faer's Cholesky: the time is the kernels crate's Gram (criterion bench) and faer's",
    ),
    (
        "perceptron",
        "no peer runs the same epochs: scikit-learn's Perceptron stops when its loss improves by less than tol, margin's after an epoch without a mistake",
    ),
    (
        "kernel-perceptron",
        "no peer (scikit-learn has no kernel perceptron)",
    ),
    (
        "tree-regressor",
        "the tree builder tree-ijcnn1 times, with the squared-error criterion",
    ),
    (
        "forest-regressor",
        "the tree builder and threads forest-ijcnn1 times, with the squared-error criterion",
    ),
    (
        "gradient-boosting-regressor",
        "the histogram builder the gb-synthetic cases time, with the squared-error loss",
    ),
    (
        "minibatch-kmeans",
        "random batches no peer draws the same way; the kmeans cases time its assignment step",
    ),
];
