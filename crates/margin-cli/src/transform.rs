//! `margin transform MODEL_FILE DATA [-o OUT]`: the rows of DATA mapped by a fitted
//! transformer — a PCA's projections, or a k-means model's distances to its centres.
//!
//! The output keeps the input's labels, so it can be fed straight to `margin train`: LIBSVM
//! in, LIBSVM out (zeros omitted); CSV, Parquet or Arrow in, CSV out with a header naming the
//! new columns (`pc1, pc2, …` or `distance0, distance1, …`) and the label last. Numbers are
//! written in their shortest exact form. An output named `*.parquet`, `*.arrow` or `*.feather`
//! is written as that table instead, with the same columns.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use clap::Args;
use margin_cluster::{KMeans, MiniBatchKMeans, Pca};
use margin_core::{Dataset, Matrix, NFeatures, Transform};
use margin_io::table::batch_from_dataset;
use margin_io::{CsvOptions, DataFormat, ModelFile, Nulls, write_csv_to, write_libsvm_to};

use crate::Failure;
use crate::data::{DataArgs, load_from, open, table_output, write_table};
use crate::models::at_width;
use crate::output::{Out, check_outputs};

/// Arguments of `margin transform`.
#[derive(Args, Debug)]
pub struct TransformArgs {
    /// A model file written by `margin train pca|kmeans|minibatch-kmeans`.
    model: PathBuf,
    /// The data to transform.
    data: PathBuf,
    /// Write the transformed rows here (default: stdout): a Parquet or Arrow file when its name
    /// ends in `.parquet`, `.arrow` or `.feather`, else text in the input's format (CSV for
    /// tables), the input's labels kept.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// How to read the data.
    #[command(flatten)]
    read: DataArgs,
}

/// Decodes a model file (naming the file in a refusal) and transforms the records at the
/// model's width.
fn transformed<M: ModelFile + NFeatures + Transform>(
    path: &Path,
    bytes: &[u8],
    x: Cow<'_, Matrix>,
) -> Result<(M, Matrix), Failure> {
    let m = M::from_bytes(bytes).map_err(|e| Failure::in_file(path, e))?;
    let x = at_width(x, m.n_features())?;
    let z = m.transform(&*x)?;
    Ok((m, z))
}

/// The transformed records and a name per output column.
fn apply(
    kind: &str,
    path: &Path,
    bytes: &[u8],
    x: Cow<'_, Matrix>,
) -> Result<(Matrix, Vec<String>), Failure> {
    let names = |prefix: &str, first: usize, n: usize| -> Vec<String> {
        (first..first + n).map(|j| format!("{prefix}{j}")).collect()
    };
    match kind {
        k if k == Pca::KIND => {
            let (m, z) = transformed::<Pca>(path, bytes, x)?;
            Ok((z, names("pc", 1, m.n_components())))
        }
        k if k == KMeans::KIND => {
            let (m, z) = transformed::<KMeans>(path, bytes, x)?;
            Ok((z, names("distance", 0, m.n_clusters())))
        }
        k if k == MiniBatchKMeans::KIND => {
            let (m, z) = transformed::<MiniBatchKMeans>(path, bytes, x)?;
            Ok((z, names("distance", 0, m.cluster_centers().nrows())))
        }
        other => Err(Failure::usage(format!(
            "{}: a `{other}` model does not transform data (transformers: pca, kmeans, minibatch-kmeans; predict with `margin predict`)",
            path.display()
        ))),
    }
}

/// Runs `margin transform`.
pub fn run(args: &TransformArgs) -> Result<(), Failure> {
    let bytes =
        margin_io::read_model_file(&args.model).map_err(|e| Failure::in_file(&args.model, e))?;
    let kind = margin_io::peek_kind(&bytes).map_err(|e| Failure::in_file(&args.model, e))?;
    if let Some(output) = &args.output {
        check_outputs(&[&args.model, &args.data], &[output])?;
    }
    // Opened and read once: a pipe gives its bytes only once.
    let (data, format) = load_from(open(&args.data)?, &args.read, Nulls::Refuse)?;
    let model_names = crate::columns::of_model(&args.model, &bytes)?;
    let Dataset {
        records, targets, ..
    } = crate::columns::in_model_order(&args.data, data, model_names.as_deref())?;
    let (z, names) = apply(&kind, &args.model, &bytes, Cow::Owned(records))?;
    let transformed = Dataset::new(z, targets)?.with_feature_names(names)?;
    if let (Some(path), Some(table)) = (&args.output, table_output(args.output.as_deref())) {
        let batch = batch_from_dataset(&transformed).map_err(|e| Failure::in_file(path, e))?;
        return write_table(path, table, &batch);
    }
    let mut out = Out::file_or_stdout(args.output.as_deref())?;
    out.write_with(|mut w| match format {
        DataFormat::Libsvm => write_libsvm_to(&mut w, &transformed),
        _ => write_csv_to(&mut w, &transformed, &CsvOptions::default()),
    })?;
    out.finish()
}
