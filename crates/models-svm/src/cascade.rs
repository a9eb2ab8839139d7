//! C-SVC over a table held in parts: a cascade SVM with feedback (Graf et al., "Parallel
//! support vector machines: the cascade SVM", NIPS 2004).
//!
//! Each part solves the problem on its own rows and those fed back from the last pass, and
//! keeps its support vectors; pairs of parts' support vectors are merged and solved again, up
//! a binary tree, to one set at the root. The root's problem gives the model. A check over
//! every row then looks for rows outside the root set whose margin breaks the optimality
//! conditions (`y·f(x) < 1 − tol` in some binary problem); while there are any, the root set
//! is fed back to every part and the cascade runs again. With none, every row outside the set
//! has `α = 0` and satisfies its condition, so the model solves the whole problem to the
//! solver's tolerance. A pass whose root comes back as it was fed has converged too (Graf et
//! al.'s criterion): the points left then sit on the margin, below it only by the rounding of
//! the model refitted on the root's set (seen on mushrooms, separable with binary features).
//!
//! Rows are distinct points, each with its number of copies in the table (a `GROUP BY`
//! gives them): `c` copies of a point are one point whose bound is `c·C` (the dual depends
//! only on their α's sum), so a point is its own identity, the same in every part and pass.

use std::cmp::Ordering;
use std::sync::OnceLock;

use margin_core::params::Params;
use margin_core::{
    ClassWeight, Classes, Dataset, DenseMatrix, Error, Fit, Label, PartClasses, Records, Result,
    Targets, class_order,
};
use margin_io::ModelFile;
use margin_kernels::Gamma;
use serde::{Deserialize, Serialize};

use crate::svc::{LabelOrder, Svc, SvcHyperparams, SvcParams};

/// Passes after which a cascade that still finds violating rows gives up.
pub const MAX_CASCADE_PASSES: usize = 30;

/// A distinct point of the table: its label, its features and how many rows it stands for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CascadeRow {
    /// The label.
    pub label: Label,
    /// The features.
    pub x: Vec<f64>,
    /// The rows of the table with this label and these features.
    pub count: f64,
}

/// The order rows are kept in (labels, then features by their total order): a node's
/// problem, and so its solution, does not depend on the order its rows arrived in. Points
/// are equal only bit for bit, as the rows fed back are the rows they came from (`-0.0` and
/// `0.0` stay two points, each with its own count).
fn order(a: &CascadeRow, b: &CascadeRow) -> Ordering {
    class_order(&a.label, &b.label).then_with(|| {
        a.x.iter()
            .zip(&b.x)
            .map(|(u, v)| u.total_cmp(v))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.x.len().cmp(&b.x.len()))
    })
}

/// The rows of a part: the label, `n_features` features, then the count of each point (the
/// last column).
fn rows_of(part: &Dataset, n_features: usize) -> Result<Vec<CascadeRow>> {
    part.check_consistent()?;
    if part.n_features() != n_features + 1 {
        return Err(Error::shape(
            "cascade rows (features, then each point's count)",
            n_features + 1,
            part.n_features(),
        ));
    }
    let classes = part.targets.to_classes()?;
    let mut values = vec![0.0; n_features + 1];
    let mut rows = Vec::with_capacity(part.n_samples());
    for (i, &class) in classes.indices().iter().enumerate() {
        let label = &classes.labels()[class];
        part.records.row(i).to_dense_into(&mut values);
        let count: f64 = values[n_features];
        if !(count.is_finite() && count >= 1.0) {
            return Err(Error::invalid_parameter(
                "count",
                count,
                "each point's number of rows, at least 1",
            ));
        }
        rows.push(CascadeRow {
            label: label.clone(),
            x: values[..n_features].to_vec(),
            count,
        });
    }
    Ok(rows)
}

/// The rows as a dataset, each weighted by its count.
fn dataset(rows: &[CascadeRow]) -> Result<Dataset> {
    let x: Vec<&[f64]> = rows.iter().map(|r| r.x.as_slice()).collect();
    Dataset::new(
        DenseMatrix::from_rows(&x)?,
        Targets::Classes(Classes::from_labels(
            &rows.iter().map(|r| r.label.clone()).collect::<Vec<_>>(),
        )?),
    )?
    .with_sample_weights(rows.iter().map(|r| r.count).collect())
}

/// Whether sorted `rows` hold a point equal to `row`.
fn holds(rows: &[CascadeRow], row: &CascadeRow) -> bool {
    rows.binary_search_by(|r| order(r, row)).is_ok()
}

/// `a` and `b`, sorted, as one sorted set (a point in both kept once).
fn union(a: Vec<CascadeRow>, b: Vec<CascadeRow>) -> Vec<CascadeRow> {
    let mut all = a;
    all.extend(b);
    all.sort_by(order);
    all.dedup_by(|r, s| order(r, s).is_eq());
    all
}

/// One pass of the cascade, as every part gets it: the parameters each node fits with and
/// the rows fed back from the last pass's root.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CascadeStep {
    params: SvcParams,
    n_features: usize,
    fed: Vec<CascadeRow>,
}

/// A cascade node: a part's rows until [`CascadeStep::finish`], then the support vectors of
/// the problem on them (and, after merges, on its children's).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CascadeNode {
    rows: Vec<CascadeRow>,
    solved: bool,
}

impl CascadeNode {
    /// The node's rows, sorted.
    pub fn rows(&self) -> &[CascadeRow] {
        &self.rows
    }
}

impl CascadeStep {
    /// Refuses a step whose rows fed back do not have its width or whose parameters do not
    /// check, so that bytes not written by a fit give an error.
    fn check(&self) -> Result<()> {
        self.params.check()?;
        if let Some(r) = self.fed.iter().find(|r| r.x.len() != self.n_features) {
            return Err(Error::shape("a row fed back", self.n_features, r.x.len()));
        }
        Ok(())
    }

    /// No rows yet (a step that does not check is refused here).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] or the parameters' refusals, for bytes not written by a fit.
    pub fn zero(&self) -> Result<CascadeNode> {
        self.check()?;
        Ok(CascadeNode::default())
    }

    /// Adds a part's rows: the label, the features, then each point's count.
    ///
    /// # Errors
    /// A part of another width, a count below 1, or labels that are not classes.
    pub fn add(&self, part: &Dataset, node: &mut CascadeNode) -> Result<()> {
        node.rows.extend(rows_of(part, self.n_features)?);
        node.solved = false;
        Ok(())
    }

    /// Solves a part's node: its rows and those fed back, reduced to the support vectors.
    /// A node without rows stays empty; a solved node stays as it is.
    ///
    /// # Errors
    /// The fit's refusals (as non-finite features).
    pub fn finish(&self, node: &mut CascadeNode) -> Result<()> {
        if node.solved || node.rows.is_empty() {
            return Ok(());
        }
        let rows = union(std::mem::take(&mut node.rows), self.fed.clone());
        node.rows = self.solve(rows)?;
        node.solved = true;
        Ok(())
    }

    /// Merges two solved nodes: the problem on both sets of support vectors, solved.
    ///
    /// # Errors
    /// The fit's refusals.
    pub fn merge(&self, node: &mut CascadeNode, other: CascadeNode) -> Result<()> {
        if other.rows.is_empty() {
            return Ok(());
        }
        if node.rows.is_empty() {
            *node = other;
            return Ok(());
        }
        let rows = union(std::mem::take(&mut node.rows), other.rows);
        node.rows = self.solve(rows)?;
        node.solved = true;
        Ok(())
    }

    /// The support vectors of the problem on `rows` (sorted). Rows of one class have no
    /// problem to solve: they all go up, to meet the other classes in a merge.
    fn solve(&self, rows: Vec<CascadeRow>) -> Result<Vec<CascadeRow>> {
        if rows.iter().all(|r| r.label == rows[0].label) {
            return Ok(rows);
        }
        let model = self.params.fit(&dataset(&rows)?)?;
        let mut keep = vec![false; rows.len()];
        for &i in model.support_indices() {
            keep[i] = true;
        }
        Ok(rows
            .into_iter()
            .zip(keep)
            .filter_map(|(row, kept)| kept.then_some(row))
            .collect())
    }
}

/// The check after a pass: which rows break the model's optimality conditions.
#[derive(Debug, Serialize, Deserialize)]
pub struct ViolationStep {
    /// The model's file.
    model: Vec<u8>,
    n_features: usize,
    tol: f64,
    /// The model, read from its file once per step.
    #[serde(skip)]
    decoded: OnceLock<Svc>,
}

impl ViolationStep {
    /// The model, read and checked from its file the first time.
    fn model(&self) -> Result<&Svc> {
        if let Some(model) = self.decoded.get() {
            return Ok(model);
        }
        let model = Svc::from_bytes(&self.model)?;
        if model.n_features() != self.n_features {
            return Err(Error::shape(
                "the checked model's features",
                self.n_features,
                model.n_features(),
            ));
        }
        Ok(self.decoded.get_or_init(|| model))
    }

    /// No rows yet (a step whose model does not read is refused here).
    ///
    /// # Errors
    /// The model file's refusals, for bytes not written by a fit.
    pub fn zero(&self) -> Result<Vec<CascadeRow>> {
        self.model()?;
        Ok(Vec::new())
    }

    /// Adds the rows of a part (the label, the features, then each point's count) that break
    /// the optimality conditions with `α = 0`: `y·f(x) < 1 − tol` in a binary problem of
    /// their class, or a class the model does not have.
    ///
    /// # Errors
    /// A part of another width, a count below 1, or labels that are not classes.
    pub fn add(&self, part: &Dataset, violating: &mut Vec<CascadeRow>) -> Result<()> {
        let model = self.model()?;
        let rows = rows_of(part, self.n_features)?;
        if rows.is_empty() {
            return Ok(());
        }
        let x: Vec<&[f64]> = rows.iter().map(|r| r.x.as_slice()).collect();
        let decisions = model.problem_decisions(&DenseMatrix::from_rows(&x)?)?;
        for (i, row) in rows.into_iter().enumerate() {
            let class = model.classes().iter().position(|l| *l == row.label);
            let breaks = class.is_none_or(|c| {
                model.problems().iter().enumerate().any(|(k, p)| {
                    let y = if p.positive == c {
                        1.0
                    } else if p.negative.is_none_or(|n| n == c) {
                        -1.0
                    } else {
                        return false;
                    };
                    y * decisions.row(i)[k] < 1.0 - self.tol
                })
            });
            if breaks {
                violating.push(row);
            }
        }
        Ok(())
    }

    /// Puts a part's violating rows in their order, once all are added: the part's state
    /// then does not depend on the order its batches came in.
    pub fn finish(&self, violating: &mut [CascadeRow]) {
        violating.sort_by(order);
    }

    /// Adds another part's violating rows.
    pub fn merge(&self, violating: &mut Vec<CascadeRow>, other: Vec<CascadeRow>) {
        violating.extend(other);
        violating.sort_by(order);
    }
}

/// What one pass of a cascade fit did.
#[derive(Clone, Debug, PartialEq)]
pub struct CascadePass {
    /// Points fed back to every part from the last pass (none in the first).
    pub fed: usize,
    /// Points in the root's set, the model's training set.
    pub root: usize,
    /// Points outside the root's set that broke the optimality conditions.
    pub violating: usize,
}

/// A C-SVC fitted by a cascade, with what each pass did.
#[derive(Clone, Debug)]
pub struct CascadeFit {
    /// The model: the one the whole problem's fit gives, to the solver's tolerance.
    pub model: Svc,
    /// The passes: the last found no violating point, or gave back the root it was fed.
    pub passes: Vec<CascadePass>,
}

impl SvcParams {
    /// Fits C-SVC on a table held in parts as a cascade with feedback (see the module doc).
    /// `counts` are the classes with their numbers of rows; `n_rows`, `sum` and `sum_sq` the
    /// rows' count and the sums of every feature value and of their squares (for
    /// `gamma="scale"`). `pass` runs one pass over the parts (each part's node
    /// [`finish`](CascadeStep::finish)ed, then merged pairwise) and gives the root; `check`
    /// gives the rows a [`ViolationStep`] keeps, over every part.
    ///
    /// γ and the class weights are resolved once, on the whole table, so every node fits the
    /// same problem's parameters; the model keeps these parameters as given.
    ///
    /// # Errors
    /// Probability estimates and the first-seen label order (neither has a meaning over
    /// parts), fewer than two classes, the parameters' refusals, `pass`'s and `check`'s
    /// errors; [`Error::NotConverged`] after [`MAX_CASCADE_PASSES`] passes that still find
    /// violating points.
    pub fn fit_cascade(
        &self,
        counts: &[(Label, usize)],
        n_features: usize,
        (n_rows, sum, sum_sq): (usize, f64, f64),
        mut pass: impl FnMut(&CascadeStep) -> Result<CascadeNode>,
        mut check: impl FnMut(&ViolationStep) -> Result<Vec<CascadeRow>>,
    ) -> Result<CascadeFit> {
        self.check()?;
        if self.setup.probability {
            return Err(Error::invalid_parameter(
                "probability",
                true,
                "false for a cascade fit: the probability estimates cross-validate on every row; fit them in memory",
            ));
        }
        if self.setup.label_order == LabelOrder::FirstSeen {
            return Err(Error::invalid_parameter(
                "label_order",
                "first-seen",
                "sorted for a cascade fit: rows held in parts have no first one",
            ));
        }
        let classes = PartClasses::new(counts, &self.class_weight)?;
        let mut node_params = self.clone();
        let gamma = self.settings.kernel.gamma;
        let gamma = gamma.resolve_sums(n_rows, n_features, sum, sum_sq)?;
        node_params.settings.kernel.gamma = Gamma::Value(gamma);
        node_params.class_weight = ClassWeight::Given(
            classes
                .labels()
                .iter()
                .cloned()
                .zip(classes.weights().iter().copied())
                .collect(),
        );
        let tol = self.settings.tol;
        let mut passes = Vec::new();
        let mut fed = Vec::new();
        while passes.len() < MAX_CASCADE_PASSES {
            let step = CascadeStep {
                params: node_params.clone(),
                n_features,
                fed,
            };
            let root = pass(&step)?.rows;
            if root.is_empty() {
                return Err(Error::EmptyDataset("the cascade's root has no rows".into()));
            }
            let mut model = node_params.fit(&dataset(&root)?)?;
            let violating = check(&ViolationStep {
                model: model.to_bytes()?,
                n_features,
                tol,
                decoded: OnceLock::new(),
            })?;
            let violating = violating.iter().filter(|r| !holds(&root, r)).count();
            passes.push(CascadePass {
                fed: step.fed.len(),
                root: root.len(),
                violating,
            });
            // No point breaks its condition: optimal. Or the root came back as it was fed:
            // the cascade has converged (Graf et al.'s criterion), and the points left are
            // within the refitted model's rounding of the root's own solution (points exactly
            // on the margin, as in separable binary data), which no further pass can change.
            if violating == 0 || root == step.fed {
                model.params = SvcHyperparams::C(self.clone());
                return Ok(CascadeFit { model, passes });
            }
            fed = root;
        }
        Err(Error::NotConverged {
            iterations: passes.len(),
            message: format!(
                "the cascade still found {} violating points after {MAX_CASCADE_PASSES} passes: \
                 raise tol, or fit in memory",
                passes.last().map_or(0, |p| p.violating)
            ),
        })
    }
}

/// Runs a cascade over parts held in memory, as a query engine would: each part's node
/// finished, then merged pairwise in order. For tests.
#[cfg(test)]
pub(crate) fn in_memory_pass(parts: &[Dataset], step: &CascadeStep) -> Result<CascadeNode> {
    let mut layer = Vec::new();
    for part in parts {
        let mut node = step.zero()?;
        step.add(part, &mut node)?;
        step.finish(&mut node)?;
        layer.push(node);
    }
    while layer.len() > 1 {
        let mut next = Vec::new();
        let mut nodes = layer.into_iter();
        while let Some(mut a) = nodes.next() {
            if let Some(b) = nodes.next() {
                step.merge(&mut a, b)?;
            }
            next.push(a);
        }
        layer = next;
    }
    Ok(layer.pop().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use margin_core::Predict;
    use margin_core::generate::{Blobs, make_blobs};
    use margin_io::datasets;

    use super::*;
    use crate::svc::Multiclass;

    /// The distinct points of `data` with their counts (what a `GROUP BY` gives), dealt into
    /// `n` parts in turn, shifted by `shift`; each part's rows are the features then the count.
    fn grouped_parts(data: &Dataset, n: usize, shift: usize) -> Vec<Dataset> {
        let d = data.n_features();
        let classes = data.targets.to_classes().unwrap();
        let mut rows: Vec<CascadeRow> = (0..data.n_samples())
            .map(|i| {
                let mut x = vec![0.0; d];
                data.records.row(i).to_dense_into(&mut x);
                CascadeRow {
                    label: classes.labels()[classes.indices()[i]].clone(),
                    x,
                    count: 1.0,
                }
            })
            .collect();
        rows.sort_by(order);
        let mut distinct: Vec<CascadeRow> = Vec::new();
        for r in rows {
            match distinct.last_mut() {
                Some(last) if order(last, &r).is_eq() => last.count += 1.0,
                _ => distinct.push(r),
            }
        }
        (0..n)
            .map(|k| {
                let part: Vec<&CascadeRow> = distinct
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| (i + shift) % n == k)
                    .map(|(_, r)| r)
                    .collect();
                let x: Vec<Vec<f64>> = part
                    .iter()
                    .map(|r| r.x.iter().copied().chain([r.count]).collect())
                    .collect();
                Dataset::classification(x, part.iter().map(|r| r.label.clone())).unwrap()
            })
            .collect()
    }

    /// The cascade over `data` dealt into `n` parts, each pass run as a query engine would.
    fn cascade(params: &SvcParams, data: &Dataset, n: usize, shift: usize) -> Result<CascadeFit> {
        let parts = grouped_parts(data, n, shift);
        let classes = data.targets.to_classes()?;
        let counts: Vec<(Label, usize)> = classes
            .labels()
            .iter()
            .cloned()
            .zip(classes.counts())
            .collect();
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for i in 0..data.n_samples() {
            data.records.row(i).for_each_stored(|_, v| {
                sum += v;
                sum_sq += v * v;
            });
        }
        params.fit_cascade(
            &counts,
            data.n_features(),
            (data.n_samples(), sum, sum_sq),
            |step| in_memory_pass(&parts, step),
            |check| {
                let mut rows = check.zero()?;
                for part in &parts {
                    let mut more = Vec::new();
                    check.add(part, &mut more)?;
                    check.merge(&mut rows, more);
                }
                Ok(rows)
            },
        )
    }

    /// The cascade's model solves the whole problem: each binary problem's dual objective is
    /// the in-memory fit's to the solver's tolerance, and the predictions are the same.
    fn assert_same_optimum(params: &SvcParams, data: &Dataset, fit: &CascadeFit, rel: f64) {
        let whole = params.fit(data).unwrap();
        assert_eq!(fit.model.classes(), whole.classes());
        for (a, b) in fit.model.problems().iter().zip(whole.problems()) {
            let gap = (a.objective - b.objective).abs() / b.objective.abs();
            assert!(gap < rel, "objectives {} and {}", a.objective, b.objective);
        }
        let ours = fit.model.predict(&data.records).unwrap();
        let theirs = whole.predict(&data.records).unwrap();
        let differ = ours.iter().zip(&theirs).filter(|(a, b)| a != b).count();
        assert!(
            differ <= data.n_samples() / 100,
            "{differ} predictions differ"
        );
        let last = fit.passes.last().unwrap();
        assert!(last.violating == 0 || last.fed == last.root, "{last:?}");
        assert_eq!(fit.model.hyperparams(), whole.hyperparams());
    }

    #[test]
    fn binary_cascade_reaches_the_whole_problem_optimum() {
        let data = datasets::heart_scale().unwrap();
        for tol in [1e-3, 1e-6] {
            let params = Svc::params().c(2.0).tol(tol);
            for parts in [1, 3, 8] {
                let fit = cascade(&params, &data, parts, 0).unwrap();
                assert_same_optimum(&params, &data, &fit, 10.0 * tol);
            }
        }
    }

    #[test]
    fn multiclass_cascades_reach_the_optimum_of_every_pair() {
        let blobs = Blobs::default()
            .n_samples(300)
            .n_features(2)
            .centers(3)
            .cluster_std(6.0)
            .seed(7);
        let data = make_blobs(&blobs).unwrap();
        for multiclass in [Multiclass::OneVsOne, Multiclass::OneVsRest] {
            let params = Svc::params().multiclass(multiclass).tol(1e-6);
            let fit = cascade(&params, &data, 4, 0).unwrap();
            assert_same_optimum(&params, &data, &fit, 1e-5);
        }
    }

    /// Repeated rows are one point whose bound is their count times C: the same optimum as
    /// the rows repeated, and balanced class weights come from the whole table's counts.
    #[test]
    fn repeated_rows_and_balanced_weights_keep_the_optimum() {
        let data = datasets::heart_scale().unwrap();
        let mut rows: Vec<usize> = (0..data.n_samples()).collect();
        rows.extend((0..60).map(|i| i * 3));
        rows.extend(0..20);
        let data = data.select(&rows).unwrap();
        let params = Svc::params()
            .class_weight(ClassWeight::Balanced)
            .kernel(margin_kernels::KernelChoice::Linear)
            .tol(1e-6);
        let fit = cascade(&params, &data, 5, 0).unwrap();
        assert_same_optimum(&params, &data, &fit, 1e-5);
    }

    /// The parts' rows dealt differently give a model that still solves the problem; the same
    /// parts give the same bytes.
    #[test]
    fn the_same_parts_give_the_same_model() {
        let data = datasets::heart_scale().unwrap();
        let params = Svc::params();
        let a = cascade(&params, &data, 4, 0).unwrap();
        let b = cascade(&params, &data, 4, 0).unwrap();
        assert_eq!(a.model.to_bytes().unwrap(), b.model.to_bytes().unwrap());
        assert_eq!(a.passes, b.passes);
        let shifted = cascade(&params, &data, 4, 1).unwrap();
        assert_same_optimum(&params, &data, &shifted, 1e-2);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Any rows (points on a small grid, so repeated points and points of both classes
        /// at one place are common), any number of parts and any dealing: the cascade ends at
        /// the whole problem's dual objective.
        #[test]
        fn any_partition_of_any_rows_reaches_the_optimum(
            rows in proptest::collection::vec((-3i32..=3, -3i32..=3, proptest::bool::ANY), 6..60),
            parts in 1usize..7,
            shift in 0usize..7,
        ) {
            let x: Vec<Vec<f64>> = rows.iter().map(|&(a, b, _)| vec![f64::from(a), f64::from(b) / 2.0]).collect();
            let y: Vec<&str> = rows.iter().map(|&(_, _, c)| if c { "yes" } else { "no" }).collect();
            proptest::prop_assume!(y.contains(&"yes") && y.contains(&"no"));
            let data = Dataset::classification(x, y).unwrap();
            let params = Svc::params().c(3.0).tol(1e-8);
            let fit = cascade(&params, &data, parts, shift).unwrap();
            let whole = params.fit(&data).unwrap();
            let (a, b) = (fit.model.problems()[0].objective, whole.problems()[0].objective);
            proptest::prop_assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} vs {b}");
            let last = fit.passes.last().unwrap();
            proptest::prop_assert!(last.violating == 0 || last.fed == last.root, "{:?}", last);
        }
    }

    /// Separable points on a grid, many of them exactly on the margin (where a model refitted
    /// on the root's set can leave a point fitted with α = 0 a hair below it): the cascade
    /// ends, at the optimum.
    #[test]
    fn points_on_the_margin_do_not_keep_the_cascade_going() {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..8 {
            for j in 0..8 {
                x.push(vec![f64::from(i), f64::from(j)]);
                y.push(if i + j >= 8 { "up" } else { "down" });
            }
        }
        let data = Dataset::classification(x, y).unwrap();
        for parts in [1, 2, 3] {
            let params = Svc::params()
                .c(100.0)
                .kernel(margin_kernels::KernelChoice::Linear);
            let fit = cascade(&params, &data, parts, 0).unwrap();
            assert_same_optimum(&params, &data, &fit, 1e-2);
        }
    }

    #[test]
    fn what_parts_cannot_fit_is_refused() {
        let data = datasets::heart_scale().unwrap();
        for params in [
            Svc::params().probability(true),
            Svc::params().label_order(LabelOrder::FirstSeen),
        ] {
            let e = cascade(&params, &data, 2, 0).unwrap_err();
            assert!(matches!(e, Error::InvalidParameter { .. }), "{e}");
        }
        let one_class = data.select(&[0]).unwrap();
        assert!(cascade(&Svc::params(), &one_class, 1, 0).is_err());
        // A step from bytes not written by a fit: a row of another width.
        let step = CascadeStep {
            params: Svc::params(),
            n_features: 2,
            fed: vec![CascadeRow {
                label: Label::Number(1.0),
                x: vec![0.0],
                count: 1.0,
            }],
        };
        assert!(matches!(step.zero(), Err(Error::ShapeMismatch { .. })));
        let check = ViolationStep {
            model: b"not a model".to_vec(),
            n_features: 2,
            tol: 1e-3,
            decoded: OnceLock::new(),
        };
        assert!(check.zero().is_err());
    }
}
