//! Kernel-approximation model files whose checksum is right but whose contents are not: the
//! battery's forgeries (the battery reaches estimators with `predict` only), and stored kernel
//! parameters that no constructor accepts, refused on load naming the kernel.

use margin_core::{DenseMatrix, Error, Fit, Records, Transform};
use margin_io::{ModelFile, body_of, seal};
use margin_kernels::{
    ChiSquared, KernelExt, KernelSpec, Laplacian, Linear, MAX_KERNEL_DEPTH, MatrixDot, Nystroem,
    Polynomial, RandomFourierFeatures, Rbf,
};
use margin_testing::battery::check_forged_files;

fn x() -> DenseMatrix {
    DenseMatrix::from_row_major(
        (0..12 * 3)
            .map(|i| ((i * 37 + 11) % 97) as f64 / 97.0)
            .collect(),
        12,
        3,
    )
    .unwrap()
}

#[test]
fn forged_approximation_files_are_refused_or_harmless() {
    let kernels: Vec<KernelSpec> = vec![
        Rbf::with_gamma(0.5).unwrap().into(),
        Polynomial::with_degree(2)
            .unwrap()
            .with_gamma(1.0)
            .unwrap()
            .with_coef0(1.0)
            .unwrap()
            .into(),
        ChiSquared::with_gamma(1.0).unwrap().into(),
        KernelSpec::from(Rbf::with_gamma(0.5).unwrap())
            .plus(KernelSpec::from(Laplacian::with_gamma(0.1).unwrap()))
            .into(),
        MatrixDot::new(
            DenseMatrix::from_rows(&[[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).unwrap(),
        )
        .unwrap()
        .into(),
    ];
    for kernel in kernels {
        let model = Nystroem::params()
            .kernel(kernel)
            .n_components(4)
            .fit(&x())
            .unwrap();
        check_forged_files(&model, 3, |m, r| Ok(vec![m.transform(r)?.n_samples()]));
    }
    let rff = RandomFourierFeatures::params()
        .gamma(0.5)
        .n_components(5)
        .fit(&x())
        .unwrap();
    check_forged_files(&rff, 3, |m, r| Ok(vec![m.transform(r)?.n_samples()]));
}

fn refused(file: &[u8]) -> String {
    match Nystroem::from_bytes(file) {
        Err(Error::ModelFile { reason }) => reason,
        Err(other) => panic!("refused with {other}"),
        Ok(_) => panic!("a kernel no constructor accepts was loaded"),
    }
}

/// A file whose bytes `from` (one stored parameter) are replaced by `to`.
fn with_bytes(model: &Nystroem, from: &[u8], to: &[u8]) -> Vec<u8> {
    let bytes = model.to_bytes().unwrap();
    let mut body = body_of(&bytes).unwrap().to_vec();
    let at = body.windows(from.len()).position(|w| w == from).unwrap();
    body[at..at + from.len()].copy_from_slice(to);
    seal(Nystroem::KIND, Nystroem::SCHEMA, &body).unwrap()
}

#[test]
fn stored_kernel_parameters_are_checked_as_constructors_check_them() {
    let gamma = 0.123_456_789f64;
    for kernel in [
        KernelSpec::from(Rbf::with_gamma(gamma).unwrap()),
        Laplacian::with_gamma(gamma).unwrap().into(),
        Polynomial::with_degree(2)
            .unwrap()
            .with_gamma(gamma)
            .unwrap()
            .with_coef0(1.0)
            .unwrap()
            .into(),
        KernelSpec::from(Rbf::with_gamma(1.0).unwrap())
            .times(KernelSpec::from(Rbf::with_gamma(gamma).unwrap()))
            .into(),
    ] {
        let model = Nystroem::params()
            .kernel(kernel)
            .n_components(3)
            .fit(&x())
            .unwrap();
        for bad in [-1.0, 0.0, f64::NAN, f64::INFINITY] {
            let reason = refused(&with_bytes(
                &model,
                &gamma.to_le_bytes(),
                &bad.to_le_bytes(),
            ));
            assert!(
                reason.contains("`kernel`") && reason.contains("gamma"),
                "{reason}"
            );
        }
    }
    // A matrix-dot kernel whose matrix is no longer positive definite.
    let a = DenseMatrix::from_rows(&[[2.5, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).unwrap();
    let model = Nystroem::params()
        .kernel(MatrixDot::new(a).unwrap())
        .n_components(3)
        .fit(&x())
        .unwrap();
    let reason = refused(&with_bytes(
        &model,
        &2.5f64.to_le_bytes(),
        &(-2.5f64).to_le_bytes(),
    ));
    assert!(reason.contains("`kernel`"), "{reason}");
    // A χ² kernel over landmarks with a negative value.
    let model = Nystroem::params()
        .kernel(ChiSquared::with_gamma(1.0).unwrap())
        .n_components(12)
        .fit(&x())
        .unwrap();
    let v = model.landmarks().row(3)[1];
    let reason = refused(&with_bytes(&model, &v.to_le_bytes(), &(-v).to_le_bytes()));
    assert!(
        reason.contains("`kernel`") && reason.contains("non-negative"),
        "{reason}"
    );
    assert_eq!(model.landmarks().n_samples(), 12);
}

/// Found by probing the `model_file` fuzz target's inputs: 100,000 bytes of nested sums (one
/// byte per level) overflowed the stack while decoding, aborting the process.
#[test]
fn kernels_nested_too_deep_are_refused_without_overflowing_the_stack() {
    let model = Nystroem::params()
        .kernel(Linear)
        .n_components(2)
        .fit(&x())
        .unwrap();
    let bytes = model.to_bytes().unwrap();
    let body = body_of(&bytes).unwrap();
    // Variant 9 is a sum; variant 0 the linear kernel the body starts with.
    assert_eq!(body[0], 0);
    for levels in [MAX_KERNEL_DEPTH + 1, 100_000] {
        let mut forged = vec![9u8; levels];
        forged.extend_from_slice(body);
        let file = seal(Nystroem::KIND, Nystroem::SCHEMA, &forged).unwrap();
        let reason = refused(&file);
        assert!(reason.contains("nested deeper"), "{reason}");
    }
    // A kernel as deep as allowed saves and loads.
    let mut sum: KernelSpec = Linear.into();
    for _ in 0..MAX_KERNEL_DEPTH {
        sum = sum.plus(KernelSpec::from(Linear)).into();
    }
    let deep = Nystroem::params()
        .kernel(sum)
        .n_components(2)
        .fit(&x())
        .unwrap();
    assert_eq!(
        Nystroem::from_bytes(&deep.to_bytes().unwrap()).unwrap(),
        deep
    );
}
