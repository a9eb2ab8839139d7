//! Train/test splits and cross-validation folds, deterministic for a given seed.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::dataset::{Classes, Dataset};
use crate::error::{Error, Result};

/// The random generator every seeded margin routine uses: ChaCha8, whose stream is fixed by the
/// seed on every platform and version.
pub fn rng_from_seed(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The indices `0..n` in a random order fixed by `seed`.
pub fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng_from_seed(seed));
    order
}

/// One cross-validation fold: the indices to train on and those to test on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fold {
    /// Training sample indices, ascending.
    pub train: Vec<usize>,
    /// Held-out sample indices, ascending.
    pub test: Vec<usize>,
}

/// Splits a dataset into train and test parts.
///
/// `test_fraction` in (0, 1): the test part has `ceil(test_fraction · n)` samples, as
/// scikit-learn's `train_test_split`. With `stratify`, each class gives the test part its
/// proportional share (largest remainder, so the shares sum to the test size). Shuffled by `seed`.
pub fn train_test_split(
    data: &Dataset,
    test_fraction: f64,
    stratify: bool,
    seed: u64,
) -> Result<(Dataset, Dataset)> {
    crate::validate::check_in_range("test_fraction", test_fraction, 0.0, 1.0, true)?;
    let n = data.n_samples();
    let n_test = (test_fraction * n as f64).ceil() as usize;
    if n_test == 0 || n_test >= n {
        return Err(Error::invalid_parameter(
            "test_fraction",
            test_fraction,
            format!("a fraction leaving at least one sample on each side of {n} samples"),
        ));
    }
    let mut rng = rng_from_seed(seed);
    let mut test = Vec::with_capacity(n_test);
    if stratify {
        let classes = data.targets.to_classes()?;
        let per_class = class_members(&classes);
        // Largest-remainder allocation: class quotas sum exactly to n_test.
        let quotas = allocate(&per_class.iter().map(Vec::len).collect::<Vec<_>>(), n_test);
        for (mut members, quota) in per_class.into_iter().zip(quotas) {
            members.shuffle(&mut rng);
            test.extend_from_slice(&members[..quota]);
        }
    } else {
        let mut all: Vec<usize> = (0..n).collect();
        all.shuffle(&mut rng);
        test.extend_from_slice(&all[..n_test]);
    }
    test.sort_unstable();
    let train = complement(&test, n);
    Ok((data.select(&train)?, data.select(&test)?))
}

/// `k` folds over `n` samples: the first `n % k` folds hold one sample more, as scikit-learn's
/// `KFold`. Without a seed the folds are contiguous blocks; with one, samples are shuffled first.
#[derive(Clone, Debug)]
pub struct KFold {
    k: usize,
    seed: Option<u64>,
}

impl KFold {
    /// `k ≥ 2` folds, contiguous.
    pub fn new(k: usize) -> Self {
        Self { k, seed: None }
    }

    /// Shuffles samples with `seed` before cutting folds.
    pub fn shuffle(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The folds for `n` samples.
    pub fn split(&self, n: usize) -> Result<Vec<Fold>> {
        check_k(self.k, n)?;
        let mut order: Vec<usize> = (0..n).collect();
        if let Some(seed) = self.seed {
            order.shuffle(&mut rng_from_seed(seed));
        }
        let mut folds = Vec::with_capacity(self.k);
        let mut start = 0;
        for f in 0..self.k {
            let size = n / self.k + usize::from(f < n % self.k);
            let mut test = order[start..start + size].to_vec();
            test.sort_unstable();
            start += size;
            folds.push(Fold {
                train: complement(&test, n),
                test,
            });
        }
        Ok(folds)
    }
}

/// `k` folds that keep each class's proportion, as scikit-learn's `StratifiedKFold`: each class's
/// samples are dealt to folds so that fold sizes differ by at most one overall and class counts
/// per fold differ by at most one.
#[derive(Clone, Debug)]
pub struct StratifiedKFold {
    k: usize,
    seed: Option<u64>,
}

impl StratifiedKFold {
    /// `k ≥ 2` folds; within a class, samples keep their order.
    pub fn new(k: usize) -> Self {
        Self { k, seed: None }
    }

    /// Shuffles each class's samples with `seed` before dealing them.
    pub fn shuffle(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The folds for a dataset's class targets (numeric targets, as a LIBSVM file's, are
    /// mapped to classes first: [`Targets::to_classes`](crate::Targets::to_classes)).
    pub fn split(&self, data: &Dataset) -> Result<Vec<Fold>> {
        let classes = data.targets.to_classes()?;
        let n = classes.len();
        check_k(self.k, n)?;
        let mut rng = self.seed.map(rng_from_seed);
        let mut tests: Vec<Vec<usize>> = vec![Vec::new(); self.k];
        // Dealing continues round-robin across classes, so remainders of one class fill the
        // folds the previous class left short, keeping fold sizes within one of each other.
        let mut next_fold = 0;
        for mut members in class_members(&classes) {
            if let Some(rng) = rng.as_mut() {
                members.shuffle(rng);
            }
            for i in members {
                tests[next_fold].push(i);
                next_fold = (next_fold + 1) % self.k;
            }
        }
        Ok(tests
            .into_iter()
            .map(|mut test| {
                test.sort_unstable();
                Fold {
                    train: complement(&test, n),
                    test,
                }
            })
            .collect())
    }
}

fn check_k(k: usize, n: usize) -> Result<()> {
    if k < 2 {
        return Err(Error::invalid_parameter("k (folds)", k, "at least 2"));
    }
    if k > n {
        return Err(Error::invalid_parameter(
            "k (folds)",
            k,
            format!("at most the number of samples, {n}"),
        ));
    }
    Ok(())
}

fn class_members(classes: &Classes) -> Vec<Vec<usize>> {
    let mut members = vec![Vec::new(); classes.n_classes()];
    for (i, &k) in classes.indices().iter().enumerate() {
        members[k].push(i);
    }
    members
}

/// Splits `total` across groups in proportion to `sizes` (largest remainder), never giving a
/// group more than it has.
fn allocate(sizes: &[usize], total: usize) -> Vec<usize> {
    let n: usize = sizes.iter().sum();
    let exact: Vec<f64> = sizes
        .iter()
        .map(|&s| s as f64 * total as f64 / n as f64)
        .collect();
    let mut quota: Vec<usize> = exact.iter().map(|e| e.floor() as usize).collect();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| {
        (exact[b] - exact[b].floor())
            .total_cmp(&(exact[a] - exact[a].floor()))
            .then(a.cmp(&b))
    });
    let mut left = total - quota.iter().sum::<usize>();
    for &g in order.iter().cycle().take(order.len() * 2) {
        if left == 0 {
            break;
        }
        if quota[g] < sizes[g] {
            quota[g] += 1;
            left -= 1;
        }
    }
    quota
}

fn complement(sorted_subset: &[usize], n: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(n - sorted_subset.len());
    let mut it = sorted_subset.iter().peekable();
    for i in 0..n {
        if it.peek() == Some(&&i) {
            it.next();
        } else {
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Targets;
    use crate::dense::DenseMatrix;

    fn toy(n: usize, labels: impl Fn(usize) -> f64) -> Dataset {
        let x = DenseMatrix::from_row_major((0..n).map(|i| i as f64).collect(), n, 1).unwrap();
        Dataset::new(x, Targets::Values((0..n).map(labels).collect())).unwrap()
    }

    #[test]
    fn kfold_sizes_match_scikit_learn() {
        let folds = KFold::new(3).split(10).unwrap();
        let sizes: Vec<usize> = folds.iter().map(|f| f.test.len()).collect();
        assert_eq!(sizes, vec![4, 3, 3]);
        assert_eq!(folds[0].test, vec![0, 1, 2, 3]);
        assert_eq!(folds[1].train, vec![0, 1, 2, 3, 7, 8, 9]);
    }

    #[test]
    fn folds_partition_the_samples() {
        for folds in [
            KFold::new(4).shuffle(7).split(23).unwrap(),
            KFold::new(5).split(23).unwrap(),
        ] {
            let mut all: Vec<usize> = folds.iter().flat_map(|f| f.test.clone()).collect();
            all.sort_unstable();
            assert_eq!(all, (0..23).collect::<Vec<_>>());
            for f in &folds {
                assert_eq!(f.train.len() + f.test.len(), 23);
            }
        }
    }

    #[test]
    fn stratified_folds_keep_class_proportions() {
        let data = toy(30, |i| if i < 20 { 0.0 } else { 1.0 });
        let folds = StratifiedKFold::new(5).shuffle(3).split(&data).unwrap();
        for f in &folds {
            let pos = f.test.iter().filter(|&&i| i >= 20).count();
            assert_eq!((f.test.len(), pos), (6, 2));
        }
    }

    #[test]
    fn stratified_split_keeps_every_class_on_both_sides() {
        let data = toy(40, |i| (i % 4) as f64);
        let (train, test) = train_test_split(&data, 0.25, true, 11).unwrap();
        assert_eq!((train.n_samples(), test.n_samples()), (30, 10));
        for side in [&train, &test] {
            let counts = side.targets.to_classes().unwrap().counts();
            assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
        }
    }

    #[test]
    fn same_seed_same_split_other_seed_other_split() {
        let data = toy(50, |i| (i % 2) as f64);
        let a = train_test_split(&data, 0.3, false, 1).unwrap();
        let b = train_test_split(&data, 0.3, false, 1).unwrap();
        let c = train_test_split(&data, 0.3, false, 2).unwrap();
        assert_eq!(a.1, b.1);
        assert_ne!(a.1, c.1);
    }

    #[test]
    fn bad_fold_counts_are_refused() {
        assert!(matches!(
            KFold::new(1).split(10),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            KFold::new(11).split(10),
            Err(Error::InvalidParameter { .. })
        ));
        let data = toy(4, |i| i as f64);
        assert!(train_test_split(&data, 1.5, false, 0).is_err());
        assert!(train_test_split(&data, 0.0, false, 0).is_err());
    }
}
