//! # models-tree: decision trees and ensembles
//!
//! This crate will hold CART / ID3 / C4.5-style decision trees with pruning and missing-value
//! handling, random forests and AdaBoost. It is filled by the models-tree issue; nothing is
//! implemented yet.
