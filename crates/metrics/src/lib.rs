//! # metrics: scores and model selection
//!
//! This crate will hold classification metrics (confusion matrix, precision/recall/F-β, MCC,
//! κ, ROC and precision–recall curves, AUROC, log-loss), regression metrics (MSE, MAE, R², …),
//! clustering scores, cross-validation, grid and random search, and SVG plots of the curves.
//! It is filled by the metrics issue; nothing is implemented yet.
