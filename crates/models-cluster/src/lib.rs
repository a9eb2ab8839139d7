//! # models-cluster: clustering and decomposition
//!
//! The unsupervised models: k-means ([`KMeans`], [`MiniBatchKMeans`]) and principal component
//! analysis ([`Pca`]). PCA lives here rather than in a crate of its own: one crate holds the
//! unsupervised models, which share their input checks and fitting convention.
//!
//! Both fit on **records**, not datasets (as the scalers
//! of `margin-preprocessing` do): `params.fit(&records)`, dense or sparse. [`Pca`] is a
//! [`Transform`](margin_core::Transform), so [`FitTransform`](margin_core::FitTransform)
//! works; k-means models [`Predict`](margin_core::Predict) cluster indices and transform rows
//! into distances to the centres. Every model saves and loads as a
//! [`ModelFile`](margin_io::ModelFile) whose contents are checked on load.
//!
//! ```
//! use margin_core::{Fit, FitTransform, Predict, Records};
//! use margin_io::datasets;
//! use margin_cluster::{KMeans, NComponents, Pca};
//!
//! let records = datasets::housing_scale()?.records;
//! let kmeans = KMeans::params().n_clusters(3).seed(7).fit(&records)?;
//! assert_eq!(kmeans.labels().len(), records.n_samples());
//! assert_eq!(kmeans.predict(&records)?, kmeans.labels());
//!
//! let (pca, projected) = Pca::params()
//!     .n_components(NComponents::Fraction(0.9))
//!     .fit_transform(&records)?;
//! assert!(pca.explained_variance_ratio().iter().sum::<f64>() > 0.9);
//! assert_eq!(projected.n_features(), pca.n_components());
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! ## KMeans (scikit-learn's `KMeans`)
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `n_clusters` | 8 | clusters `k`, in `1..=n` |
//! | `init` | [`KMeansInit::KMeansPlusPlus`] | greedy k-means++ (`2 + ⌊ln k⌋` candidates per centre), `Random` rows, or given `Centers` |
//! | `n_init` | auto: 1 (k-means++, given centres), 10 (random) | runs; the lowest inertia is kept (scikit-learn ≥ 1.4's `"auto"`) |
//! | `algorithm` | [`KMeansAlgorithm::Lloyd`] | `Lloyd` (products with all centres) or `Elkan` (triangle-inequality bounds); the same model either way |
//! | `max_iter` | 300 | iterations per run |
//! | `tol` | 1e-4 | stop when the centres move by ≤ `tol × mean feature variance` (total squared shift) |
//! | `seed` | 0 | the initialisation's random stream |
//!
//! Lloyd's assignment step computes `‖x‖² + ‖c‖² − 2x·c` with one product per block of 256
//! dense rows (for up to 32 centres a register kernel that prefetches the rows it streams, a
//! faer GEMM beyond; sparse rows: sparse dot products), blocks in parallel with rayon; dense records
//! are centred first, as scikit-learn does. A cluster left empty takes the row farthest from its
//! centre (scikit-learn's relocation). Per-cluster sums are reduced in a fixed row-block order,
//! so a seed gives the same model on any number of threads.
//!
//! A row's label is the centre at the smallest *direct* squared distance `Σ (x_j − c_j)²`, the
//! lowest index on exact ties; the product form decides alone only when its rounding error bound
//! (`4 (d + 4) ε (‖x‖ + ‖c‖)²` per centre) separates the best centre from the others, and
//! near-ties are settled by direct distances. Elkan's algorithm (Elkan 2003: one upper and `k`
//! lower bounds per row, centre–centre distances) skips a distance only when its bounds win by
//! a margin covering their own rounding, so it follows the same rule: from the same start,
//! Lloyd and Elkan give bit-identical labels, centres, inertia and iteration counts, dense or
//! sparse. Lloyd stays the default (as in scikit-learn) because Elkan does not win broadly:
//! measured on 10⁵ uniform rows over 100 iterations (2 cores, shared and loaded, medians of 3;
//! before Lloyd's register kernel, which took the `kmeans-100k` fit from 2.2 s to 1.2–1.5 s),
//! Elkan took 0.85× Lloyd's time at `d = 50, k = 10` (0.89× on the `kmeans-100k` bench's 300
//! iterations, where scikit-learn's Elkan is still 1.4× faster) and 0.66× at `d = 2,
//! k = 100`, but 1.1× at `20 000 × 500, k = 5`, 0.7–1.3× (noise) at `d = 10, k = 100`, 1.3–1.7× on
//! well-separated blobs that converge in a few iterations (its first pass computes more than a
//! GEMM does, and its `8 n k` bytes of bounds are streamed every pass). Elkan pays on long runs
//! whose centres settle; its memory grows with `k`.
//!
//! **Rows held in parts** (a table's partitions, other machines) fit by
//! [`KMeansParams::fit_parts`], as Spark fits k-means: every Lloyd step asks each part for its
//! [`LloydSums`] (per-cluster counts and sums, the inertia, the rows farthest from their
//! centres), and the merged sums move the centres. From the same start it is the in-memory fit
//! to rounding; k-means++ and random starts are chosen among rows sampled from the parts.
//!
//! ## MiniBatchKMeans (scikit-learn's `MiniBatchKMeans`)
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `n_clusters`, `init`, `seed` | as KMeans | |
//! | `n_init` | auto: 1 (k-means++, given centres), 3 (random) | initialisations, judged on a held-out random sample |
//! | `max_iter` | 100 | passes over the data, in mini-batch steps of `batch_size` rows |
//! | `batch_size` | 1024 | rows per step, drawn with replacement |
//! | `tol` | 0 (off) | stop when a step moves the centres by ≤ `tol × mean feature variance` |
//! | `max_no_improvement` | 10 | stop after this many steps without a better smoothed batch inertia |
//! | `init_size` | `3 × batch_size` | rows the initialisation sees |
//! | `reassignment_ratio` | 0.01 | centres used less than this fraction of the busiest move to random batch rows |
//!
//! ## Pca (scikit-learn's `PCA`)
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `n_components` | [`NComponents::All`] | `All` (`min(n, d)`), a `Count`, or a variance `Fraction` in (0, 1) |
//! | `whiten` | false | scale projections to unit variance |
//! | `svd_solver` | [`SvdSolver::Auto`] | `Full` (thin SVD), `CovarianceEigh`, `Randomized`; `Auto` follows scikit-learn's rule ([`SvdSolver::Auto`]) |
//! | `iterated_power` | auto: 7 if `n_components < 0.1 min(n, d)`, else 4 | randomized solver's power iterations |
//! | `n_oversamples` | 10 | randomized solver's extra directions |
//! | `seed` | 0 | randomized solver's Gaussian test matrix |
//!
//! Every factorization is faer's: the full solver factors the centred data by a tall-skinny QR
//! (row blocks in parallel) and takes the SVD of the small `R`; the covariance solver
//! eigendecomposes `XᵀX`; the randomized solver is Halko, Martinsson & Tropp's range finder
//! with QR re-orthonormalization after every product (scikit-learn uses LU in between). Each
//! component's sign makes its largest-magnitude entry positive (scikit-learn ≥ 1.5's
//! `svd_flip(u_based_decision=False)`), so results are reproducible and compare one to one.
//! Sparse records are densified for fitting (scikit-learn would centre them implicitly);
//! transforming sparse records does not densify them. When whitening, a direction with zero
//! variance is left unscaled instead of divided by zero.
// Denied, not forbidden: k-means' products with a few centres call their AVX2 copy after the
// run-time feature check (`kmeans::dots`, through `margin_core::simd_dispatch!`, whose one
// `unsafe` line carries its SAFETY comment).
#![deny(unsafe_code)]

pub mod kmeans;
pub mod pca;

pub use kmeans::{
    KMeans, KMeansAlgorithm, KMeansInit, KMeansParams, LloydSums, MiniBatchKMeans,
    MiniBatchKMeansParams,
};
pub use pca::{NComponents, Pca, PcaParams, PcaStats, SvdSolver};

/// A count or `auto` (scikit-learn's `"auto"`: a rule decides), as a parameter: `n_init`,
/// `iterated_power`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AutoOr(pub(crate) Option<usize>);

impl margin_core::params::ParamType for AutoOr {
    fn kind() -> std::borrow::Cow<'static, str> {
        "auto|<int>".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        match text.trim() {
            "auto" => Ok(AutoOr(None)),
            t => t
                .parse()
                .map(|n| AutoOr(Some(n)))
                .map_err(|_| "auto or a non-negative integer".to_owned()),
        }
    }
    fn to_value(&self) -> margin_core::params::Value {
        self.0
            .map_or(margin_core::params::Value::Text("auto".into()), |n| {
                n.to_value()
            })
    }
}

impl AutoOr {
    /// Whether the count, when given, is at least 1.
    pub(crate) fn at_least_one(&self) -> bool {
        self.0 != Some(0)
    }
}

margin_core::impl_n_features!(KMeans, MiniBatchKMeans, Pca);
margin_core::impl_hyperparams!(KMeans, MiniBatchKMeans, Pca);
margin_core::impl_iterative!(KMeans, MiniBatchKMeans);
