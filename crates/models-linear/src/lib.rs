//! # models-linear: linear models, perceptrons, naive Bayes
//!
//! This crate will hold linear, ridge, lasso, elastic-net and kernel ridge regression,
//! logistic regression, the perceptron and kernel perceptron, and naive Bayes. It is filled by
//! the models-linear issue; nothing is implemented yet.
