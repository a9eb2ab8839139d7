//! Sparse records with huge feature indices: brute-force search merges the sparse rows instead
//! of making each query dense (which would be as wide as the records), and finds the same
//! neighbours at the same distances, bit for bit, as on the same records with compact indices.

use margin_core::Fit;
use margin_io::datasets;
use margin_neighbors::{Algorithm, Metric, NearestNeighbors};
use margin_testing::battery::compact_and_spread;

#[test]
fn neighbours_in_records_two_to_the_32_wide_are_the_compact_ones() {
    let dna = datasets::dna().unwrap();
    let part = dna.select(&(0..300).collect::<Vec<_>>()).unwrap();
    let (narrow, wide) = compact_and_spread(&part, 20_000_000).unwrap();
    for metric in [Metric::Euclidean, Metric::Cosine, Metric::Manhattan] {
        let search = |records: &margin_core::Matrix| {
            NearestNeighbors::params()
                .metric(metric.clone())
                .algorithm(Algorithm::Brute)
                .fit(records)
                .unwrap()
                .kneighbors(records, 7)
                .unwrap()
        };
        let (a, b) = (search(&narrow.records), search(&wide.records));
        for i in 0..part.n_samples() {
            assert_eq!(a.indices(i), b.indices(i), "{metric:?} row {i}");
            let bits = |d: &[f64]| d.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(a.distances(i)),
                bits(b.distances(i)),
                "{metric:?} row {i}"
            );
        }
    }
}
