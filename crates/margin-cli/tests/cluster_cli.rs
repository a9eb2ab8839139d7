//! `margin train kmeans|minibatch-kmeans|pca`, `margin predict` (cluster indices) and
//! `margin transform` (PCA projections, k-means distances): outputs equal to the library's,
//! scikit-learn 1.9.1's component count for a variance fraction, the input format and labels
//! kept, and refusals with exit code 2.

use crate::common;

use std::path::{Path, PathBuf};

use common::{fails_with, margin, predict, root, s, stdout, train};
use margin_cluster::{KMeans, KMeansAlgorithm, NComponents, Pca};
use margin_core::{Fit, Predict, Records, Transform};
use margin_io::{
    CsvOptions, DataFormat, LibsvmOptions, ModelFile, read_csv, read_data, read_libsvm,
};

fn run(args: &[&str]) -> String {
    stdout(&margin(args))
}

/// Trains `margin train ARGS -o DIR/NAME` in a new temporary directory DIR (ARGS, words split
/// at whitespace, end with the data), which must succeed: DIR and the model file's path.
fn trained(name: &str, args: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join(name);
    let mut full: Vec<&str> = args.split_whitespace().collect();
    full.extend(["-o", s(&model)]);
    train(&full);
    (dir, model)
}

#[test]
fn kmeans_train_predict_and_transform_match_the_library() {
    let (dir, model) = trained(
        "k.margin",
        "kmeans --n-clusters 4 --seed 3 --n-init 2 --max-iter 50 --tol 1e-6 datasets/heart_scale",
    );
    let preds = dir.path().join("p.txt");
    let dists = dir.path().join("d.libsvm");
    let m = s(&model);
    predict(m, "datasets/heart_scale", preds.to_str().unwrap());
    run(&[
        "transform",
        m,
        "datasets/heart_scale",
        "-o",
        dists.to_str().unwrap(),
    ]);

    let data = margin_io::datasets::heart_scale().unwrap();
    let lib = KMeans::params()
        .n_clusters(4)
        .seed(3)
        .n_init(2)
        .max_iter(50)
        .tol(1e-6)
        .fit(&data.records)
        .unwrap();
    let saved = KMeans::load(&model).unwrap();
    assert_eq!(saved.cluster_centers(), lib.cluster_centers());
    let predicted: Vec<usize> = std::fs::read_to_string(&preds)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(predicted, lib.predict(&data.records).unwrap());

    // Distances to the four centres, labels kept; the nearest is the predicted cluster.
    let d = read_libsvm(
        &dists,
        &LibsvmOptions {
            n_features: Some(4),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(d.targets.values().unwrap(), data.targets.values().unwrap());
    let want = lib.transform(&data.records).unwrap().to_dense().unwrap();
    assert_eq!(d.records.to_dense().unwrap(), want);
    for (i, &c) in predicted.iter().enumerate() {
        let row = want.row(i);
        assert!(row.iter().all(|&v| v >= row[c]));
    }
}

#[test]
fn pca_transform_writes_the_projections_in_the_input_format() {
    let (dir, model) = trained(
        "p.margin",
        "pca --n-components 3 --whiten true datasets/housing_scale",
    );
    let m = s(&model);
    let out = run(&["transform", m, "datasets/housing_scale"]);
    let path = dir.path().join("z.libsvm");
    std::fs::write(&path, &out).unwrap();
    let z = read_libsvm(
        &path,
        &LibsvmOptions {
            n_features: Some(3),
            ..Default::default()
        },
    )
    .unwrap();
    let data = margin_io::datasets::housing_scale().unwrap();
    let lib = Pca::params()
        .n_components(NComponents::Count(3))
        .whiten(true)
        .fit(&data.records)
        .unwrap();
    assert_eq!(
        z.records.to_dense().unwrap(),
        lib.transform(&data.records).unwrap().to_dense().unwrap()
    );
    assert_eq!(z.targets, data.targets);

    // CSV in, CSV out: a header naming the components, the label last.
    let csv = root().join("crates/margin-cli/tests/fixtures/svmguide1_head.csv");
    train(&["pca", csv.to_str().unwrap(), "-o", m]);
    let out_csv = dir.path().join("z.csv");
    run(&[
        "transform",
        m,
        csv.to_str().unwrap(),
        "-o",
        out_csv.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&out_csv).unwrap();
    assert_eq!(text.lines().next().unwrap(), "pc1,pc2,pc3,pc4,label");
    let back = read_csv(&out_csv, &CsvOptions::default()).unwrap();
    let input = read_data(&csv, DataFormat::Auto).unwrap();
    let lib = Pca::params().fit(&input.records).unwrap();
    assert_eq!(
        back.records.to_dense().unwrap(),
        lib.transform(&input.records).unwrap().to_dense().unwrap()
    );
    assert_eq!(back.n_samples(), 200);
}

#[test]
fn variance_fraction_keeps_scikit_learns_component_count() {
    // scikit-learn 1.9.1: PCA(n_components=0.5, svd_solver="full") on dna.scale keeps 47
    // components (crates/models-cluster/tests/fixtures/pca_dna_fraction.txt).
    // `_dir` keeps the model's directory until the end of the test.
    let (_dir, model) = trained(
        "p.margin",
        "pca --n-components 0.5 --svd-solver full datasets/dna.scale",
    );
    let m = s(&model);
    assert_eq!(Pca::load(&model).unwrap().n_components(), 47);
    let out = run(&["transform", m, "datasets/dna.scale.t"]);
    assert_eq!(out.lines().count(), 1186);
    assert!(out.lines().all(|l| l.split(' ').count() <= 48));
}

#[test]
fn kmeans_algorithm_elkan_gives_the_lloyd_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for algorithm in ["lloyd", "elkan"] {
        let model = dir.path().join(format!("{algorithm}.margin"));
        train(&[
            "kmeans",
            "--algorithm",
            algorithm,
            "--n-clusters",
            "5",
            "--seed",
            "2",
            "datasets/dna.scale",
            "-o",
            model.to_str().unwrap(),
        ]);
        files.push(KMeans::load(&model).unwrap());
    }
    let data = margin_io::datasets::dna().unwrap();
    let lib = KMeans::params()
        .n_clusters(5)
        .seed(2)
        .algorithm(KMeansAlgorithm::Elkan)
        .fit(&data.records)
        .unwrap();
    assert_eq!(files[1], lib);
    // The same model: equal in everything the algorithm does not name.
    let (lloyd, elkan) = (&files[0], &files[1]);
    assert_eq!(lloyd.labels(), elkan.labels());
    assert_eq!(lloyd.n_iter(), elkan.n_iter());
    assert_eq!(
        lloyd.cluster_centers().as_slice(),
        elkan.cluster_centers().as_slice()
    );
    assert_eq!(lloyd.inertia().to_bits(), elkan.inertia().to_bits());
    assert_eq!(
        lloyd
            .hyperparams()
            .clone()
            .algorithm(KMeansAlgorithm::Elkan),
        *elkan.hyperparams(),
        "Elkan and Lloyd give the same model"
    );
    fails_with(
        &[
            "train",
            "kmeans",
            "--algorithm",
            "full",
            "datasets/heart_scale",
            "-o",
            dir.path().join("x.margin").to_str().unwrap(),
        ],
        2,
        "--algorithm",
    );
}

#[test]
fn minibatch_kmeans_trains_and_predicts() {
    let (dir, model) = trained(
        "mb.margin",
        "minibatch-kmeans --n-clusters 3 --batch-size 64 --max-no-improvement none --reassignment-ratio 0 datasets/dna.scale",
    );
    let m = s(&model);
    let preds = dir.path().join("p.txt");
    predict(m, "datasets/dna.scale.t", preds.to_str().unwrap());
    let text = std::fs::read_to_string(&preds).unwrap();
    assert_eq!(text.lines().count(), 1186);
    assert!(text.lines().all(|l| ["0", "1", "2"].contains(&l)));
}

#[test]
fn refusals_exit_with_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.margin");
    let m = model.to_str().unwrap();
    let cases: [(&[&str], &str); 8] = [
        (
            &["kmeans", "--n-clusters", "0"],
            "--n-clusters: expected an integer ≥ 1, found `0`",
        ),
        (&["kmeans", "--n-clusters", "271"], "n_clusters"),
        (&["kmeans", "--init", "kmeans"], "--init"),
        (&["kmeans", "--n-component", "2"], "--n-component"),
        (&["pca", "--svd-solver", "lapack"], "--svd-solver"),
        (&["pca", "--n-components", "14"], "n_components"),
        (
            &["pca", "--n-components", "2.5"],
            "--n-components: expected all, a count ≥ 1 or a fraction in (0, 1), found `2.5`",
        ),
        (&["pca", "--n-components", "lots"], "--n-components"),
    ];
    for (flags, needle) in cases {
        let mut args = vec!["train"];
        args.extend_from_slice(flags);
        args.extend(["datasets/heart_scale", "-o", m]);
        fails_with(&args, 2, needle);
    }

    train(&["pca", "datasets/heart_scale", "-o", m]);
    fails_with(
        &["predict", m, "datasets/heart_scale"],
        2,
        "margin transform",
    );
    // dna has 180 features, the model 13.
    fails_with(
        &["transform", m, "datasets/dna.scale.t"],
        2,
        "above the 13 features",
    );
    let svm = dir.path().join("svm.margin");
    train(&[
        "gaussian-nb",
        "datasets/heart_scale",
        "-o",
        svm.to_str().unwrap(),
    ]);
    fails_with(
        &["transform", svm.to_str().unwrap(), "datasets/heart_scale"],
        2,
        "does not transform",
    );
    let junk = dir.path().join("junk.margin");
    std::fs::write(&junk, b"not a model").unwrap();
    fails_with(
        &["transform", junk.to_str().unwrap(), "datasets/heart_scale"],
        2,
        "junk.margin",
    );
    assert!(Path::new(m).exists());
}
