//! A working-set solver for the duals [`smo::solve`] and [`smo::solve_nu`] solve, for problems
//! where fetching `Q`'s columns one or two at a time is the cost.
//!
//! The scheme is ThunderSVM's (Wen et al., JMLR 2018), run on a CPU: each round selects a
//! working set of up to `q` violating variables, half of them new (the most violating from the
//! top of `I_up` and the bottom of `I_low`, alternately) and half kept from the previous round;
//! solves the `q`-variable subproblem on the set's own block of `Q` ([`QRows::block`]) with the
//! exact [`smo::solve`] to a looser tolerance, `max(tol, gap / 10)`; and adds the set's rows of
//! `Q`, weighted by the changes of `α`, to the gradient of every variable
//! ([`QRows::add_rows`], which a kernel computes as matrix products, tile by tile, without
//! storing the rows: where ThunderSVM keeps the rows on a GPU's fast memory, a CPU is faster
//! computing them again than writing and re-reading them). It stops on LIBSVM's rule,
//! `m(α) − M(α) < tol` over all variables, so the answer is optimal to the same tolerance as
//! SMO's (not the same bits: the path differs). The ν dual ([`solve_batched_nu`]) selects within
//! each label, as LIBSVM's ν solver does.
//!
//! Memory: the working set's block of `Q` (`4·q²` bytes), asked for before the first round.

use margin_core::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::smo::{
    self, DenseQ, Problem, QMatrix, Solution, SolverOptions, bound_of, rho_nu_of, rho_of,
};
use crate::{Control, Observer, Progress, Stop};

/// The dual's `Q` matrix as a working-set solver reads it: a working set's own block, and its
/// rows' weighted sum over all variables (which a kernel computes tile by tile, without
/// storing the rows).
pub trait QRows {
    /// Number of variables `l`.
    fn len(&self) -> usize;
    /// Whether there are no variables.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `out[a·m + b] = Q[set[a]][set[b]]` for the `m` variables of `set`.
    fn block(&mut self, set: &[usize], out: &mut [f32]);
    /// `g[t] += Σ_a weights[a] · Q[rows[a]][t]` for every variable `t`; each `g[t]` the same
    /// bits whatever the thread count.
    fn add_rows(&mut self, rows: &[usize], weights: &[f64], g: &mut [f64]);
}

/// A dense `Q` reads its (symmetric) columns as rows.
impl QRows for DenseQ {
    fn len(&self) -> usize {
        QMatrix::len(self)
    }
    fn block(&mut self, set: &[usize], out: &mut [f32]) {
        let l = QMatrix::len(self);
        for (&i, o) in set.iter().zip(out.chunks_mut(set.len().max(1))) {
            let column = self.column(i, l);
            for (o, &j) in o.iter_mut().zip(set) {
                *o = column[j];
            }
        }
    }
    fn add_rows(&mut self, rows: &[usize], weights: &[f64], g: &mut [f64]) {
        let l = g.len();
        for (&i, &w) in rows.iter().zip(weights) {
            for (gt, &q) in g.iter_mut().zip(self.column(i, l)) {
                *gt += w * f64::from(q);
            }
        }
    }
}

/// Settings of [`solve_batched`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchedOptions {
    /// Stop when the maximal violation `m(α) − M(α)` is below this (LIBSVM's `-e`, default 1e-3).
    pub tol: f64,
    /// Variables per working set, `q` (at least 2; default 256).
    pub working_set: usize,
    /// Limit on the subproblems' pair updates, summed; `None` is LIBSVM's `max(10⁷, 100·l)`.
    pub max_iter: Option<usize>,
}

impl Default for BatchedOptions {
    fn default() -> Self {
        Self {
            tol: 1e-3,
            working_set: 256,
            max_iter: None,
        }
    }
}

/// Pair updates a subproblem may make per working-set variable before the round ends anyway.
const LOCAL_ITER_PER_VARIABLE: usize = 50;

/// Solves the dual with the single equality constraint `yᵀα = Δ` (C-SVC, ε-SVR, one-class) a
/// working set at a time; each round is reported to `observer` with the violation it started
/// from. [`Solution::iterations`] counts the subproblems' pair updates.
pub fn solve_batched<Q: QRows>(
    q: &mut Q,
    problem: Problem,
    opts: &BatchedOptions,
    observer: &mut dyn Observer,
) -> Result<Solution> {
    run(q, problem, opts, observer, false)
}

/// Solves the ν dual (one equality constraint per label, as [`smo::solve_nu`]: ν-SVC, ν-SVR)
/// a working set at a time: each label's most violating pair joins every set (the more
/// violated label first), each subproblem is solved by [`smo::solve_nu`], and the rule is
/// LIBSVM's ν rule, the larger of the two labels' `m − M` below `tol`. [`Solution::r`] is set.
pub fn solve_batched_nu<Q: QRows>(
    q: &mut Q,
    problem: Problem,
    opts: &BatchedOptions,
    observer: &mut dyn Observer,
) -> Result<Solution> {
    run(q, problem, opts, observer, true)
}

fn run<Q: QRows>(
    q: &mut Q,
    problem: Problem,
    opts: &BatchedOptions,
    observer: &mut dyn Observer,
    nu: bool,
) -> Result<Solution> {
    let l = q.len();
    smo::check_problem(l, &problem, opts.tol)?;
    if opts.working_set < 2 {
        return Err(Error::invalid_parameter(
            "working_set",
            opts.working_set,
            "an integer ≥ 2 (two variables are the fewest a step can move)",
        ));
    }
    let size = opts.working_set.min(l);
    let max_iter = opts
        .max_iter
        .unwrap_or_else(|| 10_000_000usize.max(l.saturating_mul(100)));
    let Problem { p, y, c, mut alpha } = problem;
    let mut q_bb = margin_core::memory::filled_grid(
        size,
        size,
        0.0f32,
        &format!("the working set's block of Q ({size} × {size})"),
        "a smaller working_set",
    )?;

    // G = p + Qα; a warm start's non-zero α add their rows a working set's worth at a time.
    let mut g = p.clone();
    let nonzero: Vec<usize> = (0..l).filter(|&i| alpha[i] != 0.0).collect();
    for chunk in nonzero.chunks(size.max(1)) {
        let weights: Vec<f64> = chunk.iter().map(|&i| alpha[i]).collect();
        q.add_rows(chunk, &weights, &mut g);
    }

    let mut ws: Vec<usize> = Vec::new();
    let (mut iterations, mut rounds) = (0usize, 0usize);
    let mut stop = Stop::CONVERGED;
    let mut violation;
    loop {
        let ranked = Ranked::new(&y, &g, &alpha, &c, nu);
        violation = ranked.gap();
        if violation < opts.tol {
            break;
        }
        if iterations >= max_iter {
            stop = Stop::MaxIterations;
            break;
        }
        // Keep the newer half of the last working set and leave at least two places per
        // constraint for new violators: the first picked are each constraint's most violating
        // pair, so every subproblem starts from the whole problem's violation.
        let reserved = if nu { 4 } else { 2 };
        let keep = ws.len().min(size / 2).min(size.saturating_sub(reserved));
        ws.drain(..ws.len() - keep);
        let fresh = ranked.pick(&ws, size - keep, l);
        ws.extend_from_slice(&fresh);
        let m = ws.len();
        q.block(&ws, &mut q_bb[..m * m]);

        // The subproblem over the working set: the other variables' part of the gradient
        // becomes its linear term, G_B − Q_BB α_B.
        let q_bb = |a: usize, b: usize| f64::from(q_bb[a * m + b]);
        let alpha_b: Vec<f64> = ws.iter().map(|&i| alpha[i]).collect();
        let p_b: Vec<f64> = (0..m)
            .map(|a| g[ws[a]] - (0..m).map(|b| q_bb(a, b) * alpha_b[b]).sum::<f64>())
            .collect();
        let local_solve = if nu { smo::solve_nu } else { smo::solve };
        let local = local_solve(
            &mut DenseQ::new(m, q_bb),
            Problem {
                p: p_b,
                y: ws.iter().map(|&i| y[i]).collect(),
                c: ws.iter().map(|&i| c[i]).collect(),
                alpha: alpha_b.clone(),
            },
            &SolverOptions {
                tol: opts.tol.max(violation / 10.0),
                shrinking: false,
                max_iter: Some(LOCAL_ITER_PER_VARIABLE * m),
            },
            &mut (),
        )?;
        if local.iterations == 0 {
            // The most violating pair is in the set, so this happens only when its step is
            // lost to rounding: no round can do better.
            stop = Stop::StepTooSmall;
            break;
        }
        iterations += local.iterations;
        let delta: Vec<f64> = local
            .alpha
            .iter()
            .zip(&alpha_b)
            .map(|(a, b)| a - b)
            .collect();
        q.add_rows(&ws, &delta, &mut g);
        for (&i, &a) in ws.iter().zip(&local.alpha) {
            alpha[i] = a;
        }
        rounds += 1;
        let progress = Progress {
            violation: Some(violation),
            ..Progress::new("batched-smo", rounds)
        };
        if observer.observe(&progress) == Control::Stop {
            stop = Stop::Observer;
            break;
        }
    }
    let vars = (0..l).map(|i| (y[i], g[i], bound_of(alpha[i], c[i])));
    let (rho, r) = if nu {
        rho_nu_of(vars)
    } else {
        (rho_of(vars), 0.0)
    };
    let objective = (0..l).map(|i| alpha[i] * (g[i] + p[i])).sum::<f64>() / 2.0;
    Ok(Solution {
        alpha,
        rho,
        objective,
        iterations,
        stop,
        violation,
        r,
    })
}

/// The variables that can move up (`I_up`) and down (`I_low`) under one equality constraint,
/// each with its `−y_t G_t`.
#[derive(Default)]
struct Sides {
    up: Vec<(f64, usize)>,
    low: Vec<(f64, usize)>,
}

impl Sides {
    /// `m(α)` and `M(α)`: the largest `−y G` that can rise and the smallest that can fall.
    fn extremes(&self) -> (f64, f64) {
        let m = self
            .up
            .iter()
            .map(|u| u.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let big_m = self.low.iter().map(|u| u.0).fold(f64::INFINITY, f64::min);
        (m, big_m)
    }

    /// `m(α) − M(α)` (−∞ when a side is empty).
    fn gap(&self) -> f64 {
        let (m, big_m) = self.extremes();
        m - big_m
    }

    /// Keeps the violators only (up with `−yG > M`, low with `−yG < m`: no other can help),
    /// the `reach` most violating of each side, most violating first, ties to the lower index.
    fn violators(mut self, reach: usize) -> Self {
        let (m, big_m) = self.extremes();
        self.up.retain(|u| u.0 > big_m);
        self.low.retain(|u| u.0 < m);
        best_first(&mut self.up, reach, true);
        best_first(&mut self.low, reach, false);
        self
    }
}

/// [`Sides`] for each equality constraint: one over every variable, or with `nu` one per label
/// (the ν dual keeps each label's sum of `α`).
struct Ranked {
    constraints: Vec<Sides>,
}

impl Ranked {
    fn new(y: &[i8], g: &[f64], alpha: &[f64], c: &[f64], nu: bool) -> Self {
        let mut constraints: Vec<Sides> = (0..if nu { 2 } else { 1 })
            .map(|_| Sides::default())
            .collect();
        for t in 0..y.len() {
            let sides = &mut constraints[usize::from(nu && y[t] != 1)];
            let v = -f64::from(y[t]) * g[t];
            let (below_c, above_0) = (alpha[t] < c[t], alpha[t] > 0.0);
            if (y[t] == 1 && below_c) || (y[t] == -1 && above_0) {
                sides.up.push((v, t));
            }
            if (y[t] == -1 && below_c) || (y[t] == 1 && above_0) {
                sides.low.push((v, t));
            }
        }
        Self { constraints }
    }

    /// The largest `m(α) − M(α)` over the constraints (LIBSVM's stopping measure, also for ν).
    fn gap(&self) -> f64 {
        self.constraints
            .iter()
            .map(Sides::gap)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Up to `count` variables not in `taken`: from each constraint, most violated first,
    /// alternately the most violating of `I_up` (largest `−y G`) and of `I_low` (smallest),
    /// each only while it still violates against the other side's extreme; ties go to the
    /// lower index.
    fn pick(self, taken: &[usize], count: usize, l: usize) -> Vec<usize> {
        // No side can give more than `count + taken.len()` before `count` are chosen.
        let reach = count + taken.len();
        // Each constraint's gap once, most violated first (a stable sort: ties keep their order).
        let mut by_gap: Vec<(f64, Sides)> =
            self.constraints.into_iter().map(|s| (s.gap(), s)).collect();
        by_gap.sort_by(|a, b| b.0.total_cmp(&a.0));
        let constraints: Vec<Sides> = by_gap
            .into_iter()
            .map(|(_, s)| s.violators(reach))
            .collect();
        let mut member = vec![false; l];
        for &t in taken {
            member[t] = true;
        }
        let mut cursors: Vec<_> = constraints
            .iter()
            .map(|s| (s.up.iter(), s.low.iter()))
            .collect();
        let mut open = vec![true; cursors.len()];
        let mut chosen = Vec::with_capacity(count);
        // Slots in turn: each open constraint's up side, then its low side.
        let mut slot = 0;
        while chosen.len() < count && open.iter().any(|&o| o) {
            let (k, from_up) = (slot / 2 % cursors.len(), slot % 2 == 0);
            slot += 1;
            if !open[k] {
                continue;
            }
            let next = |side: &mut std::slice::Iter<'_, (f64, usize)>| {
                side.find(|e| !member[e.1]).map(|e| e.1)
            };
            let (up, low) = &mut cursors[k];
            let found = if from_up {
                next(up).or_else(|| next(low))
            } else {
                next(low).or_else(|| next(up))
            };
            match found {
                Some(t) => {
                    member[t] = true;
                    chosen.push(t);
                }
                None => open[k] = false,
            }
        }
        chosen
    }
}

/// Keeps the first `reach` of `side` in order, largest `−y G` first when `descending`, ties to
/// the lower index (a selection, then a sort of what is kept).
fn best_first(side: &mut Vec<(f64, usize)>, reach: usize, descending: bool) {
    let order = |a: &(f64, usize), b: &(f64, usize)| {
        let by_value = if descending {
            b.0.total_cmp(&a.0)
        } else {
            a.0.total_cmp(&b.0)
        };
        by_value.then(a.1.cmp(&b.1))
    };
    if side.len() > reach {
        side.select_nth_unstable_by(reach, order);
        side.truncate(reach);
    }
    side.sort_unstable_by(order);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smo::{max_violation, solve};
    use margin_core::split::rng_from_seed;
    use rand::Rng;

    /// An RBF problem on `n` random points in the plane, labelled by a noisy circle, as C-SVC
    /// poses it: `Q_ij = y_i y_j exp(−γ‖x_i − x_j‖²)`, `p = −1`, bounds `C`.
    fn rbf_problem(n: usize, c: f64, seed: u64) -> (Vec<Vec<f64>>, Problem) {
        let mut rng = rng_from_seed(seed);
        let x: Vec<[f64; 2]> = (0..n)
            .map(|_| [rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)])
            .collect();
        let y: Vec<i8> = x
            .iter()
            .map(|p| {
                let r = p[0] * p[0] + p[1] * p[1] + rng.random_range(-0.15..0.15);
                if r < 0.5 { 1 } else { -1 }
            })
            .collect();
        let q = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        let d = (x[i][0] - x[j][0]).powi(2) + (x[i][1] - x[j][1]).powi(2);
                        // Through f32, as the solvers store Q.
                        f64::from((f64::from(y[i] * y[j]) * (-2.0 * d).exp()) as f32)
                    })
                    .collect()
            })
            .collect();
        let problem = Problem {
            p: vec![-1.0; n],
            y,
            c: vec![c; n],
            alpha: vec![0.0; n],
        };
        (q, problem)
    }

    fn batched(q: &[Vec<f64>], problem: &Problem, tol: f64, working_set: usize) -> Solution {
        let mut dense = DenseQ::new(q.len(), |i, j| q[i][j]);
        let opts = BatchedOptions {
            tol,
            working_set,
            max_iter: None,
        };
        solve_batched(&mut dense, problem.clone(), &opts, &mut ()).unwrap()
    }

    fn smo(q: &[Vec<f64>], problem: &Problem, tol: f64) -> Solution {
        let mut dense = DenseQ::new(q.len(), |i, j| q[i][j]);
        let opts = SolverOptions {
            tol,
            ..SolverOptions::default()
        };
        solve(&mut dense, problem.clone(), &opts, &mut ()).unwrap()
    }

    #[test]
    fn reaches_smos_optimum_and_its_kkt_tolerance_for_every_working_set_size() {
        for (n, c, seed) in [(40, 1.0, 1), (150, 10.0, 2), (300, 0.5, 3)] {
            let (q, problem) = rbf_problem(n, c, seed);
            let qf = |i: usize, j: usize| q[i][j];
            let exact = smo(&q, &problem, 1e-9);
            for working_set in [2, 3, 8, 64, 1024] {
                for tol in [1e-3, 1e-9] {
                    let sol = batched(&q, &problem, tol, working_set);
                    assert_eq!(sol.stop, Stop::CONVERGED, "n {n} q {working_set} tol {tol}");
                    // Optimal to `tol` on every variable, checked from a gradient rebuilt here.
                    assert!(max_violation(&qf, &problem, &sol.alpha) < tol * 1.0001);
                    assert!(sol.violation < tol);
                    let dy: f64 = (0..n).map(|i| f64::from(problem.y[i]) * sol.alpha[i]).sum();
                    assert!(dy.abs() < 1e-9, "yᵀα moved to {dy}");
                    assert!(sol.alpha.iter().all(|&a| (0.0..=c).contains(&a)));
                    let rel = (sol.objective - exact.objective).abs() / exact.objective.abs();
                    let bound = if tol < 1e-6 { 1e-9 } else { 1e-3 };
                    assert!(rel < bound, "n {n} q {working_set} tol {tol}: rel {rel:e}");
                    if tol < 1e-6 {
                        assert!(
                            (sol.rho - exact.rho).abs() < 1e-5,
                            "ρ {} vs {}",
                            sol.rho,
                            exact.rho
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn at_libsvms_tolerance_the_objective_is_smos_to_a_millionth() {
        let (q, problem) = rbf_problem(400, 1.0, 7);
        let (a, b) = (smo(&q, &problem, 1e-3), batched(&q, &problem, 1e-3, 64));
        let rel = (a.objective - b.objective).abs() / a.objective.abs();
        assert!(
            rel < 1e-6,
            "rel {rel:e}: {} vs {}",
            a.objective,
            b.objective
        );
    }

    #[test]
    fn a_warm_start_is_taken_from_where_it_stands() {
        let (q, mut problem) = rbf_problem(120, 1.0, 4);
        let cold = batched(&q, &problem, 1e-9, 16);
        // A feasible start: one +1 and one −1 variable at 0.5 keeps yᵀα = 0.
        let pos = problem.y.iter().position(|&v| v == 1).unwrap();
        let neg = problem.y.iter().position(|&v| v == -1).unwrap();
        problem.alpha[pos] = 0.5;
        problem.alpha[neg] = 0.5;
        let warm = batched(&q, &problem, 1e-9, 16);
        let rel = (warm.objective - cold.objective).abs() / cold.objective.abs();
        assert!(rel < 1e-9, "rel {rel:e}");
        // From the optimum itself, nothing is left to do.
        problem.alpha = cold.alpha.clone();
        let done = batched(&q, &problem, 1e-6, 16);
        assert_eq!(done.iterations, 0);
    }

    #[test]
    fn the_answer_is_the_same_bits_on_one_thread_and_two() {
        let (q, problem) = rbf_problem(500, 1.0, 5);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| batched(&q, &problem, 1e-3, 32))
        };
        assert_eq!(run(1), run(2));
    }

    /// [`rbf_problem`] as ν-SVC poses it: `p = 0`, bounds 1, and LIBSVM's feasible start,
    /// `ν·l/2` of weight on each label.
    fn nu_problem(n: usize, nu: f64, seed: u64) -> (Vec<Vec<f64>>, Problem) {
        let (q, mut problem) = rbf_problem(n, 1.0, seed);
        let (mut left_pos, mut left_neg) = (nu * n as f64 / 2.0, nu * n as f64 / 2.0);
        problem.p = vec![0.0; n];
        problem.alpha = problem
            .y
            .iter()
            .map(|&y| {
                let left = if y == 1 { &mut left_pos } else { &mut left_neg };
                let a = left.min(1.0);
                *left -= a;
                a
            })
            .collect();
        (q, problem)
    }

    #[test]
    fn the_nu_dual_reaches_smos_optimum_and_keeps_each_labels_sum() {
        let label_sums = |p: &Problem, alpha: &[f64]| {
            let sum = |label| {
                (0..alpha.len())
                    .filter(|&i| p.y[i] == label)
                    .map(|i| alpha[i])
                    .sum::<f64>()
            };
            (sum(1), sum(-1))
        };
        for (n, nu, seed) in [(60, 0.3, 11), (200, 0.5, 12)] {
            let (q, problem) = nu_problem(n, nu, seed);
            let mut dense = DenseQ::new(n, |i, j| q[i][j]);
            let tight = SolverOptions {
                tol: 1e-9,
                ..SolverOptions::default()
            };
            let exact = smo::solve_nu(&mut dense, problem.clone(), &tight, &mut ()).unwrap();
            for working_set in [2, 3, 4, 8, 64, 1024] {
                let opts = BatchedOptions {
                    tol: 1e-9,
                    working_set,
                    max_iter: None,
                };
                let mut dense = DenseQ::new(n, |i, j| q[i][j]);
                let sol = solve_batched_nu(&mut dense, problem.clone(), &opts, &mut ()).unwrap();
                let what = format!("n {n} q {working_set}");
                assert_eq!(sol.stop, Stop::CONVERGED, "{what}");
                let (before, after) = (
                    label_sums(&problem, &problem.alpha),
                    label_sums(&problem, &sol.alpha),
                );
                assert!(
                    (before.0 - after.0).abs() < 1e-9 && (before.1 - after.1).abs() < 1e-9,
                    "{what}"
                );
                let rel = (sol.objective - exact.objective).abs() / exact.objective.abs();
                assert!(rel < 1e-8, "{what}: rel {rel:e}");
                assert!(
                    (sol.r - exact.r).abs() < 1e-5,
                    "{what}: r {} vs {}",
                    sol.r,
                    exact.r
                );
                assert!(
                    (sol.rho - exact.rho).abs() < 1e-5,
                    "{what}: ρ {} vs {}",
                    sol.rho,
                    exact.rho
                );
            }
        }
    }

    #[test]
    fn problems_of_one_to_three_variables_end_where_smo_does() {
        for n in 1..=3 {
            for seed in 0..6 {
                let (q, problem) = rbf_problem(n, 1.0, seed);
                let (a, b) = (smo(&q, &problem, 1e-9), batched(&q, &problem, 1e-9, 2));
                assert!(
                    (a.objective - b.objective).abs() < 1e-9,
                    "n {n} seed {seed}"
                );
            }
        }
    }

    /// `solve_batched` on `q` with `working_set` and default settings otherwise.
    fn solve_on(
        q: &[Vec<f64>],
        problem: Problem,
        working_set: usize,
        observer: &mut dyn Observer,
    ) -> Result<Solution> {
        let mut dense = DenseQ::new(q.len(), |i, j| q[i][j]);
        let opts = BatchedOptions {
            working_set,
            ..BatchedOptions::default()
        };
        solve_batched(&mut dense, problem, &opts, observer)
    }

    #[test]
    fn refuses_a_working_set_below_two_and_a_bad_problem() {
        let (q, problem) = rbf_problem(10, 1.0, 6);
        let err = solve_on(&q, problem.clone(), 1, &mut ()).unwrap_err();
        assert!(err.to_string().contains("working_set"), "{err}");
        let mut short = problem;
        short.y.pop();
        let err = solve_on(&q, short, 512, &mut ());
        assert!(matches!(err, Err(Error::ShapeMismatch { .. })));
    }

    #[test]
    fn reports_each_round_and_stops_when_asked() {
        let (q, problem) = rbf_problem(200, 1.0, 8);
        let mut stop = crate::StopAfter::new(3);
        let sol = solve_on(&q, problem, 8, &mut stop).unwrap();
        assert_eq!(sol.stop, Stop::Observer);
        assert!(sol.violation >= BatchedOptions::default().tol);
    }
}
