//! A kernel of the user's own type works in every kernel model (SVC, SVR, one-class SVM, kernel
//! ridge, kernel perceptron): each trains and predicts as with the library's kernel computing
//! the same function, and saving such a model is refused with an error naming the kernel.

use margin::io::ModelFile;
use margin::kernels::{Kernel, Rbf, UserKernel};
use margin::linalg::RowView;
use margin::linear::{KernelPerceptron, KernelRidge};
use margin::prelude::*;
use margin::svm::{OneClassSvm, Svc, Svr};
use margin::{DenseMatrix, Error};

/// The Gaussian kernel written as a user would: `exp(−γ Σ (x_j − z_j)²)`.
struct MyRbf {
    gamma: f64,
}

impl Kernel for MyRbf {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        (-self.gamma * x.sq_dist(&z)).exp()
    }
    fn name(&self) -> String {
        format!("my_rbf(gamma={})", self.gamma)
    }
}

const GAMMA: f64 = 0.7;

fn mine() -> UserKernel {
    UserKernel::new(MyRbf { gamma: GAMMA })
}

fn theirs() -> Rbf {
    Rbf::with_gamma(GAMMA).unwrap()
}

fn assert_close(a: &DenseMatrix, b: &DenseMatrix, what: &str) {
    for (x, y) in a.as_slice().iter().zip(b.as_slice()) {
        assert!(
            (x - y).abs() <= 1e-8 * (1.0 + y.abs()),
            "{what}: {x} vs {y}"
        );
    }
}

/// A model holding a user kernel cannot be saved; the refusal names the kernel.
fn refused_to_save<M: ModelFile>(model: &M) {
    match model.to_bytes() {
        Err(Error::ModelFile { reason }) => {
            assert!(reason.contains("my_rbf(gamma=0.7)"), "{reason}")
        }
        other => panic!("saved, or refused with another error: {other:?}"),
    }
}

#[test]
fn every_kernel_model_trains_with_a_users_kernel() -> margin::Result<()> {
    let moons = make_moons(&Moons::default().n_samples(120).noise(0.2).seed(5))?;
    let x = &moons.records;

    let svc = Svc::params().kernel(mine()).fit(&moons)?;
    let reference = Svc::params().kernel(theirs()).fit(&moons)?;
    assert_eq!(svc.predict(x)?, reference.predict(x)?);
    assert_eq!(svc.support_indices(), reference.support_indices());
    assert_close(
        &svc.decision_function(x)?,
        &reference.decision_function(x)?,
        "svc",
    );
    refused_to_save(&svc);

    let perceptron = KernelPerceptron::params().kernel(mine()).fit(&moons)?;
    let reference = KernelPerceptron::params().kernel(theirs()).fit(&moons)?;
    assert_eq!(perceptron.predict(x)?, reference.predict(x)?);
    refused_to_save(&perceptron);

    let one_class = OneClassSvm::params().kernel(mine()).fit(&moons)?;
    let reference = OneClassSvm::params().kernel(theirs()).fit(&moons)?;
    assert_eq!(one_class.predict(x)?, reference.predict(x)?);
    refused_to_save(&one_class);

    let wave = make_regression(
        &Regression::default()
            .n_samples(80)
            .n_features(3)
            .noise(0.1)
            .seed(2),
    )?;
    let y = &wave.records;
    let svr = Svr::params().kernel(mine()).fit(&wave)?;
    let reference = Svr::params().kernel(theirs()).fit(&wave)?;
    for (a, b) in svr.predict(y)?.iter().zip(reference.predict(y)?) {
        assert!((a - b).abs() <= 1e-8 * (1.0 + b.abs()), "svr: {a} vs {b}");
    }
    refused_to_save(&svr);

    let ridge = KernelRidge::params().kernel(mine()).fit(&wave)?;
    let reference = KernelRidge::params().kernel(theirs()).fit(&wave)?;
    for (a, b) in ridge.predict(y)?.iter().zip(reference.predict(y)?) {
        assert!(
            (a - b).abs() <= 1e-8 * (1.0 + b.abs()),
            "kernel ridge: {a} vs {b}"
        );
    }
    refused_to_save(&ridge);

    // A clone shares the kernel, so the fitted model and its clone compare equal.
    assert_eq!(svc.clone(), svc);
    Ok(())
}
