use serde::{Deserialize, Serialize};

use super::{check_fit_input, columns};
use margin_core::params::Params;
use margin_core::{CsrMatrix, Fit, Matrix, Records, Result, Transform, model_check, validate};
use margin_io::ModelFile;

/// How [`KBinsDiscretizer`] places bin edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinStrategy {
    /// Equal-width bins between the feature's minimum and maximum.
    Uniform,
    /// Equal-count bins at the feature's quantiles (linear interpolation, as numpy's default).
    Quantile,
}

/// How [`KBinsDiscretizer`] writes a bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinEncoding {
    /// One sparse 0/1 column per bin of each feature.
    OneHot,
    /// The bin number as a value `0, 1, …`.
    Ordinal,
}

/// Parameters of [`KBinsDiscretizer`]; defaults as scikit-learn (5 bins, quantile, one-hot).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(n_bins, encode, strategy))]
pub struct KBinsDiscretizerParams {
    /// Bins per feature (at least 2).
    #[param(help = "bins per feature", default = 5, valid = ("at least 2", |n| *n >= 2))]
    n_bins: usize,
    /// Edge placement.
    #[param(
        help = "equal-width or equal-count (quantile) bins",
        default = BinStrategy::Quantile
    )]
    strategy: BinStrategy,
    /// Output encoding.
    #[param(
        help = "one sparse 0/1 column per bin, or the bin number",
        default = BinEncoding::OneHot
    )]
    encode: BinEncoding,
}

margin_core::param_choice!(BinStrategy { Uniform => "uniform", Quantile => "quantile" });
margin_core::param_choice!(BinEncoding { OneHot => "onehot", Ordinal => "ordinal" });

/// Bins each continuous feature into intervals.
///
/// Values below the first edge fall in the first bin and values above the last in the last
/// (as scikit-learn). Bins narrower than `1e-8` (repeated quantiles) are merged, so a feature
/// may get fewer bins than asked; a constant feature gets one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KBinsDiscretizer {
    /// Per feature: the edges, `bins + 1` of them, increasing.
    edges: Vec<Vec<f64>>,
    /// The hyperparameters the model was fitted with.
    params: KBinsDiscretizerParams,
}

impl KBinsDiscretizer {
    /// The hyperparameters the model was fitted with (see [`KBinsDiscretizerParams`]).
    pub fn hyperparams(&self) -> &KBinsDiscretizerParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.edges.len()
    }
    /// Default parameters.
    pub fn params() -> KBinsDiscretizerParams {
        KBinsDiscretizerParams::default()
    }

    /// Per feature, the bin edges.
    pub fn bin_edges(&self) -> &[Vec<f64>] {
        &self.edges
    }

    /// Per feature, the number of bins.
    pub fn n_bins(&self) -> Vec<usize> {
        self.edges
            .iter()
            .map(|e| e.len().saturating_sub(1).max(1))
            .collect()
    }

    fn bin(&self, j: usize, x: f64) -> usize {
        let e = &self.edges[j];
        if e.len() < 3 {
            return 0;
        }
        // Interior edges only; side "right": a value equal to an edge goes to the upper bin.
        e[1..e.len() - 1].partition_point(|&edge| edge <= x)
    }
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

impl<R: Records + ?Sized> Fit<R> for KBinsDiscretizerParams {
    type Model = KBinsDiscretizer;

    fn fit(&self, records: &R) -> Result<KBinsDiscretizer> {
        self.check()?;
        check_fit_input(records)?;
        let k = self.n_bins;
        let edges = columns(records)?
            .into_iter()
            .map(|mut col| {
                col.sort_by(f64::total_cmp);
                let (lo, hi) = (col[0], col[col.len() - 1]);
                if lo == hi {
                    return vec![lo, hi];
                }
                let raw: Vec<f64> = match self.strategy {
                    BinStrategy::Uniform => (0..=k)
                        .map(|b| lo + (hi - lo) * b as f64 / k as f64)
                        .collect(),
                    BinStrategy::Quantile => (0..=k)
                        .map(|b| quantile(&col, b as f64 / k as f64))
                        .collect(),
                };
                let mut kept = vec![raw[0]];
                for &e in &raw[1..] {
                    if e - kept[kept.len() - 1] > 1e-8 {
                        kept.push(e);
                    }
                }
                if kept.len() == 1 {
                    kept.push(hi);
                }
                kept
            })
            .collect();
        Ok(KBinsDiscretizer {
            edges,
            params: self.clone(),
        })
    }
}

impl Transform for KBinsDiscretizer {
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
        validate::check_predict(self.edges.len(), records)?;
        let x = records.to_dense()?;
        match self.params.encode {
            BinEncoding::Ordinal => {
                let mut out = x;
                for i in 0..out.nrows() {
                    for (j, v) in out.row_mut(i).iter_mut().enumerate() {
                        *v = self.bin(j, *v) as f64;
                    }
                }
                Ok(Matrix::Dense(out))
            }
            BinEncoding::OneHot => {
                let widths = self.n_bins();
                let offsets: Vec<usize> = widths
                    .iter()
                    .scan(0, |acc, &w| {
                        let o = *acc;
                        *acc += w;
                        Some(o)
                    })
                    .collect();
                let total: usize = widths.iter().sum();
                let d = widths.len();
                let mut indptr = Vec::with_capacity(x.nrows() + 1);
                indptr.push(0);
                let mut indices = margin_core::memory::vec_with_capacity(
                    x.nrows().saturating_mul(d),
                    "the one-hot bins",
                    margin_core::memory::DENSE_COPY,
                )?;
                for i in 0..x.nrows() {
                    for (j, &v) in x.row(i).iter().enumerate() {
                        indices.push((offsets[j] + self.bin(j, v)) as u32);
                    }
                    indptr.push(indices.len());
                }
                let values = vec![1.0; indices.len()];
                Ok(Matrix::Sparse(CsrMatrix::new(
                    indptr, indices, values, total,
                )?))
            }
        }
    }
}

impl ModelFile for KBinsDiscretizer {
    const KIND: &'static str = "kbins-discretizer";
    // 2: the hyperparameters the model was fitted with; 3: `encode` only inside them.
    const SCHEMA: u32 = 3;

    /// Per feature at least two finite, non-decreasing edges (a constant feature has two
    /// equal ones).
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        for e in &self.edges {
            model_check::at_least("edges per feature", e.len(), 2)?;
            model_check::finite("edges", e)?;
            if let Some(at) = e.windows(2).position(|w| w[0] > w[1]) {
                return Err(model_check::refuse(
                    "edges",
                    format!("decrease at entry {}", at + 1),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::DenseMatrix;

    #[test]
    fn uniform_and_quantile_edges() {
        let x = DenseMatrix::from_row_major(vec![0.0, 1.0, 2.0, 3.0, 10.0], 5, 1).unwrap();
        let u = KBinsDiscretizer::params()
            .n_bins(2)
            .strategy(BinStrategy::Uniform)
            .encode(BinEncoding::Ordinal)
            .fit(&x)
            .unwrap();
        assert_eq!(u.bin_edges()[0], vec![0.0, 5.0, 10.0]);
        assert_eq!(
            u.transform(&x).unwrap().to_dense().unwrap().as_slice(),
            &[0.0, 0.0, 0.0, 0.0, 1.0]
        );
        let q = KBinsDiscretizer::params()
            .n_bins(2)
            .encode(BinEncoding::Ordinal)
            .fit(&x)
            .unwrap();
        assert_eq!(q.bin_edges()[0], vec![0.0, 2.0, 10.0]);
        // side = right: 2.0 sits on the edge and goes up, as numpy.searchsorted(side="right").
        assert_eq!(
            q.transform(&x).unwrap().to_dense().unwrap().as_slice(),
            &[0.0, 0.0, 1.0, 1.0, 1.0]
        );
        let outside = DenseMatrix::from_row_major(vec![-5.0, 50.0], 2, 1).unwrap();
        assert_eq!(
            q.transform(&outside)
                .unwrap()
                .to_dense()
                .unwrap()
                .as_slice(),
            &[0.0, 1.0]
        );
    }

    #[test]
    fn one_hot_output_and_constant_features() {
        let x = DenseMatrix::from_rows(&[[0.0, 7.0], [1.0, 7.0], [2.0, 7.0], [3.0, 7.0]]).unwrap();
        let k = KBinsDiscretizer::params().n_bins(2).fit(&x).unwrap();
        assert_eq!(k.n_bins(), vec![2, 1]);
        let y = k.transform(&x).unwrap().to_dense().unwrap();
        assert_eq!(y.row(0), &[1.0, 0.0, 1.0]);
        assert_eq!(y.row(3), &[0.0, 1.0, 1.0]);
        assert!(KBinsDiscretizer::params().n_bins(1).fit(&x).is_err());
    }
}
