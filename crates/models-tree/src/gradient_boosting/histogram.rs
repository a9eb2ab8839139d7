//! Gradient histograms: per feature and bin, the sums of the gradients and hessians of a node's
//! samples and their count.
//!
//! Features are filled in parallel, each by one thread summing its samples in partition order,
//! so the sums do not depend on the thread count. Gradients are `f32` (as scikit-learn's
//! `G_H_DTYPE`: half the memory traffic), sums `f64`.

use margin_core::parallel;
use rayon::prelude::*;

use super::binning::BinnedData;

/// One bin's sums.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Bin {
    pub(crate) g: f64,
    pub(crate) h: f64,
    pub(crate) n: u32,
}

/// Element operations one (sample × feature) histogram update counts for when deciding to go
/// parallel (`margin_core::parallel`'s unit): a bin read and three adds (gradient, hessian,
/// count), so histograms of fewer than 2¹⁴ updates are built on the calling thread.
const UPDATE_WORK: usize = 4;

/// Nodes (other than a root holding every row) with more samples than this are built row by
/// row from the row-major bins, in chunks of at least this many samples summed in parallel
/// and then added in chunk order.
const ROW_CHUNK: usize = 1 << 14;

/// At most this many chunks per node, so the partial histograms stay few.
const MAX_CHUNKS: usize = 16;

/// The gradients and hessians the trees are grown on.
pub(crate) struct Gradients<'a> {
    pub(crate) g: &'a [f32],
    /// `None` when every hessian is 1 (squared and absolute error without weights): the
    /// histogram's counts stand in for the hessian sums and are not summed twice.
    pub(crate) h: Option<&'a [f32]>,
}

/// Bins per feature in a histogram: every `u8`, so a bin index needs no bounds check.
pub(crate) const N_BINS: usize = 256;

/// Histograms of all features of one node.
pub(crate) struct Histograms {
    pub(crate) features: Vec<[Bin; N_BINS]>,
}

impl Histograms {
    /// Empty histograms for `n_features` features.
    pub(crate) fn new(n_features: usize) -> Self {
        Self {
            features: vec![[Bin::default(); N_BINS]; n_features],
        }
    }

    /// Feature `j`'s bins.
    #[inline]
    pub(crate) fn feature(&self, j: usize) -> &[Bin; N_BINS] {
        &self.features[j]
    }

    /// Fills the histograms from the samples `rows` (absolute row indices, in partition order).
    /// `ordered` is scratch for the gathered gradients (length ≥ `rows.len()`, both halves).
    pub(crate) fn build(
        &mut self,
        data: &BinnedData,
        grads: &Gradients<'_>,
        rows: &[u32],
        ordered: &mut (Vec<f32>, Vec<f32>),
    ) {
        let identity = rows.len() == data.n_rows;
        if !identity && rows.len() > ROW_CHUNK && !data.by_row.is_empty() {
            self.build_by_rows(data, grads, rows);
            return;
        }
        // A node's samples are scattered: gather their gradients once so the per-feature loops
        // read them contiguously (the root holds every row in order and needs no gather).
        let (og, oh): (&[f32], Option<&[f32]>) = if identity {
            (grads.g, grads.h)
        } else {
            let (g_buf, h_buf) = ordered;
            g_buf.clear();
            g_buf.extend(rows.iter().map(|&i| grads.g[i as usize]));
            let h = grads.h.map(|h| {
                h_buf.clear();
                h_buf.extend(rows.iter().map(|&i| h[i as usize]));
                &h_buf[..]
            });
            (&g_buf[..], h)
        };
        let fill = |(j, hist): (usize, &mut [Bin; N_BINS])| {
            hist.fill(Bin::default());
            let col = data.column(j);
            match (identity, oh) {
                (true, Some(h)) => {
                    for ((&b, &g), &h) in col.iter().zip(og).zip(h) {
                        let bin = &mut hist[b as usize];
                        bin.g += f64::from(g);
                        bin.h += f64::from(h);
                        bin.n += 1;
                    }
                }
                (true, None) => {
                    for (&b, &g) in col.iter().zip(og) {
                        let bin = &mut hist[b as usize];
                        bin.g += f64::from(g);
                        bin.n += 1;
                    }
                }
                (false, Some(h)) => {
                    for ((&i, &g), &h) in rows.iter().zip(og).zip(h) {
                        let bin = &mut hist[col[i as usize] as usize];
                        bin.g += f64::from(g);
                        bin.h += f64::from(h);
                        bin.n += 1;
                    }
                }
                (false, None) => {
                    for (&i, &g) in rows.iter().zip(og) {
                        let bin = &mut hist[col[i as usize] as usize];
                        bin.g += f64::from(g);
                        bin.n += 1;
                    }
                }
            }
            if oh.is_none() {
                hist.iter_mut().for_each(|b| b.h = f64::from(b.n));
            }
        };
        let work = rows.len() * self.features.len() * UPDATE_WORK;
        if !parallel::should_split(work, parallel::Overhead::Loop) {
            self.features.iter_mut().enumerate().for_each(fill);
        } else {
            self.features.par_iter_mut().enumerate().for_each(fill);
        }
    }

    /// Fills the histograms from scattered samples, reading each sample's bins of every
    /// feature at once. Chunk boundaries depend on the sample count only, and chunks are added
    /// in order, so the sums do not depend on the thread count.
    fn build_by_rows(&mut self, data: &BinnedData, grads: &Gradients<'_>, rows: &[u32]) {
        let d = self.features.len();
        let chunk = rows.len().div_ceil(MAX_CHUNKS).max(ROW_CHUNK);
        let partials: Vec<Histograms> = rows
            .par_chunks(chunk)
            .map(|part| {
                let mut hist = Histograms::new(d);
                for &r in part {
                    let r = r as usize;
                    let g = f64::from(grads.g[r]);
                    let h = grads.h.map_or(0.0, |h| f64::from(h[r]));
                    let bins = &data.by_row[r * d..(r + 1) * d];
                    for (feature, &b) in hist.features.iter_mut().zip(bins) {
                        let bin = &mut feature[b as usize];
                        bin.g += g;
                        bin.h += h;
                        bin.n += 1;
                    }
                }
                hist
            })
            .collect();
        let mut parts = partials.into_iter();
        if let Some(first) = parts.next() {
            self.features = first.features;
        }
        for part in parts {
            for (pf, sf) in self.features.iter_mut().zip(&part.features) {
                for (p, s) in pf.iter_mut().zip(sf) {
                    p.g += s.g;
                    p.h += s.h;
                    p.n += s.n;
                }
            }
        }
        if grads.h.is_none() {
            for feature in &mut self.features {
                feature.iter_mut().for_each(|b| b.h = f64::from(b.n));
            }
        }
    }

    /// `self = self − sibling`: a parent's histograms become its other child's (the subtraction
    /// trick, O(bins) instead of O(samples)).
    pub(crate) fn subtract(&mut self, sibling: &Histograms) {
        for (pf, sf) in self.features.iter_mut().zip(&sibling.features) {
            for (p, s) in pf.iter_mut().zip(sf) {
                p.g -= s.g;
                p.h -= s.h;
                p.n -= s.n;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_per_bin_and_the_subtraction_trick() {
        // Two features, four samples, three bins per feature.
        let data = BinnedData::from_columns(4, vec![0, 1, 1, 2, 2, 2, 0, 0]);
        let g = [1.0f32, 2.0, 3.0, 4.0];
        let h = [0.5f32, 0.5, 1.0, 1.0];
        let grads = Gradients { g: &g, h: Some(&h) };
        let mut scratch = (Vec::new(), Vec::new());
        let mut parent = Histograms::new(2);
        parent.build(&data, &grads, &[0, 1, 2, 3], &mut scratch);
        let bin = |g: f64, h: f64, n: u32| Bin { g, h, n };
        assert_eq!(
            parent.feature(0)[..3],
            [bin(1.0, 0.5, 1), bin(5.0, 1.5, 2), bin(4.0, 1.0, 1)]
        );
        assert_eq!(
            parent.feature(1)[..3],
            [bin(7.0, 2.0, 2), bin(0.0, 0.0, 0), bin(3.0, 1.0, 2)]
        );
        let mut child = Histograms::new(2);
        child.build(&data, &grads, &[1, 3], &mut scratch);
        parent.subtract(&child);
        let mut other = Histograms::new(2);
        other.build(&data, &grads, &[0, 2], &mut scratch);
        assert_eq!(parent.features, other.features);
        // Without hessians the counts stand in for them.
        let unit = Gradients { g: &g, h: None };
        other.build(&data, &unit, &[0, 2], &mut scratch);
        assert_eq!(other.feature(0)[1], bin(3.0, 1.0, 1));
    }

    /// Large scattered nodes are built row by row in chunks: the same histograms as the
    /// column-by-column pass (integer gradients, so the sums are exact in any order).
    #[test]
    fn row_major_chunks_give_the_column_sums() {
        let (n, d) = (50_000usize, 3usize);
        let bins: Vec<u8> = (0..n * d)
            .map(|k| ((k * 2_654_435_761) % 251) as u8)
            .collect();
        let by_row = BinnedData::from_columns(n, bins.clone())
            .with_rows()
            .unwrap();
        let by_column = BinnedData::from_columns(n, bins);
        let g: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
        let h: Vec<f32> = (0..n).map(|i| (i % 3) as f32).collect();
        let rows: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 1).collect();
        for h in [Some(&h[..]), None] {
            let grads = Gradients { g: &g, h };
            let mut scratch = (Vec::new(), Vec::new());
            let mut a = Histograms::new(d);
            a.build(&by_row, &grads, &rows, &mut scratch);
            let mut b = Histograms::new(d);
            b.build(&by_column, &grads, &rows, &mut scratch);
            assert_eq!(a.features, b.features);
        }
    }
}
