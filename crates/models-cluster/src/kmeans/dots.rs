//! The dot products of a block of dense rows with a few centres, for k-means' assignments.
//!
//! k-means multiplies every row by `k` centres, and `k` is small (scikit-learn's default is 8).
//! Each assignment streams all rows from memory once, and a product that streams must fetch
//! its rows ahead of use: faer's GEMM, called on blocks of rows, runs at half its in-cache
//! speed there, and prefetching the next block before each call did not help (measured on
//! 100,000 × 50 rows and 10 centres, one thread: 7.8 ms a pass by faer, 3.1 ms for the same
//! products in cache, 3.7 ms here). Here the centres are packed once per assignment,
//! feature-major in panels of up to [`PANEL`] vectors of [`LANES`] centres (zero-padded), and
//! each group of [`ROWS`] rows, read in place, accumulates its products with a panel in
//! registers (per feature, one broadcast of each row's value and one multiply-add per vector)
//! while the rows [`AHEAD`] groups on are prefetched, line by line. Beyond
//! [`super::assign::FEW_CENTRES`] centres faer's wider tiles win again.
//!
//! The same loop is compiled for the x86-64 baseline and with AVX2 + FMA, and the fast copy is
//! taken when the CPU has those features ([`margin_core::simd_dispatch!`]). The two
//! round differently (fused multiply-adds): the assignment rule (see [`super::assign`]) never
//! lets the products' rounding decide a label.

use std::ops::Range;

use margin_core::DenseMatrix;

/// Centres per vector (an AVX2 register of `f64`).
const LANES: usize = 4;
/// At most this many vectors of centres per panel: with [`ROWS`] rows, 8 accumulators, the
/// panel's vectors and a broadcast stay in AVX2's 16 registers (with 3 vectors LLVM spilled
/// accumulators and the products ran at two thirds of the speed).
const PANEL: usize = 2;
/// Rows that share each load of a panel's vectors.
const ROWS: usize = 4;
/// Groups of rows ahead that are prefetched: about a memory latency of products.
const AHEAD: usize = 4;
/// `f64` values per cache line.
const LINE: usize = 8;

/// Centres packed for [`products`]: panels of `d` rows of vectors, feature-major.
pub(crate) struct PackedCenters {
    k: usize,
    d: usize,
    /// The [`panels`] one after the other, `LANES` centres to a vector (zero-padded).
    values: Vec<[f64; LANES]>,
    /// A row of zeros, read in place of the rows a last, shorter group lacks.
    zeros: Vec<f64>,
}

/// The panels of `k` centres: each one's first centre and its number of centres, `LANES ·
/// PANEL` but for the last. A panel is `cols.div_ceil(LANES)` vectors wide, and every panel
/// before it is full, so it starts at vector `first / LANES · d` of the packed values.
fn panels(k: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..k)
        .step_by(LANES * PANEL)
        .map(move |first| (first, (k - first).min(LANES * PANEL)))
}

impl PackedCenters {
    /// Packs the rows of `centers` (`k × d`), `LANES · PANEL` centres to a panel, the last
    /// panel as many vectors wide as its centres need.
    pub(crate) fn new(centers: &DenseMatrix) -> Self {
        let (k, d) = (centers.nrows(), centers.ncols());
        let mut values = Vec::with_capacity(k.div_ceil(LANES) * d);
        for (first, cols) in panels(k) {
            for f in 0..d {
                values.extend((0..cols.div_ceil(LANES)).map(|v| {
                    std::array::from_fn(|l| {
                        let j = first + v * LANES + l;
                        if j < k { centers.row(j)[f] } else { 0.0 }
                    })
                }));
            }
        }
        Self {
            k,
            d,
            values,
            zeros: vec![0.0; d],
        }
    }
}

margin_core::simd_dispatch! {
    /// `out[r·k + j] = x_i · c_j` for the `n` rows `i = rows.start + r` of `x` (row-major, `d`
    /// values each) and the packed centres `c_j`, into the first `n · k` values of `out` (each
    /// row's `k` products together).
    ///
    /// Rows a few groups ahead are prefetched, past `rows` too (the caller's next block): the
    /// hardware prefetchers left a product streaming from memory at half its in-cache speed.
    pub(crate) fn products(
        x: &[f64],
        rows: Range<usize>,
        packed: &PackedCenters,
        out: &mut [f64],
    ) => products_loop;
}

/// Each group of [`ROWS`] rows against every panel in turn (the group stays in L1 across the
/// panels); a last, shorter group reads a row of zeros in place of its missing rows.
#[inline(always)]
fn products_loop<const FMA: bool>(
    x: &[f64],
    rows: Range<usize>,
    packed: &PackedCenters,
    out: &mut [f64],
) {
    let (k, d) = (packed.k, packed.d);
    let out = &mut out[..rows.len() * k];
    if d == 0 {
        out.fill(0.0);
        return;
    }
    let block = &x[rows.start * d..rows.end * d];
    let groups = block.chunks(d * ROWS).zip(out.chunks_mut(k * ROWS));
    for (g, (group, out)) in groups.enumerate() {
        let ahead = (rows.start + (g + AHEAD) * ROWS) * d;
        for i in (ahead..(ahead + d * ROWS).min(x.len())).step_by(LINE) {
            margin_core::hint::prefetch(&x[i]);
        }
        let rows: [&[f64]; ROWS] =
            std::array::from_fn(|r| group.get(r * d..(r + 1) * d).unwrap_or(&packed.zeros));
        for (first, cols) in panels(k) {
            let width = cols.div_ceil(LANES);
            let start = first / LANES * d;
            let panel = &packed.values[start..start + d * width];
            let at = Outputs { k, first, cols };
            // A panel is 1 ..= PANEL (2) vectors wide.
            match width {
                1 => write(&tile::<1, FMA>(rows, panel), out, at),
                _ => write(&tile::<PANEL, FMA>(rows, panel), out, at),
            }
        }
    }
}

/// The products of [`ROWS`] rows (`d` values each) with one panel of `NV` vectors per
/// feature, accumulated in registers.
#[inline(always)]
fn tile<const NV: usize, const FMA: bool>(
    rows: [&[f64]; ROWS],
    panel: &[[f64; LANES]],
) -> [[[f64; LANES]; NV]; ROWS] {
    let [r0, r1, r2, r3] = rows;
    let mut acc = [[[0.0f64; LANES]; NV]; ROWS];
    let features = panel.chunks_exact(NV).zip(r0).zip(r1).zip(r2).zip(r3);
    for ((((c, &a0), &a1), &a2), &a3) in features {
        let xs = [a0, a1, a2, a3];
        for r in 0..ROWS {
            for v in 0..NV {
                for l in 0..LANES {
                    acc[r][v][l] = madd::<FMA>(xs[r], c[v][l], acc[r][v][l]);
                }
            }
        }
    }
    acc
}

/// Where a tile's products go in each of its rows' `k` outputs: centres `first .. first + cols`.
#[derive(Clone, Copy)]
struct Outputs {
    k: usize,
    first: usize,
    cols: usize,
}

/// A tile's products into the outputs of its group's rows (as many as `out` holds). Written
/// row by row, in the accumulators' order: stores across rows (centre-major) kept LLVM from
/// vectorizing [`tile`] (it ran at scalar speed).
#[inline(always)]
fn write<const NV: usize>(acc: &[[[f64; LANES]; NV]; ROWS], out: &mut [f64], at: Outputs) {
    for (acc, o) in acc.iter().zip(out.chunks_exact_mut(at.k)) {
        for (t, o) in o[at.first..at.first + at.cols].iter_mut().enumerate() {
            *o = acc[t / LANES][t % LANES];
        }
    }
}

#[inline(always)]
fn madd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape the panels and row groups produce (k across panel widths and panel counts,
    /// n across row groups and remainders, d = 0 and 1), against each product in order; the
    /// values are small integers, so every rounding is exact and both copies must agree.
    #[test]
    fn products_are_each_rows_dot_with_each_centre() {
        for k in [1, 3, 4, 5, 8, 10, 12, 13, 25] {
            for d in [0, 1, 7] {
                for n in [0, 1, 3, 4, 5, 9] {
                    let value =
                        |i: usize, j: usize, s: usize| ((i * 7 + j * 3 + s) % 11) as f64 - 5.0;
                    let x: Vec<f64> = (0..n * d)
                        .map(|t| value(t / d.max(1), t % d.max(1), 1))
                        .collect();
                    let c = DenseMatrix::from_row_major(
                        (0..k * d)
                            .map(|t| value(t / d.max(1), t % d.max(1), 2))
                            .collect(),
                        k,
                        d,
                    )
                    .unwrap();
                    let packed = PackedCenters::new(&c);
                    let mut out = vec![f64::NAN; n * k + 3];
                    products(&x, 0..n, &packed, &mut out);
                    let mut plain = vec![f64::NAN; n * k + 3];
                    products_loop::<false>(&x, 0..n, &packed, &mut plain);
                    for i in 0..n {
                        for j in 0..k {
                            let want: f64 = (0..d).map(|f| x[i * d + f] * c.row(j)[f]).sum();
                            assert_eq!(
                                out[i * k + j],
                                want,
                                "k {k} d {d} n {n} row {i} centre {j}"
                            );
                            assert_eq!(plain[i * k + j], want);
                        }
                    }
                    assert!(
                        out[n * k..].iter().all(|v| v.is_nan()),
                        "wrote past the rows"
                    );
                }
            }
        }
    }
}
