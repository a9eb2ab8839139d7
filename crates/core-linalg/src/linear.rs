//! The shape every fitted linear model shares: `coef` as a [`DenseMatrix`] with one row per
//! output and `intercept` with one entry per row (scikit-learn's `coef_` and `intercept_`).
//!
//! [`LinearClassifierCore`] is the fitted part LogisticRegression, LinearSvc and Perceptron
//! hold: the classes, the weights, the intercepts, the decision function and the prediction by
//! sign (two classes) or by argmax (one-vs-rest, multinomial).
//! [`impl_linear_classifier!`](crate::impl_linear_classifier) gives a model that holds one in a
//! field `core` its accessors and its [`Predict`](crate::Predict) and
//! [`DecisionFunction`](crate::DecisionFunction) impls, each a call into the core.
//!
//! Model files store the weights row by row (a sequence of rows, as a `Vec<Vec<f64>>` is
//! written), so the layout does not depend on this in-memory type; [`one_row`] does the same
//! for a regressor's single weight vector.

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::dataset::{classes_from_scores, labels_from_scores};
use crate::dense::DenseMatrix;
use crate::error::Result;
use crate::label::Label;
use crate::records::{Records, linear_scores};
use crate::{memory, model_check, validate};

/// A fitted linear classifier: `w_k·x + b_k` per row `k` of [`coef`](Self::coef).
///
/// Two classes use one row, positive for `classes()[1]`; more use one row per class (one
/// against the rest, or the multinomial's), and predict the class of the largest score.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearClassifierCore {
    classes: Vec<Label>,
    coef: DenseMatrix,
    intercept: Vec<f64>,
}

impl LinearClassifierCore {
    /// The fitted classifier of `classes` (sorted) with weights `coef` (one row for two
    /// classes, one per class otherwise) and one intercept per row; a model file's load checks
    /// the agreement ([`check_consistent`](Self::check_consistent)).
    pub fn new(classes: Vec<Label>, coef: DenseMatrix, intercept: Vec<f64>) -> Self {
        Self {
            classes,
            coef,
            intercept,
        }
    }

    /// The fitted classifier of `classes` (sorted) with one weight vector of `n_features`
    /// values per row and one intercept per row; the rows are copied into one matrix, asked
    /// for first.
    pub fn from_rows(
        classes: Vec<Label>,
        n_features: usize,
        rows: &[Vec<f64>],
        intercept: Vec<f64>,
    ) -> Result<Self> {
        let mut coef = DenseMatrix::try_zeros(
            rows.len(),
            n_features,
            "the linear classifier's weights",
            memory::FEWER_FEATURES,
        )?;
        for (i, w) in rows.iter().enumerate() {
            model_check::len("coef row", w.len(), n_features)?;
            coef.row_mut(i).copy_from_slice(w);
        }
        Ok(Self {
            classes,
            coef,
            intercept,
        })
    }

    /// Class labels, sorted (the columns of `predict_proba`, and of the decision function for
    /// more than two classes).
    pub fn classes(&self) -> &[Label] {
        &self.classes
    }

    /// Weights, one row per binary problem or class: one row for two classes (positive for
    /// `classes()[1]`, scikit-learn's convention), else one per class.
    pub fn coef(&self) -> &DenseMatrix {
        &self.coef
    }

    /// Intercepts, one per row of [`coef`](Self::coef) (0 without an intercept).
    pub fn intercept(&self) -> &[f64] {
        &self.intercept
    }

    /// The number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.coef.ncols()
    }

    /// `w·x + b` per row of [`coef`](Self::coef): one column for two classes (positive for
    /// `classes()[1]`), one per class otherwise. Refuses records of another width.
    pub fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        validate::check_n_features(self.n_features(), records)?;
        let scores = linear_scores(records, &self.coef, &self.intercept);
        validate::check_finite_through(records, scores.as_slice())?;
        Ok(scores)
    }

    /// Predicted class indices into [`classes`](Self::classes): the sign of the one score
    /// for two classes, the largest score otherwise.
    pub fn predict_classes<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
        let scores = self.decision_function(records)?;
        Ok(classes_from_scores(&scores, self.classes.len()))
    }

    /// Predicted class labels.
    pub fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        let scores = self.decision_function(records)?;
        Ok(labels_from_scores(&scores, &self.classes))
    }

    /// The load check of a model file: at least two distinct sorted classes, one row (two
    /// classes) or one per class, one intercept per row, all finite.
    pub fn check_consistent(&self) -> Result<()> {
        model_check::class_labels("labels", &self.classes)?;
        model_check::linear_classifier(self.classes.len(), &self.coef, &self.intercept)
    }
}

/// The stored layout: the classes, the width, the weights as rows, the intercepts (the fields
/// LogisticRegression and LinearSvc wrote before this type existed, in their order).
impl Serialize for LinearClassifierCore {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("LinearClassifierCore", 4)?;
        s.serialize_field("labels", &self.classes)?;
        s.serialize_field("n_features", &self.n_features())?;
        s.serialize_field("coef", &Rows(&self.coef))?;
        s.serialize_field("intercept", &self.intercept)?;
        s.end()
    }
}

/// The stored fields, decoded before they become a [`LinearClassifierCore`].
#[derive(Deserialize)]
struct CoreParts {
    labels: Vec<Label>,
    n_features: usize,
    coef: Vec<Vec<f64>>,
    intercept: Vec<f64>,
}

impl<'de> Deserialize<'de> for LinearClassifierCore {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let p = CoreParts::deserialize(deserializer)?;
        Self::from_rows(p.labels, p.n_features, &p.coef, p.intercept).map_err(D::Error::custom)
    }
}

/// A matrix written as a sequence of rows (each a sequence of values).
struct Rows<'a>(&'a DenseMatrix);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.rows())
    }
}

/// A fitted single-output linear regressor's `y = w·x + b` (LinearRegression, Ridge,
/// ElasticNet): [`coef`](Self::coef) is a `1 × d` matrix and [`intercept`](Self::intercept)
/// has one entry, scikit-learn's shapes for one output written as for many.
///
/// Stored as `w` (a sequence of `d` values) then `b`, as a `Vec<f64>` and an `f64` are written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearRegressorCore {
    #[serde(with = "one_row")]
    coef: DenseMatrix,
    intercept: [f64; 1],
}

impl LinearRegressorCore {
    /// The regressor `w·x + b`.
    pub fn new(w: Vec<f64>, b: f64) -> Self {
        Self {
            coef: DenseMatrix::row_vector(w),
            intercept: [b],
        }
    }

    /// The weights as one row per output (one row).
    pub fn coef(&self) -> &DenseMatrix {
        &self.coef
    }

    /// The intercept, one per output (one; 0 when fitted without one).
    pub fn intercept(&self) -> &[f64] {
        &self.intercept
    }

    /// The weights `w` (the one row of [`coef`](Self::coef)).
    pub fn w(&self) -> &[f64] {
        self.coef.as_slice()
    }

    /// The intercept `b`.
    pub fn b(&self) -> f64 {
        self.intercept[0]
    }

    /// The number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.coef.ncols()
    }

    /// The load check of a model file: finite weights and intercept.
    pub fn check_consistent(&self) -> Result<()> {
        model_check::finite("coef", self.w())?;
        model_check::finite("intercept", &self.intercept)
    }
}

/// `#[serde(with = "margin_core::linear::one_row")]` on a `1 × d` [`DenseMatrix`]: stored as
/// its one row (a sequence of `d` values, as a `Vec<f64>` is written), for regressors whose
/// `coef()` is one row per output.
pub mod one_row {
    use super::*;

    /// Writes the matrix's only row.
    pub fn serialize<S: Serializer>(
        m: &DenseMatrix,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        m.as_slice().serialize(serializer)
    }

    /// Reads one row into a `1 × d` matrix.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<DenseMatrix, D::Error> {
        let w = Vec::<f64>::deserialize(deserializer)?;
        let d = w.len();
        DenseMatrix::from_row_major(w, 1, d).map_err(D::Error::custom)
    }
}

/// Gives a model that holds a [`LinearClassifierCore`] in a field `core` its inherent
/// `classes()`, `coef()`, `intercept()`, `n_features()` and `predict_classes()`, and its
/// [`Predict`](crate::Predict), [`DecisionFunction`](crate::DecisionFunction) and
/// [`NFeatures`](crate::NFeatures) impls, each a call into the core:
/// `margin_core::impl_linear_classifier!(Perceptron);`. A model that also estimates
/// probabilities names its [`PredictProba`](crate::PredictProba) impl, so
/// [`Predict::class_scores`](crate::Predict::class_scores) can offer them:
/// `impl_linear_classifier!(LogisticRegression: predict_proba)`.
#[macro_export]
macro_rules! impl_linear_classifier {
    ($($model:ty $(: $proba:ident)?),+ $(,)?) => {
        $(
            impl $model {
                /// Class labels, sorted (the columns of the decision function for more than
                /// two classes).
                pub fn classes(&self) -> &[$crate::Label] {
                    self.core.classes()
                }

                /// Weights, one row per binary problem or class: one row for two classes
                /// (positive for `classes()[1]`, scikit-learn's convention), else one per
                /// class.
                pub fn coef(&self) -> &$crate::DenseMatrix {
                    self.core.coef()
                }

                /// Intercepts, one per row of `coef()` (0 without an intercept).
                pub fn intercept(&self) -> &[f64] {
                    self.core.intercept()
                }

                /// The number of features the model was fitted on.
                pub fn n_features(&self) -> usize {
                    self.core.n_features()
                }

                /// Predicted class indices into `classes()`.
                pub fn predict_classes<R: $crate::Records + ?Sized>(
                    &self,
                    records: &R,
                ) -> $crate::Result<Vec<usize>> {
                    self.core.predict_classes(records)
                }
            }

            impl $crate::Predict for $model {
                type Output = Vec<$crate::Label>;

                fn predict<R: $crate::Records + ?Sized>(
                    &self,
                    records: &R,
                ) -> $crate::Result<Vec<$crate::Label>> {
                    self.core.predict(records)
                }

                $crate::class_scores_from!(decision_function $(, $proba)?);
            }

            impl $crate::DecisionFunction for $model {
                /// `w·x + b` per row of `coef()`: one column for two classes (positive for
                /// `classes()[1]`), one per class otherwise.
                fn decision_function<R: $crate::Records + ?Sized>(
                    &self,
                    records: &R,
                ) -> $crate::Result<$crate::DenseMatrix> {
                    self.core.decision_function(records)
                }
            }

            $crate::impl_n_features!($model);
        )+
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn core(classes: &[&str], rows: &[Vec<f64>], b: &[f64]) -> LinearClassifierCore {
        let classes = classes.iter().map(|c| Label::Text(c.to_string())).collect();
        LinearClassifierCore::from_rows(classes, rows[0].len(), rows, b.to_vec()).unwrap()
    }

    #[test]
    fn two_classes_predict_by_sign_more_by_argmax() {
        let binary = core(&["a", "b"], &[vec![1.0, -1.0]], &[0.5]);
        let x = DenseMatrix::from_rows(&[[1.0, 0.0], [0.0, 2.0]]).unwrap();
        let scores = binary.decision_function(&x).unwrap();
        assert_eq!(scores.as_slice(), &[1.5, -1.5]);
        assert_eq!(binary.predict_classes(&x).unwrap(), vec![1, 0]);
        assert_eq!(
            binary.predict(&x).unwrap(),
            vec![Label::Text("b".into()), Label::Text("a".into())]
        );

        let three = core(
            &["a", "b", "c"],
            &[vec![1.0, 0.0], vec![0.0, 1.0], vec![-1.0, -1.0]],
            &[0.0, 0.0, 0.5],
        );
        assert_eq!(three.coef().nrows(), 3);
        assert_eq!(three.n_features(), 2);
        let x = DenseMatrix::from_rows(&[[2.0, 1.0], [0.0, 3.0], [-1.0, -1.0]]).unwrap();
        assert_eq!(three.predict_classes(&x).unwrap(), vec![0, 1, 2]);
    }

    #[test]
    fn another_width_is_refused() {
        let binary = core(&["a", "b"], &[vec![1.0, -1.0]], &[0.5]);
        let x = DenseMatrix::from_rows(&[[1.0, 0.0, 3.0]]).unwrap();
        assert!(matches!(
            binary.decision_function(&x),
            Err(Error::ShapeMismatch { .. })
        ));
    }

    /// The stored bytes are those of the fields as they were before (labels, width, rows of
    /// weights, intercepts), so model files written earlier still load.
    #[test]
    fn stored_as_labels_width_rows_and_intercepts() {
        #[derive(Serialize, Deserialize)]
        struct Before {
            labels: Vec<Label>,
            n_features: usize,
            coef: Vec<Vec<f64>>,
            intercept: Vec<f64>,
        }
        let c = core(
            &["a", "b", "c"],
            &[vec![1.0, 0.25], vec![0.0, 1.0], vec![-1.0, -1.5]],
            &[0.0, 2.0, 0.5],
        );
        let before = Before {
            labels: c.classes().to_vec(),
            n_features: 2,
            coef: c.coef().rows().map(<[f64]>::to_vec).collect(),
            intercept: c.intercept().to_vec(),
        };
        let config = bincode::config::standard();
        let new = bincode::serde::encode_to_vec(&c, config).unwrap();
        assert_eq!(new, bincode::serde::encode_to_vec(&before, config).unwrap());
        let (back, _): (LinearClassifierCore, usize) =
            bincode::serde::decode_from_slice(&new, config).unwrap();
        assert_eq!(back, c);

        let ragged = Before {
            coef: vec![vec![1.0, 0.25], vec![0.0], vec![-1.0, -1.5]],
            ..before
        };
        let bytes = bincode::serde::encode_to_vec(&ragged, config).unwrap();
        let refused = bincode::serde::decode_from_slice::<LinearClassifierCore, _>(&bytes, config);
        assert!(refused.unwrap_err().to_string().contains("coef row"));
    }

    #[test]
    fn load_check_names_the_field_at_fault() {
        let mut c = core(&["a", "b"], &[vec![1.0, -1.0]], &[0.5]);
        assert!(c.check_consistent().is_ok());
        c.intercept.push(1.0);
        assert!(
            c.check_consistent()
                .unwrap_err()
                .to_string()
                .contains("intercept")
        );
        let c = core(&["a", "b"], &[vec![1.0, -1.0], vec![0.0, 1.0]], &[0.5, 0.0]);
        assert!(
            c.check_consistent()
                .unwrap_err()
                .to_string()
                .contains("coef")
        );
        let c = core(&["a", "b"], &[vec![f64::NAN, -1.0]], &[0.5]);
        assert!(
            c.check_consistent()
                .unwrap_err()
                .to_string()
                .contains("coef")
        );
    }

    #[test]
    fn a_regressor_is_stored_as_its_weights_then_its_intercept() {
        let r = LinearRegressorCore::new(vec![1.0, -2.0], 0.5);
        assert_eq!((r.coef().nrows(), r.n_features()), (1, 2));
        assert_eq!((r.intercept(), r.b()), (&[0.5][..], 0.5));
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(&r, config).unwrap();
        let before = (vec![1.0, -2.0], 0.5);
        assert_eq!(
            bytes,
            bincode::serde::encode_to_vec(before, config).unwrap()
        );
        let (back, _): (LinearRegressorCore, usize) =
            bincode::serde::decode_from_slice(&bytes, config).unwrap();
        assert_eq!(back, r);
        let bad = LinearRegressorCore::new(vec![1.0, f64::NAN], 0.5);
        assert!(
            bad.check_consistent()
                .unwrap_err()
                .to_string()
                .contains("coef")
        );
        let bad = LinearRegressorCore::new(vec![1.0], f64::INFINITY);
        assert!(
            bad.check_consistent()
                .unwrap_err()
                .to_string()
                .contains("intercept")
        );
    }

    #[test]
    fn one_row_is_stored_as_a_vector() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Now(#[serde(with = "one_row")] DenseMatrix);
        let m = DenseMatrix::from_rows(&[[1.0, -2.0, 3.5]]).unwrap();
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(Now(m.clone()), config).unwrap();
        assert_eq!(
            bytes,
            bincode::serde::encode_to_vec(vec![1.0, -2.0, 3.5], config).unwrap()
        );
        let (back, _): (Now, usize) = bincode::serde::decode_from_slice(&bytes, config).unwrap();
        assert_eq!(back, Now(m));
    }
}
