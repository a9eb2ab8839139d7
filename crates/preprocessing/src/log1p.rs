use serde::{Deserialize, Serialize};

use margin_core::{Error, Matrix, Records, Result, Transform, validate};

/// `x ↦ ln(1 + x)`, for saturating count-like features (word counts, incomes).
///
/// Stateless: there is nothing to fit. Sparse records stay sparse (`ln 1 = 0`). By default a
/// value below zero is refused; [`Log1p::signed`] maps `x ↦ sign(x)·ln(1 + |x|)` instead, which
/// is defined everywhere and odd.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Log1p {
    signed: bool,
}

impl Log1p {
    /// `ln(1 + x)` for `x ≥ 0`.
    pub fn new() -> Self {
        Self { signed: false }
    }

    /// `sign(x)·ln(1 + |x|)` for every `x`.
    pub fn signed() -> Self {
        Self { signed: true }
    }

    fn apply(&self, i: usize, j: usize, x: f64) -> Result<f64> {
        if self.signed {
            Ok(x.signum() * x.abs().ln_1p())
        } else if x >= 0.0 {
            Ok(x.ln_1p())
        } else {
            Err(Error::invalid_parameter(
                "input value",
                format!("{x} at row {i}, column {j}"),
                "values ≥ 0 for Log1p (use Log1p::signed for negative values)",
            ))
        }
    }
}

impl Transform for Log1p {
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
        validate::check_finite(records)?;
        let mut out = match records.as_sparse() {
            Some(s) => Matrix::Sparse(s.clone()),
            None => Matrix::Dense(records.to_dense()?),
        };
        match &mut out {
            Matrix::Sparse(s) => {
                let (indptr, indices) = (s.indptr().to_vec(), s.indices().to_vec());
                let values = s.values_mut();
                for i in 0..indptr.len() - 1 {
                    for k in indptr[i]..indptr[i + 1] {
                        values[k] = self.apply(i, indices[k] as usize, values[k])?;
                    }
                }
            }
            Matrix::Dense(d) => {
                for i in 0..d.nrows() {
                    for (j, v) in d.row_mut(i).iter_mut().enumerate() {
                        *v = self.apply(i, j, *v)?;
                    }
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::{CsrMatrix, DenseMatrix};

    #[test]
    fn log1p_plain_signed_and_sparse() {
        let x = DenseMatrix::from_rows(&[[0.0, 1.0, -1.0]]).unwrap();
        assert!(Log1p::new().transform(&x).is_err());
        let y = Log1p::signed().transform(&x).unwrap().to_dense().unwrap();
        assert_eq!(y.row(0), &[0.0, 2f64.ln(), -(2f64.ln())]);
        let s = CsrMatrix::from_dense(&DenseMatrix::from_rows(&[[0.0, 3.0]]).unwrap());
        match Log1p::new().transform(&s).unwrap() {
            Matrix::Sparse(m) => assert_eq!((m.nnz(), m.values()[0]), (1, 4f64.ln())),
            other => panic!("{other:?}"),
        }
    }
}
