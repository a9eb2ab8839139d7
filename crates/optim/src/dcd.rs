//! Dual coordinate descent for linear SVMs (Hsieh, Chang, Lin, Keerthi & Sundararajan, 2008):
//! LIBLINEAR's solver for `-s 1` (L2 loss) and `-s 3` (L1 loss).
//!
//! The dual `min ½αᵀ(Q + D)α − eᵀα, 0 ≤ αᵢ ≤ Uᵢ` with `Q_ij = yᵢyⱼxᵢ·xⱼ` is solved one
//! coordinate at a time in closed form while `w = Σ αᵢyᵢxᵢ` is kept up to date, so a step
//! costs `O(nnz(xᵢ))`. L1 loss: `Dᵢᵢ = 0`, `Uᵢ = Cᵢ`; L2 loss: `Dᵢᵢ = 1/(2Cᵢ)`, `Uᵢ = ∞`.
//! Each epoch visits the active coordinates in a fresh random order; shrinking drops a
//! coordinate at a bound whose projected gradient says it will stay there, and the active
//! set is restored for a final check on all coordinates before stopping, as LIBLINEAR does.
//! It stops when the spread of projected gradients `max PG − min PG` is at most `tol`.
//!
//! The primal solved is `½‖w‖² + Σᵢ Cᵢ ℓ(yᵢ w·xᵢ)` with `ℓ` the hinge or squared hinge; an
//! intercept is LIBLINEAR's bias feature (a constant feature `B`, regularized with `w`).

use margin_core::hint::prefetch;
use margin_core::split::rng_from_seed;
use margin_core::{Error, Records, Result, validate};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::checks;
use crate::loss::Loss;
use crate::sample_rows::{CsrRows, DenseRows, Layout, Rows};
use crate::{Control, Observer, Progress, Run, Stop};

/// The SVM loss DCD minimizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SvmLoss {
    /// `max(0, 1 − y w·x)` (LIBLINEAR `-s 3`).
    Hinge,
    /// `max(0, 1 − y w·x)²` (LIBLINEAR `-s 1`, scikit-learn's LinearSVC default).
    SquaredHinge,
}

margin_core::param_choice!(SvmLoss {
    Hinge => "hinge",
    SquaredHinge => "squared-hinge" | "squared_hinge",
});

impl SvmLoss {
    /// The same loss as a [`Loss`].
    pub fn as_loss(self) -> Loss {
        match self {
            Self::Hinge => Loss::Hinge,
            Self::SquaredHinge => Loss::SquaredHinge,
        }
    }
}

/// Settings of [`dcd`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DcdOptions {
    /// The loss (default squared hinge).
    pub loss: SvmLoss,
    /// Stop when `max PG − min PG ≤ tol` (default 1e-4, scikit-learn's; LIBLINEAR's is 0.1).
    pub tol: f64,
    /// Epoch limit (default 1000, as both).
    pub max_iter: usize,
    /// Shrink the active set (default true).
    pub shrinking: bool,
    /// LIBLINEAR's bias feature: `Some(B)` appends a feature of value `B`.
    pub bias: Option<f64>,
    /// Seed of the epoch permutations.
    pub seed: u64,
}

impl Default for DcdOptions {
    fn default() -> Self {
        Self {
            loss: SvmLoss::SquaredHinge,
            tol: 1e-4,
            max_iter: 1000,
            shrinking: true,
            bias: Some(1.0),
            seed: 0,
        }
    }
}

/// The solution of [`dcd`].
#[derive(Clone, Debug, PartialEq)]
pub struct DcdSolution {
    /// `w` (`d` entries, plus the bias feature's weight last when `bias` was set).
    pub w: Vec<f64>,
    /// The dual variables `α`.
    pub alpha: Vec<f64>,
    /// Epochs run.
    pub iterations: usize,
    /// Why it stopped.
    pub stop: Stop,
    /// The spread of projected gradients `max PG − min PG` of the last epoch.
    pub violation: f64,
}

impl DcdSolution {
    /// The run as a fit report records it.
    pub fn run(&self) -> Run {
        Run::new(self.iterations, self.stop).with_violation(self.violation)
    }
}

/// Solves the linear SVM with per-sample costs `c ≥ 0` on labels `y ∈ {−1, +1}` (a sample
/// of cost 0 is left out), reporting each epoch (with its projected-gradient spread) to
/// `observer` (`&mut ()` for none).
pub fn dcd<R: Records + ?Sized>(
    x: &R,
    y: &[f64],
    c: &[f64],
    options: &DcdOptions,
    observer: &mut dyn Observer,
) -> Result<DcdSolution> {
    let n = x.n_samples();
    checks::signed_labels(y, n, "DCD")?;
    if c.len() != n {
        return Err(Error::shape("costs", n, c.len()));
    }
    validate::check_finite_slice(c)?;
    if let Some(row) = c.iter().position(|&v| v < 0.0) {
        return Err(Error::invalid_parameter(
            format!("cost of sample {row}"),
            c[row],
            "a number >= 0",
        ));
    }
    if !(options.tol > 0.0 && options.tol.is_finite()) {
        return Err(Error::invalid_parameter(
            "tol",
            options.tol,
            "a finite number > 0",
        ));
    }
    if options.max_iter == 0 {
        return Err(Error::invalid_parameter("max_iter", 0, "at least 1"));
    }
    if let Some(b) = options.bias
        && !(b > 0.0 && b.is_finite())
    {
        return Err(Error::invalid_parameter("bias", b, "a finite number > 0"));
    }

    let w = checks::parameters(
        x.n_features() + usize::from(options.bias.is_some()),
        "the weight vector of a linear SVM",
    )?;
    Ok(match Layout::of(x) {
        Layout::Sparse(csr) => solve(&CsrRows::new(&csr), w, y, c, options, observer),
        Layout::Dense(dense) => solve(&DenseRows::new(dense), w, y, c, options, observer),
    })
}

/// Everything one coordinate step reads about sample `i`, in one cache line: the steps visit
/// samples in random order, so separate arrays would cost a cache miss each.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Coordinate {
    alpha: f64,
    y: f64,
    /// `Q_ii + D_ii` (with the bias feature's `B²`).
    qd: f64,
    diag: f64,
    upper: f64,
    /// The row's range in the layout's arrays.
    start: usize,
    end: usize,
}

/// The coordinate descent itself, over validated inputs, from `w = 0` (`d` weights, then the
/// bias weight when there is one).
fn solve<X: Rows>(
    rows: &X,
    mut w: Vec<f64>,
    y: &[f64],
    c: &[f64],
    options: &DcdOptions,
    observer: &mut dyn Observer,
) -> DcdSolution {
    let bias = options.bias.unwrap_or(0.0);
    let has_bias = options.bias.is_some();
    let d = w.len() - usize::from(has_bias);
    let mut coords: Vec<Coordinate> = (0..y.len())
        .map(|i| rows.range(i))
        .zip(y.iter().zip(c))
        .map(|((start, end), (&y, &c))| {
            let (diag, upper) = match options.loss {
                SvmLoss::Hinge => (0.0, c),
                SvmLoss::SquaredHinge if c > 0.0 => (0.5 / c, f64::INFINITY),
                SvmLoss::SquaredHinge => (0.0, f64::INFINITY),
            };
            let mut coord = Coordinate {
                alpha: 0.0,
                y,
                qd: 0.0,
                diag,
                upper,
                start,
                end,
            };
            coord.qd = diag + rows.view(coord.start, coord.end).sq_norm() + bias * bias;
            coord
        })
        .collect();
    // A sample of cost 0 keeps αᵢ = 0 and takes no part.
    let mut index: Vec<usize> = (0..coords.len()).filter(|&i| c[i] > 0.0).collect();
    let eligible = index.len();
    let mut active = eligible;
    let mut rng = rng_from_seed(options.seed);
    let (mut pg_max_old, mut pg_min_old) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut iterations = 0;
    let mut violation = f64::INFINITY;
    let stop = loop {
        if iterations == options.max_iter {
            break Stop::MaxIterations;
        }
        iterations += 1;
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        index[..active].shuffle(&mut rng);
        let mut s = 0;
        while s < active {
            // Samples come in random order: ask for the next one's row and the one after's
            // coordinate now, so their loads overlap this step's arithmetic.
            if let Some(&next) = index.get(s + 1) {
                rows.prefetch(coords[next].start);
            }
            if let Some(&after) = index.get(s + 2) {
                prefetch(&coords[after]);
            }
            let i = index[s];
            let coord = &mut coords[i];
            let row = rows.view(coord.start, coord.end);
            let mut score = row.dot_dense(&w[..d]);
            if has_bias {
                score += w[d] * bias;
            }
            let g = coord.y * score - 1.0 + coord.alpha * coord.diag;
            let pg = if coord.alpha == 0.0 {
                if options.shrinking && g > pg_max_old {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                }
                g.min(0.0)
            } else if coord.alpha == coord.upper {
                if options.shrinking && g < pg_min_old {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                }
                g.max(0.0)
            } else {
                g
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg.abs() > 1e-12 && coord.qd > 0.0 {
                let old = coord.alpha;
                coord.alpha = (old - g / coord.qd).clamp(0.0, coord.upper);
                let delta = (coord.alpha - old) * coord.y;
                row.axpy(delta, &mut w[..d]);
                if has_bias {
                    w[d] += delta * bias;
                }
            }
            s += 1;
        }
        violation = pg_max - pg_min;
        let progress = Progress {
            violation: Some(violation),
            ..Progress::new("dcd", iterations)
        };
        if observer.observe(&progress) == Control::Stop {
            break Stop::Observer;
        }
        if violation <= options.tol {
            if active == eligible {
                break Stop::CONVERGED;
            }
            // Converged on the shrunk problem: check every coordinate once more.
            active = eligible;
            (pg_max_old, pg_min_old) = (f64::INFINITY, f64::NEG_INFINITY);
            continue;
        }
        pg_max_old = if pg_max <= 0.0 { f64::INFINITY } else { pg_max };
        pg_min_old = if pg_min >= 0.0 {
            f64::NEG_INFINITY
        } else {
            pg_min
        };
    };
    DcdSolution {
        w,
        alpha: coords.iter().map(|c| c.alpha).collect(),
        iterations,
        stop,
        violation,
    }
}

/// The primal objective `½‖w‖² + Σᵢ Cᵢ ℓ(yᵢ (w·xᵢ + w_B·B))`, `w` as [`dcd`] returns it.
pub fn primal_objective<R: Records + ?Sized>(
    x: &R,
    y: &[f64],
    c: &[f64],
    loss: SvmLoss,
    w: &[f64],
    bias: Option<f64>,
) -> f64 {
    let d = x.n_features();
    let loss = loss.as_loss();
    let data: f64 = (0..x.n_samples())
        .map(|i| {
            let f = x.row(i).dot_dense(&w[..d]) + bias.map_or(0.0, |b| w[d] * b);
            c[i] * loss.value(y[i], f)
        })
        .sum();
    0.5 * w.iter().map(|v| v * v).sum::<f64>() + data
}

/// The dual objective `eᵀα − ½‖w‖² − ½ Σ Dᵢᵢαᵢ²` (to be maximized; equals the primal at the
/// optimum), `w = Σ αᵢyᵢxᵢ` as [`dcd`] returns it.
pub fn dual_objective(c: &[f64], loss: SvmLoss, alpha: &[f64], w: &[f64]) -> f64 {
    let quad: f64 = match loss {
        SvmLoss::Hinge => 0.0,
        SvmLoss::SquaredHinge => alpha.iter().zip(c).map(|(a, c)| 0.5 / c * a * a).sum(),
    };
    alpha.iter().sum::<f64>() - 0.5 * w.iter().map(|v| v * v).sum::<f64>() - 0.5 * quad
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::DenseMatrix;
    use proptest::prelude::*;

    fn data(seed: u64, n: usize, d: usize) -> (DenseMatrix, Vec<f64>) {
        let mut state = seed | 1;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let label = if i % 3 == 0 { -1.0 } else { 1.0 };
            rows.push(
                (0..d)
                    .map(|j| next() + if j == 0 { 0.4 * label } else { 0.0 })
                    .collect::<Vec<_>>(),
            );
            y.push(label);
        }
        (DenseMatrix::from_rows(&rows).unwrap(), y)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// At a tight tolerance the duality gap closes: primal = dual, whatever the loss,
        /// costs, bias, layout and shrinking.
        #[test]
        fn duality_gap_closes(seed in any::<u64>(), hinge in any::<bool>(), shrinking in any::<bool>(), c in 0.05f64..5.0, bias in any::<bool>()) {
            let (x, y) = data(seed, 30, 4);
            let loss = if hinge { SvmLoss::Hinge } else { SvmLoss::SquaredHinge };
            let costs: Vec<f64> = (0..30).map(|i| c * if y[i] > 0.0 { 1.0 } else { 2.0 }).collect();
            let bias = bias.then_some(1.0);
            let options = DcdOptions { loss, tol: 1e-10, max_iter: 100_000, shrinking, bias, seed };
            let sol = dcd(&x.to_sparse(), &y, &costs, &options, &mut ()).unwrap();
            prop_assert_eq!(sol.stop, Stop::CONVERGED);
            let primal = primal_objective(&x, &y, &costs, loss, &sol.w, bias);
            let dual = dual_objective(&costs, loss, &sol.alpha, &sol.w);
            prop_assert!((primal - dual).abs() <= 1e-7 * primal.abs().max(1.0), "primal {} dual {}", primal, dual);
            // w is the dual combination Σ αᵢ yᵢ xᵢ.
            for j in 0..4 {
                let wj: f64 = (0..30).map(|i| sol.alpha[i] * y[i] * x.get(i, j)).sum();
                prop_assert!((wj - sol.w[j]).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn hand_solved_two_points() {
        // x = ±1, y = ±1, hinge, C = 10, no bias: w = 1, α = ½ each (margin exactly 1).
        let x = DenseMatrix::from_rows(&[[1.0], [-1.0]]).unwrap();
        let sol = dcd(
            &x,
            &[1.0, -1.0],
            &[10.0, 10.0],
            &DcdOptions {
                loss: SvmLoss::Hinge,
                tol: 1e-12,
                bias: None,
                ..Default::default()
            },
            &mut (),
        )
        .unwrap();
        assert!((sol.w[0] - 1.0).abs() < 1e-12, "{:?}", sol.w);
        assert!((sol.alpha[0] + sol.alpha[1] - 1.0).abs() < 1e-12);
        // Squared hinge, C = 1: minimize ½w² + 2(1 − w)² ⇒ w = 4/5.
        let sol = dcd(
            &x,
            &[1.0, -1.0],
            &[1.0, 1.0],
            &DcdOptions {
                tol: 1e-12,
                bias: None,
                ..Default::default()
            },
            &mut (),
        )
        .unwrap();
        assert!((sol.w[0] - 0.8).abs() < 1e-12, "{:?}", sol.w);
    }

    #[test]
    fn observers_see_every_epoch_and_can_stop_it() {
        let (x, y) = data(3, 40, 4);
        let c = vec![1.0; 40];
        for shrinking in [true, false] {
            let options = DcdOptions {
                tol: 1e-8,
                shrinking,
                ..Default::default()
            };
            let run = crate::observed::check("dcd", 2, |o| {
                let s = dcd(&x, &y, &c, &options, o).unwrap();
                let run = s.run();
                (s, run)
            });
            assert_eq!(run.stop, Stop::CONVERGED);
            assert!(run.violation.unwrap() <= options.tol);
        }
    }

    #[test]
    fn a_sample_of_cost_zero_is_left_out() {
        let (x, y) = data(8, 20, 3);
        let mut c = vec![1.0; 20];
        c[4] = 0.0;
        let options = DcdOptions {
            tol: 1e-12,
            ..Default::default()
        };
        let with_zero = dcd(&x, &y, &c, &options, &mut ()).unwrap();
        let keep: Vec<usize> = (0..20).filter(|&i| i != 4).collect();
        let y_kept: Vec<f64> = keep.iter().map(|&i| y[i]).collect();
        let without = dcd(
            &x.select_rows(&keep).unwrap(),
            &y_kept,
            &[1.0; 19],
            &options,
            &mut (),
        )
        .unwrap();
        assert_eq!(with_zero.alpha[4], 0.0);
        for (a, b) in with_zero.w.iter().zip(&without.w) {
            assert!((a - b).abs() < 1e-8, "{:?} vs {:?}", with_zero.w, without.w);
        }
    }

    #[test]
    fn iteration_limit_is_reported_and_seed_fixes_the_path() {
        let (x, y) = data(3, 50, 3);
        let c = vec![100.0; 50];
        let options = DcdOptions {
            tol: 1e-14,
            max_iter: 2,
            ..Default::default()
        };
        let sol = dcd(&x, &y, &c, &options, &mut ()).unwrap();
        assert_eq!((sol.stop, sol.iterations), (Stop::MaxIterations, 2));
        assert_eq!(sol, dcd(&x, &y, &c, &options, &mut ()).unwrap());
    }

    #[test]
    fn bad_inputs_are_refused() {
        let (x, y) = data(1, 4, 2);
        let c = [1.0; 4];
        let ok = DcdOptions::default();
        assert!(matches!(
            dcd(&x, &y[..3], &c, &ok, &mut ()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            dcd(&x, &y, &c[..3], &ok, &mut ()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            dcd(&x, &[1.0, 0.0, 1.0, 1.0], &c, &ok, &mut ()),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            dcd(&x, &y, &[1.0, -1.0, 1.0, 1.0], &ok, &mut ()),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            dcd(&x, &y, &[1.0, f64::NAN, 1.0, 1.0], &ok, &mut ()),
            Err(Error::NonFinite { .. })
        ));
        for bad in [
            DcdOptions { tol: 0.0, ..ok },
            DcdOptions { max_iter: 0, ..ok },
            DcdOptions {
                bias: Some(0.0),
                ..ok
            },
        ] {
            assert!(
                matches!(
                    dcd(&x, &y, &c, &bad, &mut ()),
                    Err(Error::InvalidParameter { .. })
                ),
                "{bad:?}"
            );
        }
    }
}
