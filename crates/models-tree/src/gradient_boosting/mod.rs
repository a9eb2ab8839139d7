//! # Histogram gradient boosting
//!
//! [`GradientBoostingClassifier`] and [`GradientBoostingRegressor`] follow scikit-learn's
//! `HistGradientBoostingClassifier` / `HistGradientBoostingRegressor`: each feature is cut
//! into at most `max_bins` quantile bins (plus one bin for missing values), and every tree is
//! grown on per-bin sums of the loss's gradients and hessians, so finding a split costs
//! O(bins) per feature instead of O(samples) and the booster scales to millions of rows.
//!
//! ```
//! use margin_core::{split, Fit, Predict, PredictProba, Records};
//! use margin_io::datasets;
//! use margin_tree::{EarlyStopping, GradientBoostingClassifier};
//!
//! let data = datasets::heart_scale()?;
//! let (train, test) = split::train_test_split(&data, 0.25, true, 7)?;
//! let model = GradientBoostingClassifier::params()
//!     .learning_rate(0.1)
//!     .max_iter(50)
//!     .early_stopping(EarlyStopping::Off)
//!     .seed(7)
//!     .fit(&train)?;
//! let predicted = model.predict(&test.records)?;
//! let truth = test.targets.values()?; // a LIBSVM file's labels are numbers
//! let correct = predicted.iter().zip(truth.iter()).filter(|(p, t)| p == t).count();
//! assert!(correct as f64 / test.n_samples() as f64 > 0.7);
//! assert_eq!(model.predict_proba(&test.records)?.ncols(), 2);
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! ## How a model is fitted
//!
//! - **Binning.** Per feature, the edges are the midpoints between distinct values when there
//!   are at most `max_bins` of them, else the `k / max_bins` weighted quantiles (averaged
//!   inverted CDF, as scikit-learn), found on 200 000 rows drawn with replacement by `seed`
//!   when there are more. Values are stored as `u8` bins feature by feature (column-major: the
//!   root's histogram pass reads one contiguous byte column per feature) and, for training,
//!   also sample by sample (row-major: a node whose samples are scattered fetches one cache
//!   line per sample for all its features instead of one per feature).
//! - **Histograms.** `(Σ gradient, Σ hessian, count)` per bin, gradients and hessians kept in
//!   `f32` side by side and summed in `f64`. Of two siblings, the smaller is built from its
//!   samples and the larger is the parent minus it. A root reads each feature's bins column
//!   by column, features in groups on both cores, a tile of rows at a time so the tile's
//!   gradients stay cached across its group; any other node gathers its samples' rows of
//!   bins a tile at a time (asking for the lines of samples ahead) and adds four features per
//!   pass, in chunks of at least 16 384 samples on both cores whose boundaries depend only on
//!   the sample count, added in chunk order. Every bin's sums are thus added in sample order
//!   within fixed chunks, and partitions of large nodes are likewise cut into fixed blocks:
//!   results are bit-identical whatever the thread count.
//! - **Trees**, best-first: the open node with the largest gain
//!   `G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)` is split next until `max_leaf_nodes` leaves;
//!   `max_depth`, `min_samples_leaf` (and a hessian of at least 10⁻³ per side) limit it;
//!   leaves are `−G/(H+λ) × learning_rate`. Each split learns where missing values (NaN) go
//!   by scanning the bins both ways; a feature without NaN at fit time sends them to the
//!   child that had more samples.
//! - **Losses.** Regressor: squared error (baseline: the mean) or absolute error (baseline:
//!   the median; leaves refitted to the median residual of their samples). Classifier: log
//!   loss, binary (one tree per iteration on the log-odds; baseline: the log-odds of the
//!   class frequency) or multinomial (one tree per class per iteration; baseline: the centred
//!   log class frequencies). Sample weights and class weights multiply gradients and hessians.
//! - **Early stopping**: a stratified (classifier) `validation_fraction` is held out; after
//!   each iteration its mean loss is recorded ([`GradientBoostingClassifier::validation_score`])
//!   and fitting stops when the last `n_iter_no_change` scores do not beat the one before them
//!   by more than `tol`.
//! - **Convergence.** With early stopping on, a fit whose `max_iter` iterations ran out before
//!   the rule fired (the held-out loss still improved by more than `tol`) reports the limit
//!   through `convergence()` ([`Iterative`](margin_core::Iterative)), and the CLI warns:
//!   more iterations would likely help, as scikit-learn's `MLPClassifier` warns when its early
//!   stopping never fires (its `HistGradientBoosting*` do not warn). With early stopping off
//!   `max_iter` is the size of the ensemble and is never reported.
//! - **Rows held in parts** (files, partitions, machines): `fit_parts` on either params
//!   ([`GradientBoostingRegressorParams::fit_parts`]) grows the same trees from histograms
//!   summed over the parts, one pass ([`BoostingStep`], [`BoostingSums`]) per tree level;
//!   each part recomputes its rows' raw predictions from the ensemble so far. The bins come
//!   from a uniform sample of at most 200 000 rows. `margin-datafusion` runs the passes as
//!   queries.
//!
//! ## Hyperparameters
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `learning_rate` | 0.1 | shrinkage of every leaf value |
//! | `max_iter` | 100 | boosting iterations |
//! | `max_leaf_nodes` | `Some(31)` | leaves per tree (best-first growth) |
//! | `max_depth` | `None` | depth limit |
//! | `min_samples_leaf` | 20 | fewest samples per leaf (fewer than 2 × as many training samples: refused) |
//! | `l2_regularization` | 0 | λ in the leaf values and gains |
//! | `max_bins` | 255 | bins for non-missing values (≤ 255; one more for NaN) |
//! | `early_stopping` | `Auto` | `Auto` (on above 10 000 samples), `On`, `Off` |
//! | `validation_fraction` | 0.1 | held out for early stopping |
//! | `n_iter_no_change` | 10 | patience of early stopping |
//! | `tol` | 1e-7 | smallest improvement that counts |
//! | `subsample` | 1.0 | rows per iteration (see below) |
//! | `allow_missing` | true | NaN is a missing value (false: refused) |
//! | `seed` | 0 | binning subsample, validation split, `subsample` |
//! | `class_weight` (classifier) | uniform | per-class weights |
//! | `loss` (regressor) | `SquaredError` | or `AbsoluteError` |
//!
//! ## Where margin differs from scikit-learn
//!
//! - `subsample`: scikit-learn's histogram boosters have none; this is the classic
//!   `GradientBoosting*`'s row subsampling (each iteration's trees grow on a share of the rows
//!   drawn without replacement), off by default.
//! - `allow_missing`: scikit-learn always treats NaN as missing; margin does too by default,
//!   and with `false` refuses NaN like every other margin model. Infinite values are refused.
//! - The validation split and the binning subsample use margin's seeded generator, so the
//!   same `seed` does not pick the same rows as scikit-learn's `random_state`; with early
//!   stopping off and fewer than 200 000 rows the two fit the same bins.
//! - A fit whose trees grow on fewer than `2 · min_samples_leaf` samples (what early stopping's
//!   validation split leaves, or one `subsample` draw) is refused: no tree could split, and
//!   scikit-learn silently returns the baseline. At the default of 20 that is any set below 40
//!   samples; lower `min_samples_leaf` for small sets.
//! - Huber loss, quantile/Poisson/gamma losses, categorical features, monotonic and
//!   interaction constraints and warm starts are not provided.

mod binning;
mod booster;
mod classifier;
mod grower;
mod histogram;
mod loss;
mod params;
mod parts;
mod regressor;
mod tree;

pub use classifier::{GradientBoostingClassifier, GradientBoostingClassifierParams};
pub use params::EarlyStopping;
pub use parts::{BoostingStep, BoostingSums};
pub use regressor::{GradientBoostingRegressor, GradientBoostingRegressorParams, RegressionLoss};
