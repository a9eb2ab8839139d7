//! XOR, the problem that stopped the perceptron in 1969 (Minsky and Papert): no line separates
//! the four corners of the square labelled by `−x₁x₂`, so the primal perceptron keeps making
//! mistakes until its epoch limit. The degree-2 polynomial kernel `(x·z + 1)²` contains the
//! product `x₁x₂` among its features, and the kernel perceptron separates the corners after a
//! handful of mistakes.
//!
//! `cargo run -p margin-linear --example xor_kernel_perceptron`

use margin_core::{Dataset, Fit};
use margin_kernels::Polynomial;
use margin_linear::{KernelPerceptron, Perceptron};
use margin_metrics::{Scorer, Scoring};

fn main() -> Result<(), margin_core::Error> {
    let corners = [[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]];
    let xor = Dataset::classification(corners, [-1, -1, 1, 1])?;

    let primal = Perceptron::params().fit(&xor)?;
    println!(
        "primal perceptron:           {} mistakes in {} epochs, converged: {}, training accuracy {:.2}",
        primal.mistakes()[0],
        primal.n_iter(),
        primal.convergence().converged(),
        Scoring::Accuracy.score(&primal, &xor)?
    );

    let kernel = Polynomial::with_degree(2)?
        .with_gamma(1.0)?
        .with_coef0(1.0)?;
    let dual = KernelPerceptron::params().kernel(kernel).fit(&xor)?;
    println!(
        "kernel perceptron, (x·z+1)²: {} mistakes in {} epochs, converged: {}, training accuracy {:.2}",
        dual.mistakes()[0],
        dual.n_iter(),
        dual.convergence().converged(),
        Scoring::Accuracy.score(&dual, &xor)?
    );
    println!(
        "support samples {:?}, alpha·y {:?}, bias {}",
        dual.support(),
        dual.dual_coef()[0],
        dual.intercept()[0]
    );
    Ok(())
}
