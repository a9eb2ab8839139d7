//! The clustering and decomposition family registered with `margin train` / `margin predict`:
//! k-means, mini-batch k-means and PCA (whose output comes from `margin transform`).

use std::borrow::Cow;

use margin_cluster::{KMeans, MiniBatchKMeans, Pca};
use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix, Predict};
use margin_io::ModelFile;

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, decode, no_proba};

fn train_kmeans(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(KMeans::params())?;
    p.finish("kmeans")?;
    Fitted::iterative(&params.fit(&data.records)?)
}

fn train_minibatch(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(MiniBatchKMeans::params())?;
    p.finish("minibatch-kmeans")?;
    Fitted::iterative(&params.fit(&data.records)?)
}

fn train_pca(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(Pca::params())?;
    p.finish("pca")?;
    Fitted::new(&params.fit(&data.records)?)
}

fn predict_kmeans(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    no_proba(proba, "k-means gives cluster indices")?;
    let (m, x) = decode::<KMeans>(bytes, x)?;
    Ok(Predictions::Clusters(m.predict(&*x)?))
}

fn predict_minibatch(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    no_proba(proba, "mini-batch k-means gives cluster indices")?;
    let (m, x) = decode::<MiniBatchKMeans>(bytes, x)?;
    Ok(Predictions::Clusters(m.predict(&*x)?))
}

fn predict_pca(bytes: &[u8], _x: Cow<'_, Matrix>, _proba: bool) -> Result<Predictions, Failure> {
    Pca::from_bytes(bytes)?;
    Err(Failure::usage(
        "a PCA model transforms rather than predicts: run `margin transform MODEL_FILE DATA -o OUT`",
    ))
}

/// The clustering and decomposition entries of the registry.
pub const ENTRIES: [ModelEntry; 3] = [
    ModelEntry {
        name: "kmeans",
        classifier: false,
        kind: KMeans::KIND,
        hyperparams: crate::models::stored::<KMeans>,
        summary: "k-means clustering, Lloyd's or Elkan's algorithm (scikit-learn's KMeans); predict gives cluster indices",
        params: || KMeans::params().describe(),
        params_help: "",
        train: train_kmeans,
        predict: predict_kmeans,
        scores: None,
    },
    ModelEntry {
        name: "minibatch-kmeans",
        classifier: false,
        kind: MiniBatchKMeans::KIND,
        hyperparams: crate::models::stored::<MiniBatchKMeans>,
        summary: "mini-batch k-means for large data (scikit-learn's MiniBatchKMeans); predict gives cluster indices",
        params: || MiniBatchKMeans::params().describe(),
        params_help: "",
        train: train_minibatch,
        predict: predict_minibatch,
        scores: None,
    },
    ModelEntry {
        name: "pca",
        classifier: false,
        kind: Pca::KIND,
        hyperparams: crate::models::stored::<Pca>,
        summary: "principal component analysis (scikit-learn's PCA); apply with `margin transform`",
        params: || Pca::params().describe(),
        params_help: "",
        train: train_pca,
        predict: predict_pca,
        scores: None,
    },
];
