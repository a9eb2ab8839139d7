//! # models-neighbors: nearest neighbours
//!
//! This crate will hold k-nearest-neighbour classification and regression, the distance
//! metrics, GEMM-blocked brute-force search and a kd-tree. It is filled by the neighbours
//! issue; nothing is implemented yet.
