//! Elkan's iteration against Lloyd's: from the same start both must give the same model, bit
//! for bit (labels, centres, inertia, iteration count, convergence flag), on dense and sparse
//! records, with duplicate rows and centres, exact ties, k = 1 and empty clusters, on 1 or 2
//! threads. (Against scikit-learn's `algorithm="elkan"`: sklearn_fixtures.rs.)

use margin_cluster::{KMeans, KMeansAlgorithm, KMeansInit, KMeansParams};
use margin_core::{CsrMatrix, DenseMatrix, Fit, Matrix, Predict, Records};
use margin_io::ModelFile;
use margin_testing::with_threads;
use proptest::prelude::*;
use rand::Rng;

/// Fits both algorithms, checks they agree exactly, and returns Lloyd's model.
fn same_model<R: Records + ?Sized>(params: &KMeansParams, x: &R) -> KMeans {
    let lloyd = params
        .clone()
        .algorithm(KMeansAlgorithm::Lloyd)
        .fit(x)
        .unwrap();
    let elkan = params
        .clone()
        .algorithm(KMeansAlgorithm::Elkan)
        .fit(x)
        .unwrap();
    assert_eq!(elkan.labels(), lloyd.labels(), "labels");
    assert_eq!(elkan.n_iter(), lloyd.n_iter(), "n_iter");
    assert_eq!(elkan.fit_report(), lloyd.fit_report(), "fit report");
    assert_eq!(
        elkan.cluster_centers().as_slice(),
        lloyd.cluster_centers().as_slice(),
        "centres"
    );
    assert_eq!(
        elkan.inertia().to_bits(),
        lloyd.inertia().to_bits(),
        "inertia"
    );
    // The files differ only where the stored parameters name the algorithm (one byte).
    assert_eq!(
        elkan
            .hyperparams()
            .clone()
            .algorithm(KMeansAlgorithm::Lloyd),
        *lloyd.hyperparams()
    );
    let (e, l) = (elkan.to_bytes().unwrap(), lloyd.to_bytes().unwrap());
    let (e, l) = (
        margin_io::body_of(&e).unwrap(),
        margin_io::body_of(&l).unwrap(),
    );
    assert_eq!(e.len(), l.len());
    assert_eq!(e.iter().zip(l).filter(|(a, b)| a != b).count(), 1);
    lloyd
}

/// `n` rows around `n_blobs` random centres (spread `spread`); a fifth of the rows copy an
/// earlier row; with `grid`, values are rounded to multiples of ½ (many exact ties); about
/// a third of the entries are then zeroed so the sparse form is sparse.
fn blobs(n: usize, d: usize, n_blobs: usize, spread: f64, grid: bool, seed: u64) -> DenseMatrix {
    let mut rng = margin_core::split::rng_from_seed(seed);
    let centres: Vec<f64> = (0..n_blobs * d)
        .map(|_| rng.random_range(-5.0..5.0))
        .collect();
    let mut x = DenseMatrix::zeros(n, d);
    for i in 0..n {
        if i > 0 && rng.random_bool(0.2) {
            let j = rng.random_range(0..i);
            let copy = x.row(j).to_vec();
            x.row_mut(i).copy_from_slice(&copy);
            continue;
        }
        let c = rng.random_range(0..n_blobs);
        for (j, v) in x.row_mut(i).iter_mut().enumerate() {
            let mut value = centres[c * d + j] + spread * rng.random_range(-1.0..1.0);
            if grid {
                value = (2.0 * value).round() / 2.0;
            }
            if rng.random_bool(0.3) {
                value = 0.0;
            }
            *v = value;
        }
    }
    x
}

fn init_strategy() -> impl Strategy<Value = u8> {
    0u8..4
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn elkan_gives_lloyds_model(
        n in 5usize..150,
        d in 1usize..6,
        n_blobs in 1usize..6,
        k in 1usize..9,
        spread in prop_oneof![Just(0.05), Just(0.7), Just(4.0)],
        grid in any::<bool>(),
        init in init_strategy(),
        max_iter in prop_oneof![Just(1usize), Just(3), Just(300)],
        tol in prop_oneof![Just(0.0), Just(1e-4)],
        seed in 0u64..10_000,
    ) {
        let x = blobs(n, d, n_blobs, spread, grid, seed);
        let k = k.min(n);
        let init = match init {
            0 => KMeansInit::KMeansPlusPlus,
            1 => KMeansInit::Random,
            // The first rows: duplicates among them make duplicate centres and empty clusters.
            2 => KMeansInit::Centers(x.select_rows(&(0..k).collect::<Vec<_>>()).unwrap()),
            // Every centre the same row: all but one cluster start empty.
            _ => KMeansInit::Centers(x.select_rows(&vec![0; k]).unwrap()),
        };
        let params = KMeans::params()
            .n_clusters(k)
            .init(init)
            .max_iter(max_iter)
            .tol(tol)
            .seed(seed);
        let dense = same_model(&params, &x);
        let sparse = same_model(&params, &CsrMatrix::from_dense(&x));
        prop_assert_eq!(dense.n_clusters(), k);
        prop_assert_eq!(sparse.predict(&x).unwrap().len(), n);
    }
}

#[test]
fn one_cluster_is_the_mean() {
    let x = blobs(50, 3, 2, 1.0, false, 4);
    let m = same_model(&KMeans::params().n_clusters(1), &x);
    for j in 0..3 {
        let mean = (0..50).map(|i| x.get(i, j)).sum::<f64>() / 50.0;
        assert!((m.cluster_centers().get(0, j) - mean).abs() < 1e-12);
    }
    assert_eq!(m.n_iter(), 2, "the second assignment repeats the first");
}

#[test]
fn equidistant_rows_go_to_the_lower_index() {
    // Sparse records are not centred, so these dyadic distances are exact: rows 4 and 5 are
    // equally far from both centres (0, 0) and (4, 0), which the fit never moves.
    let x = DenseMatrix::from_rows(&[[0.0, 0.0], [0.0, 0.0], [4.0, 0.0], [4.0, 0.0]]).unwrap();
    let x = CsrMatrix::from_dense(&x);
    let init = DenseMatrix::from_rows(&[[4.0, 0.0], [0.0, 0.0]]).unwrap();
    let m = same_model(
        &KMeans::params()
            .n_clusters(2)
            .init(KMeansInit::Centers(init)),
        &x,
    );
    assert_eq!(m.labels(), &[1, 1, 0, 0]);
    let probe = DenseMatrix::from_rows(&[[2.0, 0.0], [2.0, 3.0], [1.0, 0.0]]).unwrap();
    assert_eq!(m.predict(&probe).unwrap(), vec![0, 0, 1]);
    assert_eq!(
        m.predict(&CsrMatrix::from_dense(&probe)).unwrap(),
        vec![0, 0, 1]
    );
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    with_threads(threads, f)
}

#[test]
fn elkan_is_lloyd_on_one_and_two_threads() {
    // Several row blocks and many iterations (uniform data, many centres), so bounds prune,
    // go stale and are recomputed; dense and sparse.
    let mut rng = margin_core::split::rng_from_seed(3);
    let data = (0..3000 * 4).map(|_| rng.random_range(-1.0..1.0)).collect();
    let uniform = DenseMatrix::from_row_major(data, 3000, 4).unwrap();
    let cases: [(Matrix, usize); 3] = [
        (Matrix::Dense(uniform.clone()), 30),
        (Matrix::Sparse(CsrMatrix::from_dense(&uniform)), 7),
        (Matrix::Dense(blobs(2000, 12, 8, 0.5, false, 9)), 8),
    ];
    for (x, k) in &cases {
        let params = KMeans::params().n_clusters(*k).n_init(2).seed(5);
        let fit = || same_model(&params, x).to_bytes().unwrap();
        assert_eq!(in_pool(1, fit), in_pool(2, fit));
        let elkan = params.clone().algorithm(KMeansAlgorithm::Elkan);
        let m = elkan.fit(x).unwrap();
        assert!(m.n_iter() > 3, "k = {k}: {} iterations", m.n_iter());
        let back = KMeans::from_bytes(&m.to_bytes().unwrap()).unwrap();
        assert_eq!(back.predict(x).unwrap(), m.predict(x).unwrap());
        assert_eq!(back, m);
    }
}
