//! k-nearest-neighbour classification (scikit-learn's `KNeighborsClassifier`).

use margin_core::params::Params;
use margin_core::{
    Dataset, DenseMatrix, Error, Fit, Label, Matrix, Predict, PredictProba, Records, Result,
    model_check, validate,
};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize, Serializer};

use crate::index::{Neighbors, SearchIndex, SearchParams};
use crate::supervised::{fit_index, inconsistent, index_accessors, load_index};
use crate::weights::Weights;

/// Parameters of [`KNeighborsClassifier`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct KNeighborsClassifierParams {
    /// Neighbours per query (default 5, ≥ 1 and at most the training rows).
    #[param(
        help = "neighbours per query (at most the training rows)",
        default = 5,
        valid = ("an integer ≥ 1", |k| *k >= 1)
    )]
    n_neighbors: usize,
    /// How neighbours' votes are weighted (default [`Weights::Uniform`]).
    #[param(help = "equal votes, or 1/distance (exact matches take over)", default = Weights::Uniform)]
    weights: Weights,
    #[param(flatten)]
    search: SearchParams,
}

/// A fitted k-nearest-neighbour classifier: the training records, their classes, and a search
/// index.
///
/// A query's class scores are the summed weights of its `k` nearest training rows per class;
/// `predict_proba` divides them by their total and `predict` takes the largest, ties to the
/// class first in sorted label order (scikit-learn's choice: its vote takes the smallest
/// class index among the tied).
#[derive(Debug, Deserialize)]
#[serde(try_from = "ClassifierFile")]
pub struct KNeighborsClassifier {
    params: KNeighborsClassifierParams,
    index: SearchIndex,
    labels: Vec<Label>,
    /// Each training row's index into `labels`.
    y: Vec<usize>,
}

#[derive(Deserialize)]
struct ClassifierFile {
    params: KNeighborsClassifierParams,
    records: Matrix,
    labels: Vec<Label>,
    y: Vec<usize>,
}

#[derive(Serialize)]
struct ClassifierFileRef<'a> {
    params: &'a KNeighborsClassifierParams,
    records: &'a Matrix,
    labels: &'a [Label],
    y: &'a [usize],
}

impl Serialize for KNeighborsClassifier {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        ClassifierFileRef {
            params: &self.params,
            records: self.index.records(),
            labels: &self.labels,
            y: &self.y,
        }
        .serialize(s)
    }
}

impl TryFrom<ClassifierFile> for KNeighborsClassifier {
    type Error = Error;

    fn try_from(f: ClassifierFile) -> Result<Self> {
        let invalid = |what: String| inconsistent("classifier", what);
        if f.labels.len() < 2 || f.y.iter().any(|&c| c >= f.labels.len()) {
            return Err(invalid(format!(
                "{} labels, class indices up to {:?}",
                f.labels.len(),
                f.y.iter().max()
            )));
        }
        if f.y.len() != f.records.n_samples() {
            return Err(invalid(format!(
                "{} classes for {} training rows",
                f.y.len(),
                f.records.n_samples()
            )));
        }
        let k = f.params.n_neighbors;
        let index = load_index("classifier", &f.params, &f.params.search, k, f.records)?;
        Ok(Self {
            params: f.params,
            index,
            labels: f.labels,
            y: f.y,
        })
    }
}

impl Fit for KNeighborsClassifierParams {
    type Model = KNeighborsClassifier;

    fn fit(&self, data: &Dataset) -> Result<KNeighborsClassifier> {
        let (index, present) = fit_index(self, &self.search, self.n_neighbors, data, |data| {
            let classes = data.targets.to_classes()?;
            validate::check_min_classes(&classes, 2)?;
            Ok(classes.present())
        })?;
        Ok(KNeighborsClassifier {
            params: self.clone(),
            index,
            labels: present.labels,
            y: present.y,
        })
    }
}

impl KNeighborsClassifier {
    /// The hyperparameters the model was fitted with (see [`KNeighborsClassifierParams`]; checked as `fit` checks
    /// them when a file is loaded).
    pub fn hyperparams(&self) -> &KNeighborsClassifierParams {
        &self.params
    }
    /// Default parameters.
    pub fn params() -> KNeighborsClassifierParams {
        KNeighborsClassifierParams::default()
    }

    /// Class labels, sorted (scikit-learn's `classes_`).
    pub fn classes(&self) -> &[Label] {
        &self.labels
    }

    /// Per query and class, the summed weights of the query's neighbours of that class.
    fn votes<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let k = self.params.n_neighbors;
        let nb = self.index.kneighbors(records, k)?;
        let c = self.labels.len();
        let mut scores = DenseMatrix::zeros(nb.n_queries(), c);
        let mut w = vec![0.0; k];
        for q in 0..nb.n_queries() {
            self.params.weights.of(nb.distances(q), &mut w);
            let row = scores.row_mut(q);
            for (&i, &wi) in nb.indices(q).iter().zip(&w) {
                row[self.y[i]] += wi;
            }
        }
        Ok(scores)
    }
}

index_accessors!(KNeighborsClassifier);

impl Predict for KNeighborsClassifier {
    type Output = Vec<Label>;

    /// The class with the largest (weighted) vote; ties to the first in label order.
    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        let scores = self.votes(records)?;
        Ok(scores
            .rows()
            .map(|s| {
                let best = (0..s.len()).fold(0, |b, j| if s[j] > s[b] { j } else { b });
                self.labels[best].clone()
            })
            .collect())
    }

    margin_core::class_scores_from!(predict_proba);
}

impl PredictProba for KNeighborsClassifier {
    /// The (weighted) fraction of each query's neighbours in each class; columns in label
    /// order.
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let mut scores = self.votes(records)?;
        let c = self.labels.len();
        for row in scores.as_mut_slice().chunks_exact_mut(c) {
            let total: f64 = row.iter().sum();
            row.iter_mut().for_each(|v| *v /= total);
        }
        Ok(scores)
    }
}

impl ModelFile for KNeighborsClassifier {
    const KIND: &'static str = "knn-classifier";
    const SCHEMA: u32 = 1;

    /// Distinct labels. Decoding (`TryFrom<ClassifierFile>`) already rebuilt the search index
    /// from the stored records and parameters, checking them as `fit` does, and checked each
    /// row's class and `n_neighbors` against the rows.
    fn check_consistent(&self) -> Result<()> {
        model_check::class_labels("labels", &self.labels)
    }
}
