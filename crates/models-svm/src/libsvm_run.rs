//! What one run of LIBSVM's tools shares between its trainings: the C library's `rand()`
//! sequence, from which every cross-validation split is drawn in LIBSVM's order, and an
//! observer of what svm-train prints as it goes.
//!
//! LIBSVM never seeds `rand()`: `svm-train -b 1` draws the 5-fold split of each binary problem
//! (in the order of the pairs) and `svm-train -v` its folds, and then the splits of every fold
//! training, from one sequence that starts at glibc's seed 1. A [`LibsvmRun`] carries that
//! sequence through the `fit_in` methods of the SVM params, so a sequence of fits draws what
//! LIBSVM draws. `Fit::fit` starts a fresh run from `srand(seed)` for each fit.

use margin_core::Classes;
use margin_core::fit::{Control, Mark, Observer, Progress};

use crate::glibc_rand::GlibcRand;
use crate::probability::SigmoidEnd;
use crate::svc::{LabelOrder, class_order};

/// What svm-train prints after one SMO run (LIBSVM's `svm_train_one`): a binary problem, a
/// regression, a one-class problem, or one of the cross-validation trainings behind a
/// probability model.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// SMO iterations.
    pub iterations: usize,
    /// The line LIBSVM prints between "optimization finished" and the objective, if any.
    pub line: Option<SummaryLine>,
    /// Dual objective.
    pub objective: f64,
    /// The offset ρ.
    pub rho: f64,
    /// Support vectors.
    pub n_sv: usize,
    /// Support vectors at their upper bound.
    pub n_bsv: usize,
}

/// The formulation-specific line of a [`RunReport`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SummaryLine {
    /// `nu = …`: `Σα / (C·l)` for C-SVC (when both classes have the same C) and ε-SVR.
    Nu(f64),
    /// `C = …`: ν-SVC's `1/r`.
    C(f64),
    /// `epsilon = …`: ν-SVR's tube half-width `−r`.
    Epsilon(f64),
}

/// Watches LIBSVM-compatible fits (`fit_in`): the solver's progress marks and each run's summary
/// in the order LIBSVM prints them. Every method does nothing by default; `()` watches nothing.
pub trait FitObserver: Observer {
    /// An SMO run ended.
    fn solved(&mut self, _run: &RunReport) {}
    /// A classifier's training ended with `total_sv` support vectors (LIBSVM's
    /// `Total nSV`, printed after each `svm_train` of a classifier, fold trainings included).
    fn classifier_trained(&mut self, _total_sv: usize) {}
    /// A classifier's training data held a single class (after grouping by `(int)y`): LIBSVM
    /// trains no decision function and says so ("training data in only one class"), before
    /// its `Total nSV = 0` ([`Self::classifier_trained`]).
    fn single_class(&mut self) {}
    /// A regressor's Laplace scale σ was fitted (LIBSVM's "Prob. model for test data" lines).
    fn laplace_scale(&mut self, _sigma: f64) {}
    /// A binary problem's Platt sigmoid was fitted on its folds' decision values, ending as
    /// `end` (LIBSVM prints a line when the fit stops short of convergence).
    fn sigmoid_fitted(&mut self, _end: SigmoidEnd) {}
    /// One of LIBSVM's warnings (an iteration limit reached, a `-w` class absent from the
    /// data…), as the line LIBSVM writes to stderr; only [`crate::LibsvmTrainer`] issues them.
    fn warning(&mut self, _line: &str) {}
}

impl FitObserver for () {}

/// A plain [`Observer`] watching a LIBSVM-compatible fit: it sees the solver's iterations and
/// marks, and none of the summaries.
pub(crate) struct Watched<'a>(pub(crate) &'a mut dyn Observer);

impl Observer for Watched<'_> {
    fn observe(&mut self, progress: &Progress<'_>) -> Control {
        self.0.observe(progress)
    }
    fn mark(&mut self, mark: Mark) {
        self.0.mark(mark);
    }
}

impl FitObserver for Watched<'_> {}

/// `Fit` and `FitObserved` for an SVM params struct: a fresh [`LibsvmRun`] from the seed the
/// closure reads, watched by the observer (none for `fit`), through the params' `fit_in`.
macro_rules! observed_fits {
    ($params:ty => $model:ty, |$p:ident| $seed:expr) => {
        impl margin_core::Fit for $params {
            type Model = $model;

            fn fit(&self, data: &margin_core::Dataset) -> margin_core::Result<$model> {
                margin_core::fit::FitObserved::fit_observed(self, data, &mut ())
            }
        }

        impl margin_core::fit::FitObserved for $params {
            fn fit_observed(
                &self,
                data: &margin_core::Dataset,
                observer: &mut dyn margin_core::fit::Observer,
            ) -> margin_core::Result<$model> {
                let $p = self;
                let mut watched = $crate::libsvm_run::Watched(observer);
                self.fit_in(
                    data,
                    &mut $crate::libsvm_run::LibsvmRun::seeded($seed, &mut watched),
                )
            }
        }
    };
}
pub(crate) use observed_fits;

/// One run of LIBSVM's tools: its `rand()` sequence and its observer (see the module doc).
pub struct LibsvmRun<'o> {
    rand: GlibcRand,
    observer: &'o mut dyn FitObserver,
    fold_training: bool,
}

impl<'o> LibsvmRun<'o> {
    /// A run as LIBSVM's tools make one: `rand()` never seeded (glibc's sequence from seed 1).
    pub fn new(observer: &'o mut dyn FitObserver) -> Self {
        Self::seeded(1, observer)
    }

    /// A run whose `rand()` starts as after `srand(seed)` (the seed taken modulo 2³²; 0 is
    /// glibc's 1).
    pub fn seeded(seed: u64, observer: &'o mut dyn FitObserver) -> Self {
        Self {
            rand: GlibcRand::new(seed as u32),
            observer,
            fold_training: false,
        }
    }

    /// Marks the fits that follow as the trainings of svm-train's `-v` folds (`true`), or as
    /// fits of a whole problem (`false`, the default). LIBSVM checks its parameters once, on
    /// the whole problem, before its folds ([`crate::NuSvcParams::check_feasible`] for ν-SVC):
    /// a fold's ν-SVC training is not checked again, and one whose solver ends degenerate
    /// (r = 0 or infinite) goes on as LIBSVM's does, to NaN decision values, where a fit of a
    /// whole problem is refused.
    pub fn set_fold_training(&mut self, yes: bool) {
        self.fold_training = yes;
    }

    /// See [`Self::set_fold_training`].
    pub(crate) fn fold_training(&self) -> bool {
        self.fold_training
    }

    pub(crate) fn observer(&mut self) -> &mut dyn FitObserver {
        &mut *self.observer
    }

    /// The solver's view of the observer.
    pub(crate) fn marks(&mut self) -> &mut dyn Observer {
        &mut *self.observer
    }

    /// LIBSVM's shuffle of `0..l` (`svm_binary_svc_probability`'s, and the unstratified one of
    /// `svm_cross_validation`).
    pub(crate) fn permutation(&mut self, l: usize) -> Vec<usize> {
        self.rand.libsvm_permutation(l)
    }

    /// The folds of LIBSVM's `svm_cross_validation` without stratification (regression, or
    /// leave-one-out): a shuffle of `0..l` cut into `nr_fold` consecutive parts. Fold `f`'s
    /// training set is every other fold, in fold order. `nr_fold` is at least 1 and at most `l`.
    pub fn folds(&mut self, l: usize, nr_fold: usize) -> Vec<Vec<usize>> {
        let perm = self.permutation(l);
        (0..nr_fold)
            .map(|f| perm[f * l / nr_fold..(f + 1) * l / nr_fold].to_vec())
            .collect()
    }

    /// The stratified folds of LIBSVM's `svm_cross_validation` for classification with fewer
    /// folds than samples: the samples grouped by class in LIBSVM's class order (first seen,
    /// `+1` before `−1`), each class shuffled in turn, and fold `f` made of the `f`-th part of
    /// every class. `nr_fold` is at least 1.
    pub fn stratified_folds(&mut self, classes: &Classes, nr_fold: usize) -> Vec<Vec<usize>> {
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); classes.n_classes()];
        for (i, &c) in classes.indices().iter().enumerate() {
            members[c].push(i);
        }
        let groups: Vec<Vec<usize>> = class_order(classes, LabelOrder::FirstSeen)
            .into_iter()
            .map(|c| std::mem::take(&mut members[c]))
            .filter(|g| !g.is_empty())
            .collect();
        let mut groups = groups;
        for g in &mut groups {
            let count = g.len();
            for i in 0..count {
                let j = i + self.rand.next_rand() as usize % (count - i);
                g.swap(i, j);
            }
        }
        (0..nr_fold)
            .map(|f| {
                groups
                    .iter()
                    .flat_map(|g| {
                        let n = g.len();
                        g[f * n / nr_fold..(f + 1) * n / nr_fold].iter().copied()
                    })
                    .collect()
            })
            .collect()
    }
}

/// The training part of fold `f` of `folds`: every other fold, in fold order (LIBSVM's).
pub fn training_part(folds: &[Vec<usize>], f: usize) -> Vec<usize> {
    folds
        .iter()
        .enumerate()
        .filter(|&(g, _)| g != f)
        .flat_map(|(_, fold)| fold.iter().copied())
        .collect()
}

/// An observer that records what it sees (tests).
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Recorder {
    pub(crate) marks: Vec<Mark>,
    pub(crate) runs: Vec<RunReport>,
    pub(crate) totals: Vec<usize>,
    /// Trainings on a single class, with how many totals had been reported before each.
    pub(crate) single: Vec<usize>,
}

#[cfg(test)]
impl Observer for Recorder {
    fn mark(&mut self, mark: Mark) {
        self.marks.push(mark);
    }
}

#[cfg(test)]
impl FitObserver for Recorder {
    fn solved(&mut self, run: &RunReport) {
        self.runs.push(run.clone());
    }
    fn classifier_trained(&mut self, total_sv: usize) {
        self.totals.push(total_sv);
    }
    fn single_class(&mut self) {
        self.single.push(self.totals.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(labels: &[f64]) -> Classes {
        Classes::from_numbers(labels).unwrap()
    }

    #[test]
    fn a_watched_fit_reports_every_run_in_libsvm_s_order_and_is_unchanged() {
        use crate::{LabelOrder, Svc};
        use margin_core::Fit;
        use margin_io::datasets;
        let heart = datasets::heart_scale().unwrap();
        let params = Svc::params()
            .label_order(LabelOrder::FirstSeen)
            .probability(true);
        let mut seen = Recorder::default();
        let watched = params
            .fit_in(&heart, &mut LibsvmRun::new(&mut seen))
            .unwrap();
        assert_eq!(watched, params.fit(&heart).unwrap());
        // Five fold trainings, then the problem itself, each a training of its own.
        assert_eq!(seen.runs.len(), 6);
        assert_eq!(seen.totals.len(), 6);
        let last = &seen.runs[5];
        let problem = &watched.problems()[0];
        assert_eq!(
            (last.iterations, last.rho, last.n_sv),
            (problem.iterations, problem.rho, problem.coef.len())
        );
        assert_eq!(seen.totals[5], watched.support_indices().len());
        // Every run ends by checking optimality on all variables.
        assert!(seen.marks.iter().filter(|&&m| m == Mark::Unshrunk).count() >= 6);
    }

    #[test]
    fn a_single_class_training_reports_libsvm_s_warning_then_no_support_vector() {
        use crate::SingleClass;
        let mut seen = Recorder::default();
        let mut run = LibsvmRun::new(&mut seen);
        let model = SingleClass::new_in(margin_kernels::Linear.into(), 3, false, true, &mut run);
        assert_eq!(
            model,
            SingleClass::new(margin_kernels::Linear.into(), 3, false, true)
        );
        // The warning before the count, and no SMO run.
        assert_eq!((seen.single, seen.totals), (vec![0], vec![0]));
        assert!(seen.runs.is_empty() && seen.marks.is_empty());
    }

    #[test]
    fn plain_folds_cut_one_libsvm_shuffle() {
        let mut quiet = ();
        let mut run = LibsvmRun::new(&mut quiet);
        let folds = run.folds(10, 3);
        let mut g = GlibcRand::new(1);
        let perm = g.libsvm_permutation(10);
        assert_eq!(
            folds,
            vec![
                perm[0..3].to_vec(),
                perm[3..6].to_vec(),
                perm[6..10].to_vec()
            ]
        );
        assert_eq!(
            training_part(&folds, 1),
            [&perm[0..3], &perm[6..10]].concat()
        );
    }

    #[test]
    fn stratified_folds_shuffle_each_class_in_libsvm_s_class_order() {
        // First seen: -1, then +1, then 2 (only a two-class -1/+1 problem puts +1 first).
        let c = classes(&[-1.0, 1.0, 1.0, 2.0, -1.0, 1.0, -1.0, 2.0, 1.0, -1.0]);
        let mut quiet = ();
        let mut run = LibsvmRun::new(&mut quiet);
        let folds = run.stratified_folds(&c, 2);
        // The same draws by hand: class -1 (indices 0 4 6 9), then +1 (1 2 5 8), then 2 (3 7).
        let mut g = GlibcRand::new(1);
        let mut groups = vec![vec![0, 4, 6, 9], vec![1, 2, 5, 8], vec![3, 7]];
        for grp in &mut groups {
            let n = grp.len();
            for i in 0..n {
                let j = i + g.next_rand() as usize % (n - i);
                grp.swap(i, j);
            }
        }
        let want: Vec<Vec<usize>> = (0..2)
            .map(|f| {
                groups
                    .iter()
                    .flat_map(|grp| grp[f * grp.len() / 2..(f + 1) * grp.len() / 2].to_vec())
                    .collect()
            })
            .collect();
        assert_eq!(folds, want);
        let mut all: Vec<usize> = folds.concat();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
    }
}
