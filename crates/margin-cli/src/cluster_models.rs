//! The clustering and decomposition family registered with `margin train` / `margin predict`:
//! k-means, mini-batch k-means and PCA (whose output comes from `margin transform`).

use std::borrow::Cow;

use margin_cluster::{
    KMeans, KMeansAlgorithm, KMeansInit, MiniBatchKMeans, NComponents, Pca, SvdSolver,
};
use margin_core::{Dataset, Fit, Matrix, ModelFile, Predict};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, decode, no_proba};

const KMEANS_COMMON: &str = "  --n-clusters <k>                   number of clusters, 1..=n (default 8)
  --init k-means++|random            initial centres: greedy k-means++ or random rows (default k-means++)
  --n-init <runs>                    runs from different starts, best inertia kept (default 1 for k-means++, 10 for random; mini-batch: 3)
  --tol <number>                     stop when centres move ≤ tol × mean feature variance (default 1e-4; mini-batch: 0, off)
  --seed <integer>                   seed of the initialisation (default 0)";

fn init(p: &mut ParamArgs) -> Result<Option<KMeansInit>, Failure> {
    match p.take::<String>("init")?.as_deref() {
        None => Ok(None),
        Some("k-means++") => Ok(Some(KMeansInit::KMeansPlusPlus)),
        Some("random") => Ok(Some(KMeansInit::Random)),
        Some(other) => Err(Failure::usage(format!(
            "--init: expected k-means++ or random, found `{other}`"
        ))),
    }
}

/// Applies the parameters both k-means models take.
macro_rules! kmeans_common {
    ($params:expr, $p:expr) => {{
        let mut params = $params;
        if let Some(k) = $p.take("n-clusters")? {
            params = params.n_clusters(k);
        }
        if let Some(i) = init(&mut $p)? {
            params = params.init(i);
        }
        if let Some(r) = $p.take("n-init")? {
            params = params.n_init(r);
        }
        if let Some(m) = $p.take("max-iter")? {
            params = params.max_iter(m);
        }
        if let Some(t) = $p.take("tol")? {
            params = params.tol(t);
        }
        if let Some(s) = $p.take("seed")? {
            params = params.seed(s);
        }
        params
    }};
}

fn train_kmeans(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = kmeans_common!(KMeans::params(), p);
    match p.take::<String>("algorithm")?.as_deref() {
        None => {}
        Some("lloyd") => params = params.algorithm(KMeansAlgorithm::Lloyd),
        Some("elkan") => params = params.algorithm(KMeansAlgorithm::Elkan),
        Some(other) => {
            return Err(Failure::usage(format!(
                "--algorithm: expected lloyd or elkan, found `{other}`"
            )));
        }
    }
    p.finish("kmeans")?;
    Fitted::iterative(&params.fit(&data.records)?)
}

fn train_minibatch(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = kmeans_common!(MiniBatchKMeans::params(), p);
    if let Some(b) = p.take("batch-size")? {
        params = params.batch_size(b);
    }
    if let Some(s) = p.take::<String>("max-no-improvement")? {
        params = params.max_no_improvement(match s.as_str() {
            "none" => None,
            n => Some(n.parse().map_err(|_| {
                Failure::usage(format!(
                    "--max-no-improvement: expected an integer or none, found `{n}`"
                ))
            })?),
        });
    }
    if let Some(s) = p.take("init-size")? {
        params = params.init_size(s);
    }
    if let Some(r) = p.take("reassignment-ratio")? {
        params = params.reassignment_ratio(r);
    }
    p.finish("minibatch-kmeans")?;
    Fitted::iterative(&params.fit(&data.records)?)
}

/// `--n-components`: `all`, a count, or a variance fraction in (0, 1).
fn n_components(text: &str) -> Result<NComponents, Failure> {
    if text == "all" {
        return Ok(NComponents::All);
    }
    if let Ok(c) = text.parse::<usize>() {
        return Ok(NComponents::Count(c));
    }
    text.parse::<f64>().map(NComponents::Fraction).map_err(|_| {
        Failure::usage(format!(
            "--n-components: expected all, a count or a fraction in (0, 1), found `{text}`"
        ))
    })
}

fn train_pca(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = Pca::params();
    if let Some(n) = p.take::<String>("n-components")? {
        params = params.n_components(n_components(&n)?);
    }
    if let Some(w) = p.take("whiten")? {
        params = params.whiten(w);
    }
    if let Some(s) = p.take::<String>("svd-solver")? {
        params = params.svd_solver(match s.as_str() {
            "auto" => SvdSolver::Auto,
            "full" => SvdSolver::Full,
            "covariance-eigh" | "covariance_eigh" => SvdSolver::CovarianceEigh,
            "randomized" => SvdSolver::Randomized,
            other => {
                return Err(Failure::usage(format!(
                    "--svd-solver: expected auto, full, covariance-eigh or randomized, found `{other}`"
                )));
            }
        });
    }
    if let Some(i) = p.take("iterated-power")? {
        params = params.iterated_power(i);
    }
    if let Some(o) = p.take("n-oversamples")? {
        params = params.n_oversamples(o);
    }
    if let Some(s) = p.take("seed")? {
        params = params.seed(s);
    }
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
        summary: "k-means clustering, Lloyd's or Elkan's algorithm (scikit-learn's KMeans); predict gives cluster indices",
        params: None,
        params_help: "  --algorithm lloyd|elkan            iteration: GEMM over all centres, or Elkan's triangle-inequality bounds; same model (default lloyd)
  --max-iter <n>                     iterations per run (default 300)",
        common_help: KMEANS_COMMON,
        train: train_kmeans,
        predict: predict_kmeans,
        scores: None,
    },
    ModelEntry {
        name: "minibatch-kmeans",
        classifier: false,
        kind: MiniBatchKMeans::KIND,
        summary: "mini-batch k-means for large data (scikit-learn's MiniBatchKMeans); predict gives cluster indices",
        params: None,
        params_help: "  --max-iter <n>                     passes over the data in mini-batch steps (default 100)
  --batch-size <rows>                rows per step (default 1024)
  --max-no-improvement <n>|none      stop after n steps without a better smoothed inertia (default 10)
  --init-size <rows>                 rows the initialisation sees (default 3 × batch size)
  --reassignment-ratio <number>      move centres used less than this fraction of the busiest (default 0.01)",
        common_help: KMEANS_COMMON,
        train: train_minibatch,
        predict: predict_minibatch,
        scores: None,
    },
    ModelEntry {
        name: "pca",
        classifier: false,
        kind: Pca::KIND,
        summary: "principal component analysis (scikit-learn's PCA); apply with `margin transform`",
        params: None,
        params_help: "  --n-components all|<count>|<fraction>  components to keep, or the variance fraction to explain (default all)
  --whiten true|false                scale projections to unit variance (default false)
  --svd-solver auto|full|covariance-eigh|randomized   factorization (default auto, scikit-learn's rule)
  --iterated-power <n>               randomized solver's power iterations (default 7 if few components, else 4)
  --n-oversamples <n>                randomized solver's extra directions (default 10)
  --seed <integer>                   randomized solver's seed (default 0)",
        common_help: "",
        train: train_pca,
        predict: predict_pca,
        scores: None,
    },
];
