//! # models-svm: support vector machines with LIBSVM's answers
//!
//! - [`Svc`]: C-support vector classification (binary, one-vs-one or one-vs-rest multiclass,
//!   class and sample weights, any kernel; `C = ∞` for a hard margin).
//! - ν-SVC ([`Svc::nu_params`]): the same classifier parameterized by ν instead of C.
//! - [`Svr`]: ε-support vector regression, and ν-SVR ([`Svr::nu_params`]).
//! - [`OneClassSvm`]: ν one-class SVM (novelty detection).
//! - [`LinearSvc`]: the linear SVM in the primal (LIBLINEAR's `-s 1/-s 3`, scikit-learn's
//!   `LinearSVC`), fitted by dual coordinate descent ([`margin_optim::dcd`]) or by Pegasos
//!   ([`margin_optim::pegasos`]); one-vs-rest for more classes. It scales to data where a kernel
//!   SVM does not: its cost grows with the number of stored features, not with `n²`.
//! - [`SvcParams::fit_cascade`]: C-SVC on a table held in parts (a query engine's
//!   partitions), as a cascade SVM with feedback: SMO on each part, support vectors merged up a
//!   binary tree, passes repeated until no row breaks the optimality conditions, so the model
//!   is the whole problem's to the solver's tolerance (margin-datafusion runs it on DataFusion
//!   and Ballista).
//!
//! All are solved by default by [`margin_optim::smo`], LIBSVM's SMO (second-order working sets,
//! shrinking, an `f32` kernel-column cache of `cache_size` MB), so they reach LIBSVM's objective,
//! support vectors and predictions. Every one also takes `solver(SvmSolver::Batched)`, [`margin_optim::batched`]: working sets of 256 variables whose
//! kernel rows are computed as matrix products (`margin_kernels::GramRows`), the same optimum to
//! within `tol` in a fraction of SMO's time on tens of thousands of samples. Parameters keep scikit-learn's names and defaults, and every params
//! type describes them through [`margin_core::params::Params`] (`set`/`get` by name; the kernel
//! is stored as the flat `kernel`, `gamma`, `degree`, `coef0`, so the order of `set` calls does
//! not matter).
//!
//! | model | parameter | default | meaning |
//! |---|---|---|---|
//! | all | `kernel`, `gamma`, `degree`, `coef0` | rbf, scale, 3, 0 | see [`KernelChoice`] and [`KernelKind`] |
//! | all | `tol` | 1e-3 | stop when the maximal KKT violation is below it |
//! | all | `shrinking` | true | LIBSVM's shrinking heuristic |
//! | all | `cache_size` | 200 | kernel cache budget in MB (builder `cache_size_mb`) |
//! | all | `max_iter` | `max(10⁷, 100·l)` | per binary problem; reaching it is reported by `convergence()` ([`margin_core::Iterative`]) |
//! | all | `solver` | smo | [`SvmSolver`]: LIBSVM's SMO, or `batched` (`shrinking` and `cache_size` then do not apply) |
//! | `Svc`, `Svr` | `C` | 1 | regularization (`∞`: hard margin) |
//! | `Svc` | `class_weight` | uniform | [`ClassWeight`] |
//! | `Svc` | `multiclass` | one-vs-one | [`Multiclass`] |
//! | `Svr` | `epsilon` | 0.1 | width of the insensitive tube |
//! | `OneClassSvm` | `nu` | 0.5 | upper bound on the outlier fraction |
//! | `Svc` | `probability`, `seed` | false, 0 | Platt probabilities on cross-validated decision values; folds drawn with glibc's `rand()` after `srand(seed)`, as LIBSVM's |
//! | `Svr` | `probability`, `seed` | false, 0 | LIBSVM's Laplace model of the residuals ([`Svr::laplace_scale`]); folds drawn with glibc's `rand()` after `srand(seed)`, so σ is LIBSVM's |
//! | `OneClassSvm` | `probability` | false | LIBSVM's density bins ([`OneClassSvm::density_marks`], `PredictProba`) |
//!
//! **Hard margins.** `C = ∞` (`Svc::params().c(f64::INFINITY)`) is the hard-margin SVM and a
//! very large C approximates it; either way SMO stops at the KKT tolerance `tol` (1e-3, as
//! LIBSVM), so for exact margins and α values (to check against a closed form) lower `tol`
//! as well, e.g. `.tol(1e-8)`.
//!
//! LIBSVM's tools draw every random split of a run (`-b 1`'s 5-fold splits, pair after pair,
//! and `-v`'s folds, then the splits of each fold training) from one unseeded C `rand()`. A
//! [`LibsvmRun`] carries that sequence, and a [`FitObserver`] of the solver's marks and of each
//! run's summary, through the `fit_in` methods of the SVM params (what `margin svm-train`
//! uses); `Fit::fit` starts a fresh sequence from `srand(seed)` for each fit. svm-train itself
//! — its option letters and checks, one training or a `-v` cross-validation, what it prints — is
//! [`TrainOptions`] and [`TrainLog`], shared by `margin svm-train` and the Python package.
//!
//! | `LinearSvc` parameter | default | meaning |
//! |---|---|---|
//! | `C` (or `lambda` = 1/(nC)) | 1 | cost of margin violations |
//! | `loss` | squared hinge | [`SvmLoss`]: hinge (L1) or squared hinge (L2) |
//! | `solver` | DCD | [`LinearSolver`]: DCD, or Pegasos (hinge only; `epochs`, `batch_size`, `projection`, `iterate`) |
//! | `tol`, `max_iter` | 1e-4, 1000 | DCD's projected-gradient tolerance and epoch limit |
//! | `fit_intercept`, `intercept_scaling` | true, 1 | LIBLINEAR's bias feature `B` (the intercept is regularized) |
//! | `class_weight` | uniform | [`ClassWeight`] |
//! | `seed` | 0 | visiting order of the samples |
//!
//! ```
//! use margin_core::{split::train_test_split, Fit, Predict};
//! use margin_io::datasets;
//! use margin_svm::Svc;
//!
//! let data = datasets::heart_scale()?;
//! let (train, test) = train_test_split(&data, 0.25, true, 1)?;
//! let model = Svc::params().c(1.0).fit(&train)?;
//! let predicted = model.predict(&test.records)?;
//! let truth = test.targets.values()?; // a LIBSVM file's labels are numbers
//! let correct = predicted.iter().zip(truth.iter()).filter(|(p, t)| p == t).count();
//! assert!(correct as f64 / predicted.len() as f64 > 0.75);
//! # Ok::<(), margin_core::Error>(())
//! ```

#![forbid(unsafe_code)]

mod cascade;
mod decision;
mod expansion;
mod glibc_rand;
mod libsvm_format;
mod libsvm_run;
mod linear_svc;
mod one_class;
mod probability;
mod q;
mod settings;
mod svc;
mod svm_train;
mod svr;

pub use cascade::{
    CascadeFit, CascadeNode, CascadePass, CascadeRow, CascadeStep, MAX_CASCADE_PASSES,
    ViolationStep,
};
pub use libsvm_format::{LibsvmModel, SingleClass};
pub use libsvm_run::{FitObserver, LibsvmRun, RunReport, SummaryLine, training_part};
pub use linear_svc::{
    Iterate, LinearSolver, LinearSolverKind, LinearSvc, LinearSvcParams, LinearSvcParts,
    Regularization, SvmLoss,
};
pub use margin_core::ClassWeight;
pub use margin_core::fit::{Mark, Observer as SolverObserver};
pub use margin_kernels::{KernelChoice, KernelKind};
pub use one_class::{OneClassSvm, OneClassSvmParams};
pub use probability::SigmoidEnd;
pub use settings::SvmSolver;
pub use svc::{BinaryModel, LabelOrder, Multiclass, NuSvcParams, Svc, SvcHyperparams, SvcParams};
pub use svm_train::{
    Evaluation, LibsvmTrainer, MAX_ITER_WARNING, OptionError, TrainLog, TrainOptions, TrainOutput,
    TrainText,
};
pub use svr::{NuSvrParams, Svr, SvrHyperparams, SvrParams};

margin_core::impl_n_features!(LibsvmModel, OneClassSvm, Svc, Svr);
margin_core::impl_hyperparams!(LinearSvc, OneClassSvm, Svc, Svr);
margin_core::impl_iterative!(LibsvmModel, LinearSvc, OneClassSvm, Svc, Svr);
