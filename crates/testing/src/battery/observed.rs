//! The observer checks every iterative model's tests run ([`check_observed`]).

use std::fmt::Debug;

use margin_core::Iterative;
use margin_core::fit::{Control, FitObserved, FitReport, Progress, Stop, StopAfter};

/// Checks the observer contract of `params` on `input`, and returns the plain fit's report:
/// - an observer that only records leaves the fitted model equal (bit-identical) to the plain
///   fit's, and sees iterations numbered from 1 within each run, at least as many in all as
///   the report's runs made (an inner cross-validation's runs are observed but not kept);
/// - an observer that stops every run at iteration `k` gives runs of `k` iterations ending
///   [`Stop::Observer`] where the plain run made more than `k`, and the plain run elsewhere.
///
/// Panics on a failure (tests only); `k` must be below the plain fit's [`FitReport::n_iter`].
pub fn check_observed<P, I>(params: &P, input: &I, k: usize) -> FitReport
where
    I: ?Sized,
    P: FitObserved<I>,
    P::Model: Iterative + PartialEq + Debug,
{
    let plain = params.fit(input).expect("the plain fit");
    let report = plain.fit_report();
    assert!(
        k < report.n_iter(),
        "k = {k} must be below the longest run's {} iterations",
        report.n_iter()
    );
    let (mut seen, mut last) = (0usize, 0usize);
    let mut record = |p: &Progress<'_>| {
        assert!(
            p.iteration == last + 1 || p.iteration == 1,
            "{}: iteration {} after {last}",
            p.solver,
            p.iteration
        );
        (seen, last) = (seen + 1, p.iteration);
        Control::Continue
    };
    let watched = params
        .fit_observed(input, &mut record)
        .expect("the watched fit");
    assert_eq!(plain, watched, "a recording observer changed the model");
    let made: usize = report.runs().iter().map(|r| r.iterations).sum();
    assert!(seen >= made, "observed {seen} iterations of {made}");
    let mut stop = StopAfter::new(k);
    let stopped = params
        .fit_observed(input, &mut stop)
        .expect("the stopped fit");
    let stopped = stopped.fit_report();
    assert_eq!(stopped.runs().len(), report.runs().len());
    for (cut, whole) in stopped.runs().iter().zip(report.runs()) {
        if whole.iterations > k {
            assert_eq!((cut.iterations, cut.stop), (k, Stop::Observer), "{whole:?}");
        } else {
            assert_eq!(cut, whole);
        }
    }
    report
}
