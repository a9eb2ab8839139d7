//! # optim: solvers that know nothing about models
//!
//! This crate will hold the optimisation algorithms margin's models are built on, each apart
//! from any model type (argmin's split of problem and solver):
//!
//! - SMO for the SVM dual (LIBSVM's second-order working-set selection, shrinking, and a
//!   kernel-column cache seen through a small column-provider trait defined here), and its ν
//!   variant: the kernel SVM issue;
//! - a (sub)gradient-descent driver, Pegasos and dual coordinate descent for linear SVMs: the
//!   linear-solvers issue;
//! - L-BFGS, Newton and coordinate descent: the models-linear issue.
//!
//! Every solver reports why it stopped. Nothing is implemented yet: this crate exists so that
//! the dependency graph (models → optim → core-linalg) is fixed from the start.
