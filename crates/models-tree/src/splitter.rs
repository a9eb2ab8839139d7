//! What a criterion contributes to the split search: node summaries (weight, impurity, value)
//! and a left-to-right scan that scores every split position of one sorted feature.

use crate::criterion::{entropy, gini};

/// The weight and impurity of the two sides of a candidate split.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sides {
    pub(crate) w_left: f64,
    pub(crate) imp_left: f64,
    pub(crate) w_right: f64,
    pub(crate) imp_right: f64,
}

/// One criterion. `Node` summarizes the samples of the node being split (filled once per
/// node, reused across nodes so deep trees do not allocate per node); `Scan` is the state of a
/// scan of one feature, one per thread.
pub(crate) trait Splitter: Sync {
    type Node: Send + Sync;
    type Scan: Send;

    fn new_node(&self) -> Self::Node;
    fn new_scan(&self) -> Self::Scan;
    /// Summarizes samples `ids` into `node`, writes the node's values, returns (weight, impurity).
    fn fill_node(&self, ids: &[u32], node: &mut Self::Node, value: &mut [f64]) -> (f64, f64);
    /// Empties the left side (every sample of the node on the right).
    fn reset(&self, node: &Self::Node, scan: &mut Self::Scan);
    /// Moves sample `id` from the right side to the left one.
    fn push(&self, node: &Self::Node, scan: &mut Self::Scan, id: u32);
    /// A score that ranks splits as the impurity decrease does, cheaper to compute (larger
    /// is better).
    fn proxy(&self, node: &Self::Node, scan: &Self::Scan) -> f64;
    /// The two sides' weights and impurities.
    fn sides(&self, node: &Self::Node, scan: &Self::Scan) -> Sides;
    /// The two sides' weights, left then right.
    fn side_weights(&self, node: &Self::Node, scan: &Self::Scan) -> (f64, f64);
    /// The value a categorical split search orders the node's categories by, for the
    /// category whose samples are `ids` (non-empty).
    fn group_key(&self, node: &Self::Node, ids: &[u32]) -> f64;
    /// Whether the best subset of categories is always a prefix of the `group_key` order
    /// (Breiman's theorem), so scanning prefixes is exact.
    fn ordered_search_is_exact(&self) -> bool;
}

/// Gini or entropy over class indices.
pub(crate) struct ClassSplitter<'a> {
    pub(crate) y: &'a [u32],
    pub(crate) w: &'a [f64],
    pub(crate) n_classes: usize,
    pub(crate) entropy: bool,
}

pub(crate) struct ClassNode {
    counts: Vec<f64>,
    total: f64,
}

pub(crate) struct ClassScan {
    left: Vec<f64>,
    w_left: f64,
}

/// `Σ c ln c − t ln t` = `−t · H` in nats: the entropy proxy of one side.
fn neg_weighted_entropy(counts: impl Iterator<Item = f64>, total: f64) -> f64 {
    let s: f64 = counts.filter(|&c| c > 0.0).map(|c| c * c.ln()).sum();
    s - total * total.ln()
}

impl ClassSplitter<'_> {
    fn impurity(&self, counts: &[f64], total: f64) -> f64 {
        if self.entropy {
            entropy(counts, total)
        } else {
            gini(counts, total)
        }
    }
}

impl Splitter for ClassSplitter<'_> {
    type Node = ClassNode;
    type Scan = ClassScan;

    fn new_node(&self) -> ClassNode {
        ClassNode {
            counts: vec![0.0; self.n_classes],
            total: 0.0,
        }
    }

    fn new_scan(&self) -> ClassScan {
        ClassScan {
            left: vec![0.0; self.n_classes],
            w_left: 0.0,
        }
    }

    fn fill_node(&self, ids: &[u32], node: &mut ClassNode, value: &mut [f64]) -> (f64, f64) {
        node.counts.fill(0.0);
        for &i in ids {
            node.counts[self.y[i as usize] as usize] += self.w[i as usize];
        }
        node.total = node.counts.iter().sum();
        value.copy_from_slice(&node.counts);
        (node.total, self.impurity(&node.counts, node.total))
    }

    fn reset(&self, _: &ClassNode, scan: &mut ClassScan) {
        scan.left.fill(0.0);
        scan.w_left = 0.0;
    }

    #[inline]
    fn push(&self, _: &ClassNode, scan: &mut ClassScan, id: u32) {
        let w = self.w[id as usize];
        scan.left[self.y[id as usize] as usize] += w;
        scan.w_left += w;
    }

    #[inline]
    fn proxy(&self, node: &ClassNode, scan: &ClassScan) -> f64 {
        let (wl, wr) = (scan.w_left, node.total - scan.w_left);
        if wl <= 0.0 || wr <= 0.0 {
            return f64::NEG_INFINITY;
        }
        let right = node.counts.iter().zip(&scan.left).map(|(t, l)| t - l);
        if self.entropy {
            neg_weighted_entropy(scan.left.iter().copied(), wl) + neg_weighted_entropy(right, wr)
        } else {
            let sl: f64 = scan.left.iter().map(|l| l * l).sum();
            let sr: f64 = right.map(|r| r * r).sum();
            sl / wl + sr / wr
        }
    }

    /// Two classes: the weighted share of class 1. More: the share of the node's most
    /// frequent class (one against the rest), the ordering heuristic beyond exhaustive search.
    fn group_key(&self, node: &ClassNode, ids: &[u32]) -> f64 {
        let target = if self.n_classes == 2 {
            1
        } else {
            crate::data::argmax(&node.counts) as u32
        };
        let (mut hit, mut total) = (0.0, 0.0);
        for &i in ids {
            let w = self.w[i as usize];
            total += w;
            if self.y[i as usize] == target {
                hit += w;
            }
        }
        hit / total
    }

    fn ordered_search_is_exact(&self) -> bool {
        self.n_classes == 2
    }

    fn side_weights(&self, node: &ClassNode, scan: &ClassScan) -> (f64, f64) {
        (scan.w_left, node.total - scan.w_left)
    }

    fn sides(&self, node: &ClassNode, scan: &ClassScan) -> Sides {
        let right: Vec<f64> = node
            .counts
            .iter()
            .zip(&scan.left)
            .map(|(t, l)| (t - l).max(0.0))
            .collect();
        let w_right = node.total - scan.w_left;
        Sides {
            w_left: scan.w_left,
            imp_left: self.impurity(&scan.left, scan.w_left),
            w_right,
            imp_right: self.impurity(&right, w_right),
        }
    }
}

/// Squared error: the weighted variance of the targets.
pub(crate) struct SquaredSplitter<'a> {
    pub(crate) y: &'a [f64],
    pub(crate) w: &'a [f64],
}

#[derive(Default)]
pub(crate) struct Moments {
    w: f64,
    wy: f64,
    wyy: f64,
}

impl Moments {
    fn variance(&self) -> f64 {
        let mean = self.wy / self.w;
        (self.wyy / self.w - mean * mean).max(0.0)
    }
}

/// The weighted mean target of samples `ids`.
fn mean_target(y: &[f64], w: &[f64], ids: &[u32]) -> f64 {
    let (mut wy, mut total) = (0.0, 0.0);
    for &i in ids {
        total += w[i as usize];
        wy += w[i as usize] * y[i as usize];
    }
    wy / total
}

impl Splitter for SquaredSplitter<'_> {
    type Node = Moments;
    type Scan = Moments;

    fn new_node(&self) -> Moments {
        Moments::default()
    }

    fn new_scan(&self) -> Moments {
        Moments::default()
    }

    fn fill_node(&self, ids: &[u32], node: &mut Moments, value: &mut [f64]) -> (f64, f64) {
        *node = Moments::default();
        for &i in ids {
            let (w, y) = (self.w[i as usize], self.y[i as usize]);
            node.w += w;
            node.wy += w * y;
            node.wyy += w * y * y;
        }
        let mean = node.wy / node.w;
        value[0] = mean;
        // Deviations from the mean (not E[y²] − E[y]²), so equal targets give exactly 0 and
        // the node stops as pure.
        let ss: f64 = ids
            .iter()
            .map(|&i| self.w[i as usize] * (self.y[i as usize] - mean).powi(2))
            .sum();
        (node.w, ss / node.w)
    }

    fn reset(&self, _: &Moments, scan: &mut Moments) {
        *scan = Moments::default();
    }

    #[inline]
    fn push(&self, _: &Moments, scan: &mut Moments, id: u32) {
        let (w, y) = (self.w[id as usize], self.y[id as usize]);
        scan.w += w;
        scan.wy += w * y;
        scan.wyy += w * y * y;
    }

    #[inline]
    fn proxy(&self, node: &Moments, scan: &Moments) -> f64 {
        let (wl, wr) = (scan.w, node.w - scan.w);
        if wl <= 0.0 || wr <= 0.0 {
            return f64::NEG_INFINITY;
        }
        let sr = node.wy - scan.wy;
        scan.wy * scan.wy / wl + sr * sr / wr
    }

    fn group_key(&self, _: &Moments, ids: &[u32]) -> f64 {
        mean_target(self.y, self.w, ids)
    }

    fn ordered_search_is_exact(&self) -> bool {
        true
    }

    fn side_weights(&self, node: &Moments, scan: &Moments) -> (f64, f64) {
        (scan.w, node.w - scan.w)
    }

    fn sides(&self, node: &Moments, scan: &Moments) -> Sides {
        let right = Moments {
            w: node.w - scan.w,
            wy: node.wy - scan.wy,
            wyy: node.wyy - scan.wyy,
        };
        Sides {
            w_left: scan.w,
            imp_left: scan.variance(),
            w_right: right.w,
            imp_right: right.variance(),
        }
    }
}

/// A Fenwick tree over target ranks holding weight and weight × target, so a side's weighted
/// median and absolute deviation come in O(log n) per split position.
struct Fenwick {
    w: Vec<f64>,
    wy: Vec<f64>,
    len: usize,
}

impl Fenwick {
    fn new(capacity: usize) -> Self {
        Self {
            w: vec![0.0; capacity + 1],
            wy: vec![0.0; capacity + 1],
            len: 0,
        }
    }

    fn clear(&mut self, len: usize) {
        self.len = len;
        self.w[..=len].fill(0.0);
        self.wy[..=len].fill(0.0);
    }

    /// Fills from per-rank values in O(len).
    fn build(&mut self, w: impl Iterator<Item = (f64, f64)>, len: usize) {
        self.clear(len);
        for (r, (a, b)) in w.enumerate() {
            self.w[r + 1] = a;
            self.wy[r + 1] = b;
        }
        for i in 1..=len {
            let j = i + (i & i.wrapping_neg());
            if j <= len {
                self.w[j] += self.w[i];
                self.wy[j] += self.wy[i];
            }
        }
    }

    #[inline]
    fn add(&mut self, rank: usize, w: f64, wy: f64) {
        let mut i = rank + 1;
        while i <= self.len {
            self.w[i] += w;
            self.wy[i] += wy;
            i += i & i.wrapping_neg();
        }
    }

    /// Sums of weight and weight × target over ranks `0..=rank`.
    #[inline]
    fn prefix(&self, rank: usize) -> (f64, f64) {
        let (mut a, mut b, mut i) = (0.0, 0.0, rank + 1);
        while i > 0 {
            a += self.w[i];
            b += self.wy[i];
            i &= i - 1;
        }
        (a, b)
    }

    /// The smallest rank whose prefix weight reaches `target`.
    #[inline]
    fn lower_bound(&self, target: f64) -> usize {
        let (mut pos, mut rem) = (0, target);
        let mut step = if self.len == 0 {
            0
        } else {
            1 << self.len.ilog2()
        };
        while step > 0 {
            if pos + step <= self.len && self.w[pos + step] < rem {
                pos += step;
                rem -= self.w[pos];
            }
            step >>= 1;
        }
        pos.min(self.len.saturating_sub(1))
    }
}

/// Absolute error: the weighted mean absolute deviation from the weighted median.
pub(crate) struct AbsoluteSplitter<'a> {
    pub(crate) y: &'a [f64],
    pub(crate) w: &'a [f64],
}

pub(crate) struct AbsNode {
    /// The node's samples sorted by target.
    sorted: Vec<u32>,
    /// Rank of each sample among the node's (only the node's entries are meaningful).
    rank: Vec<u32>,
    w: f64,
    wy: f64,
}

pub(crate) struct AbsScan {
    left: Fenwick,
    right: Fenwick,
    w_left: f64,
    wy_left: f64,
}

impl AbsoluteSplitter<'_> {
    /// `Σ w |y − median|` of the side held by `fw`, whose totals are `w` and `wy`.
    fn deviation(&self, node: &AbsNode, fw: &Fenwick, w: f64, wy: f64) -> f64 {
        if w <= 0.0 {
            return 0.0;
        }
        let r = fw.lower_bound(w / 2.0);
        let median = self.y[node.sorted[r] as usize];
        let (cw, cy) = fw.prefix(r);
        (median * cw - cy + (wy - cy) - median * (w - cw)).max(0.0)
    }
}

/// scikit-learn's weighted median of targets sorted ascending: the first target whose
/// cumulative weight reaches half the total, or the mean of it and the next when it reaches
/// exactly half.
pub(crate) fn weighted_median(sorted: impl Iterator<Item = (f64, f64)> + Clone, total: f64) -> f64 {
    let half = total / 2.0;
    let mut cum = 0.0;
    let mut it = sorted.peekable();
    while let Some((y, w)) = it.next() {
        cum += w;
        if cum >= half {
            if cum == half
                && let Some(&(next, _)) = it.peek()
            {
                return (y + next) / 2.0;
            }
            return y;
        }
    }
    f64::NAN
}

impl Splitter for AbsoluteSplitter<'_> {
    type Node = AbsNode;
    type Scan = AbsScan;

    fn new_node(&self) -> AbsNode {
        AbsNode {
            sorted: Vec::new(),
            rank: vec![0; self.y.len()],
            w: 0.0,
            wy: 0.0,
        }
    }

    fn new_scan(&self) -> AbsScan {
        AbsScan {
            left: Fenwick::new(self.y.len()),
            right: Fenwick::new(self.y.len()),
            w_left: 0.0,
            wy_left: 0.0,
        }
    }

    fn fill_node(&self, ids: &[u32], node: &mut AbsNode, value: &mut [f64]) -> (f64, f64) {
        node.sorted.clear();
        node.sorted.extend_from_slice(ids);
        node.sorted.sort_unstable_by(|&a, &b| {
            self.y[a as usize]
                .total_cmp(&self.y[b as usize])
                .then(a.cmp(&b))
        });
        for (r, &i) in node.sorted.iter().enumerate() {
            node.rank[i as usize] = r as u32;
        }
        node.w = ids.iter().map(|&i| self.w[i as usize]).sum();
        node.wy = ids
            .iter()
            .map(|&i| self.w[i as usize] * self.y[i as usize])
            .sum();
        let pairs = node
            .sorted
            .iter()
            .map(|&i| (self.y[i as usize], self.w[i as usize]));
        let median = weighted_median(pairs, node.w);
        value[0] = median;
        let dev: f64 = ids
            .iter()
            .map(|&i| self.w[i as usize] * (self.y[i as usize] - median).abs())
            .sum();
        (node.w, dev / node.w)
    }

    fn reset(&self, node: &AbsNode, scan: &mut AbsScan) {
        let len = node.sorted.len();
        scan.left.clear(len);
        let pairs = node.sorted.iter().map(|&i| {
            let w = self.w[i as usize];
            (w, w * self.y[i as usize])
        });
        scan.right.build(pairs, len);
        scan.w_left = 0.0;
        scan.wy_left = 0.0;
    }

    #[inline]
    fn push(&self, node: &AbsNode, scan: &mut AbsScan, id: u32) {
        let (w, y) = (self.w[id as usize], self.y[id as usize]);
        let r = node.rank[id as usize] as usize;
        scan.left.add(r, w, w * y);
        scan.right.add(r, -w, -w * y);
        scan.w_left += w;
        scan.wy_left += w * y;
    }

    fn proxy(&self, node: &AbsNode, scan: &AbsScan) -> f64 {
        let (wl, wr) = (scan.w_left, node.w - scan.w_left);
        if wl <= 0.0 || wr <= 0.0 {
            return f64::NEG_INFINITY;
        }
        let dl = self.deviation(node, &scan.left, wl, scan.wy_left);
        let dr = self.deviation(node, &scan.right, wr, node.wy - scan.wy_left);
        -(dl + dr)
    }

    /// The weighted mean target: a heuristic order for absolute error, used beyond exhaustive
    /// search.
    fn group_key(&self, _: &AbsNode, ids: &[u32]) -> f64 {
        mean_target(self.y, self.w, ids)
    }

    fn ordered_search_is_exact(&self) -> bool {
        false
    }

    fn side_weights(&self, node: &AbsNode, scan: &AbsScan) -> (f64, f64) {
        (scan.w_left, node.w - scan.w_left)
    }

    fn sides(&self, node: &AbsNode, scan: &AbsScan) -> Sides {
        let (wl, wr) = (scan.w_left, node.w - scan.w_left);
        let dl = self.deviation(node, &scan.left, wl, scan.wy_left);
        let dr = self.deviation(node, &scan.right, wr, node.wy - scan.wy_left);
        Sides {
            w_left: wl,
            imp_left: dl / wl,
            w_right: wr,
            imp_right: dr / wr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenwick_prefix_and_lower_bound_match_brute_force() {
        let vals = [0.5, 0.0, 2.0, 1.0, 0.25, 3.0];
        let mut f = Fenwick::new(vals.len());
        f.build(vals.iter().map(|&w| (w, 2.0 * w)), vals.len());
        let mut cum = 0.0;
        for (r, &v) in vals.iter().enumerate() {
            cum += v;
            assert_eq!(f.prefix(r), (cum, 2.0 * cum));
        }
        for target in [0.1, 0.5, 0.6, 2.5, 3.75, 6.0, 6.75] {
            let brute = (0..vals.len())
                .find(|&r| vals[..=r].iter().sum::<f64>() >= target)
                .unwrap();
            assert_eq!(f.lower_bound(target), brute, "{target}");
        }
        f.add(2, -2.0, -4.0);
        assert_eq!(f.prefix(5).0, 4.75);
    }

    #[test]
    fn weighted_median_follows_scikit_learn() {
        let m = |p: &[(f64, f64)]| weighted_median(p.iter().copied(), p.iter().map(|x| x.1).sum());
        assert_eq!(m(&[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0)]), 2.0);
        assert_eq!(m(&[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0), (10.0, 1.0)]), 2.5);
        assert_eq!(m(&[(1.0, 3.0), (2.0, 1.0), (3.0, 1.0)]), 1.0);
    }
}
