//! A kd-tree for exact k-nearest-neighbour search in low dimensions.
//!
//! Built by median splits along the widest dimension of each node's bounding box until a node
//! holds at most `leaf_size` points (scikit-learn's default 30), with the points copied in
//! tree order so a leaf is one contiguous block. A query descends depth first, nearer child
//! first, and skips a node when the rank distance from the query to the node's bounding box
//! exceeds its current k-th best. That bound never exceeds the distance to any point inside
//! (each coordinate gap is at most the point's, and floating-point rounding is monotone), and a
//! node whose bound *equals* the k-th best is still visited, so the result is exactly the
//! brute-force one: the k smallest distances, ties to the smaller training index.

use margin_core::{DenseView, Records, Result, RowView, memory};
use rayon::prelude::*;

use crate::metric::{Kind, minkowski_term};
use crate::select::KBest;

/// Queries per rayon task.
const QUERY_TASK: usize = 64;

#[derive(Clone, Debug)]
struct Node {
    /// The node's points are `start..end` in tree order.
    start: usize,
    end: usize,
    /// Child node ids; `None` for a leaf.
    children: Option<(usize, usize)>,
}

/// A kd-tree over dense training rows.
#[derive(Clone, Debug)]
pub(crate) struct KdTree {
    d: usize,
    /// Training rows in tree order, row-major.
    points: Vec<f64>,
    /// Tree position → training index.
    index: Vec<usize>,
    nodes: Vec<Node>,
    /// Per node, its bounding box: `d` lower then `d` upper bounds.
    bounds: Vec<f64>,
}

impl KdTree {
    /// Builds the tree over `records` (at least one row; sparse ones are densified, the tree
    /// serving low dimensions) with leaves of at most `leaf_size ≥ 1` points.
    pub(crate) fn build<R: Records + ?Sized>(records: &R, leaf_size: usize) -> Result<Self> {
        let train = records.dense_view()?;
        let train = train.view();
        let (n, d) = (train.nrows(), train.ncols());
        let mut tree = Self {
            d,
            points: memory::vec_with_capacity(
                n.saturating_mul(d),
                "the kd-tree's points",
                memory::DENSE_COPY,
            )?,
            index: (0..n).collect(),
            nodes: Vec::new(),
            bounds: Vec::new(),
        };
        tree.split(train, 0, n, leaf_size.max(1));
        for &i in &tree.index {
            tree.points.extend_from_slice(train.row(i));
        }
        Ok(tree)
    }

    /// Adds the node holding `index[start..end]` (and its subtree); returns its id.
    fn split(&mut self, train: DenseView<'_>, start: usize, end: usize, leaf_size: usize) -> usize {
        let d = self.d;
        let id = self.nodes.len();
        let mut lo = vec![f64::INFINITY; d];
        let mut hi = vec![f64::NEG_INFINITY; d];
        for &i in &self.index[start..end] {
            for (j, &v) in train.row(i).iter().enumerate() {
                lo[j] = lo[j].min(v);
                hi[j] = hi[j].max(v);
            }
        }
        let (dim, spread) = (0..d)
            .map(|j| (j, hi[j] - lo[j]))
            .fold((0, 0.0), |best, c| if c.1 > best.1 { c } else { best });
        self.bounds.extend_from_slice(&lo);
        self.bounds.extend_from_slice(&hi);
        self.nodes.push(Node {
            start,
            end,
            children: None,
        });
        // All points equal along every axis: no split separates them.
        if end - start <= leaf_size || spread <= 0.0 {
            return id;
        }
        let mid = start + (end - start) / 2;
        // Ties in the coordinate go by training index, so the tree depends on the data only.
        self.index[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            train
                .get(a, dim)
                .total_cmp(&train.get(b, dim))
                .then(a.cmp(&b))
        });
        let left = self.split(train, start, mid, leaf_size);
        let right = self.split(train, mid, end, leaf_size);
        self.nodes[id].children = Some((left, right));
        id
    }

    /// The rank distance from `x` to node `id`'s bounding box: a lower bound on the rank
    /// distance to any of its points.
    #[inline]
    fn min_rank(&self, kind: Kind, id: usize, x: &[f64]) -> f64 {
        let b = &self.bounds[id * 2 * self.d..(id + 1) * 2 * self.d];
        let (lo, hi) = b.split_at(self.d);
        let gap = |j: usize| {
            let v = x[j];
            if v < lo[j] {
                lo[j] - v
            } else if v > hi[j] {
                v - hi[j]
            } else {
                0.0
            }
        };
        let mut s = 0.0f64;
        match kind {
            Kind::L2 | Kind::SqL2 => (0..self.d).for_each(|j| s += gap(j) * gap(j)),
            Kind::L1 => (0..self.d).for_each(|j| s += gap(j)),
            Kind::Chebyshev => (0..self.d).for_each(|j| s = s.max(gap(j))),
            Kind::Minkowski(p) => (0..self.d).for_each(|j| s += minkowski_term(gap(j), p)),
            // Not built for these kinds (see `Kind::tree_supported`): never prune.
            Kind::Cosine | Kind::Hamming => {}
        }
        s
    }

    fn visit(&self, kind: Kind, id: usize, x: &[f64], best: &mut KBest) {
        let node = &self.nodes[id];
        match node.children {
            None => {
                let d = self.d;
                for p in node.start..node.end {
                    let z = RowView::Dense(&self.points[p * d..(p + 1) * d]);
                    best.push(kind.rank(RowView::Dense(x), z, 0.0, 0.0, d), self.index[p]);
                }
            }
            Some((left, right)) => {
                let (bl, br) = (self.min_rank(kind, left, x), self.min_rank(kind, right, x));
                let (first, b_first, second, b_second) = if bl <= br {
                    (left, bl, right, br)
                } else {
                    (right, br, left, bl)
                };
                if b_first <= best.bound() {
                    self.visit(kind, first, x, best);
                }
                if b_second <= best.bound() {
                    self.visit(kind, second, x, best);
                }
            }
        }
    }

    /// Finds the `k` nearest rows of every query into `dist`/`index` (`m × k`, row-major).
    pub(crate) fn search<Q: Records + ?Sized>(
        &self,
        kind: Kind,
        queries: &Q,
        k: usize,
        dist: &mut [f64],
        index: &mut [usize],
    ) {
        dist.par_chunks_mut(QUERY_TASK * k)
            .zip(index.par_chunks_mut(QUERY_TASK * k))
            .enumerate()
            .for_each(|(task, (dist, index))| {
                let mut x = vec![0.0; self.d];
                for r in 0..dist.len() / k {
                    queries.row(task * QUERY_TASK + r).to_dense_into(&mut x);
                    let mut best = KBest::new(k);
                    self.visit(kind, 0, &x, &mut best);
                    best.write_sorted(
                        &mut dist[r * k..(r + 1) * k],
                        &mut index[r * k..(r + 1) * k],
                        |v| kind.finish(v),
                    );
                }
            });
    }
}
