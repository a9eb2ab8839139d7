//! Times PCA on generated uniform data: `cargo run --release -p margin-cluster --example
//! pca_timing -- [n] [d] [n_components] [solver]` (defaults 20000 500 10 0): the full SVD and
//! the covariance solver with all components, the randomized solver with `n_components`
//! (`solver` 1, 2 or 3 runs only that one; 0 all three).

use std::time::Instant;

use margin_cluster::{NComponents, Pca, SvdSolver};
use margin_core::{DenseMatrix, Fit};
use rand::Rng;

fn main() -> Result<(), margin_core::Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let arg = |i: usize, default: usize| args.get(i).copied().unwrap_or(default);
    let (n, d, c, only) = (arg(0, 20_000), arg(1, 500), arg(2, 10), arg(3, 0));
    let mut rng = margin_core::split::rng_from_seed(1);
    let data = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let x = DenseMatrix::from_row_major(data, n, d)?;
    for (i, (name, params)) in [
        ("full", Pca::params().svd_solver(SvdSolver::Full)),
        (
            "covariance",
            Pca::params().svd_solver(SvdSolver::CovarianceEigh),
        ),
        (
            "randomized",
            Pca::params()
                .svd_solver(SvdSolver::Randomized)
                .n_components(NComponents::Count(c)),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        if only != 0 && only != i + 1 {
            continue;
        }
        let start = Instant::now();
        let model = params.fit(&x)?;
        println!(
            "{name}: {:.3} s ({} components)",
            start.elapsed().as_secs_f64(),
            model.n_components()
        );
    }
    Ok(())
}
