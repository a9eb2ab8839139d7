//! The per-query bounded selection of the k nearest: a max-heap of the k best
//! `(rank distance, training index)` pairs, ordered by distance and then by index, so that of
//! equally distant training rows the one with the smaller index wins.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One candidate neighbour.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    dist: f64,
    index: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.dist
            .total_cmp(&other.dist)
            .then(self.index.cmp(&other.index))
    }
}

/// The `k` best candidates seen so far.
#[derive(Debug)]
pub(crate) struct KBest {
    k: usize,
    heap: BinaryHeap<Candidate>,
    /// The k-th best distance, `+∞` while fewer than `k` are held: a candidate farther than
    /// this cannot enter.
    bound: f64,
}

impl KBest {
    /// An empty selection of `k ≥ 1` candidates.
    pub(crate) fn new(k: usize) -> Self {
        Self {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
            bound: f64::INFINITY,
        }
    }

    /// The distance a candidate must not exceed to enter (equal may enter with a smaller
    /// index).
    #[inline]
    pub(crate) fn bound(&self) -> f64 {
        self.bound
    }

    /// Offers a candidate; it is kept if it beats the current k-th best.
    #[inline]
    pub(crate) fn push(&mut self, dist: f64, index: usize) {
        let c = Candidate { dist, index };
        if self.heap.len() < self.k {
            self.heap.push(c);
        } else if self.heap.peek().is_some_and(|worst| c < *worst) {
            self.heap.pop();
            self.heap.push(c);
        } else {
            return;
        }
        if self.heap.len() == self.k {
            self.bound = self.heap.peek().map_or(f64::INFINITY, |w| w.dist);
        }
    }

    /// Writes the held candidates in ascending order, finishing each distance with `finish`.
    pub(crate) fn write_sorted(
        self,
        dist: &mut [f64],
        index: &mut [usize],
        finish: impl Fn(f64) -> f64,
    ) {
        for ((c, d), i) in self
            .heap
            .into_sorted_vec()
            .into_iter()
            .zip(dist.iter_mut())
            .zip(index.iter_mut())
        {
            *d = finish(c.dist);
            *i = c.index;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_k_smallest_with_ties_to_the_smaller_index() {
        let mut best = KBest::new(3);
        for (i, d) in [5.0, 1.0, 3.0, 1.0, 3.0, 0.5, 3.0].into_iter().enumerate() {
            best.push(d, i);
        }
        assert_eq!(best.bound(), 1.0);
        let (mut d, mut i) = ([0.0; 3], [0; 3]);
        best.write_sorted(&mut d, &mut i, |x| x);
        assert_eq!(d, [0.5, 1.0, 1.0]);
        assert_eq!(i, [5, 1, 3]);
    }

    #[test]
    fn a_tie_at_the_bound_goes_to_the_smaller_index_whatever_the_order() {
        let mut best = KBest::new(2);
        for (d, i) in [(2.0, 9), (1.0, 4), (2.0, 3), (2.0, 7)] {
            best.push(d, i);
        }
        let (mut d, mut i) = ([0.0; 2], [0; 2]);
        best.write_sorted(&mut d, &mut i, |x| x);
        assert_eq!((d, i), ([1.0, 2.0], [4, 3]));
    }
}
