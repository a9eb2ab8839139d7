use serde::{Deserialize, Serialize};

use super::{check_fit_input, column_ranges};
use margin_core::params::Params;
use margin_core::{
    DenseMatrix, Error, Fit, FitStats, Matrix, Merge, PartialFit, Records, Result, Transform,
    model_check, validate,
};
use margin_io::ModelFile;

/// Parameters of [`MinMaxScaler`]: the target range, default `[0, 1]` as scikit-learn
/// (`svm-scale` uses `[-1, 1]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct MinMaxScalerParams {
    /// The range's lower end; with `upper`, the parameter `feature_range` (set with
    /// [`range`](Self::range)).
    #[param(
        name = "feature_range",
        help = "target range LOWER,UPPER",
        ty = Vec<f64>,
        get = |p| vec![p.lower, p.upper],
        // Fewer or more than two values are stored as a range the check refuses.
        set = |p, v| (p.lower, p.upper) = match v[..] {
            [lower, upper] => (lower, upper),
            _ => (f64::NAN, f64::NAN),
        },
        valid = ("finite lower < upper", |r| matches!(r[..], [l, u] if l.is_finite() && u.is_finite() && l < u)),
        setter(skip)
    )]
    lower: f64,
    /// The range's upper end (see `lower`).
    #[param(skip, default = 1.0)]
    upper: f64,
    /// Clip transformed values to the target range (default false), scikit-learn's
    /// `clip=True`: a held-out value beyond a feature's training extremes maps to `lower` or
    /// `upper` instead of beyond them.
    #[param(
        help = "clip transformed values to feature_range (held-out values beyond the training extremes)"
    )]
    clip: bool,
}

impl MinMaxScalerParams {
    /// Sets the target range `[lower, upper]` (`lower < upper`).
    pub fn range(mut self, lower: f64, upper: f64) -> Self {
        self.lower = lower;
        self.upper = upper;
        self
    }
}

/// Maps each feature linearly so that its training minimum goes to `lower` and its maximum to
/// `upper` (scikit-learn's `MinMaxScaler`, svm-scale's `-l/-u`).
///
/// Training minimum and maximum map to exactly `lower` and `upper`, as svm-scale does. A
/// feature that was constant in training maps every value `x` to `lower + (x − min)·(upper −
/// lower)`, as scikit-learn does. Sparse entries that are not stored count as zeros.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MinMaxScaler {
    /// The target range. Its two fields encode as the scaler's own `lower, upper` did, so
    /// files are unchanged.
    params: MinMaxScalerParams,
    data_min: Vec<f64>,
    data_max: Vec<f64>,
}

impl MinMaxScaler {
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.data_min.len()
    }
    /// Default parameters (range `[0, 1]`).
    pub fn params() -> MinMaxScalerParams {
        MinMaxScalerParams::default()
    }

    /// A scaler from known per-feature minima and maxima (for example read from an svm-scale
    /// parameters file).
    pub fn from_min_max(
        params: &MinMaxScalerParams,
        data_min: Vec<f64>,
        data_max: Vec<f64>,
    ) -> Result<Self> {
        params.check()?;
        if data_min.len() != data_max.len() {
            return Err(Error::shape(
                "per-feature maxima (one per minimum)",
                data_min.len(),
                data_max.len(),
            ));
        }
        validate::check_finite_slice(&data_min)?;
        validate::check_finite_slice(&data_max)?;
        if let Some(j) = data_min.iter().zip(&data_max).position(|(a, b)| a > b) {
            return Err(Error::invalid_parameter(
                "data_min/data_max",
                format!("feature {j}: {} > {}", data_min[j], data_max[j]),
                "min ≤ max",
            ));
        }
        Ok(Self {
            params: params.clone(),
            data_min,
            data_max,
        })
    }

    /// Per-feature training minima.
    pub fn data_min(&self) -> &[f64] {
        &self.data_min
    }

    /// Per-feature training maxima.
    pub fn data_max(&self) -> &[f64] {
        &self.data_max
    }

    /// The target range `(lower, upper)`.
    pub fn range(&self) -> (f64, f64) {
        (self.params.lower, self.params.upper)
    }

    /// The hyperparameters the model was fitted with (see [`MinMaxScalerParams`]).
    pub fn hyperparams(&self) -> &MinMaxScalerParams {
        &self.params
    }

    /// Scales one value of feature `j`.
    #[inline]
    pub fn scale_value(&self, j: usize, x: f64) -> f64 {
        let (lo, hi) = (self.data_min[j], self.data_max[j]);
        let MinMaxScalerParams { lower, upper, clip } = self.params;
        let width = upper - lower;
        let y = if lo == hi {
            lower + (x - lo) * width
        } else if x == lo {
            lower
        } else if x == hi {
            upper
        } else {
            lower + width * (x - lo) / (hi - lo)
        };
        if clip { y.clamp(lower, upper) } else { y }
    }
}

impl<R: Records + ?Sized> Fit<R> for MinMaxScalerParams {
    type Model = MinMaxScaler;

    fn fit(&self, records: &R) -> Result<MinMaxScaler> {
        self.check()?;
        check_fit_input(records)?;
        // The model is dense in the feature count; the ranges are gathered sparsely and
        // expanded through the memory check.
        let (data_min, data_max) = column_ranges(records)?.to_dense()?;
        Ok(MinMaxScaler {
            params: self.clone(),
            data_min,
            data_max,
        })
    }
}

/// MinMaxScaler's statistics: each feature's smallest and largest value over the rows seen
/// (none before the first batch), merged across partitions by taking the extremes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MinMaxScalerStats(Option<(Vec<f64>, Vec<f64>)>);

impl<R: Records + ?Sized> PartialFit<R> for MinMaxScalerStats {
    /// Adds a batch of finite records; a refused batch leaves the statistics unchanged.
    fn partial_fit(&mut self, batch: &R) -> Result<()> {
        check_fit_input(batch)?;
        let part = MinMaxScalerStats(Some(column_ranges(batch)?.to_dense()?));
        self.merge(&part)
    }
}

impl Merge for MinMaxScalerStats {
    fn merge(&mut self, other: &Self) -> Result<()> {
        let Some((lo, hi)) = &other.0 else {
            return Ok(());
        };
        model_check::finite("data_min", lo)?;
        model_check::finite("data_max", hi)?;
        model_check::len("data_max", hi.len(), lo.len())?;
        match &mut self.0 {
            None => self.0 = Some((lo.clone(), hi.clone())),
            Some((my_lo, my_hi)) => {
                if lo.len() != my_lo.len() {
                    return Err(Error::shape(
                        "features of the merged ranges",
                        my_lo.len(),
                        lo.len(),
                    ));
                }
                my_lo.iter_mut().zip(lo).for_each(|(m, v)| *m = m.min(*v));
                my_hi.iter_mut().zip(hi).for_each(|(m, v)| *m = m.max(*v));
            }
        }
        Ok(())
    }
}

/// Batches are [`Matrix`] records (the statistics also take any other [`Records`] through
/// [`PartialFit`]).
impl FitStats<Matrix> for MinMaxScalerParams {
    type Stats = MinMaxScalerStats;

    fn stats(&self) -> MinMaxScalerStats {
        MinMaxScalerStats::default()
    }

    fn fit_stats(&self, stats: &MinMaxScalerStats) -> Result<MinMaxScaler> {
        self.check()?;
        let (data_min, data_max) = stats
            .0
            .clone()
            .ok_or_else(|| Error::no_rows_seen("MinMaxScaler"))?;
        Ok(MinMaxScaler {
            params: self.clone(),
            data_min,
            data_max,
        })
    }
}

impl Transform for MinMaxScaler {
    /// Dense output (zeros generally move away from zero).
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
        validate::check_predict(self.data_min.len(), records)?;
        let d = self.data_min.len();
        let mut out = DenseMatrix::try_zeros(
            records.n_samples(),
            d,
            "the scaled records (dense)",
            margin_core::memory::DENSE_COPY,
        )?;
        let zero: Vec<f64> = (0..d).map(|j| self.scale_value(j, 0.0)).collect();
        for i in 0..records.n_samples() {
            let dst = out.row_mut(i);
            dst.copy_from_slice(&zero);
            records
                .row(i)
                .for_each_stored(|j, v| dst[j] = self.scale_value(j, v));
        }
        Ok(Matrix::Dense(out))
    }
}

impl ModelFile for MinMaxScaler {
    const KIND: &'static str = "min-max-scaler";
    /// 2: the params gained `clip`.
    const SCHEMA: u32 = 2;

    /// A finite target range `lower < upper`, and per feature a finite minimum no larger than
    /// its finite maximum.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("range", self.params.check())?;
        model_check::len("data_max", self.data_max.len(), self.data_min.len())?;
        model_check::finite("data_min", &self.data_min)?;
        model_check::finite("data_max", &self.data_max)?;
        match self
            .data_min
            .iter()
            .zip(&self.data_max)
            .position(|(a, b)| a > b)
        {
            None => Ok(()),
            Some(j) => Err(model_check::refuse(
                "data_min",
                format!("exceeds `data_max` at feature {j}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_training_range_onto_target_range() {
        let x =
            DenseMatrix::from_rows(&[[1.0, 5.0, 2.0], [3.0, 5.0, -2.0], [2.0, 5.0, 0.0]]).unwrap();
        let s = MinMaxScaler::params().range(-1.0, 1.0).fit(&x).unwrap();
        let y = s.transform(&x).unwrap().to_dense().unwrap();
        assert_eq!(y.row(0), &[-1.0, -1.0, 1.0]);
        assert_eq!(y.row(1), &[1.0, -1.0, -1.0]);
        assert_eq!(y.row(2), &[0.0, -1.0, 0.0]);
        let z = DenseMatrix::from_rows(&[[5.0, 6.0, 4.0]]).unwrap();
        assert_eq!(
            s.transform(&z).unwrap().to_dense().unwrap().row(0),
            &[3.0, 1.0, 2.0]
        );
        // scikit-learn's clip=True: the same values, held to [-1, 1].
        let clipped = MinMaxScaler::params()
            .range(-1.0, 1.0)
            .clip(true)
            .fit(&x)
            .unwrap();
        assert_eq!(clipped.transform(&x).unwrap(), s.transform(&x).unwrap());
        let z = DenseMatrix::from_rows(&[[5.0, 6.0, 4.0], [-3.0, 4.0, 1.0]]).unwrap();
        let y = clipped.transform(&z).unwrap().to_dense().unwrap();
        assert_eq!(y.row(0), &[1.0, 1.0, 1.0]);
        assert_eq!(y.row(1), &[-1.0, -1.0, 0.5]);
    }

    #[test]
    fn sparse_missing_entries_count_as_zero() {
        let dense = DenseMatrix::from_rows(&[[0.0, 4.0], [2.0, 0.0], [1.0, 2.0]]).unwrap();
        let sparse = margin_core::CsrMatrix::from_dense(&dense);
        let a = MinMaxScaler::params().fit(&dense).unwrap();
        let b = MinMaxScaler::params().fit(&sparse).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.transform(&dense).unwrap(), b.transform(&sparse).unwrap());
    }

    #[test]
    fn bad_range_and_bad_input_are_refused() {
        let x = DenseMatrix::from_rows(&[[1.0], [2.0]]).unwrap();
        assert!(matches!(
            MinMaxScaler::params().range(1.0, 1.0).fit(&x),
            Err(Error::InvalidParameter { .. })
        ));
        let nan = DenseMatrix::from_rows(&[[1.0], [f64::NAN]]).unwrap();
        assert!(matches!(
            MinMaxScaler::params().fit(&nan),
            Err(Error::NonFinite { row: 1, col: 0 })
        ));
        let s = MinMaxScaler::params().fit(&x).unwrap();
        let wide = DenseMatrix::from_rows(&[[1.0, 2.0]]).unwrap();
        assert!(matches!(
            s.transform(&wide),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}
