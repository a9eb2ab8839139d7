//! Kernel checks: scikit-learn reference values, symmetry and positive semi-definiteness
//! (proptest), the GEMM path against the per-pair definition, thread-count independence,
//! the explicit polynomial feature map, the memory guard, and the approximations.

use margin_core::{CsrMatrix, DenseMatrix, Error, Fit, Records, RowView, Transform};

use margin_io::datasets;
use margin_kernels::*;
use proptest::prelude::*;

fn heart8() -> DenseMatrix {
    let d = datasets::heart_scale().unwrap().records.to_dense().unwrap();
    d.select_rows(&(0..8).collect::<Vec<_>>()).unwrap()
}

fn max_rel_diff(a: &DenseMatrix, b: &DenseMatrix) -> f64 {
    let scale = b
        .as_slice()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-300);
    a.as_slice()
        .iter()
        .zip(b.as_slice())
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs() / scale))
}

#[test]
fn gram_matrices_match_scikit_learn() {
    let text = include_str!("fixtures/sklearn_kernels.txt");
    let lines: Vec<&str> = text.lines().collect();
    let x = heart8();
    let mut abs = x.clone();
    abs.as_mut_slice().iter_mut().for_each(|v| *v = v.abs());
    let cases: Vec<(KernelSpec, &DenseMatrix)> = vec![
        (Linear.into(), &x),
        (Rbf::with_gamma(0.1).unwrap().into(), &x),
        (
            Polynomial::with_degree(3)
                .unwrap()
                .with_gamma(0.2)
                .unwrap()
                .with_coef0(1.0)
                .unwrap()
                .into(),
            &x,
        ),
        (
            Sigmoid::with_gamma(0.05)
                .unwrap()
                .with_coef0(-0.5)
                .unwrap()
                .into(),
            &x,
        ),
        (Laplacian::with_gamma(0.3).unwrap().into(), &x),
        (ChiSquared::with_gamma(0.7).unwrap().into(), &abs),
    ];
    for (b, (kernel, data)) in cases.iter().enumerate() {
        let rows: Vec<Vec<f64>> = lines[b * 9 + 1..b * 9 + 9]
            .iter()
            .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
            .collect();
        let want = DenseMatrix::from_rows(&rows).unwrap();
        for method in [GramMethod::Auto, GramMethod::PerPair] {
            let got = gram_with(
                kernel,
                *data,
                &GramOptions {
                    method: method.clone(),
                    ..Default::default()
                },
            )
            .unwrap();
            let err = max_rel_diff(&got, &want);
            assert!(
                err < 1e-12,
                "{} ({method:?}): relative error {err}",
                lines[b * 9]
            );
        }
    }
}

fn kernels_under_test() -> Vec<KernelSpec> {
    let rbf: KernelSpec = Rbf::with_gamma(0.3).unwrap().into();
    let poly: KernelSpec = Polynomial::with_degree(3)
        .unwrap()
        .with_gamma(0.5)
        .unwrap()
        .with_coef0(1.0)
        .unwrap()
        .into();
    let lin: KernelSpec = Linear.into();
    vec![
        lin.clone(),
        rbf.clone(),
        poly.clone(),
        Sigmoid::with_gamma(0.1)
            .unwrap()
            .with_coef0(0.2)
            .unwrap()
            .into(),
        Laplacian::with_gamma(0.4).unwrap().into(),
        Scaled::new(2.5, rbf.clone()).unwrap().into(),
        Sum::new(rbf.clone(), lin.clone()).into(),
        Product::new(poly, rbf).into(),
        Sum::new(Laplacian::with_gamma(0.1).unwrap(), lin).into(),
    ]
}

fn records_strategy() -> impl Strategy<Value = DenseMatrix> {
    (2usize..14, 1usize..6).prop_flat_map(|(n, d)| {
        proptest::collection::vec(prop_oneof![Just(0.0), -2.0f64..2.0], n * d)
            .prop_map(move |v| DenseMatrix::from_row_major(v, n, d).unwrap())
    })
}

/// Smallest eigenvalue of a symmetric matrix (faer's self-adjoint eigensolver).
fn min_eigenvalue(g: &DenseMatrix) -> f64 {
    let s = g
        .as_faer()
        .self_adjoint_eigenvalues(faer::Side::Lower)
        .unwrap();
    s.iter().copied().fold(f64::INFINITY, f64::min)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_kernel_is_symmetric_and_psd(x in records_strategy()) {
        for k in kernels_under_test() {
            let g = gram(&k, &x).unwrap();
            let n = x.nrows();
            for i in 0..n {
                for j in 0..n {
                    let direct = k.eval(RowView::Dense(x.row(i)), RowView::Dense(x.row(j)));
                    let mirrored = k.eval(RowView::Dense(x.row(j)), RowView::Dense(x.row(i)));
                    prop_assert!((direct - mirrored).abs() <= 1e-12 * direct.abs().max(1.0), "{}", k.name());
                    prop_assert_eq!(g.get(i, j), g.get(j, i));
                }
            }
            if k.is_psd() {
                let trace: f64 = (0..n).map(|i| g.get(i, i)).sum();
                prop_assert!(min_eigenvalue(&g) >= -1e-9 * trace.max(1.0), "{}: {}", k.name(), min_eigenvalue(&g));
            }
        }
    }

    #[test]
    fn gemm_path_equals_per_pair_path_dense_and_sparse(x in records_strategy(), z in records_strategy()) {
        let z = if z.ncols() == x.ncols() { z } else { x.clone() };
        let per_pair = GramOptions { method: GramMethod::PerPair, ..Default::default() };
        let sx = CsrMatrix::from_dense(&x);
        for k in kernels_under_test() {
            let reference = gram_with(&k, &x, &per_pair).unwrap();
            for got in [gram(&k, &x).unwrap(), gram(&k, &sx).unwrap(), gram_with(&k, &sx, &per_pair).unwrap()] {
                prop_assert!(max_rel_diff(&got, &reference) <= 1e-12, "{}", k.name());
            }
            let cross = cross_gram(&k, &x, &z).unwrap();
            let cross_ref = cross_gram_with(&k, &x, &z, &per_pair).unwrap();
            prop_assert!(max_rel_diff(&cross, &cross_ref) <= 1e-12, "{}", k.name());
            let self_cross = cross_gram(&k, &x, &x).unwrap();
            prop_assert!(max_rel_diff(&self_cross, &reference) <= 1e-12, "{}", k.name());
        }
    }

    #[test]
    fn polynomial_feature_map_reproduces_the_kernel(x in records_strategy(), gamma in 0.1f64..2.0, coef0 in prop_oneof![Just(0.0), 0.1f64..3.0], p in 1u32..4) {
        let k = Polynomial::with_degree(p).unwrap().with_gamma(gamma).unwrap().with_coef0(coef0).unwrap();
        let psi = polynomial_feature_map(&k, &x).unwrap();
        for i in 0..x.nrows() {
            for j in 0..x.nrows() {
                let lhs = margin_core::dot(psi.row(i), psi.row(j));
                let rhs = k.eval(RowView::Dense(x.row(i)), RowView::Dense(x.row(j)));
                prop_assert!((lhs - rhs).abs() <= 1e-12 * rhs.abs().max(1.0), "{lhs} vs {rhs}");
            }
        }
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let x = DenseMatrix::from_row_major(
        (0..600 * 40)
            .map(|i| ((i * 7919 % 1000) as f64) / 500.0 - 1.0)
            .collect(),
        600,
        40,
    )
    .unwrap();
    let sparse = CsrMatrix::from_dense(&x);
    for k in kernels_under_test() {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| (gram(&k, &x).unwrap(), cross_gram(&k, &sparse, &x).unwrap()))
        };
        let (a, b) = (run(1), run(2));
        assert!(a == b, "{} differs between 1 and 2 threads", k.name());
    }
}

#[test]
fn memory_guard_refuses_huge_gram_matrices_with_advice() {
    let x = DenseMatrix::zeros(20_000, 2);
    let opts = GramOptions {
        max_bytes: 1 << 30,
        ..Default::default()
    };
    match gram_with(&Linear, &x, &opts) {
        Err(Error::InvalidParameter {
            value, expected, ..
        }) => {
            assert!(
                value.contains("20000 × 20000") && value.contains("GiB"),
                "{value}"
            );
            assert!(
                expected.contains("kernel cache") && expected.contains("Nyström"),
                "{expected}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn gamma_scale_and_auto_follow_scikit_learn() {
    let x = DenseMatrix::from_rows(&[[1.0, 2.0], [3.0, 6.0]]).unwrap();
    // numpy: X.var() = var([1, 2, 3, 6]) = 3.5; gamma = 1 / (2 * 3.5).
    assert_eq!(Gamma::Scale.resolve(&x).unwrap(), 1.0 / 7.0);
    assert_eq!(Gamma::Auto.resolve(&x).unwrap(), 0.5);
    assert_eq!(
        Gamma::Scale.resolve(&CsrMatrix::from_dense(&x)).unwrap(),
        1.0 / 7.0
    );
    assert_eq!(
        Gamma::Scale
            .resolve(&DenseMatrix::from_rows(&[[1.0, 1.0]]).unwrap())
            .unwrap(),
        1.0
    );
    assert!(Gamma::Value(-1.0).resolve(&x).is_err());
    assert_eq!(Rbf::with_sigma(2.0).unwrap().gamma(), 0.125);
}

#[test]
fn invalid_kernels_are_refused() {
    assert!(Rbf::with_gamma(0.0).is_err());
    assert!(Rbf::with_gamma(f64::NAN).is_err());
    assert!(
        Polynomial::with_degree(2)
            .unwrap()
            .with_coef0(-1.0)
            .is_err()
    );
    assert!(Polynomial::with_degree(0).is_err());
    assert!(Scaled::new(-1.0, Linear).is_err());
    let nonsym = DenseMatrix::from_rows(&[[2.0, 1.0], [0.0, 2.0]]).unwrap();
    assert!(matches!(
        MatrixDot::new(nonsym),
        Err(Error::InvalidParameter { .. })
    ));
    let indefinite = DenseMatrix::from_rows(&[[1.0, 2.0], [2.0, 1.0]]).unwrap();
    assert!(matches!(
        MatrixDot::new(indefinite),
        Err(Error::InvalidParameter { .. })
    ));
    let x = DenseMatrix::from_rows(&[[1.0, -1.0]]).unwrap();
    assert!(gram(&ChiSquared::with_gamma(1.0).unwrap(), &x).is_err());
    let nan = DenseMatrix::from_rows(&[[1.0, f64::NAN]]).unwrap();
    assert!(matches!(
        gram(&Linear, &nan),
        Err(Error::NonFinite { row: 0, col: 1 })
    ));
    let other_width = DenseMatrix::from_rows(&[[1.0]]).unwrap();
    assert!(matches!(
        cross_gram(&Linear, &x, &other_width),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn matrix_dot_kernel_is_x_transpose_a_z() {
    let a = DenseMatrix::from_rows(&[[2.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 3.0]]).unwrap();
    let k = MatrixDot::new(a.clone()).unwrap();
    let x = DenseMatrix::from_rows(&[[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]]).unwrap();
    let g = gram(&k, &x).unwrap();
    for i in 0..2 {
        for j in 0..2 {
            let mut want = 0.0;
            for p in 0..3 {
                for q in 0..3 {
                    want += x.get(i, p) * a.get(p, q) * x.get(j, q);
                }
            }
            assert!((g.get(i, j) - want).abs() < 1e-12, "{i},{j}");
        }
    }
}

#[test]
fn precomputed_kernel_reads_libsvm_format() {
    let k = [[4.0, 1.0, 2.0], [1.0, 5.0, 0.5], [2.0, 0.5, 6.0]];
    let train = DenseMatrix::from_rows(
        &(0..3)
            .map(|i| [vec![(i + 1) as f64], k[i].to_vec()].concat())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let g = gram(&Precomputed, &train).unwrap();
    for (i, row) in k.iter().enumerate() {
        assert_eq!(g.row(i), row);
    }
    let test = DenseMatrix::from_rows(&[[0.0, 7.0, 8.0, 9.0]]).unwrap();
    assert_eq!(
        cross_gram(&Precomputed, &test, &train).unwrap().row(0),
        &[7.0, 8.0, 9.0]
    );
    let bad = DenseMatrix::from_rows(&[[9.0, 1.0]]).unwrap();
    assert!(gram(&Precomputed, &bad).is_err());
}

fn approximation_error(exact: &DenseMatrix, features: &DenseMatrix) -> f64 {
    let n = exact.nrows();
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            let approx = margin_core::dot(features.row(i), features.row(j));
            num += (approx - exact.get(i, j)).powi(2);
            den += exact.get(i, j).powi(2);
        }
    }
    (num / den).sqrt()
}

#[test]
fn approximation_error_falls_as_components_grow() {
    let x = datasets::heart_scale().unwrap().records.to_dense().unwrap();
    let rbf = Rbf::with_gamma(0.05).unwrap();
    let exact = gram(&rbf, &x).unwrap();
    for landmarks in [Landmarks::Uniform, Landmarks::KMeansPlusPlus] {
        let errors: Vec<f64> = [10, 40, 160]
            .iter()
            .map(|&m| {
                let ny = Nystroem::params()
                    .kernel(rbf)
                    .n_components(m)
                    .landmarks(landmarks)
                    .seed(3)
                    .fit(&x)
                    .unwrap();
                approximation_error(&exact, &ny.transform(&x).unwrap().to_dense().unwrap())
            })
            .collect();
        assert!(
            errors[0] > errors[1] && errors[1] > errors[2],
            "{landmarks:?}: {errors:?}"
        );
        let all = Nystroem::params()
            .kernel(rbf)
            .n_components(x.nrows())
            .fit(&x)
            .unwrap();
        assert!(
            approximation_error(&exact, &all.transform(&x).unwrap().to_dense().unwrap()) < 1e-6
        );
    }
    let errors: Vec<f64> = [50, 400, 3200]
        .iter()
        .map(|&d| {
            let rff = RandomFourierFeatures::params()
                .gamma(0.05)
                .n_components(d)
                .seed(1)
                .fit(&x)
                .unwrap();
            approximation_error(&exact, &rff.transform(&x).unwrap().to_dense().unwrap())
        })
        .collect();
    assert!(errors[0] > errors[1] && errors[1] > errors[2], "{errors:?}");
}

#[test]
fn kernel_spec_survives_a_model_file_round_trip() {
    use margin_io::ModelFile;
    let x = datasets::heart_scale().unwrap().records;
    let ny = Nystroem::params()
        .kernel(Sum::new(
            KernelSpec::from(Rbf::with_gamma(0.1).unwrap()),
            KernelSpec::from(Linear),
        ))
        .n_components(20)
        .fit(&x)
        .unwrap();
    let back = Nystroem::from_bytes(&ny.to_bytes().unwrap()).unwrap();
    assert_eq!(back, ny);
    assert_eq!(back.transform(&x).unwrap(), ny.transform(&x).unwrap());
}
