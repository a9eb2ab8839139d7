//! Sequential minimal optimization for the SVM dual, to LIBSVM's standard.
//!
//! The problem is LIBSVM's general form
//!
//! ```text
//! min_α  ½ αᵀ Q α + pᵀ α   subject to   yᵀ α = Δ,   0 ≤ α_i ≤ C_i,   y_i ∈ {+1, −1},
//! ```
//!
//! which C-SVC, ε-SVR and the one-class SVM all reduce to (the model crate builds `Q`, `p`, `y`
//! and the bounds). The algorithm is the one of Fan, Chen & Lin (JMLR 2005) as LIBSVM 3.x runs
//! it: each iteration picks `i` with the largest first-order violation and `j` maximizing the
//! second-order decrease (with `τ = 1e-12` when the pair's curvature is not positive), solves the
//! two-variable subproblem in closed form, and updates the gradient from two columns of `Q`.
//! Every `min(l, 1000)` iterations bounded variables that cannot move are *shrunk* out of the
//! active set (kept as a prefix by swapping positions); the gradient of shrunk variables is
//! rebuilt from `Ḡ_i = Σ_{α_j = C_j} C_j Q_ij` when needed, and optimality is always checked on all
//! variables before stopping. The stopping rule is `m(α) − M(α) < tol`.
//!
//! [`solve_nu`] is the ν variant (two equality constraints, one per label), as LIBSVM's
//! `Solver_NU`.

// The solver walks several per-variable arrays in lockstep (G, α, status, y, a column of Q);
// index loops say that more plainly than four-way zips.
#![allow(clippy::needless_range_loop)]

use margin_core::{Error, Result};

use crate::{Control, Progress, Run, Stop};
use serde::{Deserialize, Serialize};

/// LIBSVM's progress marks, reported to the [`Observer`]'s `mark` where svm-train prints
/// them (at most once per `min(l, 1000)` iterations and at each gradient rebuild).
pub use crate::Mark;
pub use crate::Observer;

/// Curvature used for a pair whose `K_ii + K_jj − 2K_ij` is not positive (LIBSVM's τ).
const TAU: f64 = 1e-12;

/// Columns of the dual's `Q` matrix, in an order the solver may permute.
///
/// Implementations hold the kernel cache; the solver asks for column prefixes over its active
/// set and swaps positions when it shrinks.
pub trait QMatrix {
    /// Number of variables `l`.
    fn len(&self) -> usize;
    /// Whether there are no variables.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `Q_ii` at position `i`.
    fn diagonal(&self, i: usize) -> f64;
    /// Column `i` over positions `0..len`.
    fn column(&mut self, i: usize, len: usize) -> &[f32];
    /// Columns `i` and `j` (distinct) over positions `0..len`, both at once.
    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]);
    /// Swaps positions `i` and `j`.
    fn swap_index(&mut self, i: usize, j: usize);
}

/// A dense `Q` held in memory, for small problems and tests.
pub struct DenseQ {
    n: usize,
    /// Column-major `n × n`, in the current order.
    data: Vec<f32>,
    diag: Vec<f64>,
}

impl DenseQ {
    /// `Q_ij = q(i, j)` for `i, j < n`.
    pub fn new(n: usize, q: impl Fn(usize, usize) -> f64) -> Self {
        let mut data = Vec::with_capacity(n * n);
        for j in 0..n {
            data.extend((0..n).map(|i| q(i, j) as f32));
        }
        Self {
            n,
            data,
            diag: (0..n).map(|i| q(i, i)).collect(),
        }
    }
}

impl QMatrix for DenseQ {
    fn len(&self) -> usize {
        self.n
    }
    fn diagonal(&self, i: usize) -> f64 {
        self.diag[i]
    }
    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        &self.data[i * self.n..i * self.n + len]
    }
    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        (
            &self.data[i * self.n..i * self.n + len],
            &self.data[j * self.n..j * self.n + len],
        )
    }
    fn swap_index(&mut self, i: usize, j: usize) {
        let n = self.n;
        for c in 0..n {
            self.data.swap(c * n + i, c * n + j);
        }
        for r in 0..n {
            self.data.swap(i * n + r, j * n + r);
        }
        self.diag.swap(i, j);
    }
}

/// The data of one dual problem, in the caller's order.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Linear term `p`.
    pub p: Vec<f64>,
    /// Labels `y_i ∈ {+1, −1}`.
    pub y: Vec<i8>,
    /// Upper bounds `C_i > 0`.
    pub c: Vec<f64>,
    /// A feasible starting point (`0 ≤ α_i ≤ C_i`; its `yᵀα` fixes `Δ`).
    pub alpha: Vec<f64>,
}

/// Solver settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolverOptions {
    /// Stop when the maximal violation `m(α) − M(α)` is below this (LIBSVM's `-e`, default 1e-3).
    pub tol: f64,
    /// Shrink the active set (LIBSVM's `-h`, default true).
    pub shrinking: bool,
    /// Iteration limit; `None` is LIBSVM's `max(10⁷, 100·l)`.
    pub max_iter: Option<usize>,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            tol: 1e-3,
            shrinking: true,
            max_iter: None,
        }
    }
}

/// The solution and how it was reached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    /// `α`, in the caller's order.
    pub alpha: Vec<f64>,
    /// The offset: the decision value is `Σ α_i y_i K(x_i, x) − ρ`.
    pub rho: f64,
    /// The dual objective `½αᵀQα + pᵀα`.
    pub objective: f64,
    /// Iterations performed.
    pub iterations: usize,
    /// Why the solver stopped.
    pub stop: Stop,
    /// The maximal KKT violation `m(α) − M(α)` at the last working-set selection (for ν, the
    /// larger of the two labels').
    pub violation: f64,
    /// For [`solve_nu`]: LIBSVM's `r` (the margin scale that C-SVC and ε-SVR coefficients are
    /// divided by). 0 for [`solve`].
    pub r: f64,
}

impl Solution {
    /// The run as a fit report records it.
    pub fn run(&self) -> Run {
        Run::new(self.iterations, self.stop)
            .with_objective(self.objective)
            .with_violation(self.violation)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Lower,
    Upper,
    Free,
}

/// The solver's state, with every per-variable array in the current (permuted) order.
struct State<'q, Q: QMatrix> {
    q: &'q mut Q,
    observer: &'q mut dyn Observer,
    l: usize,
    active: usize,
    y: Vec<i8>,
    g: Vec<f64>,
    g_bar: Vec<f64>,
    alpha: Vec<f64>,
    status: Vec<Bound>,
    p: Vec<f64>,
    c: Vec<f64>,
    qd: Vec<f64>,
    /// Position → caller's index.
    order: Vec<usize>,
    unshrink: bool,
    tol: f64,
    nu: bool,
    /// The maximal violation the last working-set selection saw.
    violation: f64,
}

/// The checks every solver of this dual makes, for a problem of `l` variables.
pub(crate) fn check_problem(l: usize, pr: &Problem, tol: f64) -> Result<()> {
    for (name, len) in [
        ("p", pr.p.len()),
        ("y", pr.y.len()),
        ("c", pr.c.len()),
        ("alpha", pr.alpha.len()),
    ] {
        if len != l {
            return Err(Error::shape(
                format!("SMO problem: length of {name} (one per variable of Q)"),
                l,
                len,
            ));
        }
    }
    if !(tol.is_finite() && tol > 0.0) {
        return Err(Error::invalid_parameter("tol", tol, "a finite number > 0"));
    }
    for i in 0..l {
        if pr.y[i] != 1 && pr.y[i] != -1 {
            return Err(Error::invalid_parameter(
                "y",
                format!("{} at {i}", pr.y[i]),
                "+1 or -1",
            ));
        }
        if pr.c[i].is_nan() || pr.c[i] <= 0.0 {
            return Err(Error::invalid_parameter(
                "C",
                format!("{} at {i}", pr.c[i]),
                "a number > 0 (infinity allowed for a hard margin)",
            ));
        }
        if !(0.0..=pr.c[i]).contains(&pr.alpha[i]) {
            return Err(Error::invalid_parameter(
                "alpha",
                format!("{} at {i}", pr.alpha[i]),
                "a feasible start, 0 ≤ α_i ≤ C_i",
            ));
        }
        if !pr.p[i].is_finite() {
            return Err(Error::NonFinite { row: i, col: 0 });
        }
    }
    Ok(())
}

impl<'q, Q: QMatrix> State<'q, Q> {
    fn new(q: &'q mut Q, observer: &'q mut dyn Observer, pr: Problem, tol: f64, nu: bool) -> Self {
        let l = q.len();
        let qd = (0..l).map(|i| q.diagonal(i)).collect();
        let status = (0..l).map(|i| bound_of(pr.alpha[i], pr.c[i])).collect();
        let mut s = State {
            q,
            observer,
            l,
            active: l,
            y: pr.y,
            g: pr.p.clone(),
            g_bar: vec![0.0; l],
            alpha: pr.alpha,
            status,
            p: pr.p,
            c: pr.c,
            qd,
            order: (0..l).collect(),
            unshrink: false,
            tol,
            nu,
            violation: f64::INFINITY,
        };
        // Initial gradient G = p + Qα and Ḡ = Σ_{α_i = C_i} C_i Q_i.
        for i in 0..l {
            if s.status[i] != Bound::Lower {
                let (a, ci, upper) = (s.alpha[i], s.c[i], s.status[i] == Bound::Upper);
                let col = s.q.column(i, l);
                for j in 0..l {
                    s.g[j] += a * f64::from(col[j]);
                }
                if upper {
                    for j in 0..l {
                        s.g_bar[j] += ci * f64::from(col[j]);
                    }
                }
            }
        }
        s
    }

    fn is_upper(&self, i: usize) -> bool {
        self.status[i] == Bound::Upper
    }
    fn is_lower(&self, i: usize) -> bool {
        self.status[i] == Bound::Lower
    }
    fn is_free(&self, i: usize) -> bool {
        self.status[i] == Bound::Free
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.q.swap_index(i, j);
        self.y.swap(i, j);
        self.g.swap(i, j);
        self.g_bar.swap(i, j);
        self.alpha.swap(i, j);
        self.status.swap(i, j);
        self.p.swap(i, j);
        self.c.swap(i, j);
        self.qd.swap(i, j);
        self.order.swap(i, j);
    }

    fn reconstruct_gradient(&mut self) {
        let (l, active) = (self.l, self.active);
        if active == l {
            return;
        }
        for j in active..l {
            self.g[j] = self.g_bar[j] + self.p[j];
        }
        let n_free = (0..active).filter(|&j| self.is_free(j)).count();
        if 2 * n_free < active {
            self.observer.mark(Mark::ShrinkingHint);
        }
        // Read whichever set of columns is smaller: inactive columns over the active prefix, or
        // free active columns over the inactive suffix.
        if n_free * l > 2 * active * (l - active) {
            for i in active..l {
                let col = self.q.column(i, active);
                // Added into G_i term by term, as LIBSVM does (a separate partial sum rounds
                // differently once G_i is large).
                let mut gi = self.g[i];
                for j in 0..active {
                    if self.status[j] == Bound::Free {
                        gi += self.alpha[j] * f64::from(col[j]);
                    }
                }
                self.g[i] = gi;
            }
        } else {
            for i in 0..active {
                if self.status[i] == Bound::Free {
                    let a = self.alpha[i];
                    let col = self.q.column(i, l);
                    for j in active..l {
                        self.g[j] += a * f64::from(col[j]);
                    }
                }
            }
        }
    }

    /// Solves the two-variable subproblem for `(i, j)` and updates α, the bounds, G and Ḡ.
    fn update_pair(&mut self, i: usize, j: usize) {
        let active = self.active;
        let (ci, cj) = (self.c[i], self.c[j]);
        let (old_i, old_j) = (self.alpha[i], self.alpha[j]);
        let (qii, qjj) = (self.qd[i], self.qd[j]);
        let qij = f64::from(self.q.column(i, active)[j]);
        let (mut ai, mut aj) = (old_i, old_j);
        if self.y[i] != self.y[j] {
            let quad = positive_or_tau(qii + qjj + 2.0 * qij);
            let delta = (-self.g[i] - self.g[j]) / quad;
            let diff = ai - aj;
            ai += delta;
            aj += delta;
            if diff > 0.0 {
                if aj < 0.0 {
                    aj = 0.0;
                    ai = diff;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = -diff;
            }
            if diff > ci - cj {
                if ai > ci {
                    ai = ci;
                    aj = ci - diff;
                }
            } else if aj > cj {
                aj = cj;
                ai = cj + diff;
            }
        } else {
            let quad = positive_or_tau(qii + qjj - 2.0 * qij);
            let delta = (self.g[i] - self.g[j]) / quad;
            let sum = ai + aj;
            ai -= delta;
            aj += delta;
            if sum > ci {
                if ai > ci {
                    ai = ci;
                    aj = sum - ci;
                }
            } else if aj < 0.0 {
                aj = 0.0;
                ai = sum;
            }
            if sum > cj {
                if aj > cj {
                    aj = cj;
                    ai = sum - cj;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = sum;
            }
        }
        self.alpha[i] = ai;
        self.alpha[j] = aj;
        let (di, dj) = (ai - old_i, aj - old_j);
        {
            let (col_i, col_j) = self.q.column_pair(i, j, active);
            for k in 0..active {
                self.g[k] += f64::from(col_i[k]) * di + f64::from(col_j[k]) * dj;
            }
        }
        for (k, ck) in [(i, ci), (j, cj)] {
            let was_upper = self.is_upper(k);
            self.status[k] = bound_of(self.alpha[k], ck);
            if was_upper != self.is_upper(k) {
                let l = self.l;
                let sign = if was_upper { -ck } else { ck };
                let col = self.q.column(k, l);
                for t in 0..l {
                    self.g_bar[t] += sign * f64::from(col[t]);
                }
            }
        }
    }

    /// LIBSVM's second-order working-set selection; `None` when optimal to `tol`.
    fn select_working_set(&mut self) -> Option<(usize, usize)> {
        if self.nu {
            return self.select_working_set_nu();
        }
        let active = self.active;
        let (mut gmax, mut gmax_idx) = (f64::NEG_INFINITY, None);
        for t in 0..active {
            if self.y[t] == 1 {
                if !self.is_upper(t) && -self.g[t] >= gmax {
                    gmax = -self.g[t];
                    gmax_idx = Some(t);
                }
            } else if !self.is_lower(t) && self.g[t] >= gmax {
                gmax = self.g[t];
                gmax_idx = Some(t);
            }
        }
        let mut gmax2 = f64::NEG_INFINITY;
        let (mut best_j, mut best_obj) = (None, f64::INFINITY);
        if let Some(i) = gmax_idx {
            let yi = f64::from(self.y[i]);
            let qii = self.qd[i];
            let col = self.q.column(i, active);
            for j in 0..active {
                let (yj, gj) = (self.y[j], self.g[j]);
                let (eligible, grad_diff, quad) = if yj == 1 {
                    if self.status[j] == Bound::Lower {
                        continue;
                    }
                    gmax2 = gmax2.max(gj);
                    (
                        true,
                        gmax + gj,
                        qii + self.qd[j] - 2.0 * yi * f64::from(col[j]),
                    )
                } else {
                    if self.status[j] == Bound::Upper {
                        continue;
                    }
                    gmax2 = gmax2.max(-gj);
                    (
                        true,
                        gmax - gj,
                        qii + self.qd[j] + 2.0 * yi * f64::from(col[j]),
                    )
                };
                if eligible && grad_diff > 0.0 {
                    let obj = -(grad_diff * grad_diff) / positive_or_tau(quad);
                    if obj <= best_obj {
                        best_obj = obj;
                        best_j = Some(j);
                    }
                }
            }
        } else {
            for j in 0..active {
                if self.y[j] == 1 {
                    if !self.is_lower(j) {
                        gmax2 = gmax2.max(self.g[j]);
                    }
                } else if !self.is_upper(j) {
                    gmax2 = gmax2.max(-self.g[j]);
                }
            }
        }
        self.violation = gmax + gmax2;
        if self.violation < self.tol {
            return None;
        }
        Some((gmax_idx?, best_j?))
    }

    /// The ν variant: `i` and `j` are chosen among variables of one label.
    fn select_working_set_nu(&mut self) -> Option<(usize, usize)> {
        let active = self.active;
        let (mut gmaxp, mut gmaxp_idx) = (f64::NEG_INFINITY, None);
        let (mut gmaxn, mut gmaxn_idx) = (f64::NEG_INFINITY, None);
        for t in 0..active {
            if self.y[t] == 1 {
                if !self.is_upper(t) && -self.g[t] >= gmaxp {
                    gmaxp = -self.g[t];
                    gmaxp_idx = Some(t);
                }
            } else if !self.is_lower(t) && self.g[t] >= gmaxn {
                gmaxn = self.g[t];
                gmaxn_idx = Some(t);
            }
        }
        let (mut gmaxp2, mut gmaxn2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        let (mut best_j, mut best_obj) = (None, f64::INFINITY);
        // Both anchors' columns are read in one pass: borrowed from the cache together (it holds
        // two columns at once), never copied out.
        let (col_p, col_n) = match (gmaxp_idx, gmaxn_idx) {
            (Some(ip), Some(in_)) => {
                let (p, n) = self.q.column_pair(ip, in_, active);
                (Some(p), Some(n))
            }
            (Some(ip), None) => (Some(self.q.column(ip, active)), None),
            (None, Some(in_)) => (None, Some(self.q.column(in_, active))),
            (None, None) => (None, None),
        };
        for j in 0..active {
            let gj = self.g[j];
            let (anchor, col, grad_diff) = if self.y[j] == 1 {
                if self.status[j] == Bound::Lower {
                    continue;
                }
                gmaxp2 = gmaxp2.max(gj);
                (gmaxp_idx, col_p, gmaxp + gj)
            } else {
                if self.status[j] == Bound::Upper {
                    continue;
                }
                gmaxn2 = gmaxn2.max(-gj);
                (gmaxn_idx, col_n, gmaxn - gj)
            };
            if let (Some(a), Some(col)) = (anchor, col)
                && grad_diff > 0.0
            {
                let quad = self.qd[a] + self.qd[j] - 2.0 * f64::from(col[j]);
                let obj = -(grad_diff * grad_diff) / positive_or_tau(quad);
                if obj <= best_obj {
                    best_obj = obj;
                    best_j = Some(j);
                }
            }
        }
        self.violation = (gmaxp + gmaxp2).max(gmaxn + gmaxn2);
        if self.violation < self.tol {
            return None;
        }
        let j = best_j?;
        let i = if self.y[j] == 1 {
            gmaxp_idx?
        } else {
            gmaxn_idx?
        };
        Some((i, j))
    }

    fn be_shrunk(&self, i: usize, gmax1: f64, gmax2: f64) -> bool {
        match (self.status[i], self.y[i] == 1) {
            (Bound::Upper, true) => -self.g[i] > gmax1,
            (Bound::Upper, false) => -self.g[i] > gmax2,
            (Bound::Lower, true) => self.g[i] > gmax2,
            (Bound::Lower, false) => self.g[i] > gmax1,
            (Bound::Free, _) => false,
        }
    }

    fn be_shrunk_nu(&self, i: usize, gmax: [f64; 4]) -> bool {
        let [gmax1, gmax2, gmax3, gmax4] = gmax;
        match (self.status[i], self.y[i] == 1) {
            (Bound::Upper, true) => -self.g[i] > gmax1,
            (Bound::Upper, false) => -self.g[i] > gmax4,
            (Bound::Lower, true) => self.g[i] > gmax2,
            (Bound::Lower, false) => self.g[i] > gmax3,
            (Bound::Free, _) => false,
        }
    }

    fn shrink(&mut self) {
        if self.nu {
            return self.shrink_nu();
        }
        let (mut gmax1, mut gmax2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for i in 0..self.active {
            let g = self.g[i];
            if self.y[i] == 1 {
                if !self.is_upper(i) {
                    gmax1 = gmax1.max(-g);
                }
                if !self.is_lower(i) {
                    gmax2 = gmax2.max(g);
                }
            } else {
                if !self.is_upper(i) {
                    gmax2 = gmax2.max(-g);
                }
                if !self.is_lower(i) {
                    gmax1 = gmax1.max(g);
                }
            }
        }
        if !self.unshrink && gmax1 + gmax2 <= self.tol * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient();
            self.active = self.l;
            self.observer.mark(Mark::Unshrunk);
        }
        self.compact(|s, i| s.be_shrunk(i, gmax1, gmax2));
    }

    fn shrink_nu(&mut self) {
        let mut gm = [f64::NEG_INFINITY; 4];
        for i in 0..self.active {
            let g = self.g[i];
            if !self.is_upper(i) {
                if self.y[i] == 1 {
                    gm[0] = gm[0].max(-g);
                } else {
                    gm[3] = gm[3].max(-g);
                }
            }
            if !self.is_lower(i) {
                if self.y[i] == 1 {
                    gm[1] = gm[1].max(g);
                } else {
                    gm[2] = gm[2].max(g);
                }
            }
        }
        if !self.unshrink && (gm[0] + gm[1]).max(gm[2] + gm[3]) <= self.tol * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient();
            self.active = self.l;
            // LIBSVM's ν solver prints no `*` here, unlike the other one.
        }
        self.compact(|s, i| s.be_shrunk_nu(i, gm));
    }

    /// Moves every variable that `shrunk` marks behind the active prefix.
    fn compact(&mut self, shrunk: impl Fn(&Self, usize) -> bool) {
        let mut i = 0;
        while i < self.active {
            if shrunk(self, i) {
                self.active -= 1;
                while self.active > i {
                    if !shrunk(self, self.active) {
                        self.swap(i, self.active);
                        break;
                    }
                    self.active -= 1;
                }
            }
            i += 1;
        }
    }

    fn rho(&self) -> f64 {
        rho_of((0..self.active).map(|i| (self.y[i], self.g[i], self.status[i])))
    }

    fn rho_nu(&self) -> (f64, f64) {
        rho_nu_of((0..self.active).map(|i| (self.y[i], self.g[i], self.status[i])))
    }

    fn run(mut self, opts: &SolverOptions) -> Solution {
        let l = self.l;
        let max_iter = opts
            .max_iter
            .unwrap_or_else(|| 10_000_000usize.max(l.saturating_mul(100)));
        let mut counter = l.min(1000) + 1;
        let mut iter = 0;
        let mut stop = Stop::CONVERGED;
        let solver = if self.nu { "nu-smo" } else { "smo" };
        while iter < max_iter {
            counter -= 1;
            if counter == 0 {
                counter = l.min(1000);
                if opts.shrinking {
                    self.shrink();
                }
                self.observer.mark(Mark::Progress);
            }
            let pair = match self.select_working_set() {
                Some(p) => p,
                None => {
                    // Optimal on the active set: check again on every variable.
                    self.reconstruct_gradient();
                    self.active = l;
                    self.observer.mark(Mark::Unshrunk);
                    match self.select_working_set() {
                        Some(p) => {
                            counter = 1;
                            p
                        }
                        None => break,
                    }
                }
            };
            iter += 1;
            self.update_pair(pair.0, pair.1);
            let progress = Progress {
                violation: Some(self.violation),
                ..Progress::new(solver, iter)
            };
            if self.observer.observe(&progress) == Control::Stop {
                stop = Stop::Observer;
                break;
            }
        }
        if iter >= max_iter && stop == Stop::CONVERGED {
            stop = Stop::MaxIterations;
        }
        if stop != Stop::CONVERGED {
            // Stopped short of optimality: ρ and the objective need the whole gradient.
            if self.active < l {
                self.reconstruct_gradient();
                self.active = l;
                self.observer.mark(Mark::Unshrunk);
            }
        }
        let (rho, r) = if self.nu {
            self.rho_nu()
        } else {
            (self.rho(), 0.0)
        };
        let objective = (0..l)
            .map(|i| self.alpha[i] * (self.g[i] + self.p[i]))
            .sum::<f64>()
            / 2.0;
        let mut alpha = vec![0.0; l];
        for (pos, &orig) in self.order.iter().enumerate() {
            alpha[orig] = self.alpha[pos];
        }
        Solution {
            alpha,
            rho,
            objective,
            iterations: iter,
            stop,
            violation: self.violation,
            r,
        }
    }
}

/// LIBSVM's ρ for the single-constraint problem from each variable's `(y_i, G_i, bound)`: the
/// mean of `y_i G_i` over free variables, or with none free the midpoint of the interval the
/// bounded ones leave.
pub(crate) fn rho_of(vars: impl Iterator<Item = (i8, f64, Bound)>) -> f64 {
    let (mut ub, mut lb, mut sum_free, mut n_free) =
        (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
    for (y, g, status) in vars {
        let yg = f64::from(y) * g;
        match (status, y == 1) {
            (Bound::Upper, false) | (Bound::Lower, true) => ub = ub.min(yg),
            (Bound::Upper, true) | (Bound::Lower, false) => lb = lb.max(yg),
            (Bound::Free, _) => {
                n_free += 1;
                sum_free += yg;
            }
        }
    }
    if n_free > 0 {
        sum_free / n_free as f64
    } else {
        (ub + lb) / 2.0
    }
}

/// The ν solver's ρ and r from each variable's `(y_i, G_i, bound)`: one offset per label (the
/// mean `G` of its free variables, or with none free the midpoint its bounded ones leave),
/// `ρ = (r₁ − r₂)/2`, `r = (r₁ + r₂)/2`.
pub(crate) fn rho_nu_of(vars: impl Iterator<Item = (i8, f64, Bound)>) -> (f64, f64) {
    let mut side = [(f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize); 2];
    for (y, g, status) in vars {
        let s = &mut side[usize::from(y != 1)];
        match status {
            Bound::Upper => s.1 = s.1.max(g),
            Bound::Lower => s.0 = s.0.min(g),
            Bound::Free => {
                s.2 += g;
                s.3 += 1;
            }
        }
    }
    let r = |(ub, lb, sum, n): (f64, f64, f64, usize)| {
        if n > 0 {
            sum / n as f64
        } else {
            (ub + lb) / 2.0
        }
    };
    let (r1, r2) = (r(side[0]), r(side[1]));
    ((r1 - r2) / 2.0, (r1 + r2) / 2.0)
}

fn positive_or_tau(quad: f64) -> f64 {
    if quad > 0.0 { quad } else { TAU }
}

pub(crate) fn bound_of(alpha: f64, c: f64) -> Bound {
    if alpha >= c {
        Bound::Upper
    } else if alpha <= 0.0 {
        Bound::Lower
    } else {
        Bound::Free
    }
}

/// Solves the dual with the single equality constraint `yᵀα = Δ` (C-SVC, ε-SVR, one-class),
/// reporting each iteration (with its violation) and LIBSVM's progress marks to `observer`
/// (`&mut ()` for none).
pub fn solve<Q: QMatrix>(
    q: &mut Q,
    problem: Problem,
    opts: &SolverOptions,
    observer: &mut dyn Observer,
) -> Result<Solution> {
    check_problem(q.len(), &problem, opts.tol)?;
    Ok(State::new(q, observer, problem, opts.tol, false).run(opts))
}

/// Solves the ν dual: the same problem with one equality constraint per label, as LIBSVM's
/// `Solver_NU` (ν-SVC, ν-SVR). [`Solution::r`] is set. Each
/// iteration and progress mark goes to `observer` as in [`solve`].
pub fn solve_nu<Q: QMatrix>(
    q: &mut Q,
    problem: Problem,
    opts: &SolverOptions,
    observer: &mut dyn Observer,
) -> Result<Solution> {
    check_problem(q.len(), &problem, opts.tol)?;
    Ok(State::new(q, observer, problem, opts.tol, true).run(opts))
}

/// The maximal KKT violation `m(α) − M(α)` of `alpha` for the single-constraint problem, from
/// the full gradient `G = Qα + p` (for tests and diagnostics).
pub fn max_violation(
    q_full: &dyn Fn(usize, usize) -> f64,
    problem: &Problem,
    alpha: &[f64],
) -> f64 {
    let l = alpha.len();
    let g: Vec<f64> = (0..l)
        .map(|i| problem.p[i] + (0..l).map(|j| q_full(i, j) * alpha[j]).sum::<f64>())
        .collect();
    let (mut m_up, mut m_low) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in 0..l {
        let yg = -f64::from(problem.y[t]) * g[t];
        let up = (problem.y[t] == 1 && alpha[t] < problem.c[t])
            || (problem.y[t] == -1 && alpha[t] > 0.0);
        let low = (problem.y[t] == -1 && alpha[t] < problem.c[t])
            || (problem.y[t] == 1 && alpha[t] > 0.0);
        if up {
            m_up = m_up.max(yg);
        }
        if low {
            m_low = m_low.min(yg);
        }
    }
    m_up - m_low
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear_q(x: &[[f64; 2]], y: &[i8]) -> impl Fn(usize, usize) -> f64 {
        let (x, y) = (x.to_vec(), y.to_vec());
        move |i, j| f64::from(y[i] * y[j]) * (x[i][0] * x[j][0] + x[i][1] * x[j][1])
    }

    #[test]
    fn hand_solved_hard_margin_in_the_plane() {
        // Points (0,0) −1, (2,0) +1, (2,2) +1 with a hard margin: the separating line is
        // x₁ = 1, so w = (1, 0), b = −1, margin 1/‖w‖ = 1; α = (½, ½, 0).
        let x = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0]];
        let y = [-1i8, 1, 1];
        let qf = linear_q(&x, &y);
        let mut q = DenseQ::new(3, &qf);
        let pr = Problem {
            p: vec![-1.0; 3],
            y: y.to_vec(),
            c: vec![f64::INFINITY; 3],
            alpha: vec![0.0; 3],
        };
        let sol = solve(
            &mut q,
            pr.clone(),
            &SolverOptions {
                tol: 1e-12,
                ..Default::default()
            },
            &mut (),
        )
        .unwrap();
        let w: Vec<f64> = (0..2)
            .map(|d| {
                (0..3)
                    .map(|i| sol.alpha[i] * f64::from(y[i]) * x[i][d])
                    .sum()
            })
            .collect();
        assert!((w[0] - 1.0).abs() < 1e-9 && w[1].abs() < 1e-9, "{w:?}");
        assert!((sol.rho - 1.0).abs() < 1e-9, "rho {}", sol.rho);
        assert!(
            (sol.alpha[0] - 0.5).abs() < 1e-9
                && (sol.alpha[1] - 0.5).abs() < 1e-9
                && sol.alpha[2].abs() < 1e-9
        );
        assert!((sol.objective + 0.5).abs() < 1e-9);
        assert_eq!(sol.stop, Stop::CONVERGED);
        assert!(max_violation(&qf, &pr, &sol.alpha) < 1e-9);
    }

    /// Records the marks and the iterations' violations of a run, and stops it after
    /// `stop_at` iterations when set.
    #[derive(Default)]
    struct Watch {
        marks: Vec<Mark>,
        violations: Vec<f64>,
        stop_at: Option<usize>,
    }

    impl Observer for Watch {
        fn observe(&mut self, p: &Progress<'_>) -> Control {
            assert_eq!(p.iteration, self.violations.len() + 1);
            assert!(p.solver.ends_with("smo") && p.objective.is_none());
            self.violations.extend(p.violation);
            if Some(p.iteration) == self.stop_at {
                Control::Stop
            } else {
                Control::Continue
            }
        }
        fn mark(&mut self, mark: Mark) {
            self.marks.push(mark);
        }
    }

    #[test]
    fn observed_runs_report_libsvm_s_marks_and_keep_their_numbers() {
        // 60 overlapping points: enough iterations for a progress mark every min(l, 1000).
        let x: Vec<[f64; 2]> = (0..60)
            .map(|i| {
                let t = f64::from(i);
                [(t * 0.37).sin() * 2.0, (t * 0.91).cos() * 2.0]
            })
            .collect();
        let y: Vec<i8> = (0..60)
            .map(|i| if (i * 7) % 5 < 2 { 1 } else { -1 })
            .collect();
        let pr = Problem {
            p: vec![-1.0; 60],
            y: y.clone(),
            c: vec![10.0; 60],
            alpha: vec![0.0; 60],
        };
        let opts = SolverOptions::default();
        for nu in [false, true] {
            let mut pr = pr.clone();
            if nu {
                // A feasible ν start: 0.2·l/2 of weight on each side, at most C per sample.
                let (mut pos, mut neg) = (6.0f64, 6.0f64);
                for (a, &yi) in pr.alpha.iter_mut().zip(&y) {
                    let left = if yi == 1 { &mut pos } else { &mut neg };
                    *a = left.min(10.0);
                    *left -= *a;
                }
                pr.p = vec![0.0; 60];
            }
            let run = |observer: &mut dyn Observer| {
                let mut q = DenseQ::new(60, linear_q(&x, &y));
                if nu {
                    solve_nu(&mut q, pr.clone(), &opts, observer).unwrap()
                } else {
                    solve(&mut q, pr.clone(), &opts, observer).unwrap()
                }
            };
            let mut watch = Watch::default();
            let watched = run(&mut watch);
            let marks = watch.marks;
            assert_eq!(watched, run(&mut ()), "nu: {nu}");
            // Every iteration is observed, with the violation that the run ended below tol.
            assert_eq!(watch.violations.len(), watched.iterations, "nu: {nu}");
            assert!(watched.violation < opts.tol, "nu: {nu}");
            // An observer that stops at iteration k: k iterations, the observer's stop, and a
            // solution whose ρ and objective come from the whole gradient.
            let k = watched.iterations / 2;
            let mut stopper = Watch {
                stop_at: Some(k),
                ..Watch::default()
            };
            let stopped = run(&mut stopper);
            assert_eq!(
                (stopped.iterations, stopped.stop),
                (k, Stop::Observer),
                "nu: {nu}"
            );
            assert_eq!(stopped.run().iterations, k);
            let limited = {
                let opts = SolverOptions {
                    max_iter: Some(k),
                    ..opts
                };
                let mut q = DenseQ::new(60, linear_q(&x, &y));
                if nu {
                    solve_nu(&mut q, pr.clone(), &opts, &mut ()).unwrap()
                } else {
                    solve(&mut q, pr.clone(), &opts, &mut ()).unwrap()
                }
            };
            assert_eq!(stopped.alpha, limited.alpha, "nu: {nu}");
            assert_eq!(stopped.rho, limited.rho, "nu: {nu}");
            let progress = marks.iter().filter(|&&m| m == Mark::Progress).count();
            // The first mark after l iterations, then one every l (LIBSVM's counter).
            assert_eq!(progress, watched.iterations / 60, "nu: {nu}, {marks:?}");
            // The run ends by checking optimality on every variable: a `*`.
            assert!(marks.contains(&Mark::Unshrunk), "nu: {nu}, {marks:?}");
        }
    }

    #[test]
    fn iteration_limit_is_reported_not_hidden() {
        let x = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]];
        let y = [-1i8, 1, 1, -1];
        let mut q = DenseQ::new(4, linear_q(&x, &y));
        let pr = Problem {
            p: vec![-1.0; 4],
            y: y.to_vec(),
            c: vec![1.0; 4],
            alpha: vec![0.0; 4],
        };
        let sol = solve(
            &mut q,
            pr,
            &SolverOptions {
                max_iter: Some(1),
                ..Default::default()
            },
            &mut (),
        )
        .unwrap();
        assert_eq!((sol.iterations, sol.stop), (1, Stop::MaxIterations));
    }

    #[test]
    fn malformed_problems_are_refused() {
        let mut q = DenseQ::new(2, |i, j| if i == j { 1.0 } else { 0.0 });
        let good = Problem {
            p: vec![-1.0; 2],
            y: vec![1, -1],
            c: vec![1.0; 2],
            alpha: vec![0.0; 2],
        };
        let bad_y = Problem {
            y: vec![1, 0],
            ..good.clone()
        };
        let bad_c = Problem {
            c: vec![1.0, 0.0],
            ..good.clone()
        };
        let bad_alpha = Problem {
            alpha: vec![2.0, 0.0],
            ..good.clone()
        };
        let short = Problem {
            p: vec![-1.0],
            ..good.clone()
        };
        for pr in [bad_y, bad_c, bad_alpha, short] {
            assert!(solve(&mut q, pr, &SolverOptions::default(), &mut ()).is_err());
        }
        let bad_tol = SolverOptions {
            tol: 0.0,
            ..Default::default()
        };
        assert!(solve(&mut q, good, &bad_tol, &mut ()).is_err());
    }
}
