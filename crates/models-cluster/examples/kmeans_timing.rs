//! Times KMeans, Lloyd against Elkan, on generated data: `cargo run --release -p margin-cluster
//! --example kmeans_timing -- [n] [d] [k] [max_iter] [blobs] [lloyd|elkan]` (defaults 100000 50 10 50;
//! uniform in [−1, 1]ᵈ, or with `blobs` around k random points, spread ±0.3). Starts from the
//! first k rows with tol = 0, prints each algorithm's fit time, iterations and time per
//! iteration (median of 3 fits), and checks that both give the same model (`lloyd` or `elkan`:
//! time that one alone).

use std::time::Instant;

use margin_cluster::{KMeans, KMeansAlgorithm, KMeansInit};
use margin_core::{DenseMatrix, Fit};
use margin_io::ModelFile;
use rand::Rng;

fn main() -> Result<(), margin_core::Error> {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<usize> = words.iter().filter_map(|a| a.parse().ok()).collect();
    let blobs = words.iter().any(|w| w == "blobs");
    let arg = |i: usize, default: usize| args.get(i).copied().unwrap_or(default);
    let (n, d, k, max_iter) = (arg(0, 100_000), arg(1, 50), arg(2, 10), arg(3, 50));
    let mut rng = margin_core::split::rng_from_seed(1);
    let mut data: Vec<f64> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    if blobs {
        let centres: Vec<f64> = (0..k * d).map(|_| rng.random_range(-1.0..1.0)).collect();
        for (i, row) in data.chunks_mut(d).enumerate() {
            let c = &centres[(i % k) * d..(i % k + 1) * d];
            row.iter_mut().zip(c).for_each(|(v, m)| *v = m + 0.3 * *v);
        }
    }
    let x = DenseMatrix::from_row_major(data, n, d)?;
    let init = KMeansInit::Centers(x.select_rows(&(0..k).collect::<Vec<_>>())?);
    let mut models = Vec::new();
    let only = |name: &str| words.iter().any(|w| w == name);
    let algorithms = match (only("lloyd"), only("elkan")) {
        (true, false) => vec![KMeansAlgorithm::Lloyd],
        (false, true) => vec![KMeansAlgorithm::Elkan],
        _ => vec![KMeansAlgorithm::Lloyd, KMeansAlgorithm::Elkan],
    };
    for algorithm in algorithms {
        let params = KMeans::params()
            .n_clusters(k)
            .init(init.clone())
            .algorithm(algorithm)
            .max_iter(max_iter)
            .tol(0.0);
        let mut times = Vec::new();
        let mut model = None;
        for _ in 0..3 {
            let start = Instant::now();
            model = Some(params.fit(&x)?);
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let (median, model) = (times[1], model.expect("three fits ran"));
        println!(
            "{algorithm:?}: n = {n}, d = {d}, k = {k}{}: {median:.3} s, {} iterations, {:.2} ms per iteration, inertia {}",
            if blobs { ", blobs" } else { "" },
            model.n_iter(),
            1e3 * median / model.n_iter() as f64,
            model.inertia()
        );
        models.push(model.to_bytes()?);
    }
    if let [a, b] = &models[..] {
        println!("same model: {}", a == b);
    }
    Ok(())
}
