//! Neighbour search against independent references: the kd-tree against brute force (bit for
//! bit, every metric the tree supports), brute force against a textbook sort of all
//! distances, sparse against dense records, and 1 against 2 threads.

use margin_core::{CsrMatrix, DenseMatrix, Fit};
use margin_neighbors::{Algorithm, Covariance, Metric, NearestNeighbors, Neighbors};
use proptest::prelude::*;

/// Every metric the kd-tree supports.
fn tree_metrics() -> Vec<Metric> {
    vec![
        Metric::Euclidean,
        Metric::SqEuclidean,
        Metric::Manhattan,
        Metric::Chebyshev,
        Metric::Minkowski(3.0),
        Metric::Minkowski(1.5),
        Metric::Minkowski(f64::INFINITY),
        Metric::Mahalanobis(Covariance::FromTraining),
    ]
}

fn search(
    train: &DenseMatrix,
    queries: &DenseMatrix,
    metric: &Metric,
    algorithm: Algorithm,
    leaf_size: usize,
    k: usize,
) -> margin_core::Result<Neighbors> {
    NearestNeighbors::params()
        .metric(metric.clone())
        .algorithm(algorithm)
        .leaf_size(leaf_size)
        .fit(train)?
        .kneighbors(queries, k)
}

/// `n × d` values: continuous, or small integers (many exact ties) when `ties`.
fn matrix(n: usize, d: usize, ties: bool) -> impl Strategy<Value = DenseMatrix> {
    let value = if ties {
        (-2i32..=2).prop_map(f64::from).boxed()
    } else {
        (-10.0f64..10.0).boxed()
    };
    proptest::collection::vec(value, n * d)
        .prop_map(move |v| DenseMatrix::from_row_major(v, n, d).unwrap())
}

fn problem() -> impl Strategy<Value = (DenseMatrix, DenseMatrix, usize, usize)> {
    (1usize..60, 1usize..6, 1usize..12, any::<bool>(), 1usize..6).prop_flat_map(
        |(n, d, m, ties, leaf)| (matrix(n, d, ties), matrix(m, d, ties), 1..=n, Just(leaf)),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn kd_tree_and_brute_force_agree_bit_for_bit((train, queries, k, leaf) in problem()) {
        for metric in tree_metrics() {
            let brute = search(&train, &queries, &metric, Algorithm::Brute, leaf, k);
            let tree = search(&train, &queries, &metric, Algorithm::KdTree, leaf, k);
            match (brute, tree) {
                (Ok(b), Ok(t)) => {
                    for q in 0..queries.nrows() {
                        prop_assert_eq!(b.indices(q), t.indices(q), "{:?} query {}", metric, q);
                        let bits = |n: &Neighbors| n.distances(q).iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                        prop_assert_eq!(bits(&b), bits(&t), "{:?} query {}", metric, q);
                    }
                }
                // A singular Mahalanobis covariance is refused by both.
                (Err(b), Err(t)) => prop_assert_eq!(b.to_string(), t.to_string()),
                (b, t) => prop_assert!(false, "{:?}: brute {:?}, tree {:?}", metric, b.err(), t.err()),
            }
        }
    }
}

/// Textbook distances, written out independently of the crate.
fn textbook(metric: &Metric, x: &[f64], z: &[f64]) -> f64 {
    let diffs = x.iter().zip(z).map(|(a, b)| (a - b).abs());
    match metric {
        Metric::Euclidean => diffs.map(|v| v * v).sum::<f64>().sqrt(),
        Metric::SqEuclidean => diffs.map(|v| v * v).sum(),
        Metric::Manhattan => diffs.sum(),
        Metric::Chebyshev => diffs.fold(0.0, f64::max),
        Metric::Minkowski(p) => diffs.map(|v| v.powf(*p)).sum::<f64>().powf(1.0 / p),
        Metric::Cosine => {
            let dot: f64 = x.iter().zip(z).map(|(a, b)| a * b).sum();
            let nx = x.iter().map(|a| a * a).sum::<f64>().sqrt();
            let nz = z.iter().map(|a| a * a).sum::<f64>().sqrt();
            1.0 - dot / (nx * nz)
        }
        Metric::Hamming => x.iter().zip(z).filter(|(a, b)| a != b).count() as f64 / x.len() as f64,
        Metric::Mahalanobis(_) => unreachable!("checked in metrics.rs"),
    }
}

/// The k nearest by sorting every distance, ties to the smaller index.
fn reference(metric: &Metric, train: &DenseMatrix, x: &[f64], k: usize) -> Vec<(f64, usize)> {
    let mut all: Vec<(f64, usize)> = (0..train.nrows())
        .map(|i| (textbook(metric, x, train.row(i)), i))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.truncate(k);
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Integer data: every metric below is computed exactly up to a final monotone root, so
    /// the neighbour lists, ties included, must equal the textbook sort's.
    #[test]
    fn brute_force_equals_a_full_sort_with_ties((train, queries, k, _) in
        (1usize..60, 1usize..6, 1usize..12, 1usize..2).prop_flat_map(|(n, d, m, l)|
            (matrix(n, d, true), matrix(m, d, true), 1..=n, Just(l))))
    {
        for metric in [Metric::Euclidean, Metric::SqEuclidean, Metric::Manhattan, Metric::Chebyshev,
                       Metric::Minkowski(3.0), Metric::Hamming] {
            let got = search(&train, &queries, &metric, Algorithm::Brute, 30, k).unwrap();
            for q in 0..queries.nrows() {
                let want = reference(&metric, &train, queries.row(q), k);
                let idx: Vec<usize> = want.iter().map(|w| w.1).collect();
                prop_assert_eq!(got.indices(q), &idx[..], "{:?}", metric);
                for (g, w) in got.distances(q).iter().zip(&want) {
                    prop_assert!((g - w.0).abs() <= 1e-12 * (1.0 + w.0), "{:?}: {} vs {}", metric, g, w.0);
                }
            }
        }
    }

    /// Continuous data (no ties): cosine, which is never exact, against the textbook formula.
    #[test]
    fn cosine_brute_force_equals_a_full_sort((train, queries, k, _) in
        (1usize..60, 1usize..6, 1usize..12, 1usize..2).prop_flat_map(|(n, d, m, l)|
            (matrix(n, d, false), matrix(m, d, false), 1..=n, Just(l))))
    {
        let got = search(&train, &queries, &Metric::Cosine, Algorithm::Brute, 30, k).unwrap();
        for q in 0..queries.nrows() {
            let want = reference(&Metric::Cosine, &train, queries.row(q), k);
            for (j, (g, w)) in got.distances(q).iter().zip(&want).enumerate() {
                prop_assert!((g - w.0).abs() <= 1e-12, "{} vs {}", g, w.0);
                // The same neighbour unless two distances are within rounding of each other.
                if got.indices(q)[j] != w.1 {
                    let other = textbook(&Metric::Cosine, queries.row(q), train.row(got.indices(q)[j]));
                    prop_assert!((other - w.0).abs() <= 1e-12);
                }
            }
        }
    }

    /// Sparse records go through other code (sparse dot products, merged rows) but give the
    /// same neighbours; distances are the same bits except cosine's dot products.
    #[test]
    fn sparse_and_dense_records_agree((train, queries, k, _) in problem()) {
        let (sp_train, sp_queries) = (CsrMatrix::from_dense(&train), CsrMatrix::from_dense(&queries));
        for metric in [Metric::Euclidean, Metric::SqEuclidean, Metric::Manhattan, Metric::Chebyshev,
                       Metric::Minkowski(3.0), Metric::Hamming, Metric::Cosine] {
            let dense = search(&train, &queries, &metric, Algorithm::Brute, 30, k);
            let sparse = NearestNeighbors::params()
                .metric(metric.clone())
                .fit(&sp_train)
                .and_then(|m| m.kneighbors(&sp_queries, k));
            let (dense, sparse) = match (dense, sparse) {
                (Ok(d), Ok(s)) => (d, s),
                // Cosine refuses a zero row in either layout.
                (Err(d), Err(s)) => { prop_assert_eq!(d.to_string(), s.to_string()); continue; }
                (d, s) => { prop_assert!(false, "{:?}: {:?} vs {:?}", metric, d.err(), s.err()); unreachable!() }
            };
            // Dense training rows, sparse queries (densified block by block for the GEMM).
            let mixed = NearestNeighbors::params()
                .metric(metric.clone())
                .algorithm(Algorithm::Brute)
                .fit(&train)
                .and_then(|m| m.kneighbors(&sp_queries, k))
                .unwrap();
            if metric == Metric::Cosine {
                // Sparse and dense dot products sum in different orders.
                for q in 0..queries.nrows() {
                    for (a, b) in mixed.distances(q).iter().zip(dense.distances(q)) {
                        prop_assert!((a - b).abs() <= 1e-12);
                    }
                }
            } else {
                prop_assert_eq!(&mixed, &dense, "{:?}", metric);
            }
            for q in 0..queries.nrows() {
                if metric == Metric::Cosine {
                    for (a, b) in dense.distances(q).iter().zip(sparse.distances(q)) {
                        prop_assert!((a - b).abs() <= 1e-12);
                    }
                } else {
                    prop_assert_eq!(dense.indices(q), sparse.indices(q), "{:?}", metric);
                    prop_assert_eq!(dense.distances(q), sparse.distances(q), "{:?}", metric);
                }
            }
        }
    }
}

/// Many queries and training rows, so several GEMM blocks and rayon tasks are involved.
fn large(n: usize, d: usize, seed: u64) -> DenseMatrix {
    use rand::Rng;
    let mut rng = margin_core::split::rng_from_seed(seed);
    // A coarse grid: plenty of exact ties and duplicated rows across block boundaries.
    let v = (0..n * d)
        .map(|_| f64::from(rng.random_range(0..4)) * 0.25)
        .collect();
    DenseMatrix::from_row_major(v, n, d).unwrap()
}

#[test]
fn blocked_gemm_search_is_exact_across_blocks_and_threads() {
    let (train, queries) = (large(2500, 5, 1), large(300, 5, 2));
    let run = |threads: usize, algorithm: Algorithm| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| search(&train, &queries, &Metric::Euclidean, algorithm, 30, 7).unwrap())
    };
    let one = run(1, Algorithm::Brute);
    assert_eq!(one, run(2, Algorithm::Brute));
    assert_eq!(one, run(2, Algorithm::KdTree));
    for q in (0..queries.nrows()).step_by(17) {
        let want = reference(&Metric::SqEuclidean, &train, queries.row(q), 7);
        assert_eq!(one.indices(q), want.iter().map(|w| w.1).collect::<Vec<_>>());
    }
}
