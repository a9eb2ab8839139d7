//! Each distance against its textbook formula (hand-computed cases and random ones), and the
//! metric axioms as properties.

use margin_core::{DenseMatrix, Fit};
use margin_neighbors::{Algorithm, Covariance, Metric, NearestNeighbors};
use proptest::prelude::*;

/// The distance from `x` to every row of `train`, in training order, through the public API.
fn distances(metric: &Metric, train: &DenseMatrix, x: &[f64]) -> Vec<f64> {
    let n = train.nrows();
    let nn = NearestNeighbors::params()
        .metric(metric.clone())
        .algorithm(Algorithm::Brute)
        .fit(train)
        .unwrap();
    let q = DenseMatrix::from_rows(&[x]).unwrap();
    let found = nn.kneighbors(&q, n).unwrap();
    let mut out = vec![f64::NAN; n];
    for (&i, &d) in found.indices(0).iter().zip(found.distances(0)) {
        out[i] = d;
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn hand_computed_distances() {
    let train = DenseMatrix::from_rows(&[[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]).unwrap();
    let x = [4.0, -2.0, 3.0];
    // x − z = (3, −4, 0) for the first row.
    let cases = [
        (Metric::Euclidean, 5.0),
        (Metric::SqEuclidean, 25.0),
        (Metric::Manhattan, 7.0),
        (Metric::Chebyshev, 4.0),
        (Metric::Minkowski(3.0), 91f64.powf(1.0 / 3.0)),
        (Metric::Minkowski(1.0), 7.0),
        (Metric::Minkowski(2.0), 5.0),
        (Metric::Minkowski(f64::INFINITY), 4.0),
        (Metric::Hamming, 2.0 / 3.0),
        // x·z = 4 − 4 + 9 = 9, ‖x‖ = √29, ‖z‖ = √14.
        (
            Metric::Mahalanobis(Covariance::Given(
                DenseMatrix::from_rows(&[[4.0, 0.0, 0.0], [0.0, 16.0, 0.0], [0.0, 0.0, 1.0]])
                    .unwrap(),
            )),
            // 9/4 + 16/16 + 0.
            (9.0f64 / 4.0 + 1.0).sqrt(),
        ),
    ];
    for (metric, want) in cases {
        let got = distances(&metric, &train, &x)[0];
        assert!(close(got, want), "{metric:?}: {got} vs {want}");
    }
    let cosine = distances(&Metric::Cosine, &train.select_rows(&[0]).unwrap(), &x)[0];
    assert!(close(cosine, 1.0 - 9.0 / (29f64.sqrt() * 14f64.sqrt())));
    // Cosine's range: 0 along, 1 across, 2 against.
    let axis = DenseMatrix::from_rows(&[[2.0, 0.0], [0.0, 3.0], [-1.0, 0.0]]).unwrap();
    let d = distances(&Metric::Cosine, &axis, &[5.0, 0.0]);
    assert!(
        close(d[0], 0.0) && close(d[1], 1.0) && close(d[2], 2.0),
        "{d:?}"
    );
}

/// `(x − z)ᵀ Σ⁻¹ (x − z)` with the 2 × 2 inverse written out, `Σ` the sample covariance.
#[test]
fn mahalanobis_from_training_data_matches_the_explicit_inverse() {
    let rows = [[1.0, 2.0], [2.0, 1.5], [4.0, 5.0], [0.5, -1.0], [3.0, 3.5]];
    let train = DenseMatrix::from_rows(&rows).unwrap();
    let n = rows.len() as f64;
    let mean = [0, 1].map(|j| rows.iter().map(|r| r[j]).sum::<f64>() / n);
    let cov = |a: usize, b: usize| {
        rows.iter()
            .map(|r| (r[a] - mean[a]) * (r[b] - mean[b]))
            .sum::<f64>()
            / (n - 1.0)
    };
    let (a, b, c) = (cov(0, 0), cov(0, 1), cov(1, 1));
    let det = a * c - b * b;
    let x = [2.5, -0.5];
    let got = distances(&Metric::Mahalanobis(Covariance::FromTraining), &train, &x);
    for (i, r) in rows.iter().enumerate() {
        let (u, v) = (x[0] - r[0], x[1] - r[1]);
        let want = ((c * u * u - 2.0 * b * u * v + a * v * v) / det).sqrt();
        assert!(close(got[i], want), "row {i}: {} vs {want}", got[i]);
    }
}

fn point(d: usize) -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), -5.0f64..5.0], d)
}

/// Metrics that satisfy the triangle inequality (squared Euclidean and cosine do not).
fn true_metrics() -> Vec<Metric> {
    vec![
        Metric::Euclidean,
        Metric::Manhattan,
        Metric::Chebyshev,
        Metric::Minkowski(1.5),
        Metric::Minkowski(4.0),
        Metric::Hamming,
        Metric::Mahalanobis(Covariance::Given(
            DenseMatrix::from_rows(&[[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 0.5]]).unwrap(),
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn metric_axioms((x, y, z) in (point(3), point(3), point(3))) {
        let train = DenseMatrix::from_rows(&[x.clone(), y.clone(), z.clone()]).unwrap();
        let mut all = true_metrics();
        all.extend([Metric::SqEuclidean, Metric::Cosine]);
        for metric in &all {
            let zero = |v: &[f64]| v.iter().all(|&a| a == 0.0);
            if *metric == Metric::Cosine && (zero(&x) || zero(&y) || zero(&z)) {
                continue;
            }
            let from: Vec<Vec<f64>> = [&x, &y, &z].iter().map(|p| distances(metric, &train, p)).collect();
            for (i, row) in from.iter().enumerate() {
                prop_assert!(row[i].abs() <= 1e-12, "{:?}: d(p, p) = {}", metric, row[i]);
                for (j, &d) in row.iter().enumerate() {
                    prop_assert!(d >= 0.0, "{:?}: negative", metric);
                    prop_assert!(close(d, from[j][i]), "{:?}: asymmetric {} {}", metric, d, from[j][i]);
                }
            }
            if true_metrics().contains(metric) {
                for (i, j, m) in [(0, 1, 2), (0, 2, 1), (1, 2, 0)] {
                    prop_assert!(from[i][j] <= from[i][m] + from[m][j] + 1e-9,
                        "{:?}: triangle {} > {} + {}", metric, from[i][j], from[i][m], from[m][j]);
                }
            }
        }
    }

    /// Random points against the textbook formulas of the Minkowski family.
    #[test]
    fn minkowski_family_matches_the_formula((x, z, p) in (point(5), point(5), 1.0f64..6.0)) {
        let train = DenseMatrix::from_rows(std::slice::from_ref(&z)).unwrap();
        let diffs: Vec<f64> = x.iter().zip(&z).map(|(a, b)| (a - b).abs()).collect();
        let want = diffs.iter().map(|v| v.powf(p)).sum::<f64>().powf(1.0 / p);
        prop_assert!(close(distances(&Metric::Minkowski(p), &train, &x)[0], want));
        let chebyshev = diffs.iter().cloned().fold(0.0, f64::max);
        prop_assert!(close(distances(&Metric::Chebyshev, &train, &x)[0], chebyshev));
    }
}
