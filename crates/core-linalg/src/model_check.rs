//! The checks every [`ModelFile::check_consistent`](https://docs.rs/margin-io/latest/margin_io/trait.ModelFile.html#tymethod.check_consistent) is
//! built from: each refuses with [`Error::ModelFile`] naming the field at fault, so a file whose
//! checksum is right but whose contents are not (written by another tool, a bug or a hand) is
//! refused when it is loaded, never at prediction as a panic, an abort or a silent garbage
//! answer.
//!
//! What a kind must check: everything `predict`, `decision_function`, `predict_proba` and
//! `transform` index or divide by — shapes that must agree ([`len`], [`matrix`], [`records`]),
//! index ranges ([`below`], [`all_below`]), counts ([`at_least`]), class tables
//! ([`class_labels`]), finiteness where a non-finite value would break the answer ([`finite`],
//! [`finite_min`], [`positive`]) and the parameters prediction uses ([`within`] turns the error
//! of a constructor that re-checks them into a refusal naming the field). Matrices decode
//! through their own constructors ([`DenseMatrix`], [`crate::CsrMatrix`]) and need no second
//! check of their internal layout.

use std::cmp::Ordering;
use std::fmt::Display;

use crate::DenseMatrix;
use crate::Label;
use crate::Records;
use crate::{Error, Result};

/// The refusal for `field`: `` `field` `` followed by what is wrong with it.
pub fn refuse(field: &str, problem: impl Display) -> Error {
    Error::model_file(format!("`{field}` {problem}"))
}

/// Any error of a re-check (a constructor, a kernel's check) as a refusal naming `field`.
pub fn within<T>(field: &str, checked: Result<T>) -> Result<T> {
    checked.map_err(|e| match e {
        Error::ModelFile { reason } => refuse(field, reason),
        other => refuse(field, format!("is invalid: {other}")),
    })
}

/// `field` must hold exactly `expected` entries.
pub fn len(field: &str, found: usize, expected: usize) -> Result<()> {
    if found == expected {
        Ok(())
    } else {
        Err(refuse(
            field,
            format!("has {found} entries where the model needs {expected}"),
        ))
    }
}

/// `field` (a count) must be at least `min`.
pub fn at_least(field: &str, found: usize, min: usize) -> Result<()> {
    if found >= min {
        Ok(())
    } else {
        Err(refuse(
            field,
            format!("is {found}, below the minimum {min}"),
        ))
    }
}

/// `field` (an index) must be below `bound`.
pub fn below(field: &str, index: usize, bound: usize) -> Result<()> {
    if index < bound {
        Ok(())
    } else {
        Err(refuse(
            field,
            format!("is {index}, out of range (must be below {bound})"),
        ))
    }
}

/// Every index in `field` must be below `bound`.
pub fn all_below(
    field: &str,
    indices: impl IntoIterator<Item = usize>,
    bound: usize,
) -> Result<()> {
    match indices.into_iter().enumerate().find(|&(_, i)| i >= bound) {
        None => Ok(()),
        Some((at, i)) => Err(refuse(
            field,
            format!("holds {i} at entry {at}, out of range (must be below {bound})"),
        )),
    }
}

/// Every value in `field` must be finite.
pub fn finite(field: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(at) => Err(refuse(
            field,
            format!(
                "holds {} at entry {at}, where a finite number is needed",
                values[at]
            ),
        )),
    }
}

/// Every value in `field` must be finite and at least `min` (counts, variances, weights).
pub fn finite_min(field: &str, values: &[f64], min: f64) -> Result<()> {
    match values.iter().position(|v| !(v.is_finite() && *v >= min)) {
        None => Ok(()),
        Some(at) => Err(refuse(
            field,
            format!(
                "holds {} at entry {at}, where a finite number ≥ {min} is needed",
                values[at]
            ),
        )),
    }
}

/// `field` must be finite and strictly positive (a scale prediction divides by).
pub fn positive(field: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(refuse(
            field,
            format!("is {value}, where a finite number > 0 is needed"),
        ))
    }
}

/// A classifier's class table: at least two labels, numbers finite, no label twice (a
/// repeated label would make two classes answer with one name).
pub fn class_labels(field: &str, labels: &[Label]) -> Result<()> {
    labels_at_least(field, labels, 2)
}

/// [`class_labels`] for at least `min` labels: statistics gathered on one part of the data
/// may have seen a single class.
pub fn labels_at_least(field: &str, labels: &[Label], min: usize) -> Result<()> {
    if labels.len() < min {
        return Err(refuse(
            field,
            format!("holds {} label(s); at least {min} are needed", labels.len()),
        ));
    }
    if let Some(at) = labels
        .iter()
        .position(|l| matches!(l, Label::Number(x) if !x.is_finite()))
    {
        return Err(refuse(
            field,
            format!("holds the non-finite label {} at entry {at}", labels[at]),
        ));
    }
    let mut sorted: Vec<&Label> = labels.iter().collect();
    sorted.sort_by(|a, b| label_order(a, b));
    match sorted
        .windows(2)
        .find(|w| label_order(w[0], w[1]) == Ordering::Equal)
    {
        None => Ok(()),
        Some(w) => Err(refuse(field, format!("holds the label {} twice", w[0]))),
    }
}

/// The order of sorted class labels: numbers by value (−0 and 0 are one label, as
/// [`crate::Classes`] maps them), then text.
pub fn label_order(a: &Label, b: &Label) -> Ordering {
    match (a, b) {
        (Label::Number(x), Label::Number(y)) => (x + 0.0).total_cmp(&(y + 0.0)),
        (Label::Number(_), Label::Text(_)) => Ordering::Less,
        (Label::Text(_), Label::Number(_)) => Ordering::Greater,
        (Label::Text(s), Label::Text(t)) => s.cmp(t),
    }
}

/// A stored dense matrix must be `nrows × ncols` with finite entries.
pub fn matrix(field: &str, m: &DenseMatrix, nrows: usize, ncols: usize) -> Result<()> {
    if (m.nrows(), m.ncols()) != (nrows, ncols) {
        return Err(refuse(
            field,
            format!(
                "is {} × {} where the model needs {nrows} × {ncols}",
                m.nrows(),
                m.ncols()
            ),
        ));
    }
    finite(field, m.as_slice())
}

/// Stored records (support vectors, training rows) must be `n_rows × n_features` with finite
/// values. The rows are counted against `n_rows` (a length stored beside them) before any is
/// read: a dense matrix of zero columns may claim any number of rows.
pub fn records<R: Records + ?Sized>(
    field: &str,
    r: &R,
    n_rows: usize,
    n_features: usize,
) -> Result<()> {
    if r.n_samples() != n_rows {
        return Err(refuse(
            field,
            format!("has {} rows where the model has {n_rows}", r.n_samples()),
        ));
    }
    if r.n_features() != n_features {
        return Err(refuse(
            field,
            format!(
                "has {} columns where the model has {n_features} features",
                r.n_features()
            ),
        ));
    }
    within(field, crate::validate::check_finite(r))
}

/// A linear classifier over `n_classes` classes has one weight row for two classes, one per
/// class otherwise, all finite, and one finite intercept per row (the rows' width is the
/// matrix's own).
pub fn linear_classifier(n_classes: usize, coef: &DenseMatrix, intercept: &[f64]) -> Result<()> {
    at_least("number of classes", n_classes, 2)?;
    let rows = if n_classes == 2 { 1 } else { n_classes };
    len("coef", coef.nrows(), rows)?;
    len("intercept", intercept.len(), rows)?;
    finite("coef", coef.as_slice())?;
    finite("intercept", intercept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CsrMatrix, Matrix};

    fn refused(r: Result<()>, words: &[&str]) {
        match r {
            Err(Error::ModelFile { reason }) => {
                for w in words {
                    assert!(reason.contains(w), "`{reason}` lacks `{w}`");
                }
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn counts_and_indices_name_the_field() {
        assert!(len("coef", 3, 3).is_ok());
        refused(len("coef", 2, 3), &["`coef`", "2", "3"]);
        assert!(at_least("n_neighbors", 1, 1).is_ok());
        refused(at_least("n_neighbors", 0, 1), &["`n_neighbors`", "0"]);
        assert!(below("feature", 2, 3).is_ok());
        refused(below("feature", 3, 3), &["`feature`", "3"]);
        assert!(all_below("support", [0, 2, 1], 3).is_ok());
        refused(
            all_below("support", [0, 7, 1], 3),
            &["`support`", "7", "entry 1"],
        );
    }

    #[test]
    fn numbers_must_be_finite_and_in_range() {
        assert!(finite("rho", &[0.0, -1.0]).is_ok());
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            refused(finite("rho", &[0.0, bad]), &["`rho`", "entry 1"]);
            refused(finite_min("var", &[bad], 0.0), &["`var`"]);
            refused(positive("scale", bad), &["`scale`"]);
        }
        assert!(finite_min("var", &[0.0, 2.0], 0.0).is_ok());
        refused(finite_min("var", &[-1e-300], 0.0), &["`var`"]);
        assert!(positive("scale", 1e-300).is_ok());
        refused(positive("scale", 0.0), &["`scale`"]);
    }

    #[test]
    fn class_tables_need_two_distinct_finite_labels() {
        let n = Label::Number;
        let t = |s: &str| Label::Text(s.into());
        assert!(class_labels("labels", &[n(-1.0), n(1.0)]).is_ok());
        assert!(class_labels("labels", &[t("b"), n(1.0), t("a")]).is_ok());
        refused(class_labels("labels", &[n(1.0)]), &["labels", "1"]);
        refused(
            class_labels("labels", &[n(1.0), n(2.0), n(1.0)]),
            &["twice"],
        );
        refused(class_labels("labels", &[n(0.0), n(-0.0)]), &["twice"]);
        refused(class_labels("labels", &[t("a"), t("a")]), &["twice"]);
        refused(
            class_labels("labels", &[n(f64::NAN), n(1.0)]),
            &["non-finite"],
        );
    }

    #[test]
    fn matrices_and_records_have_the_stored_shape_and_finite_values() {
        let m = DenseMatrix::from_rows(&[[1.0, 2.0], [3.0, 4.0]]).unwrap();
        assert!(matrix("w", &m, 2, 2).is_ok());
        refused(matrix("w", &m, 2, 3), &["`w`", "2 × 2", "2 × 3"]);
        let mut bad = m.clone();
        bad.row_mut(1)[0] = f64::NAN;
        refused(matrix("w", &bad, 2, 2), &["`w`"]);
        let sparse = Matrix::Sparse(CsrMatrix::from_dense(&bad));
        assert!(records("support", &Matrix::Dense(m), 2, 2).is_ok());
        refused(
            records("support", &sparse, 2, 2),
            &["`support`", "non-finite"],
        );
        refused(records("support", &bad, 2, 3), &["`support`", "3 features"]);
        refused(
            records("support", &bad, 3, 2),
            &["`support`", "2 rows", "3"],
        );
        // Zero columns and more rows than any memory holds: counted, never walked.
        let wide = DenseMatrix::from_row_major(Vec::new(), usize::MAX / 2, 0).unwrap();
        refused(records("support", &wide, 4, 0), &["`support`", "rows"]);
    }

    #[test]
    fn other_errors_become_refusals_naming_the_field() {
        let r: Result<()> = Err(Error::invalid_parameter("gamma", -1.0, "a number > 0"));
        refused(within("kernel", r), &["`kernel`", "gamma"]);
        refused(
            within("tree", Err::<(), _>(Error::model_file("node 3"))),
            &["`tree`", "node 3"],
        );
    }

    #[test]
    fn linear_model_shapes_must_agree() {
        let m = |rows: &[&[f64]]| DenseMatrix::from_rows(rows).unwrap();
        assert!(linear_classifier(2, &m(&[&[1.0, 2.0]]), &[0.5]).is_ok());
        assert!(linear_classifier(3, &m(&[&[1.0], &[2.0], &[3.0]]), &[0.0; 3]).is_ok());
        for (k, coef, intercept) in [
            (2, DenseMatrix::zeros(0, 2), vec![]),
            (1, m(&[&[1.0, 2.0]]), vec![0.0]),
            (2, m(&[&[1.0, 2.0]]), vec![]),
            (3, m(&[&[1.0, 2.0], &[1.0, 2.0]]), vec![0.0, 0.0]),
            (2, m(&[&[1.0, f64::NAN]]), vec![0.0]),
            (2, m(&[&[1.0, 2.0]]), vec![f64::INFINITY]),
        ] {
            assert!(matches!(
                linear_classifier(k, &coef, &intercept),
                Err(Error::ModelFile { .. })
            ));
        }
    }
}
