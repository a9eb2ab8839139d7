//! # models-linear: linear models, perceptrons, naive Bayes
//!
//! Every model keeps scikit-learn's parameter names, defaults and objective, so results compare
//! one to one (each module's doc has its hyperparameter table and a runnable example):
//!
//! | model | module | fitted by |
//! |---|---|---|
//! | [`LinearRegression`] (QR, SVD, normal equations; standard errors, prediction intervals) | [`regression`] | faer QR / SVD / Cholesky |
//! | [`Ridge`] (one SVD for many alphas), [`KernelRidge`] (any kernel) | [`regression`] | faer Cholesky / SVD |
//! | [`ElasticNet`] (and the lasso: [`ElasticNet::lasso_params`]), regularization paths | [`elastic_net`] | [`margin_optim::cd`] (duality gap) |
//! | [`LogisticRegression`] (binary and multinomial; none / L2 / L1 / elastic net) | [`logistic`] | [`margin_optim::lbfgs`], [`margin_optim::newton`], [`margin_optim::gd`] |
//! | [`Perceptron`], [`KernelPerceptron`] | [`perceptron`] | the mistake-driven update |
//! | [`MultinomialNB`], [`BernoulliNB`], [`GaussianNB`] (streaming with `partial_fit`) | [`naive_bayes`] | counts and moments in log space |
//!
//! ```
//! use margin_core::{split::train_test_split, Fit, Predict};
//! use margin_io::datasets;
//! use margin_linear::LogisticRegression;
//!
//! let data = datasets::dna()?;
//! let (train, test) = train_test_split(&data, 0.25, true, 7)?;
//! let model = LogisticRegression::params().c(0.1).fit(&train)?;
//! let predicted = model.predict(&test.records)?;
//! assert_eq!(predicted.len(), test.n_samples());
//! # Ok::<(), margin_core::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod naive_bayes;
pub use naive_bayes::{
    BernoulliNB, BernoulliNBParams, GaussianNB, GaussianNBParams, MultinomialNB,
    MultinomialNBParams,
};
pub mod regression;
pub use regression::{
    KernelRidge, KernelRidgeParams, LeastSquaresStats, LinearRegression, LinearRegressionParams,
    LstsqSolver, PredictionInterval, Ridge, RidgeParams, RidgeSolver,
};
pub mod perceptron;
pub use perceptron::{KernelPerceptron, KernelPerceptronParams, Perceptron, PerceptronParams};
pub mod logistic;
pub use logistic::{
    LogisticParts, LogisticRegression, LogisticRegressionParams, LogisticSolver, Penalty,
};
pub mod elastic_net;
pub use elastic_net::{ElasticNet, ElasticNetParams, alpha_grid};

/// Whether `v` is a finite number > 0 (the range of strengths, tolerances and steps).
pub(crate) fn finite_positive(v: &f64) -> bool {
    v.is_finite() && *v > 0.0
}

/// Whether `v` is a finite number ≥ 0 (the range of smoothings and penalty strengths).
pub(crate) fn finite_non_negative(v: &f64) -> bool {
    v.is_finite() && *v >= 0.0
}

margin_core::impl_n_features!(
    BernoulliNB,
    ElasticNet,
    GaussianNB,
    KernelPerceptron,
    KernelRidge,
    LinearRegression,
    MultinomialNB,
    Ridge,
);
margin_core::impl_hyperparams!(
    BernoulliNB,
    ElasticNet,
    GaussianNB,
    KernelPerceptron,
    KernelRidge,
    LinearRegression,
    LogisticRegression,
    MultinomialNB,
    Perceptron,
    Ridge,
);
margin_core::impl_iterative!(
    ElasticNet,
    KernelPerceptron,
    LinearRegression,
    LogisticRegression,
    Perceptron,
);
