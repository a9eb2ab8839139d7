//! Dense samples packed for kernel columns: rows interleaved in blocks of [`LANES`], so the dot
//! products of a block with one probe vector are `LANES` independent running sums, vectorized
//! across rows with no horizontal reductions.
//!
//! Each dot product is summed over the features in increasing order, each product rounded
//! before it is added (no fused multiply-add): LIBSVM's dot product, bit for bit, so kernel
//! columns, and with them the SMO path, follow LIBSVM's exactly on dense data.

use std::ops::Range;

/// Rows per interleaved block: four AVX2 registers of running sums, enough independent
/// additions in flight to hide their latency.
const LANES: usize = 16;

/// `n` rows of `d` values: value `f` of row `r` lives at
/// `(r / LANES) · LANES · d + f · LANES + r % LANES` (the last block padded with zeros).
pub(crate) struct PackedRows {
    data: Vec<f64>,
    d: usize,
}

impl PackedRows {
    /// Packs `n` rows of `d` values, row `r` written by `fill(r, out)` into a zeroed buffer.
    pub(crate) fn new(n: usize, d: usize, mut fill: impl FnMut(usize, &mut [f64])) -> Self {
        let mut packed = Self {
            data: vec![0.0; n.div_ceil(LANES) * LANES * d],
            d,
        };
        let mut row = vec![0.0; d];
        for r in 0..n {
            row.fill(0.0);
            fill(r, &mut row);
            for (f, &v) in row.iter().enumerate() {
                let at = packed.at(r, f);
                packed.data[at] = v;
            }
        }
        packed
    }

    fn at(&self, r: usize, f: usize) -> usize {
        (r / LANES) * LANES * self.d + f * LANES + r % LANES
    }

    /// Bytes held.
    pub(crate) fn bytes(n: usize, d: usize) -> usize {
        n.div_ceil(LANES) * LANES * d * std::mem::size_of::<f64>()
    }

    /// Swaps rows `i` and `j`.
    pub(crate) fn swap_rows(&mut self, i: usize, j: usize) {
        for f in 0..self.d {
            let (a, b) = (self.at(i, f), self.at(j, f));
            self.data.swap(a, b);
        }
    }

    /// `out[k] = row(rows.start + k) · probe`.
    pub(crate) fn dots(&self, rows: Range<usize>, probe: &[f64], out: &mut [f64]) {
        debug_assert_eq!(rows.len(), out.len());
        debug_assert_eq!(probe.len(), self.d);
        let mut r = rows.start;
        // Rows before the first whole block, and after the last, one at a time.
        while r < rows.end && (!r.is_multiple_of(LANES) || r + LANES > rows.end) {
            out[r - rows.start] = self.dot_one(r, probe);
            r += 1;
        }
        while r + LANES <= rows.end {
            let block = &self.data[r * self.d..(r + LANES) * self.d];
            block_dots(
                block,
                probe,
                &mut out[r - rows.start..r - rows.start + LANES],
            );
            r += LANES;
        }
        while r < rows.end {
            out[r - rows.start] = self.dot_one(r, probe);
            r += 1;
        }
    }

    fn dot_one(&self, r: usize, probe: &[f64]) -> f64 {
        let mut sum = 0.0;
        for (f, &p) in probe.iter().enumerate() {
            sum += self.data[self.at(r, f)] * p;
        }
        sum
    }
}

/// The `LANES` dot products of one block, with AVX2 when the CPU has it.
fn block_dots(block: &[f64], probe: &[f64], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports the feature the function was compiled for.
            unsafe { block_dots_avx2(block, probe, out) };
            return;
        }
    }
    block_dots_loop(block, probe, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_dots_avx2(block: &[f64], probe: &[f64], out: &mut [f64]) {
    block_dots_loop(block, probe, out);
}

#[inline(always)]
fn block_dots_loop(block: &[f64], probe: &[f64], out: &mut [f64]) {
    let mut acc = [0.0f64; LANES];
    for (values, &p) in block.chunks_exact(LANES).zip(probe) {
        for k in 0..LANES {
            acc[k] += values[k] * p;
        }
    }
    out.copy_from_slice(&acc);
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
        for (n, d) in [(1, 3), (37, 22), (64, 5), (50, 1)] {
            let mut rows: Vec<Vec<f64>> = (0..n).map(|r| row(r, d)).collect();
            let mut packed = PackedRows::new(n, d, |r, out| out.copy_from_slice(&rows[r]));
            let probe = row(1000, d);
            for (i, j) in [
                (0, n - 1),
                (n / 2, 3.min(n - 1)),
                (5.min(n - 1), 5.min(n - 1)),
            ] {
                packed.swap_rows(i, j);
                rows.swap(i, j);
                for range in [0..n, n / 3..n, 0..n / 2, n - 1..n] {
                    let mut out = vec![f64::NAN; range.len()];
                    packed.dots(range.clone(), &probe, &mut out);
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

    #[test]
    fn size_counts_the_padded_blocks() {
        assert_eq!(PackedRows::bytes(17, 2), 32 * 2 * 8);
        assert_eq!(PackedRows::new(17, 2, |_, _| ()).data.len(), 32 * 2);
    }
}
