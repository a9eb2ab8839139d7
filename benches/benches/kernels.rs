//! Gram matrices beside the bare GEMM of the same shape (the ratio is what matters on a noisy
//! machine), the per-pair path on 1 and 2 threads, and cache-column computation.
//!
//! `cargo bench -p margin-benches --bench kernels`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use faer::linalg::matmul::triangular::BlockStructure;
use faer::{Accum, Mat, Par};
use margin_benches::{dense, shared_dataset};
use margin_core::Records;
use margin_kernels::{
    ColumnCache, GramMethod, GramOptions, KernelSource, Laplacian, Rbf, gram, gram_with,
};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn gram_vs_gemm(c: &mut Criterion) {
    let rbf = Rbf::with_gamma(0.01).expect("gamma > 0");
    for n in [2_000, 10_000] {
        let x = dense(n, 100, 1);
        let mut group = c.benchmark_group(format!("rbf_gram_n{n}_d100"));
        group.sample_size(10);
        let mut out = Mat::<f64>::zeros(n, n);
        group.bench_function("bare_gemm_full", |b| {
            b.iter(|| {
                faer::linalg::matmul::matmul(
                    out.as_mut(),
                    Accum::Replace,
                    x.as_faer(),
                    x.as_faer().transpose(),
                    1.0,
                    Par::rayon(2),
                );
                black_box(&out);
            })
        });
        group.bench_function("bare_gemm_triangular", |b| {
            b.iter(|| {
                faer::linalg::matmul::triangular::matmul(
                    out.as_mut(),
                    BlockStructure::TriangularLower,
                    Accum::Replace,
                    x.as_faer(),
                    BlockStructure::Rectangular,
                    x.as_faer().transpose(),
                    BlockStructure::Rectangular,
                    1.0,
                    Par::rayon(2),
                );
                black_box(&out);
            })
        });
        group.bench_function("margin_gram", |b| {
            b.iter(|| black_box(gram(&rbf, &x).expect("gram")))
        });
        group.finish();
    }
    if let Some(a9a) = shared_dataset("a9a", 123) {
        let x = a9a
            .records
            .as_sparse()
            .expect("LIBSVM files read as sparse")
            .select_rows(&(0..8_000).collect::<Vec<_>>())
            .unwrap();
        let mut group = c.benchmark_group("rbf_gram_a9a_8000_sparse");
        group.sample_size(10);
        group.bench_function("margin_gram", |b| {
            b.iter(|| black_box(gram(&rbf, &x).expect("gram")))
        });
        group.finish();
    }
}

fn per_pair_threads(c: &mut Criterion) {
    let lap = Laplacian::with_gamma(0.01).expect("gamma > 0");
    let x = dense(2_000, 100, 2);
    let mut group = c.benchmark_group("laplacian_gram_per_pair_n2000_d100");
    group.sample_size(10);
    let opts = GramOptions {
        method: GramMethod::PerPair,
        ..Default::default()
    };
    for threads in [1, 2] {
        let p = pool(threads);
        group.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| p.install(|| black_box(gram_with(&lap, &x, &opts).expect("gram"))))
        });
    }
    group.finish();
}

fn cache_columns(c: &mut Criterion) {
    let rbf = Rbf::with_gamma(0.01).expect("gamma > 0");
    let x = dense(30_000, 100, 3);
    let mut group = c.benchmark_group("cache_column_n30000_d100");
    for threads in [1, 2] {
        let p = pool(threads);
        group.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| {
                p.install(|| {
                    // A zero budget keeps two columns: every request recomputes.
                    let mut cache =
                        ColumnCache::new(KernelSource::new(&rbf, &x).expect("memory"), 0)
                            .expect("memory");
                    for i in 0..8 {
                        black_box(cache.column(i * 997 % x.n_samples(), x.n_samples()));
                    }
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, gram_vs_gemm, per_pair_threads, cache_columns);
criterion_main!(benches);
