//! Gradient histograms: per feature and bin, the sums of the gradients and hessians of a node's
//! samples and their count.
//!
//! Every bin's sums are added in partition order (a node's samples in ascending row order), in
//! chunks whose boundaries depend only on the node's size, added in chunk order, so the sums
//! do not depend on the thread count. Gradients are `f32` (as scikit-learn's `G_H_DTYPE`: half
//! the memory traffic), stored with their hessian beside them (one load fetches both), sums
//! `f64`.
//!
//! Two layouts of the bins serve two kinds of node. A tree's root holds every row in order:
//! each feature's bins are read column by column, tile by tile, features in groups (one task a
//! group), so a tile's gradients are read from memory once per group. Any other node's samples
//! are scattered: each sample's bins of every feature are one row of the row-major copy, so a
//! tile of samples is gathered into contiguous scratch (the lines of samples a few places
//! ahead asked for while the current one is copied) and added a few features at a time, whose
//! histograms then stay in the first-level cache.

use margin_core::{hint, parallel};
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

/// A scattered node's samples are summed in chunks of at least this many, in parallel, then
/// added in chunk order; a node of at most this many is one chunk.
const ROW_CHUNK: usize = 1 << 14;

/// At most this many chunks per node, so the partial histograms stay few.
const MAX_CHUNKS: usize = 16;

/// Samples per tile: a tile's gradients and bins stay in the first-level cache while each of
/// its features is added (the root reads 2,048 × 8 bytes of gradients per feature group).
const TILE: usize = 2048;

/// Features added in one pass over a gathered tile: their histograms (6 KiB each) stay in the
/// first-level cache, where all of a node's (120 KiB for 20 features) would not.
const FEATURES_PER_PASS: usize = 4;

/// How many samples ahead a gather asks for the lines it will copy: enough to cover the
/// latency of memory with the copies in between, few enough that the lines are still cached.
const PREFETCH_AHEAD: usize = 16;

/// The gradients and hessians the trees are grown on: sample `i`'s `[gradient, hessian]` is
/// `pairs[i]`.
pub(crate) struct Gradients<'a> {
    pub(crate) pairs: &'a [[f32; 2]],
    /// Every hessian is 1 (squared and absolute error without weights): the hessians are not
    /// read, and the histogram's counts stand in for their sums.
    pub(crate) unit_hessian: bool,
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

    /// Fills the histograms from the samples `rows` (absolute row indices, in partition order;
    /// all of `data`'s rows, or rows of its row-major copy, [`BinnedData::with_rows`]).
    /// `tile` is scratch, reused from node to node.
    pub(crate) fn build(
        &mut self,
        data: &BinnedData,
        grads: &Gradients<'_>,
        rows: &[u32],
        tile: &mut Tile,
    ) {
        if rows.len() == data.n_rows {
            self.build_root(data, grads);
        } else {
            self.build_scattered(data, grads, rows, tile);
        }
        if grads.unit_hessian {
            for feature in &mut self.features {
                feature.iter_mut().for_each(|b| b.h = f64::from(b.n));
            }
        }
    }

    /// Every row, in order (a tree's root): features in groups, each group's columns read
    /// tile by tile beside the tile's gradients.
    fn build_root(&mut self, data: &BinnedData, grads: &Gradients<'_>) {
        let n = data.n_rows;
        let d = self.features.len();
        let fill = |first: usize, hists: &mut [[Bin; N_BINS]]| {
            hists.iter_mut().for_each(|h| h.fill(Bin::default()));
            for start in (0..n).step_by(TILE) {
                let end = (start + TILE).min(n);
                let pairs = &grads.pairs[start..end];
                for (k, hist) in hists.iter_mut().enumerate() {
                    let bins = &data.column(first + k)[start..end];
                    if grads.unit_hessian {
                        for (&b, &[g, _]) in bins.iter().zip(pairs) {
                            add_unit(&mut hist[b as usize], g);
                        }
                    } else {
                        for (&b, &[g, h]) in bins.iter().zip(pairs) {
                            add(&mut hist[b as usize], g, h);
                        }
                    }
                }
            }
        };
        if parallel::should_split(n * d * UPDATE_WORK, parallel::Overhead::Loop) {
            // Two groups a thread, so a thread that finishes early takes over half of another's.
            let group = d.div_ceil(2 * parallel::threads()).max(1);
            self.features
                .par_chunks_mut(group)
                .enumerate()
                .for_each(|(c, hists)| fill(c * group, hists));
        } else {
            fill(0, &mut self.features[..]);
        }
    }

    /// Scattered samples, from the row-major bins: chunks of samples in parallel (one chunk,
    /// filled in place, for a node of at most [`ROW_CHUNK`] samples), each chunk tile by tile.
    fn build_scattered(
        &mut self,
        data: &BinnedData,
        grads: &Gradients<'_>,
        rows: &[u32],
        tile: &mut Tile,
    ) {
        let d = self.features.len();
        let chunk = rows.len().div_ceil(MAX_CHUNKS).max(ROW_CHUNK);
        if rows.len() <= chunk {
            self.features
                .iter_mut()
                .for_each(|h| h.fill(Bin::default()));
            self.add_samples(data, grads, rows, tile);
            return;
        }
        let partials: Vec<Histograms> = rows
            .par_chunks(chunk)
            .map(|part| {
                let mut hist = Histograms::new(d);
                hist.add_samples(data, grads, part, &mut Tile::default());
                hist
            })
            .collect();
        let mut parts = partials.into_iter();
        if let Some(first) = parts.next() {
            self.features = first.features;
        }
        for part in parts {
            self.merge(&part);
        }
    }

    /// Adds the samples `rows`, a tile at a time, [`FEATURES_PER_PASS`] features per pass over
    /// each gathered tile (one at a time for the last few).
    fn add_samples(
        &mut self,
        data: &BinnedData,
        grads: &Gradients<'_>,
        rows: &[u32],
        tile: &mut Tile,
    ) {
        let d = self.features.len();
        for (t, tile_rows) in rows.chunks(TILE).enumerate() {
            let next = &rows[((t + 1) * TILE).min(rows.len())..];
            tile.gather(data, grads, d, tile_rows, next);
            let mut first = 0;
            while first < d {
                let rest = &mut self.features[first..];
                if let Some(group) = rest.first_chunk_mut::<FEATURES_PER_PASS>() {
                    tile.add_features(group, first, d, grads.unit_hessian);
                    first += FEATURES_PER_PASS;
                } else if let Some(one) = rest.first_chunk_mut::<1>() {
                    tile.add_features(one, first, d, grads.unit_hessian);
                    first += 1;
                }
            }
        }
    }

    /// `self = self + other`, bin by bin (a chunk's sums added to the chunks' before it).
    fn merge(&mut self, other: &Histograms) {
        for (pf, sf) in self.features.iter_mut().zip(&other.features) {
            for (p, s) in pf.iter_mut().zip(sf) {
                p.g += s.g;
                p.h += s.h;
                p.n += s.n;
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

/// One sample's gradient and hessian added to its bin.
#[inline(always)]
fn add(bin: &mut Bin, g: f32, h: f32) {
    bin.g += f64::from(g);
    bin.h += f64::from(h);
    bin.n += 1;
}

/// One sample's gradient added to its bin (unit hessians: the count stands for them).
#[inline(always)]
fn add_unit(bin: &mut Bin, g: f32) {
    bin.g += f64::from(g);
    bin.n += 1;
}

/// Scattered samples copied together: their bins row by row and their gradient pairs.
#[derive(Default)]
pub(crate) struct Tile {
    bins: Vec<u8>,
    pairs: Vec<[f32; 2]>,
}

impl Tile {
    /// Copies the samples `rows` in; `next` are the samples after them, whose lines are asked
    /// for [`PREFETCH_AHEAD`] samples in advance.
    fn gather(
        &mut self,
        data: &BinnedData,
        grads: &Gradients<'_>,
        d: usize,
        rows: &[u32],
        next: &[u32],
    ) {
        self.bins.clear();
        self.pairs.clear();
        let ahead = rows
            .iter()
            .skip(PREFETCH_AHEAD)
            .chain(next.iter().take(PREFETCH_AHEAD));
        let mut ahead = ahead.map(|&r| r as usize);
        for &r in rows {
            if let Some(a) = ahead.next() {
                let line = data.by_row.as_ptr().wrapping_add(a * d);
                hint::prefetch(line);
                hint::prefetch(line.wrapping_add(d.saturating_sub(1)));
                hint::prefetch(grads.pairs.as_ptr().wrapping_add(a));
            }
            let r = r as usize;
            // Eight bytes at a time, then the rest: a call to `memcpy` per sample would cost
            // more than copying its few bytes.
            let src = &data.by_row[r * d..(r + 1) * d];
            let words = src.chunks_exact(8);
            let tail = words.remainder();
            for word in words {
                self.bins
                    .extend_from_slice(&<[u8; 8]>::try_from(word).unwrap_or_default());
            }
            for &b in tail {
                self.bins.push(b);
            }
            self.pairs.push(grads.pairs[r]);
        }
    }

    /// Adds the tile's bins of features `first..first + W` (of `d`) to their histograms.
    #[inline]
    fn add_features<const W: usize>(
        &self,
        hists: &mut [[Bin; N_BINS]; W],
        first: usize,
        d: usize,
        unit_hessian: bool,
    ) {
        let samples = self.bins.chunks_exact(d).zip(&self.pairs);
        if unit_hessian {
            for (row, &[g, _]) in samples {
                for (hist, &b) in hists.iter_mut().zip(&row[first..first + W]) {
                    add_unit(&mut hist[b as usize], g);
                }
            }
        } else {
            for (row, &[g, h]) in samples {
                for (hist, &b) in hists.iter_mut().zip(&row[first..first + W]) {
                    add(&mut hist[b as usize], g, h);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(g: &[f32], h: &[f32]) -> Vec<[f32; 2]> {
        g.iter().zip(h).map(|(&g, &h)| [g, h]).collect()
    }

    #[test]
    fn sums_per_bin_and_the_subtraction_trick() {
        // Two features, four samples, three bins per feature.
        let data = BinnedData::from_columns(4, vec![0, 1, 1, 2, 2, 2, 0, 0])
            .with_rows()
            .unwrap();
        let gh = pairs(&[1.0, 2.0, 3.0, 4.0], &[0.5, 0.5, 1.0, 1.0]);
        let grads = Gradients {
            pairs: &gh,
            unit_hessian: false,
        };
        let mut tile = Tile::default();
        let mut parent = Histograms::new(2);
        parent.build(&data, &grads, &[0, 1, 2, 3], &mut tile);
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
        child.build(&data, &grads, &[1, 3], &mut tile);
        parent.subtract(&child);
        let mut other = Histograms::new(2);
        other.build(&data, &grads, &[0, 2], &mut tile);
        assert_eq!(parent.features, other.features);
        // With unit hessians the counts stand in for them (the stored ones are not read).
        let unit = Gradients {
            pairs: &gh,
            unit_hessian: true,
        };
        other.build(&data, &unit, &[0, 2], &mut tile);
        assert_eq!(other.feature(0)[1], bin(3.0, 1.0, 1));
    }

    /// Every bin's sums added one sample at a time in the order of `rows`.
    fn in_order(data: &BinnedData, gh: &[[f32; 2]], rows: &[u32]) -> Vec<[Bin; N_BINS]> {
        let d = data.bins.len() / data.n_rows;
        let mut hist = vec![[Bin::default(); N_BINS]; d];
        for &r in rows {
            let [g, h] = gh[r as usize];
            for (j, feature) in hist.iter_mut().enumerate() {
                add(&mut feature[data.column(j)[r as usize] as usize], g, h);
            }
        }
        hist
    }

    /// The root (every row, column by column) and a node of at most `ROW_CHUNK` scattered
    /// samples (row by row, tile by tile) add each bin's samples in row order: the sums of a
    /// one-at-a-time loop, bit for bit, whatever the thread count.
    #[test]
    fn bins_are_summed_in_row_order_on_any_thread_count() {
        let (n, d) = (30_000usize, 9usize);
        let bins: Vec<u8> = (0..n * d)
            .map(|k| ((k * 2_654_435_761) % 251) as u8)
            .collect();
        let data = BinnedData::from_columns(n, bins).with_rows().unwrap();
        // Gradients whose sums round differently in another order.
        let gh: Vec<[f32; 2]> = (0..n)
            .map(|i| [(i as f32 * 0.618_034).sin() * 1e3, 1.0 / (1.0 + i as f32)])
            .collect();
        let grads = Gradients {
            pairs: &gh,
            unit_hessian: false,
        };
        let all: Vec<u32> = (0..n as u32).collect();
        let node: Vec<u32> = (0..n as u32)
            .filter(|i| i % 3 != 1)
            .take(ROW_CHUNK)
            .collect();
        for rows in [&all, &node] {
            let expected = in_order(&data, &gh, rows);
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let got = pool.install(|| {
                    let mut hist = Histograms::new(d);
                    hist.build(&data, &grads, rows, &mut Tile::default());
                    hist.features
                });
                assert!(got == expected, "{} rows, {threads} threads", rows.len());
            }
        }
    }

    /// Large scattered nodes are summed in chunks: exact sums (integer gradients) equal the
    /// one-at-a-time loop's, and any gradients give the same bits on one thread or two.
    #[test]
    fn chunked_nodes_are_exact_and_thread_independent() {
        let (n, d) = (200_000usize, 3usize);
        let bins: Vec<u8> = (0..n * d)
            .map(|k| ((k * 2_654_435_761) % 251) as u8)
            .collect();
        let data = BinnedData::from_columns(n, bins).with_rows().unwrap();
        let rows: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 1).collect();
        let integers = pairs(
            &(0..n).map(|i| (i % 7) as f32 - 3.0).collect::<Vec<_>>(),
            &(0..n).map(|i| (i % 3) as f32).collect::<Vec<_>>(),
        );
        let fractions: Vec<[f32; 2]> = (0..n).map(|i| [(i as f32).cos(), 0.1]).collect();
        let build = |gh: &[[f32; 2]], threads: usize| {
            let grads = Gradients {
                pairs: gh,
                unit_hessian: false,
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut hist = Histograms::new(d);
                hist.build(&data, &grads, &rows, &mut Tile::default());
                hist.features
            })
        };
        assert!(build(&integers, 2) == in_order(&data, &integers, &rows));
        assert!(build(&fractions, 1) == build(&fractions, 2));
    }
}
