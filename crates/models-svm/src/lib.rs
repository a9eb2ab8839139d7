//! # models-svm: support vector machines
//!
//! This crate will hold C-SVC, ν-SVC, ε-SVR, ν-SVR, one-class SVM and the linear SVM, with
//! LIBSVM-compatible answers, multiclass one-vs-one, class weights and Platt probabilities. It
//! is filled by the kernel-SVM and linear-solver issues; nothing is implemented yet.
