//! What each generator promises, checked on what it returns (never against a stored copy of
//! its output).

use faer::Mat;
use proptest::prelude::*;

use super::*;
use crate::Records;
use crate::params::Params;

fn classes(data: &Dataset) -> Vec<usize> {
    data.targets.classes().unwrap().indices().to_vec()
}

fn counts(data: &Dataset) -> Vec<usize> {
    data.targets.classes().unwrap().counts()
}

fn dense(data: &Dataset) -> DenseMatrix {
    data.records.to_dense().unwrap()
}

fn column(x: &DenseMatrix, j: usize) -> Vec<f64> {
    (0..x.nrows()).map(|i| x.get(i, j)).collect()
}

fn mean_std(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Singular values of `x`, non-increasing.
fn singular_values(x: &DenseMatrix) -> Vec<f64> {
    let m = Mat::from_fn(x.nrows(), x.ncols(), |i, j| x.get(i, j));
    let mut s: Vec<f64> = m.singular_values().unwrap();
    s.sort_by(|a, b| b.total_cmp(a));
    s
}

fn refused_param(result: Result<impl std::fmt::Debug>) -> String {
    match result {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn defaults_are_scikit_learns() {
    let text = |values: Vec<(&'static str, Value)>| -> Vec<String> {
        values
            .into_iter()
            .map(|(name, v)| format!("{name}={v}"))
            .collect()
    };
    assert_eq!(
        text(Blobs::defaults()),
        [
            "n_samples=100",
            "n_features=2",
            "centers=none",
            "cluster_std=1.0",
            "center_box=-10.0,10.0",
            "shuffle=true",
            "seed=0"
        ]
    );
    assert_eq!(
        text(Circles::defaults()),
        [
            "n_samples=100",
            "shuffle=true",
            "noise=none",
            "factor=0.8",
            "seed=0"
        ]
    );
    assert_eq!(
        text(Moons::defaults()),
        ["n_samples=100", "shuffle=true", "noise=none", "seed=0"]
    );
    assert_eq!(
        text(Classification::defaults()),
        [
            "n_samples=100",
            "n_features=20",
            "n_informative=2",
            "n_redundant=2",
            "n_repeated=0",
            "n_classes=2",
            "n_clusters_per_class=2",
            "weights=none",
            "flip_y=0.01",
            "class_sep=1.0",
            "hypercube=true",
            "shift=0.0",
            "scale=1.0",
            "shuffle=true",
            "seed=0"
        ]
    );
    assert_eq!(
        text(Regression::defaults()),
        [
            "n_samples=100",
            "n_features=100",
            "n_informative=10",
            "n_targets=1",
            "bias=0.0",
            "effective_rank=none",
            "tail_strength=0.5",
            "noise=0.0",
            "shuffle=true",
            "seed=0"
        ]
    );
    // And they generate what scikit-learn's defaults do.
    let shape = |d: &Dataset| (d.n_samples(), d.n_features());
    assert_eq!(shape(&make_blobs(&Blobs::default()).unwrap()), (100, 2));
    assert_eq!(
        counts(&make_blobs(&Blobs::default()).unwrap()),
        [34, 33, 33]
    );
    assert_eq!(shape(&make_circles(&Circles::default()).unwrap()), (100, 2));
    assert_eq!(shape(&make_moons(&Moons::default()).unwrap()), (100, 2));
    let c = make_classification(&Classification::default()).unwrap();
    assert_eq!(shape(&c), (100, 20));
    assert_eq!(c.targets.classes().unwrap().n_classes(), 2);
    assert_eq!(
        shape(&make_regression(&Regression::default()).unwrap()),
        (100, 100)
    );
}

#[test]
fn blobs_lie_around_their_centres_with_the_requested_spread() {
    let p = Blobs::default()
        .n_samples([3000, 4000])
        .n_features(3)
        .cluster_std([0.5, 2.0])
        .seed(11);
    let (data, centers) = make_blobs_with_centers(&p).unwrap();
    assert_eq!((data.n_samples(), data.n_features()), (7000, 3));
    assert_eq!((centers.nrows(), centers.ncols()), (2, 3));
    assert_eq!(counts(&data), [3000, 4000]);
    let x = dense(&data);
    let y = classes(&data);
    for (k, (n, std)) in [(3000.0f64, 0.5), (4000.0, 2.0)].into_iter().enumerate() {
        for j in 0..3 {
            let values: Vec<f64> = (0..x.nrows())
                .filter(|&i| y[i] == k)
                .map(|i| x.get(i, j))
                .collect();
            let (mean, s) = mean_std(&values);
            // Five standard errors of the mean; 5% on the standard deviation.
            assert!(
                (mean - centers.get(k, j)).abs() < 5.0 * std / n.sqrt(),
                "class {k} feature {j}: mean {mean} vs centre {}",
                centers.get(k, j)
            );
            assert!(
                (s / std - 1.0).abs() < 0.05,
                "class {k} feature {j}: std {s}"
            );
            // Centres drawn in the default box.
            assert!((-10.0..10.0).contains(&centers.get(k, j)));
        }
    }
}

#[test]
fn blobs_split_the_total_evenly_and_keep_given_centres() {
    let data = make_blobs(&Blobs::default().n_samples(10).centers(4)).unwrap();
    assert_eq!(counts(&data), [3, 3, 2, 2]);

    let points = DenseMatrix::from_rows(&[[0.0, 0.0, 0.0, 1.0], [50.0, 50.0, 50.0, 50.0]]).unwrap();
    let p = Blobs::default()
        .n_samples(6)
        .centers(points.clone())
        .cluster_std(0.0)
        .shuffle(false);
    let (data, centers) = make_blobs_with_centers(&p).unwrap();
    assert_eq!(centers, points);
    assert_eq!(data.n_features(), 4, "the points set the width");
    // Standard deviation 0: every sample is its centre; unshuffled, centre by centre.
    let x = dense(&data);
    for i in 0..6 {
        assert_eq!(x.row(i), points.row(i / 3));
    }
    assert_eq!(classes(&data), [0, 0, 0, 1, 1, 1]);

    // A centre with no sample still names its class.
    let data = make_blobs(&Blobs::default().n_samples([0, 5, 0])).unwrap();
    assert_eq!(counts(&data), [0, 5, 0]);
    assert_eq!(data.targets.classes().unwrap().n_classes(), 3);
}

#[test]
fn blobs_refuse_what_cannot_be_generated() {
    let named = |p: Blobs| refused_param(make_blobs(&p));
    assert_eq!(named(Blobs::default().n_samples(0)), "n_samples");
    assert_eq!(named(Blobs::default().n_samples([0, 0])), "n_samples");
    assert_eq!(named(Blobs::default().n_features(0)), "n_features");
    assert_eq!(named(Blobs::default().centers(0)), "centers");
    assert_eq!(named(Blobs::default().cluster_std(-1.0)), "cluster_std");
    assert_eq!(
        named(Blobs::default().cluster_std([1.0, 2.0])),
        "cluster_std"
    );
    assert_eq!(named(Blobs::default().center_box(1.0, -1.0)), "center_box");
    assert_eq!(
        named(Blobs::default().n_samples([5, 5]).centers(3)),
        "centers"
    );
    let e = make_blobs(&Blobs::default().cluster_std([1.0, 2.0])).unwrap_err();
    assert!(e.to_string().contains("one per centre (3 values)"), "{e}");
}

#[test]
fn circles_lie_on_radius_one_and_factor() {
    let data = make_circles(&Circles::default().n_samples(101).factor(0.3)).unwrap();
    assert_eq!(
        counts(&data),
        [50, 51],
        "the inner circle takes the odd sample"
    );
    let x = dense(&data);
    let y = classes(&data);
    let mut angles = [Vec::new(), Vec::new()];
    for i in 0..101 {
        let (a, b) = (x.get(i, 0), x.get(i, 1));
        let r = a.hypot(b);
        let want = if y[i] == 0 { 1.0 } else { 0.3 };
        assert!((r - want).abs() < 1e-12, "sample {i}: radius {r}");
        angles[y[i]].push(b.atan2(a));
    }
    // Evenly spaced, none repeated (the end point 2π is left out).
    for a in &mut angles {
        a.sort_by(f64::total_cmp);
        let step = std::f64::consts::TAU / a.len() as f64;
        for w in a.windows(2) {
            assert!((w[1] - w[0] - step).abs() < 1e-9);
        }
    }
}

#[test]
fn noise_spreads_the_points_by_its_standard_deviation() {
    let data = make_circles(&Circles::default().n_samples(8000).noise(0.02).seed(3)).unwrap();
    let x = dense(&data);
    let y = classes(&data);
    let off: Vec<f64> = (0..x.nrows())
        .map(|i| x.get(i, 0).hypot(x.get(i, 1)) - if y[i] == 0 { 1.0 } else { 0.8 })
        .collect();
    let (mean, std) = mean_std(&off);
    assert!(mean.abs() < 0.002, "{mean}");
    assert!((std / 0.02 - 1.0).abs() < 0.05, "{std}");
}

#[test]
fn moons_lie_on_their_half_circles() {
    let data = make_moons(&Moons::default().n_samples([7, 9])).unwrap();
    assert_eq!(counts(&data), [7, 9]);
    let x = dense(&data);
    let y = classes(&data);
    let mut ends = [Vec::new(), Vec::new()];
    for i in 0..16 {
        let (a, b) = (x.get(i, 0), x.get(i, 1));
        if y[i] == 0 {
            assert!((a.hypot(b) - 1.0).abs() < 1e-12 && b >= -1e-12);
        } else {
            assert!(((a - 1.0).hypot(b - 0.5) - 1.0).abs() < 1e-12 && b <= 0.5 + 1e-12);
        }
        ends[y[i]].push(a);
    }
    // Each moon from end to end.
    let span = |v: &Vec<f64>| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let (lo, hi) = span(&ends[0]);
    assert!((lo + 1.0).abs() < 1e-12 && (hi - 1.0).abs() < 1e-12);
    let (lo, hi) = span(&ends[1]);
    assert!(lo.abs() < 1e-12 && (hi - 2.0).abs() < 1e-12);

    let one = make_moons(&Moons::default().n_samples(1)).unwrap();
    assert_eq!(counts(&one), [0, 1]);
}

#[test]
fn shapes_refuse_what_cannot_be_generated() {
    assert_eq!(
        refused_param(make_circles(&Circles::default().factor(1.0))),
        "factor"
    );
    assert_eq!(
        refused_param(make_circles(&Circles::default().factor(-0.1))),
        "factor"
    );
    assert_eq!(
        refused_param(make_circles(&Circles::default().noise(-0.1))),
        "noise"
    );
    assert_eq!(
        refused_param(make_circles(&Circles::default().n_samples(0))),
        "n_samples"
    );
    assert_eq!(
        refused_param(make_moons(&Moons::default().n_samples([1, 2, 3]))),
        "n_samples"
    );
    assert_eq!(
        refused_param(make_moons(&Moons::default().noise(f64::NAN))),
        "noise"
    );
}

#[test]
fn classification_balances_classes_and_honours_weights() {
    let exact = Classification::default().flip_y(0.0);
    let exact = exact.n_informative(3);
    let data = make_classification(&exact.clone().n_samples(100).n_classes(3)).unwrap();
    let c = counts(&data);
    assert_eq!(c.iter().sum::<usize>(), 100);
    assert!(
        c.iter().max().unwrap() - c.iter().min().unwrap() <= 1,
        "{c:?}"
    );

    for weights in [vec![0.1, 0.3, 0.6], vec![0.1, 0.3]] {
        let p = exact.clone().n_samples(1001).n_classes(3).weights(weights);
        let c = counts(&make_classification(&p).unwrap());
        // Within rounding: a sample per cluster (2 per class) at most.
        for (count, w) in c.iter().zip([0.1, 0.3, 0.6]) {
            assert!((*count as f64 - w * 1001.0).abs() <= 2.0, "{c:?}");
        }
    }
}

#[test]
fn classification_clusters_sit_on_hypercube_vertices() {
    let p = Classification::default()
        .n_samples(4000)
        .n_features(2)
        .n_informative(2)
        .n_redundant(0)
        .n_classes(4)
        .n_clusters_per_class(1)
        .class_sep(2.0)
        .flip_y(0.0)
        .seed(5);
    let data = make_classification(&p).unwrap();
    let x = dense(&data);
    let y = classes(&data);
    let mut means = Vec::new();
    for k in 0..4 {
        let rows: Vec<usize> = (0..4000).filter(|&i| y[i] == k).collect();
        let mean: Vec<f64> = (0..2)
            .map(|j| rows.iter().map(|&i| x.get(i, j)).sum::<f64>() / rows.len() as f64)
            .collect();
        // The random mixing has mean zero: each class is centred on a vertex (±2, ±2).
        for m in &mean {
            assert!((m.abs() - 2.0).abs() < 0.15, "class {k}: mean {mean:?}");
        }
        means.push(mean);
    }
    let mut vertices: Vec<(bool, bool)> = means.iter().map(|m| (m[0] > 0.0, m[1] > 0.0)).collect();
    vertices.sort();
    vertices.dedup();
    assert_eq!(vertices.len(), 4, "one vertex per class");
    // The informative features separate the classes: nearest class mean is right nearly always.
    let right = (0..4000)
        .filter(|&i| {
            let d = |m: &Vec<f64>| (x.get(i, 0) - m[0]).powi(2) + (x.get(i, 1) - m[1]).powi(2);
            (0..4).min_by(|&a, &b| d(&means[a]).total_cmp(&d(&means[b]))) == Some(y[i])
        })
        .count();
    assert!(
        right as f64 / 4000.0 > 0.9,
        "accuracy {}",
        right as f64 / 4000.0
    );
}

#[test]
fn redundant_features_are_combinations_and_repeated_ones_copies() {
    let base = Classification::default()
        .n_samples(200)
        .n_features(9)
        .n_informative(3)
        .n_redundant(2)
        .n_repeated(2)
        .seed(9);
    let x = dense(&make_classification(&base.clone().shuffle(false)).unwrap());
    // Informative then redundant columns: rank 3.
    let useful =
        DenseMatrix::from_rows(&(0..200).map(|i| x.row(i)[..5].to_vec()).collect::<Vec<_>>())
            .unwrap();
    let s = singular_values(&useful);
    assert!(s[2] > 1e-3 * s[0] && s[3] < 1e-12 * s[0], "{s:?}");
    // Repeated columns are exact copies of earlier ones.
    for j in 5..7 {
        let copy = column(&x, j);
        assert!((0..5).any(|src| column(&x, src) == copy), "column {j}");
    }
    // Shuffled, the whole matrix keeps rank 3 informative + 2 noise.
    let x = dense(&make_classification(&base).unwrap());
    let s = singular_values(&x);
    assert!(s[4] > 1e-3 * s[0] && s[5] < 1e-12 * s[0], "{s:?}");
}

#[test]
fn flip_y_redraws_that_share_of_labels() {
    let p = Classification::default()
        .n_samples(4000)
        .shuffle(false)
        .seed(2);
    let clean = make_classification(&p.clone().flip_y(0.0)).unwrap();
    let noisy = make_classification(&p.flip_y(0.4)).unwrap();
    assert_eq!(clean.records, noisy.records, "flipping touches labels only");
    let changed = classes(&clean)
        .iter()
        .zip(classes(&noisy))
        .filter(|(a, b)| **a != *b)
        .count() as f64
        / 4000.0;
    // A redrawn label keeps its class half the time with two classes.
    assert!((changed - 0.2).abs() < 0.03, "{changed}");
}

#[test]
fn shift_then_scale() {
    let p = Classification::default()
        .n_samples(50)
        .class_sep(1.5)
        .shuffle(false)
        .seed(4);
    let plain = dense(&make_classification(&p).unwrap());
    let moved = p
        .clone()
        .shift(Some(Per::All(3.0)))
        .scale(Some(Per::All(2.0)));
    let moved = dense(&make_classification(&moved).unwrap());
    for (a, b) in plain.as_slice().iter().zip(moved.as_slice()) {
        assert_eq!((a + 3.0) * 2.0, *b);
    }
    // Random shifts: one per feature, within ±class_sep.
    let random = dense(&make_classification(&p.shift(None)).unwrap());
    for j in 0..20 {
        let shifts: Vec<f64> = (0..50)
            .map(|i| random.get(i, j) - plain.get(i, j))
            .collect();
        assert!(
            shifts
                .iter()
                .all(|s| (s - shifts[0]).abs() < 1e-9 && s.abs() <= 1.5)
        );
    }
}

#[test]
fn classification_refuses_what_cannot_be_generated() {
    let named = |p: Classification| refused_param(make_classification(&p));
    let d = Classification::default;
    assert_eq!(named(d().n_samples(0)), "n_samples");
    assert_eq!(
        named(
            d().n_features(4)
                .n_informative(2)
                .n_redundant(2)
                .n_repeated(1)
        ),
        "n_features"
    );
    assert_eq!(named(d().n_classes(3)), "n_informative"); // 3 · 2 clusters > 2² vertices
    assert_eq!(named(d().weights(vec![0.2, 0.3, 0.5])), "weights");
    assert_eq!(named(d().weights(vec![0.7, 0.7])), "weights");
    assert_eq!(named(d().weights(vec![-0.1])), "weights");
    assert_eq!(named(d().flip_y(1.5)), "flip_y");
    assert_eq!(named(d().class_sep(0.0)), "class_sep");
    assert_eq!(named(d().shift(Some(Per::Each(vec![1.0; 3])))), "shift");
    assert_eq!(named(d().scale(Some(Per::All(0.0)))), "scale");
    let e = make_classification(&d().n_classes(3)).unwrap_err();
    assert!(e.to_string().contains("2^n_informative"), "{e}");
}

#[test]
fn regression_targets_are_the_linear_model() {
    for shuffle in [false, true] {
        let p = Regression::default()
            .n_samples(80)
            .n_features(12)
            .n_informative(4)
            .bias(-7.5)
            .shuffle(shuffle)
            .seed(8);
        let (data, coef) = make_regression_with_coef(&p).unwrap();
        assert_eq!(coef.iter().filter(|c| **c != 0.0).count(), 4);
        assert!(coef.iter().all(|c| (0.0..100.0).contains(c)));
        if !shuffle {
            assert!(coef[..4].iter().all(|c| *c != 0.0), "informative first");
        }
        let x = dense(&data);
        let y = data.targets.values().unwrap();
        for i in 0..80 {
            let fit: f64 = x.row(i).iter().zip(&coef).map(|(a, b)| a * b).sum::<f64>() - 7.5;
            assert!(
                (fit - y[i]).abs() <= 1e-12 * y[i].abs().max(1.0),
                "{fit} vs {}",
                y[i]
            );
        }
        assert_eq!(make_regression(&p).unwrap(), data);
    }
    // More informative features than features: all of them, as in scikit-learn.
    let (_, coef) =
        make_regression_with_coef(&Regression::default().n_features(3).n_informative(10)).unwrap();
    assert!(coef.iter().all(|c| *c != 0.0));
}

#[test]
fn regression_noise_has_the_requested_standard_deviation() {
    let p = Regression::default()
        .n_samples(6000)
        .n_features(4)
        .noise(2.5)
        .seed(6);
    let (data, coef) = make_regression_with_coef(&p).unwrap();
    let x = dense(&data);
    let y = data.targets.values().unwrap();
    let residuals: Vec<f64> = (0..6000)
        .map(|i| y[i] - x.row(i).iter().zip(&coef).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    let (mean, std) = mean_std(&residuals);
    assert!(
        mean.abs() < 0.15 && (std / 2.5 - 1.0).abs() < 0.05,
        "{mean} {std}"
    );
}

#[test]
fn effective_rank_gives_the_decaying_spectrum() {
    let (rank, tail) = (4, 0.2);
    let p = Regression::default()
        .n_samples(60)
        .n_features(30)
        .effective_rank(Some(rank))
        .tail_strength(tail)
        .seed(12);
    let data = make_regression(&p).unwrap();
    let s = singular_values(&dense(&data));
    assert_eq!(s.len(), 30);
    for (i, s) in s.iter().enumerate() {
        let t = i as f64 / rank as f64;
        let want = (1.0 - tail) * (-t * t).exp() + tail * (-0.1 * t).exp();
        assert!(
            (s - want).abs() < 1e-10,
            "singular value {i}: {s} vs {want}"
        );
    }
    // Well conditioned without it.
    let s = singular_values(&dense(&make_regression(&p.effective_rank(None)).unwrap()));
    assert!(s[29] > 0.1 * s[0], "{s:?}");
}

#[test]
fn regression_refuses_what_cannot_be_generated() {
    let named = |p: Regression| refused_param(make_regression(&p));
    let d = Regression::default;
    assert_eq!(named(d().n_samples(0)), "n_samples");
    assert_eq!(named(d().n_features(0)), "n_features");
    assert_eq!(named(d().n_targets(2)), "n_targets");
    assert_eq!(named(d().noise(-1.0)), "noise");
    assert_eq!(named(d().bias(f64::INFINITY)), "bias");
    assert_eq!(named(d().effective_rank(Some(0))), "effective_rank");
    assert_eq!(named(d().tail_strength(1.5)), "tail_strength");
}

#[test]
fn memory_for_the_records_is_asked_for_first() {
    let huge = usize::MAX / 16;
    let oom = |r: Result<Dataset>| matches!(r, Err(Error::OutOfMemory { .. }));
    assert!(oom(make_regression(&Regression::default().n_samples(huge))));
    assert!(oom(make_classification(
        &Classification::default().n_samples(huge)
    )));
    assert!(oom(make_blobs(&Blobs::default().n_samples(huge))));
    assert!(oom(make_circles(&Circles::default().n_samples(huge))));
    assert!(oom(make_moons(&Moons::default().n_samples(huge))));
    // Counts that only size small buffers are asked for too, never an abort.
    assert!(oom(make_blobs(&Blobs::default().centers(huge))));
    let many_classes = Classification::default()
        .n_features(70)
        .n_informative(66)
        .n_redundant(0)
        .n_classes(huge)
        .n_clusters_per_class(1);
    assert!(oom(make_classification(&many_classes)));
    assert!(oom(make_regression(
        &Regression::default()
            .n_samples(1 << 20)
            .n_features(1 << 20)
            .effective_rank(Some(5))
    )));
}

#[test]
fn the_seed_fixes_the_data() {
    let twice = |make: &dyn Fn(u64) -> Dataset| {
        assert_eq!(make(1), make(1));
        assert_ne!(make(1).records, make(2).records);
    };
    twice(&|s| make_blobs(&Blobs::default().seed(s)).unwrap());
    twice(&|s| make_circles(&Circles::default().noise(0.1).seed(s)).unwrap());
    twice(&|s| make_moons(&Moons::default().noise(0.1).seed(s)).unwrap());
    twice(&|s| make_classification(&Classification::default().seed(s)).unwrap());
    twice(&|s| make_regression(&Regression::default().seed(s)).unwrap());
    twice(&|s| make_regression(&Regression::default().effective_rank(Some(5)).seed(s)).unwrap());
    // Without noise, the shapes' seed only orders the samples.
    let unshuffled = |s| make_circles(&Circles::default().shuffle(false).seed(s)).unwrap();
    assert_eq!(unshuffled(1), unshuffled(2));
}

#[test]
fn parameters_read_from_text_and_back() {
    let mut p = Blobs::default();
    p.set("n_samples", "30,70").unwrap();
    p.set("centers", "0,0;5,5").unwrap();
    p.set("cluster-std", "0.5,2").unwrap();
    p.set("center_box", "-1,1").unwrap();
    let want = Blobs::default()
        .n_samples([30, 70])
        .centers(DenseMatrix::from_rows(&[[0.0, 0.0], [5.0, 5.0]]).unwrap())
        .cluster_std([0.5, 2.0])
        .center_box(-1.0, 1.0);
    assert_eq!(p, want);
    let mut again = Blobs::default();
    for (name, value) in p.values() {
        again.set(name, &value.to_string()).unwrap();
    }
    assert_eq!(again, p);
    assert!(p.set("centers", "0,0;5").is_err(), "rows of unequal width");
    assert!(p.set("center_box", "1").is_err());
    assert_eq!(
        p, want,
        "a refused value leaves the parameters as they were"
    );

    let mut c = Classification::default();
    c.set("shift", "none").unwrap();
    c.set("weights", "0.25,0.75").unwrap();
    assert_eq!(
        c,
        Classification::default()
            .shift(None)
            .weights(vec![0.25, 0.75])
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn every_generator_gives_the_shape_and_classes_asked_for(
        n in 1usize..150,
        d in 1usize..6,
        k in 1usize..5,
        seed in any::<u64>(),
    ) {
        let blobs = make_blobs(&Blobs::default().n_samples(n).n_features(d).centers(k).seed(seed)).unwrap();
        prop_assert_eq!((blobs.n_samples(), blobs.n_features()), (n, d));
        let c = counts(&blobs);
        prop_assert_eq!(c.len(), k);
        prop_assert!(c.iter().max().unwrap() - c.iter().min().unwrap() <= 1);

        for data in [
            make_circles(&Circles::default().n_samples(n).seed(seed)).unwrap(),
            make_moons(&Moons::default().n_samples(n).noise(0.1).seed(seed)).unwrap(),
        ] {
            prop_assert_eq!(data.n_features(), 2);
            prop_assert_eq!(counts(&data), vec![n / 2, n - n / 2]);
        }

        let inf = d.min(3);
        let p = Classification::default()
            .n_samples(n)
            .n_features(d + 2)
            .n_informative(inf)
            .n_redundant(1)
            .n_repeated(1)
            .n_classes(k.min(1 << inf))
            .n_clusters_per_class(1)
            .seed(seed);
        let data = make_classification(&p).unwrap();
        prop_assert_eq!((data.n_samples(), data.n_features()), (n, d + 2));
        prop_assert_eq!(data.targets.classes().unwrap().n_classes(), k.min(1 << inf));
        prop_assert!(data.records.to_dense().unwrap().as_slice().iter().all(|v| v.is_finite()));

        let (data, coef) = make_regression_with_coef(
            &Regression::default().n_samples(n).n_features(d).n_informative(k).seed(seed),
        ).unwrap();
        prop_assert_eq!((data.n_samples(), data.n_features(), coef.len()), (n, d, d));
        prop_assert_eq!(coef.iter().filter(|c| **c != 0.0).count(), k.min(d));
    }
}

#[test]
fn parameters_are_plain_data() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Blobs>();
    send_sync::<Circles>();
    send_sync::<Moons>();
    send_sync::<Classification>();
    send_sync::<Regression>();
    let p = Blobs::default()
        .n_samples([3, 4])
        .centers(DenseMatrix::from_rows(&[[1.0], [2.0]]).unwrap())
        .cluster_std([0.5, 1.5]);
    let bytes = bincode::serde::encode_to_vec(&p, bincode::config::standard()).unwrap();
    let (back, _): (Blobs, usize) =
        bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).unwrap();
    assert_eq!(back, p);
}
