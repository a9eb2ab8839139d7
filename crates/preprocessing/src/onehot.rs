use serde::{Deserialize, Serialize};

use super::{check_fit_input, columns};
use margin_core::params::Params;
use margin_core::{
    CsrMatrix, Error, Fit, Matrix, Records, Result, Transform, model_check, validate,
};
use margin_io::ModelFile;

/// What [`OneHotEncoder`] does with a category it did not see in training.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnknownCategory {
    /// Refuse the input, naming the row, column and value (scikit-learn's default).
    #[default]
    Error,
    /// Encode it as all zeros in that column's block.
    Ignore,
}

/// Parameters of [`OneHotEncoder`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct OneHotEncoderParams {
    /// Encode only these (zero-based) columns; the others pass through unchanged. Default: all.
    #[param(
        help = "zero-based columns to encode, the others pass through (none: all)",
        setter(strip_option)
    )]
    columns: Option<Vec<usize>>,
    /// Policy for categories not seen in training.
    #[param(
        help = "a category not seen in training: refuse it, or encode it as all zeros",
        default = UnknownCategory::Error
    )]
    handle_unknown: UnknownCategory,
}

margin_core::param_choice!(UnknownCategory { Error => "error", Ignore => "ignore" });

/// Replaces each categorical column (numeric category codes) by one 0/1 column per category seen
/// in training, in increasing category order; other columns pass through in place. Output is
/// sparse.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneHotEncoder {
    /// Per input column: `Some(sorted categories)` when encoded, `None` when passed through.
    categories: Vec<Option<Vec<f64>>>,
    /// The hyperparameters the model was fitted with.
    params: OneHotEncoderParams,
}

impl OneHotEncoder {
    /// The hyperparameters the model was fitted with (see [`OneHotEncoderParams`]).
    pub fn hyperparams(&self) -> &OneHotEncoderParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.categories.len()
    }
    /// Default parameters.
    pub fn params() -> OneHotEncoderParams {
        OneHotEncoderParams::default()
    }

    /// Per input column, the categories learned (or `None` for a pass-through column).
    pub fn categories(&self) -> &[Option<Vec<f64>>] {
        &self.categories
    }

    /// Number of output columns.
    pub fn n_output_features(&self) -> usize {
        self.categories
            .iter()
            .map(|c| c.as_ref().map_or(1, Vec::len))
            .sum()
    }
}

impl<R: Records + ?Sized> Fit<R> for OneHotEncoderParams {
    type Model = OneHotEncoder;

    fn fit(&self, records: &R) -> Result<OneHotEncoder> {
        check_fit_input(records)?;
        let d = records.n_features();
        let mut encode = vec![self.columns.is_none(); d];
        for &c in self.columns.iter().flatten() {
            if c >= d {
                return Err(Error::invalid_parameter(
                    "columns",
                    c,
                    format!("column indices below {d}"),
                ));
            }
            encode[c] = true;
        }
        let categories = columns(records)?
            .into_iter()
            .zip(encode)
            .map(|(mut col, enc)| {
                enc.then(|| {
                    col.iter_mut().for_each(|v| *v += 0.0); // -0.0 and 0.0 are one category
                    col.sort_by(f64::total_cmp);
                    col.dedup();
                    col
                })
            })
            .collect();
        Ok(OneHotEncoder {
            categories,
            params: self.clone(),
        })
    }
}

impl Transform for OneHotEncoder {
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
        validate::check_predict(self.categories.len(), records)?;
        let x = records.to_dense()?;
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        let mut values = Vec::new();
        for i in 0..x.nrows() {
            let mut offset = 0;
            for (j, &v) in x.row(i).iter().enumerate() {
                match &self.categories[j] {
                    None => {
                        if v != 0.0 {
                            indices.push(offset as u32);
                            values.push(v);
                        }
                        offset += 1;
                    }
                    Some(cats) => {
                        let v = v + 0.0;
                        match cats.binary_search_by(|c| c.total_cmp(&v)) {
                            Ok(k) => {
                                indices.push((offset + k) as u32);
                                values.push(1.0);
                            }
                            Err(_) if self.params.handle_unknown == UnknownCategory::Ignore => {}
                            Err(_) => {
                                return Err(Error::invalid_parameter(
                                    "category",
                                    format!("{v} at row {i}, column {j}"),
                                    "a category seen in training (or handle_unknown = Ignore)",
                                ));
                            }
                        }
                        offset += cats.len();
                    }
                }
            }
            indptr.push(indices.len());
        }
        Ok(Matrix::Sparse(CsrMatrix::new(
            indptr,
            indices,
            values,
            self.n_output_features(),
        )?))
    }
}

impl ModelFile for OneHotEncoder {
    const KIND: &'static str = "one-hot-encoder";
    // 2: the hyperparameters the model was fitted with; 3: `handle_unknown` only inside them.
    const SCHEMA: u32 = 3;

    /// Every encoded column's categories finite and strictly increasing (the binary search of
    /// `transform` needs them sorted, and a category twice would take two output columns).
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        for cats in self.categories.iter().flatten() {
            model_check::finite("categories", cats)?;
            if let Some(at) = cats.windows(2).position(|w| w[0] >= w[1]) {
                return Err(model_check::refuse(
                    "categories",
                    format!("are not strictly increasing at entry {}", at + 1),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::DenseMatrix;

    #[test]
    fn encodes_selected_columns_in_place() {
        let x =
            DenseMatrix::from_rows(&[[2.0, 0.5, 1.0], [1.0, 0.0, 3.0], [2.0, 1.5, 3.0]]).unwrap();
        let e = OneHotEncoder::params().columns(vec![0, 2]).fit(&x).unwrap();
        assert_eq!(e.n_output_features(), 5);
        let y = e.transform(&x).unwrap().to_dense().unwrap();
        assert_eq!(y.row(0), &[0.0, 1.0, 0.5, 1.0, 0.0]);
        assert_eq!(y.row(1), &[1.0, 0.0, 0.0, 0.0, 1.0]);
        let unseen = DenseMatrix::from_rows(&[[5.0, 0.0, 1.0]]).unwrap();
        assert!(matches!(
            e.transform(&unseen),
            Err(Error::InvalidParameter { .. })
        ));
        let lenient = OneHotEncoder::params()
            .columns(vec![0, 2])
            .handle_unknown(UnknownCategory::Ignore)
            .fit(&x)
            .unwrap();
        assert_eq!(
            lenient
                .transform(&unseen)
                .unwrap()
                .to_dense()
                .unwrap()
                .row(0),
            &[0.0, 0.0, 0.0, 1.0, 0.0]
        );
        assert!(OneHotEncoder::params().columns(vec![3]).fit(&x).is_err());
    }
}
