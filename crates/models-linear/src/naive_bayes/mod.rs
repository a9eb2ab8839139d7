//! # Naive Bayes classifiers
//!
//! - [`MultinomialNB`]: feature counts (word counts, pixel intensities) drawn from one
//!   multinomial distribution per class.
//! - [`BernoulliNB`]: binary features (present / absent), one Bernoulli per class and feature;
//!   unlike the multinomial model, an absent feature is evidence too.
//! - [`GaussianNB`]: continuous features, one normal distribution per class and feature.
//!
//! All three classify by Bayes' rule with features assumed independent given the class:
//! `P(c | x) ∝ P(c) Π_j P(x_j | c)`. Everything is computed in log space and normalised with
//! a log-sum-exp, so `predict_proba` stays exact when the likelihoods themselves underflow.
//! Parameter names, defaults and fitted values follow scikit-learn's
//! `sklearn.naive_bayes` (compared to 1e-10 in this crate's tests).
//!
//! Records may be dense or sparse ([`margin_core::CsrMatrix`]): the discrete models touch
//! only a sample's stored entries, in fitting and in predicting, so a bag-of-words matrix
//! costs O(non-zeros). Sample weights are honoured; every model streams through
//! [`PartialFit`](margin_core::PartialFit), and streaming the rows in any number of batches
//! gives the model one `fit` gives (the counts bit for bit; GaussianNB's means and variances
//! merge exactly up to rounding).
//!
//! Each model also fits from statistics gathered without holding the rows
//! ([`FitStats`](margin_core::FitStats)): [`MultinomialNBStats`], [`BernoulliNBStats`] and
//! [`GaussianNBStats`] take batches through `partial_fit` and merge across partitions, each of
//! which may see any subset of the classes (the model needs two in all).
//!
//! | model | parameter | default | meaning |
//! |---|---|---|---|
//! | Multinomial, Bernoulli | `alpha` | 1 | additive (Laplace/Lidstone) smoothing, ≥ 0; 0 = none |
//! | Multinomial, Bernoulli | `fit_prior` | true | class priors from class frequencies; false = uniform |
//! | Multinomial, Bernoulli | `class_prior` | none | given priors (sorted label order, summing to 1) |
//! | Bernoulli | `binarize` | `Some(0.0)` | a value above the threshold is 1, else 0; `None`: values already in [0, 1] |
//! | Gaussian | `var_smoothing` | 1e-9 | added to every variance, times the largest feature variance |
//! | Gaussian | `priors` | none | given priors (else the class frequencies) |
//!
//! A single class is refused with [`Error::TooFewClasses`](margin_core::Error::TooFewClasses)
//! (scikit-learn accepts it, but such a model ignores its input). MultinomialNB refuses
//! negative counts, naming the row and column.
//!
//! ```
//! use margin_core::{Fit, Predict, PredictProba, Records};
//! use margin_io::datasets;
//! use margin_linear::naive_bayes::BernoulliNB;
//!
//! let (train, test) = (datasets::dna()?, datasets::dna_test()?);
//! let model = BernoulliNB::params().alpha(1.0).fit(&train)?;
//! let predicted = model.predict(&test.records)?;
//! let proba = model.predict_proba(&test.records)?;
//! assert_eq!((proba.nrows(), proba.ncols()), (test.n_samples(), 3));
//! let truth = test.targets.values()?; // a LIBSVM file's labels are numbers
//! let correct = predicted.iter().zip(truth.iter()).filter(|(p, t)| p == t).count();
//! assert!(correct as f64 / predicted.len() as f64 > 0.9); // scikit-learn: 0.932546
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! Streaming, with the classes declared up front (scikit-learn's `classes=` on the first
//! `partial_fit`):
//!
//! ```
//! use margin_core::{Label, PartialFit, Predict};
//! use margin_io::datasets;
//! use margin_linear::naive_bayes::MultinomialNB;
//!
//! let data = datasets::dna()?;
//! let classes = [1.0, 2.0, 3.0].map(Label::Number);
//! let mut model = MultinomialNB::empty(MultinomialNB::params(), &classes, data.n_features())?;
//! for start in (0..data.n_samples()).step_by(500) {
//!     let rows: Vec<usize> = (start..(start + 500).min(data.n_samples())).collect();
//!     model.partial_fit(&data.select(&rows)?)?;
//! }
//! assert_eq!(model.class_count(), &[464.0, 485.0, 1051.0]);
//! # Ok::<(), margin_core::Error>(())
//! ```

mod bernoulli;
mod classes;
mod discrete;
mod gaussian;
mod log_space;
mod multinomial;

pub use bernoulli::{BernoulliNB, BernoulliNBParams, BernoulliNBStats};
pub use gaussian::{GaussianNB, GaussianNBParams, GaussianNBStats};
pub use multinomial::{MultinomialNB, MultinomialNBParams, MultinomialNBStats};

use margin_core::{DenseMatrix, Label, Records, Result, RowView, parallel};

/// One row of `n × k` output per sample, computed by `f(sample, out_row, scratch)`, where a
/// sample costs about `row_work` element operations (`margin_core::parallel`'s unit): on the
/// calling thread below the parallel rule's work, else on rayon tasks of whole blocks of rows
/// (each task owns a scratch buffer). Rows are independent, so the answer does not depend on
/// the thread count.
pub(crate) fn rows_in_parallel<R: Records + ?Sized>(
    records: &R,
    k: usize,
    row_work: usize,
    f: impl Fn(RowView<'_>, &mut [f64], &mut Vec<f64>) + Sync,
) -> DenseMatrix {
    let n = records.n_samples();
    let mut out = DenseMatrix::zeros(n, k);
    let block = |first: usize, chunk: &mut [f64]| {
        let mut scratch = Vec::new();
        for (r, dst) in chunk.chunks_exact_mut(k.max(1)).enumerate() {
            f(records.row(first + r), dst, &mut scratch);
        }
    };
    // A small prediction (dna's 1,186 test rows) spent longer handing fixed 256-row tasks to
    // the pool than computing them.
    parallel::for_row_blocks(out.as_mut_slice(), k, row_work, block);
    out
}

/// What every naive Bayes model computes, `ln P(c) + ln P(x | c)` per sample and class; the
/// prediction methods are derived from it once, in [`nb_predictions`].
pub(crate) trait JointLogLikelihood {
    /// Class labels, in the order of the likelihood columns.
    fn class_labels(&self) -> &[Label];
    /// Validates `records` (width, finiteness, model-specific ranges), then one row per sample.
    fn joint_log_likelihood<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix>;
}

/// The most likely class of each sample.
pub(crate) fn predict_labels<M: JointLogLikelihood, R: Records + ?Sized>(
    model: &M,
    records: &R,
) -> Result<Vec<Label>> {
    let jll = model.joint_log_likelihood(records)?;
    // Pushed into a vector of the final length: collecting into a `Result` cannot know the
    // length, and grew the vector by copies.
    let mut labels = Vec::with_capacity(jll.nrows());
    for (i, row) in jll.rows().enumerate() {
        labels.push(model.class_labels()[log_space::argmax(row, i)?].clone());
    }
    Ok(labels)
}

/// `ln P(c | x)`: the joint log-likelihoods normalised row by row.
pub(crate) fn predict_log_proba<M: JointLogLikelihood, R: Records + ?Sized>(
    model: &M,
    records: &R,
) -> Result<DenseMatrix> {
    let mut jll = model.joint_log_likelihood(records)?;
    log_space::normalize_rows(&mut jll)?;
    Ok(jll)
}

/// `Predict` (labels), `PredictProba`, and `predict_log_proba` for a model implementing
/// [`JointLogLikelihood`].
macro_rules! nb_predictions {
    ($model:ty) => {
        impl margin_core::Predict for $model {
            type Output = Vec<margin_core::Label>;

            /// The most probable class of each sample (the first in label order on a tie).
            fn predict<R: margin_core::Records + ?Sized>(
                &self,
                records: &R,
            ) -> margin_core::Result<Vec<margin_core::Label>> {
                crate::naive_bayes::predict_labels(self, records)
            }

            margin_core::class_scores_from!(predict_proba);
        }

        impl margin_core::PredictProba for $model {
            /// `P(class k | sample i)`: each row sums to 1; columns in label order.
            fn predict_proba<R: margin_core::Records + ?Sized>(
                &self,
                records: &R,
            ) -> margin_core::Result<margin_core::DenseMatrix> {
                let mut p = crate::naive_bayes::predict_log_proba(self, records)?;
                p.as_mut_slice().iter_mut().for_each(|v| *v = v.exp());
                Ok(p)
            }
        }

        impl $model {
            /// `ln P(class k | sample i)`, normalised in log space (exact where
            /// `predict_proba` would round to 0); columns in label order.
            pub fn predict_log_proba<R: margin_core::Records + ?Sized>(
                &self,
                records: &R,
            ) -> margin_core::Result<margin_core::DenseMatrix> {
                crate::naive_bayes::predict_log_proba(self, records)
            }
        }
    };
}

use nb_predictions;

/// `Serialize` for a model through its stored form (`$file`: the parameters and the state
/// that [`TryFrom`] rebuilds the model from), borrowed: serde's `into` would clone the whole
/// model first, tables dense in a huge width included. Field names, order and the struct name
/// are the owned form's, so the bytes are the same.
macro_rules! serialize_stored {
    ($model:ty, $file:literal, $params:ty, $state:ident: $state_ty:ty) => {
        impl serde::Serialize for $model {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #[derive(serde::Serialize)]
                #[serde(rename = $file)]
                struct Stored<'a> {
                    params: &'a $params,
                    $state: &'a $state_ty,
                }
                Stored {
                    params: &self.params,
                    $state: &self.$state,
                }
                .serialize(s)
            }
        }
    };
}
use serialize_stored;
