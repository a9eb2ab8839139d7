//! A table's columns matched to a model's by name.
//!
//! `margin train` writes the feature names of a named table (a CSV header, a Parquet or Arrow
//! schema) into the model file (`margin_io::with_feature_names`). Where a model file has names
//! and the data to predict has them too, the columns are taken by name in the model's order,
//! whatever their order in the file; a column the model reads that the file lacks, in place of
//! one the model does not know, is refused, as scikit-learn refuses a DataFrame whose columns
//! differ from `feature_names_in_` (a file with more or fewer feature columns is refused by the
//! model's width check, naming both widths). Data without names (LIBSVM files, a CSV without a
//! header) is read by position, as before.

use std::path::Path;

use margin_core::{CsrMatrix, Dataset, DenseMatrix, Matrix, memory};

use crate::Failure;

/// The feature names in the model file `bytes`, if it has any.
pub fn of_model(path: &Path, bytes: &[u8]) -> Result<Option<Vec<String>>, Failure> {
    margin_io::feature_names(bytes).map_err(|e| Failure::in_file(path, e))
}

/// The model file `bytes` with the feature names of the table it was fitted on, when it had
/// them.
pub fn named_model(bytes: Vec<u8>, data: &Dataset) -> Result<Vec<u8>, Failure> {
    match &data.feature_names {
        Some(names) => Ok(margin_io::with_feature_names(&bytes, names)?),
        None => Ok(bytes),
    }
}

/// `data` (read from `path`) with its columns in the order of the model's `names`, matched by
/// name; as it is where either side has no names, or where the counts differ (the model's own
/// width check then refuses, naming both widths).
pub fn in_model_order(
    path: &Path,
    mut data: Dataset,
    names: Option<&[String]>,
) -> Result<Dataset, Failure> {
    let (Some(model), Some(file)) = (names, data.feature_names.as_deref()) else {
        return Ok(data);
    };
    if model == file || model.len() != file.len() {
        return Ok(data);
    }
    let listed = |names: Vec<&String>| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let missing: Vec<&String> = model.iter().filter(|n| !file.contains(n)).collect();
    let extra: Vec<&String> = file.iter().filter(|n| !model.contains(n)).collect();
    if !missing.is_empty() {
        return Err(Failure::usage(format!(
            "{}: the model was fitted on column(s) {} that this file lacks, and the file has {} the model never saw; columns are matched by name: name the model's with --features {}, or the label with --label",
            path.display(),
            listed(missing),
            listed(extra),
            model.join(",")
        )));
    }
    // Same names, another order (a name listed twice would have been refused by the reader).
    let order: Vec<usize> = model
        .iter()
        .map(|n| file.iter().position(|f| f == n).unwrap_or_default())
        .collect();
    data.records = permuted(&data.records, &order).map_err(|e| Failure::in_file(path, e))?;
    data.feature_names = Some(model.to_vec());
    Ok(data)
}

/// `x` with column `j` taken from column `order[j]`.
fn permuted(x: &Matrix, order: &[usize]) -> margin_core::Result<Matrix> {
    let d = order.len();
    Ok(match x {
        Matrix::Dense(x) => {
            let n = x.nrows();
            let mut values = memory::filled_grid(
                n,
                d,
                0.0,
                "the columns in the model's order",
                memory::DENSE_COPY,
            )?;
            for (i, row) in values.chunks_exact_mut(d.max(1)).enumerate().take(n) {
                let from = x.row(i);
                row.iter_mut().zip(order).for_each(|(v, &j)| *v = from[j]);
            }
            Matrix::Dense(DenseMatrix::from_row_major(values, n, d)?)
        }
        Matrix::Sparse(x) => {
            // Where each file column goes.
            let mut to = vec![0u32; d];
            for (j, &from) in order.iter().enumerate() {
                to[from] = j as u32;
            }
            let mut indices = memory::vec_with_capacity(
                x.nnz(),
                "the columns in the model's order",
                memory::FEWER_FEATURES,
            )?;
            let mut values = memory::vec_with_capacity(
                x.nnz(),
                "the columns in the model's order",
                memory::FEWER_FEATURES,
            )?;
            let mut row: Vec<(u32, f64)> = Vec::new();
            for i in 0..x.nrows() {
                let r = x.row(i);
                row.clear();
                row.extend(
                    r.indices
                        .iter()
                        .zip(r.values)
                        .map(|(&c, &v)| (to[c as usize], v)),
                );
                row.sort_unstable_by_key(|e| e.0);
                indices.extend(row.iter().map(|e| e.0));
                values.extend(row.iter().map(|e| e.1));
            }
            Matrix::Sparse(CsrMatrix::new(x.indptr().to_vec(), indices, values, d)?)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::Records;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn data(x: Matrix, cols: &[&str]) -> Dataset {
        let n = x.n_samples();
        let mut d = Dataset::new(x, margin_core::Targets::Values(vec![0.0; n])).unwrap();
        d.feature_names = Some(names(cols));
        d
    }

    #[test]
    fn columns_follow_the_model_by_name_dense_and_sparse() {
        let dense = DenseMatrix::from_row_major(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3).unwrap();
        let sparse = CsrMatrix::from_dense(
            &DenseMatrix::from_row_major(vec![1.0, 0.0, 3.0, 0.0, 5.0, 6.0], 2, 3).unwrap(),
        );
        let model = names(&["c", "a", "b"]);
        let got = in_model_order(
            Path::new("f"),
            data(Matrix::Dense(dense), &["a", "b", "c"]),
            Some(&model),
        )
        .unwrap();
        assert_eq!(
            got.records.to_dense().unwrap().as_slice(),
            [3.0, 1.0, 2.0, 6.0, 4.0, 5.0]
        );
        assert_eq!(got.feature_names, Some(model.clone()));
        let got = in_model_order(
            Path::new("f"),
            data(Matrix::Sparse(sparse), &["a", "b", "c"]),
            Some(&model),
        )
        .unwrap();
        assert_eq!(
            got.records.to_dense().unwrap().as_slice(),
            [3.0, 1.0, 0.0, 6.0, 0.0, 5.0]
        );
    }

    #[test]
    fn other_names_are_refused_and_other_widths_left_to_the_model() {
        let x = || Matrix::Dense(DenseMatrix::from_row_major(vec![1.0, 2.0], 1, 2).unwrap());
        let e = in_model_order(
            Path::new("f.csv"),
            data(x(), &["a", "id"]),
            Some(&names(&["a", "b"])),
        )
        .unwrap_err();
        assert!(
            e.message.contains("`b` that this file lacks")
                && e.message.contains("`id` the model never saw")
                && e.message.contains("--features a,b"),
            "{}",
            e.message
        );
        // Another width is the model's to refuse (it names both widths); unnamed data stays
        // positional.
        let wider = in_model_order(Path::new("f"), data(x(), &["b", "a"]), Some(&names(&["a"])));
        assert_eq!(wider.unwrap().feature_names, Some(names(&["b", "a"])));
        let mut unnamed = data(x(), &["a", "b"]);
        unnamed.feature_names = None;
        assert!(in_model_order(Path::new("f"), unnamed, Some(&names(&["b", "a"]))).is_ok());
    }
}
