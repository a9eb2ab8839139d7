//! Hand-computed cases and invariants: Lloyd never increases the inertia, k-means labels are
//! nearest centres, PCA reconstructs the data from all its components and its components are
//! orthonormal, randomized PCA agrees with the full SVD on low-rank data, and every model is
//! bit-identical on 1 and 2 threads.

use margin_cluster::{KMeans, KMeansInit, MiniBatchKMeans, NComponents, Pca, PcaParams, SvdSolver};
use margin_core::{CsrMatrix, DenseMatrix, Fit, Matrix, Predict, Records, Transform};
use margin_io::ModelFile;
use margin_testing::with_threads;
use proptest::prelude::*;
use rand::Rng;

fn random_rows(n: usize, d: usize, seed: u64) -> DenseMatrix {
    let mut rng = margin_core::split::rng_from_seed(seed);
    let data = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    DenseMatrix::from_row_major(data, n, d).unwrap()
}

/// `n` points around each of `centers`, spread ±0.5.
fn blobs(centers: &[Vec<f64>], n: usize, seed: u64) -> DenseMatrix {
    let d = centers[0].len();
    let noise = random_rows(n * centers.len(), d, seed);
    let mut out = DenseMatrix::zeros(n * centers.len(), d);
    for i in 0..n * centers.len() {
        let c = &centers[i % centers.len()];
        for ((o, &cj), &e) in out.row_mut(i).iter_mut().zip(c).zip(noise.row(i)) {
            *o = cj + 0.5 * e;
        }
    }
    out
}

#[test]
fn two_obvious_clusters() {
    let x = DenseMatrix::from_rows(&[
        [0.0, 0.0],
        [0.0, 1.0],
        [1.0, 0.0],
        [10.0, 10.0],
        [10.0, 11.0],
        [11.0, 10.0],
    ])
    .unwrap();
    for sparse in [false, true] {
        let records: Matrix = if sparse {
            CsrMatrix::from_dense(&x).into()
        } else {
            x.clone().into()
        };
        let m = KMeans::params()
            .n_clusters(2)
            .seed(3)
            .fit(&records)
            .unwrap();
        let l = m.labels();
        assert_eq!(l[0], l[1]);
        assert_eq!(l[0], l[2]);
        assert_eq!(l[3], l[4]);
        assert_eq!(l[3], l[5]);
        assert_ne!(l[0], l[3]);
        let c = m.cluster_centers();
        let (a, b) = (l[0], l[3]);
        for (got, want) in c.row(a).iter().zip([1.0 / 3.0, 1.0 / 3.0]) {
            assert!((got - want).abs() < 1e-12);
        }
        for (got, want) in c.row(b).iter().zip([31.0 / 3.0, 31.0 / 3.0]) {
            assert!((got - want).abs() < 1e-12);
        }
        // Each cluster: two points at squared distance 1/9 + 4/9 and one at 2/9 + 2/9... = 4/3.
        assert!((m.inertia() - 8.0 / 3.0).abs() < 1e-12, "{}", m.inertia());
        let probe = DenseMatrix::from_rows(&[[0.2, 0.1], [9.0, 9.5]]).unwrap();
        assert_eq!(m.predict(&probe).unwrap(), vec![a, b]);
        let t = m.transform(&probe).unwrap().to_dense().unwrap();
        let want = ((0.2f64 - 1.0 / 3.0).powi(2) + (0.1f64 - 1.0 / 3.0).powi(2)).sqrt();
        assert!((t.get(0, a) - want).abs() < 1e-12);
        assert!(
            (m.score(&probe).unwrap() + t.get(0, a).powi(2) + t.get(1, b).powi(2)).abs() < 1e-9
        );
    }
}

#[test]
fn minibatch_finds_well_separated_blobs() {
    let centers = vec![
        vec![0.0, 0.0, 0.0],
        vec![10.0, 0.0, 0.0],
        vec![0.0, 10.0, 5.0],
    ];
    let x = blobs(&centers, 2000, 5);
    let m = MiniBatchKMeans::params()
        .n_clusters(3)
        .batch_size(256)
        .seed(1)
        .fit(&x)
        .unwrap();
    let full = KMeans::params().n_clusters(3).fit(&x).unwrap();
    // Same partition as full k-means (blobs are 10 apart, noise ±0.5).
    for i in 0..x.nrows() {
        for j in 0..x.nrows().min(50) {
            assert_eq!(
                m.labels()[i] == m.labels()[j],
                full.labels()[i] == full.labels()[j]
            );
        }
    }
    assert!(m.inertia() <= 1.01 * full.inertia());
    assert!(m.n_steps() >= 1 && m.n_iter() >= 1);
}

#[test]
fn empty_cluster_takes_the_farthest_point() {
    // A centre far from every row gets no rows at the first assignment: it must take the row
    // farthest from its centre, and all centres end up distinct.
    let x = DenseMatrix::from_rows(&[[0.0], [1.0], [2.0], [10.0]]).unwrap();
    let init = DenseMatrix::from_rows(&[[1.0], [100.0]]).unwrap();
    let m = KMeans::params()
        .n_clusters(2)
        .init(KMeansInit::Centers(init))
        .fit(&x)
        .unwrap();
    let c = m.cluster_centers();
    let mut centers = [c.get(0, 0), c.get(1, 0)];
    centers.sort_by(f64::total_cmp);
    assert_eq!(centers, [1.0, 10.0]);
    assert!((m.inertia() - 2.0).abs() < 1e-12);
}

#[test]
fn pca_of_points_on_a_line_has_one_component() {
    // x = t·(1, 2, −3)/√14 + (5, 5, 5).
    let rows: Vec<[f64; 3]> = (0..10)
        .map(|t| {
            let t = t as f64 - 3.0;
            let u = 14f64.sqrt();
            [5.0 + t / u, 5.0 + 2.0 * t / u, 5.0 - 3.0 * t / u]
        })
        .collect();
    let x = DenseMatrix::from_rows(&rows).unwrap();
    for solver in [SvdSolver::Full, SvdSolver::CovarianceEigh] {
        let m = Pca::params().svd_solver(solver).fit(&x).unwrap();
        let r = m.explained_variance_ratio();
        assert!((r[0] - 1.0).abs() < 1e-12, "{r:?}");
        assert!(r[1..].iter().all(|v| v.abs() < 1e-12));
        // The sign rule makes the largest-magnitude entry (the third) positive.
        let c = m.components().row(0);
        for (got, want) in c.iter().zip([-1.0, -2.0, 3.0].map(|v| v / 14f64.sqrt())) {
            assert!((got - want).abs() < 1e-10, "{c:?}");
        }
        let one = Pca::params()
            .svd_solver(solver)
            .n_components(NComponents::Fraction(0.99))
            .fit(&x)
            .unwrap();
        assert_eq!(one.n_components(), 1);
        let back = one.inverse_transform(&one.transform(&x).unwrap()).unwrap();
        for (a, b) in back.as_slice().iter().zip(x.as_slice()) {
            assert!((a - b).abs() < 1e-10);
        }
        // Variance along t: Σ (t − mean t)² / 9 with t = −3..6.
        assert!((one.explained_variance()[0] - 82.5 / 9.0).abs() < 1e-10);
    }
}

#[test]
fn randomized_pca_agrees_with_full_on_low_rank_data() {
    // 600 × 80 of rank 5 plus tiny noise.
    let (n, d, r) = (600, 80, 5);
    let a = random_rows(n, r, 1);
    let b = random_rows(r, d, 2);
    let noise = random_rows(n, d, 3);
    let mut x = DenseMatrix::zeros(n, d);
    for i in 0..n {
        for j in 0..d {
            let s: f64 = (0..r)
                .map(|k| a.get(i, k) * b.get(k, j) * (k + 1) as f64)
                .sum();
            x.row_mut(i)[j] = s + 1e-6 * noise.get(i, j) + 3.0;
        }
    }
    let full = Pca::params()
        .n_components(NComponents::Count(r))
        .svd_solver(SvdSolver::Full)
        .fit(&x)
        .unwrap();
    let rand = Pca::params()
        .n_components(NComponents::Count(r))
        .svd_solver(SvdSolver::Randomized)
        .seed(9)
        .fit(&x)
        .unwrap();
    assert_eq!(rand.solver(), SvdSolver::Randomized);
    for k in 0..r {
        let (f, g) = (full.components().row(k), rand.components().row(k));
        let cos: f64 = f.iter().zip(g).map(|(a, b)| a * b).sum();
        assert!(cos > 1.0 - 1e-9, "component {k}: cos {cos}");
        let (sf, sr) = (full.singular_values()[k], rand.singular_values()[k]);
        assert!((sf - sr).abs() <= 1e-9 * sf);
        let (rf, rr) = (
            full.explained_variance_ratio()[k],
            rand.explained_variance_ratio()[k],
        );
        assert!((rf - rr).abs() <= 1e-9);
    }
    assert!((full.noise_variance() - rand.noise_variance()).abs() < 1e-9);
}

#[test]
fn auto_solver_follows_sklearns_rule() {
    let tall = random_rows(400, 10, 1);
    let m = Pca::params().fit(&tall).unwrap();
    assert_eq!(m.solver(), SvdSolver::CovarianceEigh);
    let small = random_rows(60, 30, 2);
    assert_eq!(Pca::params().fit(&small).unwrap().solver(), SvdSolver::Full);
    let wide = random_rows(200, 600, 3);
    let few = Pca::params()
        .n_components(NComponents::Count(10))
        .fit(&wide)
        .unwrap();
    assert_eq!(few.solver(), SvdSolver::Randomized);
    assert_eq!(Pca::params().fit(&wide).unwrap().solver(), SvdSolver::Full);
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    with_threads(threads, f)
}

#[test]
fn one_and_two_threads_give_identical_models() {
    // Large enough for several row groups (> 256 rows per group) and parallel GEMMs.
    let centers: Vec<Vec<f64>> = (0..6)
        .map(|c| (0..12).map(|j| ((c * 7 + j) % 5) as f64).collect())
        .collect();
    let x = blobs(&centers, 700, 11);
    let sparse = Matrix::Sparse(CsrMatrix::from_dense(&x));
    let dense = Matrix::Dense(x);
    for records in [&dense, &sparse] {
        let fit = || {
            let k = KMeans::params()
                .n_clusters(6)
                .n_init(2)
                .seed(4)
                .fit(records)
                .unwrap();
            let mb = MiniBatchKMeans::params()
                .n_clusters(6)
                .batch_size(300)
                .seed(4)
                .fit(records)
                .unwrap();
            (k.to_bytes().unwrap(), mb.to_bytes().unwrap())
        };
        assert_eq!(in_pool(1, fit), in_pool(2, fit));
    }
    // 1200 × 300: one row block; 9000 × 30: several (tall-skinny QR, blocked products).
    let (wide, tall) = (random_rows(1200, 300, 5), random_rows(9000, 30, 6));
    for (x, solver) in [
        (&wide, SvdSolver::Full),
        (&wide, SvdSolver::CovarianceEigh),
        (&wide, SvdSolver::Randomized),
        (&tall, SvdSolver::Full),
        (&tall, SvdSolver::CovarianceEigh),
        (&tall, SvdSolver::Randomized),
    ] {
        let params = Pca::params()
            .n_components(NComponents::Count(20))
            .svd_solver(solver)
            .seed(2);
        let fit = || {
            let m = params.fit(x).unwrap();
            let t = m.transform(x).unwrap();
            (m.to_bytes().unwrap(), t)
        };
        assert!(in_pool(1, fit) == in_pool(2, fit), "{solver:?}");
    }
}

fn check_orthonormal(p: &Pca) {
    let c = p.components();
    for a in 0..c.nrows() {
        for b in 0..c.nrows() {
            let dot: f64 = c.row(a).iter().zip(c.row(b)).map(|(x, y)| x * y).sum();
            let want = if a == b { 1.0 } else { 0.0 };
            assert!((dot - want).abs() < 1e-9, "({a}, {b}): {dot}");
        }
    }
}

fn solver_strategy() -> impl Strategy<Value = SvdSolver> {
    prop_oneof![
        Just(SvdSolver::Full),
        Just(SvdSolver::CovarianceEigh),
        Just(SvdSolver::Randomized)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn lloyd_never_increases_the_inertia(
        rows in proptest::collection::vec(proptest::collection::vec(-5.0f64..5.0, 3), 8..60),
        k in 1usize..6,
        seed in 0u64..1000,
    ) {
        let x = DenseMatrix::from_rows(&rows).unwrap();
        let k = k.min(rows.len());
        // Every run starts from the same centres (rows `seed % n` onwards) and iterates 1, 2, ...
        // times, so run t + 1 is run t plus one Lloyd iteration.
        let first = (seed as usize) % (rows.len() - k + 1);
        let start = KMeansInit::Centers(DenseMatrix::from_rows(&rows[first..first + k]).unwrap());
        let mut last = f64::INFINITY;
        for t in 1..8 {
            let m = KMeans::params().n_clusters(k).init(start.clone()).max_iter(t).tol(0.0).fit(&x).unwrap();
            prop_assert!(m.inertia() <= last * (1.0 + 1e-12) + 1e-12, "iteration {}: {} > {}", t, m.inertia(), last);
            last = m.inertia();
            // Labels are nearest centres of the final centres.
            prop_assert_eq!(m.predict(&x).unwrap(), m.labels().to_vec());
        }
    }

    #[test]
    fn pca_round_trips_and_components_are_orthonormal(
        n in 3usize..40,
        d in 1usize..12,
        seed in 0u64..1000,
        whiten in any::<bool>(),
        solver in solver_strategy(),
    ) {
        let x = random_rows(n, d, seed);
        let m = PcaParams::default().svd_solver(solver).whiten(whiten).seed(seed).fit(&x).unwrap();
        prop_assert_eq!(m.n_components(), n.min(d));
        check_orthonormal(&m);
        let z = m.transform(&x).unwrap();
        let back = m.inverse_transform(&z).unwrap();
        for (a, b) in back.as_slice().iter().zip(x.as_slice()) {
            prop_assert!((a - b).abs() < 1e-8, "{} vs {}", a, b);
        }
        let r = m.explained_variance_ratio();
        prop_assert!(r.windows(2).all(|w| w[0] >= w[1] - 1e-12));
        prop_assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-8);
    }
}

#[test]
fn models_are_send_and_sync() {
    fn both<T: Send + Sync>() {}
    both::<KMeans>();
    both::<MiniBatchKMeans>();
    both::<Pca>();
    both::<margin_cluster::KMeansParams>();
    both::<margin_cluster::MiniBatchKMeansParams>();
    both::<PcaParams>();
}

#[test]
fn records_layouts_agree_for_kmeans() {
    let x = random_rows(300, 4, 8);
    let s = CsrMatrix::from_dense(&x);
    let a = KMeans::params().n_clusters(4).seed(1).fit(&x).unwrap();
    let b = KMeans::params().n_clusters(4).seed(1).fit(&s).unwrap();
    assert_eq!(a.labels(), b.labels());
    for (p, q) in a
        .cluster_centers()
        .as_slice()
        .iter()
        .zip(b.cluster_centers().as_slice())
    {
        assert!((p - q).abs() < 1e-10);
    }
    assert_eq!(a.predict(&s).unwrap(), a.predict(&x).unwrap());
    assert_eq!(s.n_samples(), 300);
}
