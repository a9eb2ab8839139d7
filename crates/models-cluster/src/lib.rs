//! # models-cluster: clustering and decomposition
//!
//! This crate will hold k-means (k-means++ initialisation, Lloyd, mini-batch) and PCA through
//! faer's SVD (PCA lives here rather than in a separate decomposition crate: one crate for the
//! unsupervised models). It is filled by the neighbours/clustering issue; nothing is
//! implemented yet.
