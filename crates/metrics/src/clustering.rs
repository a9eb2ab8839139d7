//! Scores of a clustering: adjusted Rand index against reference labels, silhouette from the
//! data alone.

use margin_core::{Error, Records, Result, validate};

/// The adjusted Rand index between two labelings (1 for identical partitions, about 0 for
/// independent ones), from their contingency table.
pub fn adjusted_rand_index(a: &[usize], b: &[usize]) -> Result<f64> {
    crate::check_pair(a.len(), b.len())?;
    let (ka, kb) = (
        a.iter().max().map_or(0, |m| m + 1),
        b.iter().max().map_or(0, |m| m + 1),
    );
    let mut table = vec![vec![0u64; kb]; ka];
    for (&x, &y) in a.iter().zip(b) {
        table[x][y] += 1;
    }
    let pairs = |n: u64| (n * n.saturating_sub(1) / 2) as f64;
    let sum_cells: f64 = table.iter().flatten().map(|&n| pairs(n)).sum();
    let sum_a: f64 = table.iter().map(|r| pairs(r.iter().sum())).sum();
    let sum_b: f64 = (0..kb)
        .map(|j| pairs(table.iter().map(|r| r[j]).sum()))
        .sum();
    let total = pairs(a.len() as u64);
    let expected = sum_a * sum_b / total;
    let max = (sum_a + sum_b) / 2.0;
    Ok(if max == expected {
        1.0
    } else {
        (sum_cells - expected) / (max - expected)
    })
}

/// The mean silhouette `(b − a) / max(a, b)` over samples, with `a` the mean Euclidean distance
/// to the sample's own cluster and `b` to the nearest other cluster (samples alone in their
/// cluster score 0, as scikit-learn). Needs 2 ≤ clusters < samples. `O(n²)` distances.
pub fn silhouette<R: Records + ?Sized>(records: &R, labels: &[usize]) -> Result<f64> {
    let n = records.n_samples();
    crate::check_pair(n, labels.len())?;
    validate::check_finite(records)?;
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let sizes: Vec<usize> = (0..k)
        .map(|c| labels.iter().filter(|&&l| l == c).count())
        .collect();
    let used = sizes.iter().filter(|&&s| s > 0).count();
    if used < 2 || used >= n {
        return Err(Error::invalid_parameter(
            "labels",
            format!("{used} clusters for {n} samples"),
            "between 2 and n − 1 clusters",
        ));
    }
    let mut total = 0.0;
    let mut sums = vec![0.0; k];
    for i in 0..n {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for j in 0..n {
            sums[labels[j]] += records.row(i).sq_dist(&records.row(j)).sqrt();
        }
        let own = labels[i];
        if sizes[own] == 1 {
            continue;
        }
        let a = sums[own] / (sizes[own] - 1) as f64;
        let b = (0..k)
            .filter(|&c| c != own && sizes[c] > 0)
            .map(|c| sums[c] / sizes[c] as f64)
            .fold(f64::INFINITY, f64::min);
        total += (b - a) / a.max(b);
    }
    Ok(total / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::DenseMatrix;

    #[test]
    fn values_match_scikit_learn() {
        // scikit-learn 1.9.1: adjusted_rand_score([0,0,1,1,2,2,2], [1,1,0,0,0,2,2]) = 0.475;
        // silhouette_score on the points below = 0.4489168087804016.
        assert!(
            (adjusted_rand_index(&[0, 0, 1, 1, 2, 2, 2], &[1, 1, 0, 0, 0, 2, 2]).unwrap() - 0.475)
                .abs()
                < 1e-15
        );
        assert_eq!(adjusted_rand_index(&[0, 1, 1], &[5, 2, 2]).unwrap(), 1.0);
        let x = DenseMatrix::from_rows(&[
            [0.0, 0.0],
            [0.0, 1.0],
            [1.0, 0.0],
            [5.0, 5.0],
            [5.0, 6.0],
            [6.0, 5.0],
            [0.0, 0.5],
        ])
        .unwrap();
        let s = silhouette(&x, &[0, 0, 0, 1, 1, 1, 1]).unwrap();
        assert!((s - 0.448_916_808_780_401_6).abs() < 1e-12, "{s}");
        assert!(silhouette(&x, &[0; 7]).is_err());
    }
}
