//! Hyperparameter search: a grid (or a random sample of it) of parameter values, each scored
//! by cross-validation, the best refitted on all the data.

use std::fmt::Display;
use std::sync::Arc;

use margin_core::params::ParamsByName;
use margin_core::split::{Fold, rng_from_seed};
use margin_core::{Dataset, Error, Fit, Predict, Result};
use rand::Rng;

use crate::Scorer;
use crate::selection::cross_validate_with;

type Setter<P> = Arc<dyn Fn(P) -> Result<P> + Send + Sync>;

struct Axis<P> {
    name: String,
    values: Vec<(String, Setter<P>)>,
}

/// Named parameter axes over any params type: each axis is a list of values and how to set one
/// on the params (a builder call, which may refuse the value).
///
/// ```
/// use margin_metrics::Grid;
/// # #[derive(Clone, Debug)] struct Params { c: f64, degree: u32 }
/// let grid = Grid::new(Params { c: 1.0, degree: 2 })
///     .axis("C", [0.1, 1.0, 10.0], |p, c| Ok(Params { c, ..p }))
///     .axis("degree", [2u32, 3], |p, d| Ok(Params { degree: d, ..p }));
/// assert_eq!(grid.candidates()?.len(), 6);
/// # Ok::<(), margin_core::Error>(())
/// ```
pub struct Grid<P> {
    base: P,
    axes: Vec<Axis<P>>,
}

/// One point of a grid: its settings (name, value as text) and the params they give.
#[derive(Clone, Debug)]
pub struct Candidate<P> {
    /// `(parameter, value)` pairs, in axis order.
    pub settings: Vec<(String, String)>,
    /// The params with those values set.
    pub params: P,
}

impl<P: Clone + 'static> Grid<P> {
    /// A grid around `base` (its values are kept for parameters no axis sets).
    pub fn new(base: P) -> Self {
        Self {
            base,
            axes: Vec::new(),
        }
    }

    /// Adds an axis: parameter `name` takes each of `values`, set with `set`.
    pub fn axis<V, F>(mut self, name: &str, values: impl IntoIterator<Item = V>, set: F) -> Self
    where
        V: Display + Clone + Send + Sync + 'static,
        F: Fn(P, V) -> Result<P> + Send + Sync + 'static,
    {
        let set = Arc::new(set);
        let values = values
            .into_iter()
            .map(|v| {
                let (shown, set) = (v.to_string(), Arc::clone(&set));
                let setter: Setter<P> = Arc::new(move |p| set(p, v.clone()));
                (shown, setter)
            })
            .collect();
        self.axes.push(Axis {
            name: name.into(),
            values,
        });
        self
    }

    fn build(&self, choice: &[usize]) -> Result<Candidate<P>> {
        let mut params = self.base.clone();
        let mut settings = Vec::with_capacity(self.axes.len());
        for (axis, &k) in self.axes.iter().zip(choice) {
            let (shown, set) = &axis.values[k];
            params = set(params)?;
            settings.push((axis.name.clone(), shown.clone()));
        }
        Ok(Candidate { settings, params })
    }

    /// Every combination of axis values (the cartesian product, last axis varying fastest).
    pub fn candidates(&self) -> Result<Vec<Candidate<P>>> {
        if let Some(a) = self.axes.iter().find(|a| a.values.is_empty()) {
            return Err(Error::invalid_parameter(
                format!("grid axis `{}`", a.name),
                "no values",
                "at least one value",
            ));
        }
        let total: usize = self.axes.iter().map(|a| a.values.len()).product();
        (0..total)
            .map(|mut n| {
                let mut choice = vec![0; self.axes.len()];
                for (slot, axis) in choice.iter_mut().zip(&self.axes).rev() {
                    *slot = n % axis.values.len();
                    n /= axis.values.len();
                }
                self.build(&choice)
            })
            .collect()
    }

    /// `n` combinations drawn at random (each axis value uniformly, with repetition), fixed by
    /// `seed`: a random search.
    pub fn sample(&self, n: usize, seed: u64) -> Result<Vec<Candidate<P>>> {
        if let Some(a) = self.axes.iter().find(|a| a.values.is_empty()) {
            return Err(Error::invalid_parameter(
                format!("grid axis `{}`", a.name),
                "no values",
                "at least one value",
            ));
        }
        let mut rng = rng_from_seed(seed);
        (0..n)
            .map(|_| {
                let choice: Vec<usize> = self
                    .axes
                    .iter()
                    .map(|a| rng.random_range(0..a.values.len()))
                    .collect();
                self.build(&choice)
            })
            .collect()
    }
}

impl<P: ParamsByName> Grid<P> {
    /// Adds an axis over a parameter that `P` describes, named as [`ParamsByName::set_by_name`]
    /// takes it (scikit-learn's name or its command-line spelling; `step__param` in a
    /// pipeline), with values as text or anything printable: no setter to write, and a value
    /// the parameter refuses fails when the candidates are built, naming the parameter and its
    /// range. An unknown name fails here.
    ///
    /// ```
    /// use margin_metrics::Grid;
    /// # use margin_core::params::Params;
    /// # #[derive(Clone, Debug, Params)]
    /// # struct SvcLike {
    /// #     #[param(name = "C", help = "regularization", valid = ("a number > 0", |c| *c > 0.0))]
    /// #     c: f64,
    /// #     #[param(name = "degree", help = "degree")]
    /// #     kernel_degree: u32,
    /// # }
    /// let grid = Grid::new(SvcLike::default())
    ///     .param("C", [0.1, 1.0, 10.0])?
    ///     .param("degree", ["2", "3"])?;
    /// let candidates = grid.candidates()?;
    /// assert_eq!(candidates.len(), 6);
    /// assert_eq!(candidates[5].params.c, 10.0);
    /// assert!(Grid::new(SvcLike::default()).param("C", [-1.0])?.candidates().is_err());
    /// assert!(Grid::new(SvcLike::default()).param("gamma", [1.0]).is_err());
    /// # Ok::<(), margin_core::Error>(())
    /// ```
    pub fn param<V: Display>(
        self,
        name: &str,
        values: impl IntoIterator<Item = V>,
    ) -> Result<Self> {
        let name = self.base.param_name(name)?;
        let values: Vec<String> = values.into_iter().map(|v| v.to_string()).collect();
        Ok(
            self.axis(&name.clone(), values, move |mut p: P, text: String| {
                p.set_by_name(&name, &text)?;
                Ok(p)
            }),
        )
    }
}

/// What a search found.
pub struct SearchResult<P: Fit> {
    /// The candidates, in the order tried.
    pub candidates: Vec<Candidate<P>>,
    /// Per candidate, the score of each fold.
    pub fold_scores: Vec<Vec<f64>>,
    /// Index of the candidate with the best mean score (the first among equals).
    pub best: usize,
    /// The best candidate refitted on all the data.
    pub model: P::Model,
}

impl<P: Fit> SearchResult<P> {
    /// Mean fold score of each candidate.
    pub fn mean_scores(&self) -> Vec<f64> {
        self.fold_scores
            .iter()
            .map(|s| s.iter().sum::<f64>() / s.len() as f64)
            .collect()
    }

    /// The results as a text table: settings, mean ± standard deviation, best marked.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for (k, (c, scores)) in self.candidates.iter().zip(&self.fold_scores).enumerate() {
            let mean = scores.iter().sum::<f64>() / scores.len() as f64;
            let sd = (scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>()
                / scores.len() as f64)
                .sqrt();
            let settings: Vec<String> =
                c.settings.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let mark = if k == self.best { " *" } else { "" };
            out.push_str(&format!(
                "{:<40} {mean:.6} ± {sd:.6}{mark}\n",
                settings.join(" ")
            ));
        }
        out
    }
}

/// Scores every candidate by cross-validation on `folds` with `score` (higher is better; a
/// [`Scoring`](crate::Scoring), its name, or a closure, see [`Scorer`]), then refits the best
/// on all of `data`.
pub fn search<P, S>(
    candidates: Vec<Candidate<P>>,
    data: &Dataset,
    folds: &[Fold],
    score: S,
) -> Result<SearchResult<P>>
where
    P: Fit + Sync,
    P::Model: Predict,
    S: Scorer<P::Model> + Sync,
{
    if candidates.is_empty() {
        return Err(Error::invalid_parameter(
            "candidates",
            0,
            "at least one candidate",
        ));
    }
    let fold_scores: Vec<Vec<f64>> = candidates
        .iter()
        .map(|c| cross_validate_with(&c.params, data, folds, &score))
        .collect::<Result<_>>()?;
    let means: Vec<f64> = fold_scores
        .iter()
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    let best = (0..means.len()).fold(0, |b, k| if means[k] > means[b] { k } else { b });
    let model = candidates[best].params.fit(data)?;
    Ok(SearchResult {
        candidates,
        fold_scores,
        best,
        model,
    })
}
