//! Gaussian naive Bayes (scikit-learn's `GaussianNB`), for continuous features.

use margin_core::params::Params;
use margin_core::{
    Dataset, DenseMatrix, Error, Fit, FitStats, Label, Merge, PartialFit, Records, Result, memory,
    model_check, validate,
};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use super::classes::{
    batch_classes, check_for_classes, check_trained, declared_classes, fit_classes,
    present_classes, trainable, union_labels, valid_priors, weight,
};
use super::discrete::table;
use super::{JointLogLikelihood, rows_in_parallel};

/// Parameters of [`GaussianNB`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct GaussianNBParams {
    /// Given class priors, one per class in sorted label order, non-negative and summing to 1
    /// (default: none, the weighted class frequencies).
    #[param(
        help = "given class priors, one per class in sorted label order (none: fitted)",
        valid = ("finite priors ≥ 0 summing to 1", valid_priors),
        setter(strip_option)
    )]
    priors: Option<Vec<f64>>,
    /// Portion of the largest feature variance added to every variance (default 1e-9, ≥ 0),
    /// so that a feature constant within a class does not make its likelihood a spike.
    #[param(
        help = "portion of the largest feature variance added to every variance",
        default = 1e-9,
        valid = ("a finite number ≥ 0", crate::finite_non_negative)
    )]
    var_smoothing: f64,
}

impl GaussianNBParams {
    /// [`Params::check`], then one prior per class when priors are given.
    fn check_for(&self, n_classes: usize) -> Result<()> {
        check_for_classes(self, "priors", self.priors.as_deref(), n_classes)
    }
}

/// Everything GaussianNB learns from data: per-class weighted means and (unsmoothed)
/// variances, and the unweighted per-feature mean and squared deviations of every row seen,
/// whose largest variance scales the smoothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Moments {
    labels: Vec<Label>,
    class_count: Vec<f64>,
    theta: DenseMatrix,
    sigma: DenseMatrix,
    n_seen: usize,
    seen_mean: Vec<f64>,
    seen_m2: Vec<f64>,
}

/// Combines a part's weighted mean and variance (`n_new`, `mu_new`, `var_new`) into running
/// ones (`n`, `mu`, `var`), as in Chan, Golub & LeVeque (1979): the pooled sum of squared
/// deviations is the two parts' sums plus `n·n_new/(n + n_new) · (mu − mu_new)²`.
fn merge(n: f64, mu: &mut [f64], var: &mut [f64], n_new: f64, mu_new: &[f64], var_new: &[f64]) {
    if n == 0.0 {
        mu.copy_from_slice(mu_new);
        var.copy_from_slice(var_new);
        return;
    }
    let total = n + n_new;
    for j in 0..mu.len() {
        let ssd =
            n * var[j] + n_new * var_new[j] + (n_new * n / total) * (mu[j] - mu_new[j]).powi(2);
        mu[j] = (n_new * mu_new[j] + n * mu[j]) / total;
        var[j] = ssd / total;
    }
}

/// A `k × d` table of the moments, asked for first.
fn class_table(k: usize, d: usize) -> Result<DenseMatrix> {
    DenseMatrix::try_zeros(
        k,
        d,
        "GaussianNB's means or variances per class",
        memory::FEWER_FEATURES,
    )
}

/// A `d`-long vector of the moments, asked for first.
fn feature_vector(d: usize) -> Result<Vec<f64>> {
    memory::filled_vec(
        d,
        0.0,
        "GaussianNB's means or variances",
        memory::FEWER_FEATURES,
    )
}

/// A copy of `v`, asked for first.
fn copy_of(v: &[f64]) -> Result<Vec<f64>> {
    let mut out = feature_vector(0)?;
    memory::reserve(
        &mut out,
        v.len(),
        "GaussianNB's means or variances",
        memory::FEWER_FEATURES,
    )?;
    out.extend_from_slice(v);
    Ok(out)
}

impl Moments {
    fn new(labels: Vec<Label>, d: usize) -> Result<Self> {
        let k = labels.len();
        // Fitting holds up to seven k × d tables (the moments, the batch's, their merge, the
        // smoothed variances) and eight d-long vectors: asked for before the first, as reading
        // a batch costs n · d.
        memory::check(
            memory::bytes_of_grid::<f64>(k.saturating_mul(7).saturating_add(8), d),
            &format!("GaussianNB's means and variances ({k} classes × {d} features)"),
            memory::FEWER_FEATURES,
        )?;
        Ok(Self {
            labels,
            class_count: vec![0.0; k],
            theta: class_table(k, d)?,
            sigma: class_table(k, d)?,
            n_seen: 0,
            seen_mean: feature_vector(d)?,
            seen_m2: feature_vector(d)?,
        })
    }

    /// A copy whose memory is asked for first.
    fn try_clone(&self) -> Result<Self> {
        let (k, d) = (self.theta.nrows(), self.theta.ncols());
        Ok(Self {
            labels: self.labels.clone(),
            class_count: self.class_count.clone(),
            theta: DenseMatrix::from_row_major(copy_of(self.theta.as_slice())?, k, d)?,
            sigma: DenseMatrix::from_row_major(copy_of(self.sigma.as_slice())?, k, d)?,
            n_seen: self.n_seen,
            seen_mean: copy_of(&self.seen_mean)?,
            seen_m2: copy_of(&self.seen_m2)?,
        })
    }

    /// The moments after a validated batch; an error, and no change, if they overflow.
    fn absorb(&self, data: &Dataset, class_of: &[usize]) -> Result<Self> {
        let (k, d, n) = (self.labels.len(), self.theta.ncols(), data.n_samples());
        let mut x = feature_vector(d)?;
        // Two passes over the batch (means, then squared deviations from them) keep the
        // variance free of the cancellation of E[x²] − E[x]².
        let mut wsum = vec![0.0; k];
        let mut mean = class_table(k, d)?;
        let mut all_mean = feature_vector(d)?;
        for (i, &c) in class_of.iter().enumerate() {
            let w = weight(data, i);
            data.records.row(i).to_dense_into(&mut x);
            wsum[c] += w;
            for ((m, a), &v) in mean.row_mut(c).iter_mut().zip(&mut all_mean).zip(&x) {
                *m += w * v;
                *a += v;
            }
        }
        for (c, &w) in wsum.iter().enumerate() {
            if w > 0.0 {
                mean.row_mut(c).iter_mut().for_each(|m| *m /= w);
            }
        }
        all_mean.iter_mut().for_each(|a| *a /= n as f64);
        let mut var = class_table(k, d)?;
        let mut all_m2 = feature_vector(d)?;
        for (i, &c) in class_of.iter().enumerate() {
            let w = weight(data, i);
            data.records.row(i).to_dense_into(&mut x);
            let mu = mean.row(c);
            for (j, (s, &v)) in var.row_mut(c).iter_mut().zip(&x).enumerate() {
                *s += w * (v - mu[j]).powi(2);
                all_m2[j] += (v - all_mean[j]).powi(2);
            }
        }
        let mut next = self.try_clone()?;
        for (c, &w) in wsum.iter().enumerate() {
            // A class absent from the batch (or present with zero weight) is left as it was.
            if w > 0.0 {
                var.row_mut(c).iter_mut().for_each(|s| *s /= w);
                merge(
                    self.class_count[c],
                    next.theta.row_mut(c),
                    next.sigma.row_mut(c),
                    w,
                    mean.row(c),
                    var.row(c),
                );
                next.class_count[c] += w;
            }
        }
        let (na, nb) = (self.n_seen as f64, n as f64);
        for j in 0..d {
            let delta = all_mean[j] - self.seen_mean[j];
            next.seen_mean[j] += delta * nb / (na + nb);
            next.seen_m2[j] += all_m2[j] + delta * delta * na * nb / (na + nb);
        }
        next.n_seen += n;
        next.check_overflow()?;
        Ok(next)
    }

    /// The moments of this part and `other` together, over the union of their classes.
    fn merged(&self, other: &Moments) -> Result<Self> {
        let d = self.seen_mean.len();
        if other.seen_mean.len() != d {
            return Err(Error::shape(
                "features of the merged moments",
                d,
                other.seen_mean.len(),
            ));
        }
        let (labels, mine, theirs) = union_labels(&self.labels, &other.labels);
        let mut next = Moments::new(labels, d)?;
        for (part, at) in [(self, &mine), (other, &theirs)] {
            for (c, &to) in at.iter().enumerate() {
                let w = part.class_count[c];
                if w > 0.0 {
                    merge(
                        next.class_count[to],
                        next.theta.row_mut(to),
                        next.sigma.row_mut(to),
                        w,
                        part.theta.row(c),
                        part.sigma.row(c),
                    );
                    next.class_count[to] += w;
                }
            }
        }
        let (na, nb) = (self.n_seen as f64, other.n_seen as f64);
        for j in 0..d {
            let delta = other.seen_mean[j] - self.seen_mean[j];
            next.seen_mean[j] = self.seen_mean[j] + delta * nb / (na + nb);
            next.seen_m2[j] =
                self.seen_m2[j] + other.seen_m2[j] + delta * delta * na * nb / (na + nb);
        }
        next.n_seen = self.n_seen + other.n_seen;
        next.check_overflow()?;
        Ok(next)
    }

    /// Refuses moments that overflowed, naming the feature.
    fn check_overflow(&self) -> Result<()> {
        let d = self.seen_mean.len().max(1);
        let overflow = |s: &[f64]| s.iter().position(|v| !v.is_finite()).map(|p| p % d);
        if let Some(j) = overflow(&self.seen_mean)
            .or(overflow(&self.seen_m2))
            .or(overflow(self.theta.as_slice()))
            .or(overflow(self.sigma.as_slice()))
        {
            return Err(Error::OutOfRange {
                what: "the features".into(),
                reason: format!(
                    "the mean or variance of feature {j} overflows f64: scale the features (their squares must stay below 1e308)"
                ),
            });
        }
        Ok(())
    }

    /// Checks moments decoded from a model file.
    fn check(&self) -> Result<()> {
        self.check_with(2)
    }

    /// [`Moments::check`] for moments of at least `min_classes` classes (statistics of one part
    /// may have seen one).
    fn check_with(&self, min_classes: usize) -> Result<()> {
        model_check::labels_at_least("labels", &self.labels, min_classes)?;
        let (k, d) = (self.labels.len(), self.seen_mean.len());
        let shaped =
            |m: &DenseMatrix| m.nrows() == k && m.ncols() == d && m.as_slice().len() == k * d;
        let finite = |v: &f64| v.is_finite();
        let non_negative = |v: &f64| v.is_finite() && *v >= 0.0;
        let ok = k >= min_classes
            && self.class_count.len() == k
            && self.seen_m2.len() == d
            && shaped(&self.theta)
            && shaped(&self.sigma)
            && self.class_count.iter().all(non_negative)
            && self.theta.as_slice().iter().all(finite)
            && self.sigma.as_slice().iter().all(non_negative)
            && self.seen_mean.iter().all(finite)
            && self.seen_m2.iter().all(non_negative);
        if ok {
            Ok(())
        } else {
            Err(Error::model_file(
                "the GaussianNB moments are inconsistent (shapes, or non-finite or negative values)",
            ))
        }
    }
}

/// A fitted Gaussian naive Bayes classifier: feature `j` of a class-`c` sample is normal with
/// mean `θ_cj` and variance `σ²_cj + ε`, where `ε = var_smoothing × max_j Var(x_j)` over
/// every row seen; a sample scores `ln P(c) − ½ Σ_j [ln(2π σ²_cj) + (x_j − θ_cj)² / σ²_cj]`.
///
/// Streaming differs from scikit-learn's `partial_fit` in one respect: ε is recomputed from
/// every row seen so far, where scikit-learn takes the variance of the latest batch only, so
/// here streaming gives the model `fit` gives (a single `fit` is the same in both).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "GaussianFile")]
pub struct GaussianNB {
    params: GaussianNBParams,
    moments: Moments,
    epsilon: f64,
    var: DenseMatrix,
    class_prior: Vec<f64>,
    /// Per class, `ln P(c)`.
    class_log_prior: Vec<f64>,
    /// Per class, `−½ Σ_j ln(2π σ²_cj)`.
    log_norm: Vec<f64>,
}

/// The stored form: parameters and moments; the rest is recomputed (and so validated) on load.
#[derive(Serialize, Deserialize)]
struct GaussianFile {
    params: GaussianNBParams,
    moments: Moments,
}

impl TryFrom<GaussianFile> for GaussianNB {
    type Error = Error;

    fn try_from(f: GaussianFile) -> Result<Self> {
        f.moments.check()?;
        f.params
            .check_for(f.moments.labels.len())
            .map_err(|e| Error::model_file(format!("stored parameters are invalid: {e}")))?;
        Self::from_moments(f.params, f.moments)
    }
}

super::serialize_stored!(GaussianNB, "GaussianFile", GaussianNBParams, moments: Moments);

impl GaussianNB {
    /// The hyperparameters the model was fitted with (see [`GaussianNBParams`]; checked as `fit` checks
    /// them when a file is loaded).
    pub fn hyperparams(&self) -> &GaussianNBParams {
        &self.params
    }
    /// Default parameters.
    pub fn params() -> GaussianNBParams {
        GaussianNBParams::default()
    }

    /// A model that has seen no sample yet, for [`PartialFit`]: `classes` lists every class
    /// the stream may contain (at least two; sorted here, as `fit` sorts them), and every
    /// batch must have `n_features` columns.
    pub fn empty(params: GaussianNBParams, classes: &[Label], n_features: usize) -> Result<Self> {
        let labels = declared_classes(classes)?;
        params.check_for(labels.len())?;
        Self::from_moments(params, Moments::new(labels, n_features)?)
    }

    fn from_moments(params: GaussianNBParams, moments: Moments) -> Result<Self> {
        let mut model = Self {
            params,
            moments,
            epsilon: 0.0,
            var: DenseMatrix::zeros(0, 0),
            class_prior: Vec::new(),
            class_log_prior: Vec::new(),
            log_norm: Vec::new(),
        };
        model.refresh()?;
        Ok(model)
    }

    /// Derives the smoothed variances and the per-class constants from the moments. Only the
    /// first call asks for memory (the `k × d` variances, then reused).
    fn refresh(&mut self) -> Result<()> {
        let m = &self.moments;
        let k = m.labels.len();
        let largest = if m.n_seen == 0 {
            0.0
        } else {
            m.seen_m2
                .iter()
                .map(|s| s / m.n_seen as f64)
                .fold(0.0, f64::max)
        };
        self.epsilon = self.params.var_smoothing * largest;
        let mut var = table(
            &mut self.var,
            k,
            m.sigma.ncols(),
            "GaussianNB's smoothed variances",
        )?;
        for (v, &s) in var.as_mut_slice().iter_mut().zip(m.sigma.as_slice()) {
            *v = s + self.epsilon;
        }
        let total: f64 = m.class_count.iter().sum();
        self.class_prior = match &self.params.priors {
            Some(p) => p.clone(),
            None if total > 0.0 => m.class_count.iter().map(|c| c / total).collect(),
            // Nothing seen yet: a placeholder that predicting refuses to use.
            None => vec![1.0 / k as f64; k],
        };
        self.class_log_prior = self.class_prior.iter().map(|p| p.ln()).collect();
        self.log_norm = (0..k)
            .map(|c| {
                -0.5 * var
                    .row(c)
                    .iter()
                    .map(|v| (2.0 * std::f64::consts::PI * v).ln())
                    .sum::<f64>()
            })
            .collect();
        self.var = var;
        Ok(())
    }

    /// Refuses to score with a variance that is zero or infinite in a class that can be
    /// predicted (prior > 0): the density would be a spike or flat, and the score `0/0`.
    fn check_variances(&self) -> Result<()> {
        for (c, &p) in self.class_prior.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            if let Some(j) = self
                .var
                .row(c)
                .iter()
                .position(|v| !(v.is_finite() && *v > 0.0))
            {
                return Err(Error::Numerical(format!(
                    "feature {j} has variance {} in class {}: every feature is constant (or \
                     var_smoothing is 0 and this one is constant within the class), or \
                     var_smoothing × the largest variance overflows; use a var_smoothing > 0 that keeps it finite",
                    self.var.get(c, j),
                    self.moments.labels[c]
                )));
            }
        }
        Ok(())
    }

    /// Class labels, sorted (scikit-learn's `classes_`).
    pub fn classes(&self) -> &[Label] {
        &self.moments.labels
    }
    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.moments.theta.ncols()
    }
    /// Summed sample weight per class (the sample count without weights).
    pub fn class_count(&self) -> &[f64] {
        &self.moments.class_count
    }
    /// `P(c)` per class: the given priors, or the weighted class frequencies.
    pub fn class_prior(&self) -> &[f64] {
        &self.class_prior
    }
    /// `k × d`: per-class feature means `θ_cj`.
    pub fn theta(&self) -> &DenseMatrix {
        &self.moments.theta
    }
    /// `k × d`: per-class feature variances, smoothed (`σ²_cj + ε`).
    pub fn var(&self) -> &DenseMatrix {
        &self.var
    }
    /// The smoothing `ε = var_smoothing × max_j Var(x_j)` added to every variance.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }
}

impl Fit for GaussianNBParams {
    type Model = GaussianNB;

    fn fit(&self, data: &Dataset) -> Result<GaussianNB> {
        self.check()?;
        let (labels, class_of) = fit_classes(data)?;
        self.check_for(labels.len())?;
        let moments = Moments::new(labels, data.n_features())?.absorb(data, &class_of)?;
        let model = GaussianNB::from_moments(self.clone(), moments)?;
        model.check_variances()?;
        Ok(model)
    }
}

/// GaussianNB's statistics: per class, the summed weight and the weighted means and variances
/// (and the means and squared deviations of every row, which scale the smoothing), gathered
/// batch by batch and merged across partitions (each may see any of the classes) as Chan,
/// Golub & LeVeque merge variances; [`FitStats::fit_stats`] makes from them the model `fit`
/// makes from the rows, to rounding.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GaussianNBStats(Option<Moments>);

impl PartialFit<Dataset> for GaussianNBStats {
    /// Adds a batch; a refused batch leaves the statistics unchanged.
    fn partial_fit(&mut self, batch: &Dataset) -> Result<()> {
        validate::check_dataset(batch)?;
        let d = batch.n_features();
        if let Some(m) = &self.0
            && m.seen_mean.len() != d
        {
            return Err(Error::shape(
                "features of the batch (the statistics' width)",
                m.seen_mean.len(),
                d,
            ));
        }
        let (labels, class_of) = present_classes(batch, &*batch.targets.to_classes()?)?;
        let part = Moments::new(labels, d)?.absorb(batch, &class_of)?;
        self.merge(&GaussianNBStats(Some(part)))
    }
}

impl Merge for GaussianNBStats {
    fn merge(&mut self, other: &Self) -> Result<()> {
        let Some(theirs) = &other.0 else {
            return Ok(());
        };
        theirs.check_with(1)?;
        let merged = match &self.0 {
            Some(mine) => {
                mine.check_with(1)?;
                mine.merged(theirs)?
            }
            None => theirs.try_clone()?,
        };
        self.0 = Some(merged);
        Ok(())
    }
}

impl FitStats for GaussianNBParams {
    type Stats = GaussianNBStats;

    fn stats(&self) -> GaussianNBStats {
        GaussianNBStats::default()
    }

    fn fit_stats(&self, stats: &GaussianNBStats) -> Result<GaussianNB> {
        self.check()?;
        let moments = trainable(&stats.0, |m| &m.labels, "GaussianNB")?;
        moments.check_with(1)?;
        self.check_for(moments.labels.len())?;
        let model = GaussianNB::from_moments(self.clone(), moments.try_clone()?)?;
        model.check_variances()?;
        Ok(model)
    }
}

impl PartialFit<Dataset> for GaussianNB {
    /// Merges a batch into the means and variances. The batch must have the model's width and
    /// only its classes; a refused batch leaves the model unchanged.
    fn partial_fit(&mut self, batch: &Dataset) -> Result<()> {
        let class_of = batch_classes(&self.moments.labels, self.n_features(), batch)?;
        self.moments = self.moments.absorb(batch, &class_of)?;
        // The variances exist already: refreshing them asks for no memory, so cannot fail here.
        self.refresh()
    }
}

impl JointLogLikelihood for GaussianNB {
    fn class_labels(&self) -> &[Label] {
        &self.moments.labels
    }

    fn joint_log_likelihood<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        validate::check_predict(self.n_features(), records)?;
        check_trained(&self.moments.class_count)?;
        self.check_variances()?;
        let d = self.n_features();
        let k = self.classes().len();
        // A difference, a square and a division per feature and class.
        Ok(rows_in_parallel(records, k, d * k, |row, out, x| {
            x.resize(d, 0.0);
            row.to_dense_into(x);
            for (c, o) in out.iter_mut().enumerate() {
                *o = if self.class_prior[c] == 0.0 {
                    // An impossible class; its variances may be unusable, so skip them.
                    f64::NEG_INFINITY
                } else {
                    let (theta, var) = (self.moments.theta.row(c), self.var.row(c));
                    let dist: f64 = (0..d).map(|j| (x[j] - theta[j]).powi(2) / var[j]).sum();
                    self.class_log_prior[c] + (self.log_norm[c] - 0.5 * dist)
                };
            }
        }))
    }
}

super::nb_predictions!(GaussianNB);

impl ModelFile for GaussianNB {
    const KIND: &'static str = "gaussian-nb";
    const SCHEMA: u32 = 1;

    /// Nothing left to check: decoding goes through `TryFrom<GaussianFile>`, which checks the stored
    /// statistics and parameters before the derived tables are computed from them (they must
    /// be, or computing the tables could index out of range).
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file with a valid header and checksum but a negative variance is refused on load.
    #[test]
    fn a_well_sealed_but_inconsistent_file_is_refused() {
        #[derive(Serialize, Deserialize)]
        #[serde(transparent)]
        struct Forged(GaussianFile);
        impl ModelFile for Forged {
            const KIND: &'static str = GaussianNB::KIND;
            const SCHEMA: u32 = 1;
            fn check_consistent(&self) -> Result<()> {
                Ok(())
            }
        }
        let mut moments = Moments::new(vec![Label::Number(0.0), Label::Number(1.0)], 2).unwrap();
        moments.sigma.row_mut(1)[0] = -1.0;
        let forged = Forged(GaussianFile {
            params: GaussianNBParams::default(),
            moments,
        });
        let bytes = forged.to_bytes().unwrap();
        assert!(matches!(
            GaussianNB::from_bytes(&bytes),
            Err(Error::ModelFile { reason }) if reason.contains("inconsistent")
        ));
    }
}
