//! LIBSVM's text model files (`svm-train`'s output, `svm-predict`'s input): written byte for
//! byte as LIBSVM 3.37's `svm_save_model` writes them, and read from LIBSVM.
//!
//! Loading checks everything prediction will index or trust before a model is handed out, and
//! refuses a file naming the line (and column) at fault:
//! - the header: only LIBSVM's keys, each once and on one line, in the number LIBSVM writes
//!   (`rho`, `probA`, `probB`: one per pair of classes; `label`, `nr_sv`: one per class;
//!   `prob_density_marks`: ten), and only the keys that belong to the model's `svm_type` and
//!   `kernel_type`;
//! - counts that agree: `nr_class` ≥ 2 (exactly 2 for regression and one-class models; 1 for a
//!   classifier LIBSVM trained on one class, [`SingleClass`], with no pair and no SV line),
//!   `nr_sv` summing to `total_sv`, `total_sv` equal to the number of SV lines, distinct
//!   integer labels;
//! - numbers: `rho`, the coefficients, `probA`, `probB` and `prob_density_marks` finite;
//! - SV lines: `nr_class − 1` coefficients, then feature indices that increase, start at 1 (or
//!   at 0 when read zero-based, as LIBSVM's tools read them: [`LibsvmModel::from_text_indexed`])
//!   and fit a `u32`; for a precomputed kernel exactly `0:serial` with an integer serial ≥ 1.
//!
//! A margin model file (magic `MARGINMF`) is recognized and refused with the command that
//! reads it.

mod read;
mod write;

use std::path::Path;

use margin_core::{DenseMatrix, Error, Label, PredictProba, Records, Result};
use margin_io::IndexBase;
use margin_kernels::KernelSpec;

use crate::{LibsvmRun, OneClassSvm, Svc, Svr};

/// A model LIBSVM's file format can hold.
#[derive(Clone, Debug, PartialEq)]
pub enum LibsvmModel {
    /// `svm_type c_svc` or `nu_svc`.
    Svc(Svc),
    /// `svm_type epsilon_svr` or `nu_svr`.
    Svr(Svr),
    /// `svm_type one_class`.
    OneClass(OneClassSvm),
    /// `svm_type c_svc` or `nu_svc` with `nr_class 1`: what LIBSVM trains on classification
    /// data with a single class.
    SingleClass(SingleClass),
}

/// A classifier LIBSVM trained on data with one class (after grouping labels by `(int)y`):
/// no binary problem and no support vector; every prediction is the one label, with
/// probability 1. `margin svm-train` makes one where LIBSVM does ([`Svc`]'s own fit refuses a
/// single class).
#[derive(Clone, Debug, PartialEq)]
pub struct SingleClass {
    kernel: KernelSpec,
    label: i32,
    nu: bool,
    probability: bool,
    n_features: usize,
}

impl SingleClass {
    /// The model of `svm_train` for one class `label`: `nu` for ν-SVC (`nu_svc` in the file),
    /// `probability` for `-b 1` (empty `probA`/`probB` lines, and probability estimates of 1).
    pub fn new(kernel: KernelSpec, label: i32, nu: bool, probability: bool) -> Self {
        Self {
            kernel,
            label,
            nu,
            probability,
            n_features: 0,
        }
    }
    /// [`Self::new`] as a training in a run of LIBSVM's tools: reported to `run`'s observer as
    /// `svm_train` reports it (its warning of a single class, then a classifier trained with
    /// no support vector).
    pub fn new_in(
        kernel: KernelSpec,
        label: i32,
        nu: bool,
        probability: bool,
        run: &mut LibsvmRun<'_>,
    ) -> Self {
        let observer = run.observer();
        observer.single_class();
        observer.classifier_trained(0);
        Self::new(kernel, label, nu, probability)
    }
    /// The one class.
    pub fn label(&self) -> i32 {
        self.label
    }
    /// Trained as ν-SVC.
    pub fn is_nu(&self) -> bool {
        self.nu
    }
}

/// The hyperparameters a model read from (or written to) a LIBSVM file keeps (see
/// [`crate::SvcHyperparams`]); a [`SingleClass`] model keeps what its header implies, as a
/// classifier read from a file does.
impl margin_core::Hyperparams for LibsvmModel {
    fn describe_hyperparams(&self) -> Vec<margin_core::params::ParamInfo> {
        use margin_core::params::Params;
        match self {
            LibsvmModel::Svc(m) => m.hyperparams().describe(),
            LibsvmModel::Svr(m) => m.hyperparams().describe(),
            LibsvmModel::OneClass(m) => m.hyperparams().describe(),
            LibsvmModel::SingleClass(m) => {
                crate::SvcHyperparams::from_libsvm(&m.kernel, m.nu, m.probability).describe()
            }
        }
    }
}

impl LibsvmModel {
    /// The model in LIBSVM's text format, column `j` written as feature index `j + 1`.
    pub fn to_text(&self) -> Result<String> {
        self.to_text_indexed(IndexBase::One)
    }

    /// The model in LIBSVM's text format, column `j` written as feature index `j` for
    /// [`IndexBase::Zero`] (as LIBSVM's tools index their columns, index 0 included), `j + 1`
    /// otherwise. Precomputed-kernel lines are `0:serial` either way. A model the format cannot
    /// hold (a one-vs-rest classifier, a kernel other than LIBSVM's five, a label that is not an
    /// integer) is refused with [`Error::Unsupported`]: save it with margin's own model file.
    pub fn to_text_indexed(&self, base: IndexBase) -> Result<String> {
        let mut out = String::new();
        match self {
            LibsvmModel::Svc(m) => write::svc_text(m, base, &mut out)?,
            LibsvmModel::SingleClass(m) => write::single_class_text(m, &mut out)?,
            LibsvmModel::Svr(m) => write::expansion_text(
                if m.is_nu() { "nu_svr" } else { "epsilon_svr" },
                &m.expansion,
                m.laplace_scale.map(|s| ("probA", vec![s])),
                base,
                &mut out,
            )?,
            LibsvmModel::OneClass(m) => write::expansion_text(
                "one_class",
                &m.expansion,
                m.density_marks.map(|d| ("prob_density_marks", d.to_vec())),
                base,
                &mut out,
            )?,
        }
        Ok(out)
    }

    /// Writes the model to `path` in LIBSVM's format (whole or not at all: through a
    /// temporary file renamed into place).
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = self.to_text()?;
        margin_io::write_atomically(path, |w| w.write_all(text.as_bytes()))
    }

    /// Reads a LIBSVM model file (see the module documentation for what is checked).
    pub fn load(path: &Path) -> Result<Self> {
        Self::load_indexed(path, IndexBase::One)
    }

    /// [`Self::load`] with feature index `j` read as column `j` for [`IndexBase::Zero`] (as
    /// LIBSVM's tools read them, index 0 included); see [`Self::from_text_indexed`].
    pub fn load_indexed(path: &Path, base: IndexBase) -> Result<Self> {
        Self::from_bytes_indexed(&read::model_bytes(path)?, base)
    }

    /// Parses the bytes of a LIBSVM model file: refuses a margin model file (naming the command
    /// that reads it) and text that is not UTF-8 (naming the line), then [`Self::from_text`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes_indexed(bytes, IndexBase::One)
    }

    /// [`Self::from_bytes`] with the SV lines' indices read as `base` says.
    pub fn from_bytes_indexed(bytes: &[u8], base: IndexBase) -> Result<Self> {
        if bytes.starts_with(b"MARGINMF") {
            return Err(Error::model_file(
                "this is a margin model file (binary, written by `margin train`), not a LIBSVM text model: predict with it using `margin predict MODEL_FILE DATA`",
            ));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let before = &bytes[..e.valid_up_to()];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let column = before.len()
                - before
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1)
                + 1;
            Error::parse(line, column, "invalid UTF-8: not a LIBSVM text model file")
        })?;
        Self::from_text_indexed(text, base)
    }

    /// Parses LIBSVM's text format (see the module documentation for what is checked), feature
    /// index `j` as column `j − 1`.
    pub fn from_text(text: &str) -> Result<Self> {
        Self::from_text_indexed(text, IndexBase::One)
    }

    /// Parses LIBSVM's text format with the SV lines' feature indices read as `base` says:
    /// [`IndexBase::Zero`] reads index `j` as column `j` (LIBSVM's own reading, where index 0
    /// is a feature like any other), [`IndexBase::One`] as column `j − 1` (index 0 refused),
    /// [`IndexBase::Auto`] as zero-based if some SV line holds index 0. Precomputed-kernel
    /// lines are `0:serial` whatever `base` says.
    pub fn from_text_indexed(text: &str, base: IndexBase) -> Result<Self> {
        read::parse(text, base)
    }

    /// Number of features the model's support vectors span.
    pub fn n_features(&self) -> usize {
        match self {
            LibsvmModel::Svc(m) => m.n_features(),
            LibsvmModel::Svr(m) => m.expansion.n_features,
            LibsvmModel::OneClass(m) => m.expansion.n_features,
            LibsvmModel::SingleClass(m) => m.n_features,
        }
    }

    /// How the fit's SMO runs went (see [`Svc::fit_report`]); a model read from a LIBSVM
    /// file, which records no solver report, counts as converged.
    pub fn fit_report(&self) -> margin_core::fit::FitReport {
        match self {
            LibsvmModel::Svc(m) => m.fit_report(),
            LibsvmModel::Svr(m) => m.fit_report(),
            LibsvmModel::OneClass(m) => m.fit_report(),
            // No solver ran.
            LibsvmModel::SingleClass(_) => margin_core::fit::FitReport::default(),
        }
    }

    /// The same model accepting records of `n_features` columns (LIBSVM ignores feature
    /// indices a model never saw; a sparse support set widens at no cost).
    pub fn with_n_features(self, n_features: usize) -> Result<Self> {
        Ok(match self {
            LibsvmModel::Svc(m) => LibsvmModel::Svc(m.with_n_features(n_features)?),
            LibsvmModel::Svr(mut m) => {
                m.expansion = m.expansion.with_n_features(n_features)?;
                LibsvmModel::Svr(m)
            }
            LibsvmModel::OneClass(mut m) => {
                m.expansion = m.expansion.with_n_features(n_features)?;
                LibsvmModel::OneClass(m)
            }
            LibsvmModel::SingleClass(m) => {
                LibsvmModel::SingleClass(SingleClass { n_features, ..m })
            }
        })
    }

    /// Whether the model carries a probability model (LIBSVM's `svm_check_probability_model`):
    /// `probA` and `probB` for a classifier, `probA` for a regressor, `prob_density_marks` for
    /// a one-class SVM.
    pub fn has_probability(&self) -> bool {
        match self {
            LibsvmModel::Svc(m) => m.problems().iter().all(|p| p.probability.is_some()),
            LibsvmModel::Svr(m) => m.laplace_scale().is_some(),
            LibsvmModel::OneClass(m) => m.density_marks().is_some(),
            LibsvmModel::SingleClass(m) => m.probability,
        }
    }

    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        match self {
            LibsvmModel::Svc(m) => m.kernel(),
            LibsvmModel::Svr(m) => m.kernel(),
            LibsvmModel::OneClass(m) => m.kernel(),
            LibsvmModel::SingleClass(m) => &m.kernel,
        }
    }

    /// LIBSVM's `svm_predict_probability` for every row of a model with a probability model
    /// ([`Self::has_probability`]): the predicted label or value, and the probability
    /// estimates — for a classifier one column per class in [`Svc::classes`] order (the label is
    /// the most probable class, the first on ties), for a one-class SVM the columns `[normal,
    /// outlier]` (the label is the sign of the decision value), for a [`SingleClass`] model one
    /// column of ones, for a regressor no column (its
    /// probability model is the one scale [`Svr::laplace_scale`]; the values are
    /// [`Self::predict_values`]'). A model without one is refused as `PredictProba` refuses it.
    pub fn predict_probability<R: Records + ?Sized>(
        &self,
        records: &R,
    ) -> Result<(Vec<f64>, DenseMatrix)> {
        match self {
            LibsvmModel::Svc(m) => {
                let probs = m.libsvm_predict_proba(records)?;
                let labels: Vec<f64> = m.classes().iter().map(label_number).collect();
                let best = probs
                    .rows()
                    .map(|row| {
                        let k = (0..row.len()).fold(0, |b, c| if row[c] > row[b] { c } else { b });
                        labels[k]
                    })
                    .collect();
                Ok((best, probs))
            }
            LibsvmModel::OneClass(m) => {
                Ok((self.predict_values(records)?, m.predict_proba(records)?))
            }
            LibsvmModel::SingleClass(m) => {
                if !m.probability {
                    return Err(no_probability());
                }
                let values = self.predict_values(records)?;
                let n = values.len();
                let mut ones = DenseMatrix::zeros(n, 1);
                ones.as_mut_slice().fill(1.0);
                Ok((values, ones))
            }
            LibsvmModel::Svr(m) => {
                if m.laplace_scale().is_none() {
                    return Err(no_probability());
                }
                let values = self.predict_values(records)?;
                let n = values.len();
                Ok((values, DenseMatrix::zeros(n, 0)))
            }
        }
    }

    /// The training rows that became support vectors (0-based, in the model file's order of
    /// SV lines for a model fitted here; a model read from a file, which records no training
    /// rows, numbers its support vectors `0..n`). A [`SingleClass`] model has none.
    pub fn support_indices(&self) -> &[usize] {
        match self {
            LibsvmModel::Svc(m) => m.support_indices(),
            LibsvmModel::Svr(m) => m.support_indices(),
            LibsvmModel::OneClass(m) => m.support_indices(),
            LibsvmModel::SingleClass(_) => &[],
        }
    }

    /// LIBSVM's `svm_predict_values` for every row, from one pass over the kernel values: what
    /// [`Self::predict_values`] gives, and the decision values it comes from, to the last bit —
    /// for a classifier one column per pair of classes, in LIBSVM's pair order `(0,1), (0,2), …,
    /// (1,2), …` of [`Svc::classes`], positive for the pair's first class; for a regressor or a
    /// one-class SVM the one value `f(x)`; for a [`SingleClass`] model no column (it has no
    /// decision function).
    pub fn predict_with_decisions<R: Records + ?Sized>(
        &self,
        records: &R,
    ) -> Result<(Vec<f64>, DenseMatrix)> {
        let column = |values: &[f64]| DenseMatrix::from_row_major(values.to_vec(), values.len(), 1);
        match self {
            LibsvmModel::Svc(m) => {
                let dec = m.libsvm_problem_decisions(records)?;
                let labels = dec
                    .rows()
                    .map(|row| label_number(&m.classes()[m.vote(row)]))
                    .collect();
                Ok((labels, dec))
            }
            LibsvmModel::Svr(m) => {
                let values = m.expansion.libsvm_decision(records)?;
                let dec = column(&values)?;
                Ok((values, dec))
            }
            LibsvmModel::OneClass(m) => {
                let values = m.expansion.libsvm_decision(records)?;
                let dec = column(&values)?;
                Ok((
                    values
                        .iter()
                        .map(|&f| if f > 0.0 { 1.0 } else { -1.0 })
                        .collect(),
                    dec,
                ))
            }
            LibsvmModel::SingleClass(m) => {
                margin_core::validate::check_predict(m.n_features, records)?;
                let n = records.n_samples();
                Ok((vec![f64::from(m.label); n], DenseMatrix::zeros(n, 0)))
            }
        }
    }

    /// LIBSVM's `svm_predict` for every row: the label (as a number) for a classifier, the
    /// value for a regressor, `+1` (normal) or `−1` (outlier) for a one-class SVM. Decision
    /// values are computed as LIBSVM computes them, to the last bit (what `svm-predict` prints
    /// with 17 digits, and the labels it derives from them).
    pub fn predict_values<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        Ok(self.predict_with_decisions(records)?.0)
    }
}

/// The refusal of [`LibsvmModel::predict_probability`] by a model trained without a
/// probability model.
fn no_probability() -> Error {
    crate::probability::no_probability_model("predict_probability")
}

/// A label as LIBSVM's numeric label (text labels, which LIBSVM files cannot hold, as NaN).
fn label_number(l: &Label) -> f64 {
    match l {
        Label::Number(x) => *x,
        Label::Text(_) => f64::NAN,
    }
}
