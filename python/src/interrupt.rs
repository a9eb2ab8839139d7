//! Fits that Ctrl-C stops.
//!
//! Python runs its signal handlers on the main thread, and only when something asks: a fit that
//! held that thread in Rust ignored Ctrl-C until it ended (SVC, forests and boosting ran on for
//! ten seconds and more). Fits now ask, in one of two ways:
//!
//! - A family fitted by an iterative solver (the SVMs' SMO, boosting's rounds, the linear
//!   models' solvers, k-means' passes) runs where it always ran, on the calling thread with the
//!   interpreter lock released, watched by a [`SignalWatch`]: each solver iteration it reads the
//!   clock, and every [`POLL`] it takes the lock and asks Python about signals
//!   ([`Python::check_signals`], which runs the handlers: SIGINT's raises `KeyboardInterrupt`).
//!   On an exception every solver run stops at its next iteration; the fit's result is dropped
//!   and the exception raised.
//! - A family with no solver loop to observe and a fit long enough to matter (the forests) runs
//!   on rayon's pool (where its trees grow anyway) while the calling thread waits in slices of
//!   [`POLL`], asking about signals between slices. On an exception the caller returns at once;
//!   the fit, which owns all it reads (the dataset is margin's copy), is left to finish on the
//!   pool and its result dropped.
//!
//! No thread is started for a fit: a new thread would take a stack and, under an address-space
//! limit (`ulimit -v`), a malloc arena's 64 MiB reservation. Fits on threads other than the main
//! one are never interrupted (Python delivers signals to the main thread only), and an
//! interrupted fit leaves its estimator as it was.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use pyo3::panic::PanicException;
use pyo3::prelude::*;

use margin_any::AnyModel;
use margin_core::Result;
use margin_core::fit::{Control, Observer, Progress};

use crate::convert::to_py;

/// How often a fit asks Python about signals: Ctrl-C is answered within about this long
/// (plus one solver iteration), and a fit takes the interpreter lock once per period.
pub const POLL: Duration = Duration::from_millis(100);

/// What a fit gives.
pub type Fitted = Result<Box<dyn AnyModel>>;

/// A fit that reports its solver's iterations to the observer it is given.
pub type ObservedFit<'a> = Box<dyn FnOnce(&mut dyn Observer) -> Fitted + Send + 'a>;

/// A fit that owns all it reads.
pub type OwnedFit = Box<dyn FnOnce() -> Fitted + Send + 'static>;

/// A fit to run, the parameters applied and the data prepared.
pub enum Job<'a> {
    /// Runs on the calling thread, watched by the observer it is given (families without a
    /// solver loop ignore it); may read the caller's arrays.
    Here(ObservedFit<'a>),
    /// Has no solver loop to observe: runs on rayon's pool and, when the caller is
    /// interrupted, is left to finish there.
    Pool(OwnedFit),
}

/// An observer that asks Python about signals every [`POLL`] and, once a handler raised an
/// exception, stops every solver run at its next iteration. Until then it only reads the clock,
/// so the fitted model is bit for bit the unobserved fit's.
pub struct SignalWatch {
    next: Instant,
    raised: Option<PyErr>,
}

impl SignalWatch {
    /// A watch whose first look is one [`POLL`] from now.
    pub fn new() -> Self {
        Self {
            next: Instant::now() + POLL,
            raised: None,
        }
    }
}

impl SignalWatch {
    /// The exception a signal handler raised while it watched, if one did.
    pub fn raised(self) -> Option<PyErr> {
        self.raised
    }
}

impl Observer for SignalWatch {
    fn observe(&mut self, _progress: &Progress<'_>) -> Control {
        if self.raised.is_some() {
            return Control::Stop;
        }
        let now = Instant::now();
        if now < self.next {
            return Control::Continue;
        }
        self.next = now + POLL;
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => Control::Continue,
            Err(e) => {
                self.raised = Some(e);
                Control::Stop
            }
        }
    }
}

/// Runs `job` with the interpreter lock released and returns its model, or the exception a
/// signal handler raised meanwhile (`KeyboardInterrupt`).
pub fn run(py: Python<'_>, job: Job<'_>) -> PyResult<Box<dyn AnyModel>> {
    match job {
        Job::Here(fit) => {
            let (fitted, raised) = py.detach(move || {
                let mut watch = SignalWatch::new();
                let fitted = fit(&mut watch);
                (fitted, watch.raised())
            });
            match raised {
                // The solver runs stopped early: the model is not the fit asked for.
                Some(e) => Err(e),
                None => fitted.map_err(to_py),
            }
        }
        Job::Pool(fit) => {
            let (tx, rx) = mpsc::sync_channel(1);
            rayon::spawn(move || {
                // The caller may have gone (interrupted): the result is then dropped.
                let _ = tx.send(outcome(fit));
            });
            wait(py, rx)
        }
    }
}

/// What a pool job sends back: the fit's result, or the message of its panic.
type Outcome = std::result::Result<Fitted, String>;

/// The fit's result, a panic caught as its message (a panic in a job spawned on rayon's pool
/// would abort the process).
fn outcome(fit: impl FnOnce() -> Fitted) -> Outcome {
    catch_unwind(AssertUnwindSafe(fit)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

/// Waits for a pool job's outcome in slices of [`POLL`] without the interpreter lock, asking
/// Python about signals between slices; returns a handler's exception as soon as one is raised.
fn wait(py: Python<'_>, mut rx: Receiver<Outcome>) -> PyResult<Box<dyn AnyModel>> {
    loop {
        // The receiver moves into the closure and back: a borrowed one may not cross into
        // code that runs without the interpreter lock (it is not Sync).
        let (received, back) = py.detach(move || (rx.recv_timeout(POLL), rx));
        rx = back;
        match received {
            Ok(Ok(fitted)) => return fitted.map_err(to_py),
            Ok(Err(panic)) => {
                return Err(PanicException::new_err(format!(
                    "margin's fit panicked (a bug: please report it): {panic}"
                )));
            }
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PanicException::new_err(
                    "margin's fit ended without a result (a bug: please report it)",
                ));
            }
        }
    }
}
