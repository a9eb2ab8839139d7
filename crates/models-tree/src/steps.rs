//! The compact form of a tree that prediction walks, and the walk of a block of dense rows
//! several at a time.

use margin_core::RowView;

use crate::tree::{Tree, value_at};

/// Rows a block walk takes down a tree side by side.
///
/// Each row's path is a chain of dependent loads (node, value, child); interleaving
/// independent rows keeps several chains in flight where one row alone waits on each.
const LANES: usize = 8;

/// A node as prediction reads it: 24 bytes against the stored record's 72, so that the paths
/// of a tree stay in the first-level caches while a block of rows walks them.
#[derive(Clone, Copy, Debug)]
struct Step {
    threshold: f64,
    /// The child a sample goes to: `next[0]` left, `next[1]` right. The side is an index, not
    /// a branch, because it is as unpredictable as the data.
    next: [u32; 2],
    feature: u32,
    rule: Rule,
}

/// How a [`Step`] sends a sample on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// `x <= threshold` goes left, and so do missing values.
    MissingLeft,
    /// `x <= threshold` goes left; missing values go right.
    MissingRight,
    /// A category set: the stored record decides.
    Categories,
    /// No split.
    Leaf,
}

/// The [`Step`]s of a tree, in node order, built once per prediction call (a pass over the
/// nodes, small beside walking every row through them).
pub(crate) struct Steps<'a> {
    tree: &'a Tree,
    steps: Vec<Step>,
}

impl<'a> Steps<'a> {
    /// The steps of `tree`.
    pub(crate) fn new(tree: &'a Tree) -> Self {
        let steps = tree
            .nodes
            .iter()
            .map(|n| Step {
                threshold: n.threshold,
                next: [n.left, n.right],
                feature: n.feature,
                rule: match (n.left == 0, n.seen_categories != 0, n.missing_left) {
                    (true, _, _) => Rule::Leaf,
                    (false, true, _) => Rule::Categories,
                    (false, false, true) => Rule::MissingLeft,
                    (false, false, false) => Rule::MissingRight,
                },
            })
            .collect();
        Self { tree, steps }
    }

    /// The leaf a sample falls into (as [`Tree::leaf_of`]).
    #[inline]
    pub(crate) fn leaf_of(&self, row: &RowView<'_>) -> usize {
        self.descend::<true>(0, |f| value_at(row, f))
    }

    /// The leaf of each of the `leaves.len()` dense rows in `x` (row-major, `d` values each),
    /// [`LANES`] rows at a time: a lane that reaches its leaf takes the next row, and the last
    /// rows finish one by one. Rows without a NaN (the caller says so with `NAN = false`)
    /// take a step with one comparison: where a missing value goes does not arise.
    pub(crate) fn leaves_of_dense<const NAN: bool>(&self, x: &[f64], d: usize, leaves: &mut [u32]) {
        let n = leaves.len();
        let mut node = [0usize; LANES];
        let mut row: [usize; LANES] = std::array::from_fn(|l| l);
        let mut taken = LANES;
        if n >= LANES {
            'walk: loop {
                for l in 0..LANES {
                    let s = self.steps[node[l]];
                    if s.rule != Rule::Leaf {
                        let v = x[row[l] * d + s.feature as usize];
                        node[l] = self.child::<NAN>(node[l], s, v);
                        continue;
                    }
                    leaves[row[l]] = node[l] as u32;
                    if taken == n {
                        // Lane `l` is done; the others finish below from where they are.
                        row[l] = n;
                        break 'walk;
                    }
                    (row[l], node[l]) = (taken, 0);
                    taken += 1;
                }
            }
        } else {
            row.iter_mut().for_each(|r| *r = n);
            taken = 0;
        }
        let rest = (0..LANES)
            .filter(|&l| row[l] < n)
            .map(|l| (row[l], node[l]))
            .chain((taken..n).map(|r| (r, 0)));
        for (r, start) in rest {
            let x = &x[r * d..(r + 1) * d];
            leaves[r] = self.descend::<NAN>(start, |f| x[f as usize]) as u32;
        }
    }

    /// The leaf reached from node `i` by a sample whose value of feature `f` is `value(f)`.
    #[inline]
    fn descend<const NAN: bool>(&self, mut i: usize, value: impl Fn(u32) -> f64) -> usize {
        loop {
            let s = self.steps[i];
            if s.rule == Rule::Leaf {
                return i;
            }
            i = self.child::<NAN>(i, s, value(s.feature));
        }
    }

    /// Where split node `i` (whose step is `s`) sends a sample whose split value is `x`, which
    /// is not NaN unless `NAN`.
    #[inline]
    fn child<const NAN: bool>(&self, i: usize, s: Step, x: f64) -> usize {
        let right = if s.rule == Rule::Categories {
            !self.tree.nodes[i].goes_left(x)
        } else if NAN {
            // NaN compares false: it goes left unless the node sends missing values right.
            (x > s.threshold) | (x.is_nan() & (s.rule == Rule::MissingRight))
        } else {
            x > s.threshold
        };
        s.next[usize::from(right)] as usize
    }
}
