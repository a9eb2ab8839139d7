//! Times KMeans (Lloyd) on generated uniform data: `cargo run --release -p models-cluster
//! --example kmeans_timing -- [n] [d] [k] [max_iter]` (defaults 100000 50 10 50). Prints the
//! fit time, the iterations and the time per iteration.

use std::time::Instant;

use core_linalg::{DenseMatrix, Fit};
use models_cluster::{KMeans, KMeansInit};
use rand::Rng;

fn main() -> Result<(), core_linalg::Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let arg = |i: usize, default: usize| args.get(i).copied().unwrap_or(default);
    let (n, d, k, max_iter) = (arg(0, 100_000), arg(1, 50), arg(2, 10), arg(3, 50));
    let mut rng = core_linalg::split::rng_from_seed(1);
    let data = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let x = DenseMatrix::from_row_major(data, n, d)?;
    let init = KMeansInit::Centers(x.select_rows(&(0..k).collect::<Vec<_>>()));
    let params = KMeans::params()
        .n_clusters(k)
        .init(init)
        .max_iter(max_iter)
        .tol(0.0);
    let start = Instant::now();
    let model = params.fit(&x)?;
    let s = start.elapsed().as_secs_f64();
    println!(
        "n = {n}, d = {d}, k = {k}: {s:.3} s, {} iterations, {:.2} ms per iteration, inertia {}",
        model.n_iter(),
        1e3 * s / model.n_iter() as f64,
        model.inertia()
    );
    Ok(())
}
