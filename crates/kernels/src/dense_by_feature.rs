//! Dense samples stored feature by feature, for kernel columns on dense or nearly dense data.
//!
//! Feature `f` of every sample sits in one contiguous run, so a column's dot products read only
//! the runs of the features where the probe is non-zero: on ijcnn1 (one-hot groups) that is
//! 13 of 22 features, and since a column streams the samples from memory, the bytes it skips
//! are time saved (rows interleaved in blocks skip nothing: the hardware prefetcher fetches the
//! lines between the ones used).
//!
//! Each dot product is summed over the features in increasing order, each product rounded
//! before it is added (no fused multiply-add): LIBSVM's dot product, bit for bit, so kernel
//! columns, and with them the SMO path, follow LIBSVM's exactly on dense data. Skipping the
//! features where the probe is zero is exact too: their products are ±0, which leave a sum
//! unchanged.

use std::ops::Range;

use margin_core::{Result, RowView, memory};

/// The way out when the copy by feature cannot be had.
const WAY_OUT: &str = "give the SVM fewer samples (or more memory): this copy speeds up kernel columns on dense data and is at most 512 MiB";

/// Rows whose running sums stay in L1 while every feature's run is added into them.
const BLOCK: usize = 512;

/// `n` samples of `d` features: feature `f` of sample `r` lives at `f · n + r`.
pub(crate) struct DenseByFeature {
    data: Vec<f64>,
    n: usize,
    d: usize,
}

impl DenseByFeature {
    /// Stores `n` samples of `d` features, sample `r` written by `fill(r, out)` into a zeroed
    /// buffer; the `n · d` values are asked for first.
    pub(crate) fn new(n: usize, d: usize, mut fill: impl FnMut(usize, &mut [f64])) -> Result<Self> {
        let mut data = memory::filled_grid(
            n,
            d,
            0.0,
            &format!("the {n} × {d} samples stored by feature for kernel columns"),
            WAY_OUT,
        )?;
        let mut row = vec![0.0; d];
        for r in 0..n {
            row.fill(0.0);
            fill(r, &mut row);
            for (f, &v) in row.iter().enumerate() {
                data[f * n + r] = v;
            }
        }
        Ok(Self { data, n, d })
    }

    /// Swaps samples `i` and `j`.
    pub(crate) fn swap_rows(&mut self, i: usize, j: usize) {
        for f in 0..self.d {
            self.data.swap(f * self.n + i, f * self.n + j);
        }
    }

    /// The non-zero features of `x` as `(feature, value)` in increasing feature order, written
    /// over `nonzero` (a buffer the caller keeps from column to column): the probe
    /// [`Self::dots`] takes.
    pub(crate) fn probe_into(x: RowView<'_>, nonzero: &mut Vec<(usize, f64)>) {
        nonzero.clear();
        x.for_each_stored(|f, v| {
            if v != 0.0 {
                nonzero.push((f, v));
            }
        });
    }

    /// `out[k] = sample(rows.start + k) · x` for the probe `x` given by [`Self::probe_into`].
    pub(crate) fn dots(&self, rows: Range<usize>, probe: &[(usize, f64)], out: &mut [f64]) {
        debug_assert_eq!(rows.len(), out.len());
        debug_assert!(rows.end <= self.n && probe.iter().all(|&(f, _)| f < self.d));
        dots_by_feature(&self.data, self.n, rows.start, probe, out);
    }
}

margin_core::simd_dispatch! {
    /// `out[k] = Σ p_f · data[f · n + start + k]` over the probe's `(f, p_f)`: the loop of
    /// [`DenseByFeature::dots`], whose wide copy only widens the loads and adds.
    fn dots_by_feature(
        data: &[f64],
        n: usize,
        start: usize,
        probe: &[(usize, f64)],
        out: &mut [f64],
    ) => dots_loop;
}

/// [`dots_by_feature`]'s loop, block by block of rows. It never reads `FMA`: each product is
/// rounded before it is added (LIBSVM's dot product), in both copies.
#[inline(always)]
fn dots_loop<const FMA: bool>(
    data: &[f64],
    n: usize,
    start: usize,
    probe: &[(usize, f64)],
    out: &mut [f64],
) {
    out.fill(0.0);
    for (b, sums) in out.chunks_mut(BLOCK).enumerate() {
        let first = start + b * BLOCK;
        for &(f, p) in probe {
            let run = &data[f * n + first..][..sums.len()];
            for (s, &v) in sums.iter_mut().zip(run) {
                *s += v * p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(r: usize, d: usize) -> Vec<f64> {
        (0..d)
            .map(|f| ((r * 31 + f * 17) as f64 * 0.37).sin())
            .collect()
    }

    /// LIBSVM's dot: features in order, each product rounded, then added.
    fn sequential(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for (x, y) in a.iter().zip(b) {
            s += x * y;
        }
        s
    }

    #[test]
    fn dots_are_the_sequential_dots_bit_for_bit_over_any_range_and_swaps() {
        for (n, d) in [(1, 3), (37, 22), (64, 5), (50, 1), (1100, 4)] {
            let mut rows: Vec<Vec<f64>> = (0..n).map(|r| row(r, d)).collect();
            // Zeros in the probe (skipped) and in the rows (multiplied).
            let mut probe = row(1000, d);
            for f in (0..d).step_by(3) {
                probe[f] = 0.0;
                rows[f % n][f] = -0.0;
            }
            let mut samples =
                DenseByFeature::new(n, d, |r, out| out.copy_from_slice(&rows[r])).unwrap();
            let mut nonzero = vec![(usize::MAX, f64::NAN)];
            DenseByFeature::probe_into(RowView::Dense(&probe), &mut nonzero);
            for (i, j) in [
                (0, n - 1),
                (n / 2, 3.min(n - 1)),
                (5.min(n - 1), 5.min(n - 1)),
            ] {
                samples.swap_rows(i, j);
                rows.swap(i, j);
                for range in [0..n, n / 3..n, 0..n / 2, n - 1..n] {
                    let mut out = vec![f64::NAN; range.len()];
                    samples.dots(range.clone(), &nonzero, &mut out);
                    for (k, &v) in out.iter().enumerate() {
                        let want = sequential(&rows[range.start + k], &probe);
                        assert_eq!(
                            v.to_bits(),
                            want.to_bits(),
                            "n {n} d {d} row {}",
                            range.start + k
                        );
                    }
                }
            }
        }
    }
}
