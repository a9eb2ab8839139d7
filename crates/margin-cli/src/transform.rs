//! `margin transform MODEL_FILE DATA [-o OUT]`: the rows of DATA mapped by a fitted
//! transformer — a PCA's projections, or a k-means model's distances to its centres.
//!
//! The output is written in the input's format with the input's labels kept, so it can be fed
//! straight to `margin train`: LIBSVM in, LIBSVM out (zeros omitted); CSV in, CSV out with a
//! header naming the new columns (`pc1, pc2, …` or `distance0, distance1, …`) and the label
//! last. Numbers are written in their shortest exact form.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use core_linalg::io::{CsvOptions, DataFormat, write_csv_to, write_libsvm_to};
use core_linalg::{Dataset, Error, Matrix, ModelFile, Transform};
use models_cluster::{KMeans, MiniBatchKMeans, Pca};

use crate::Failure;
use crate::cluster_models::widened;
use crate::data::{FormatArg, load, resolved};

/// Arguments of `margin transform`.
#[derive(Args, Debug)]
pub struct TransformArgs {
    /// A model file written by `margin train pca|kmeans|minibatch-kmeans`.
    model: PathBuf,
    /// The data to transform.
    data: PathBuf,
    /// Write the transformed rows here (default: stdout), in the input's format.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Input format.
    #[arg(long, value_enum, default_value_t)]
    format: FormatArg,
}

/// Decodes a model file, naming the file in a refusal.
fn decode<M: ModelFile>(path: &Path, bytes: &[u8]) -> Result<M, Failure> {
    M::from_bytes(bytes).map_err(|e| Failure::in_file(path, e))
}

/// The transformed records and a name per output column.
fn apply(
    kind: &str,
    path: &Path,
    bytes: &[u8],
    x: &Matrix,
) -> Result<(Matrix, Vec<String>), Failure> {
    let names = |prefix: &str, first: usize, n: usize| -> Vec<String> {
        (first..first + n).map(|j| format!("{prefix}{j}")).collect()
    };
    match kind {
        k if k == Pca::KIND => {
            let m = decode::<Pca>(path, bytes)?;
            let z = m.transform(&widened(x, m.mean().len())?)?;
            Ok((z, names("pc", 1, m.n_components())))
        }
        k if k == KMeans::KIND => {
            let m = decode::<KMeans>(path, bytes)?;
            let z = m.transform(&widened(x, m.cluster_centers().ncols())?)?;
            Ok((z, names("distance", 0, m.n_clusters())))
        }
        k if k == MiniBatchKMeans::KIND => {
            let m = decode::<MiniBatchKMeans>(path, bytes)?;
            let c = m.cluster_centers();
            let z = m.transform(&widened(x, c.ncols())?)?;
            Ok((z, names("distance", 0, c.nrows())))
        }
        other => Err(Failure::usage(format!(
            "model kind `{other}` does not transform data (transformers: pca, kmeans, minibatch-kmeans)"
        ))),
    }
}

/// Runs `margin transform`.
pub fn run(args: &TransformArgs) -> Result<(), Failure> {
    let bytes = std::fs::read(&args.model).map_err(|e| Failure::from(Error::io(&args.model, e)))?;
    let kind = core_linalg::peek_kind(&bytes).map_err(|e| Failure::in_file(&args.model, e))?;
    let format = resolved(&args.data, args.format)?;
    let data = load(&args.data, args.format)?;
    let (z, names) = apply(&kind, &args.model, &bytes, &data.records)?;
    let out = Dataset::new(z, data.targets)?.with_feature_names(names)?;
    let name = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("<stdout>"));
    let mut w: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| Failure::from(Error::io(p, e)))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    match format {
        DataFormat::Csv => write_csv_to(&mut w, &out, &CsvOptions::default())?,
        _ => write_libsvm_to(&mut w, &out)?,
    }
    w.flush().map_err(|e| Failure::from(Error::io(&name, e)))
}
