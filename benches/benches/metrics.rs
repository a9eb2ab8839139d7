//! AUROC on 10⁷ scores (compare with scikit-learn's `roc_auc_score` on the same size: the
//! README lists the command).
//!
//! `cargo bench -p margin-benches --bench metrics`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use margin_benches::dense;

fn auroc(c: &mut Criterion) {
    let n = 10_000_000;
    let scores = dense(n, 1, 7).into_vec();
    let positive: Vec<bool> = scores
        .iter()
        .enumerate()
        .map(|(i, s)| (s + (i % 7) as f64 / 7.0) > 0.5)
        .collect();
    let mut group = c.benchmark_group("roc_auc_1e7");
    group.sample_size(10);
    group.bench_function("margin", |b| {
        b.iter(|| black_box(margin_metrics::roc_auc(&positive, &scores).expect("two classes")))
    });
    group.finish();
}

criterion_group!(benches, auroc);
criterion_main!(benches);
