//! Rendering a tree as indented text (scikit-learn's `export_text` layout) or as Graphviz DOT
//! (`export_graphviz`'s), for reading or drawing with `dot -Tsvg`.

use std::fmt::Write;

use margin_core::{Dataset, Label, Result, model_check};
use serde::{Deserialize, Serialize};

use crate::criterion::Criterion;
use crate::tree::{Node, Tree};

/// What a rendering shows: names for features and classes, the impurity's name, and how
/// many decimals numbers get.
#[derive(Clone, Debug)]
pub struct ExportOptions<'a> {
    feature_names: Option<&'a [String]>,
    class_labels: Option<&'a [Label]>,
    criterion: Option<Criterion>,
    decimals: usize,
}

impl Default for ExportOptions<'_> {
    fn default() -> Self {
        Self {
            feature_names: None,
            class_labels: None,
            criterion: None,
            decimals: 2,
        }
    }
}

impl<'a> ExportOptions<'a> {
    /// Names features (default `feature_0`, `feature_1`, …); a list of the wrong length is
    /// ignored. A fitted model's `export_options()` starts from the names of the dataset it
    /// was fitted on, when it had them; names given here replace those.
    pub fn feature_names(mut self, names: &'a [String]) -> Self {
        self.feature_names = Some(names);
        self
    }
    /// Labels classes by index (a classifier's `classes()`; default the class index).
    pub fn class_labels(mut self, labels: &'a [Label]) -> Self {
        self.class_labels = Some(labels);
        self
    }
    /// Names the impurity after the criterion (default `impurity`).
    pub fn criterion(mut self, c: Criterion) -> Self {
        self.criterion = Some(c);
        self
    }
    /// Decimals of thresholds and values (default 2).
    pub fn decimals(mut self, d: usize) -> Self {
        self.decimals = d;
        self
    }

    fn feature(&self, tree: &Tree, j: usize) -> String {
        match self.feature_names {
            Some(names) if names.len() == tree.n_features() => names[j].clone(),
            _ => format!("feature_{j}"),
        }
    }

    fn class(&self, k: usize) -> String {
        match self.class_labels {
            Some(labels) if k < labels.len() => labels[k].to_string(),
            _ => k.to_string(),
        }
    }

    fn is_classifier(&self, tree: &Tree) -> bool {
        self.class_labels.is_some()
            || self.criterion.is_some_and(Criterion::is_classification)
            || tree.n_values() > 1
    }

    /// A leaf's summary: its majority class, or its value.
    fn outcome(&self, tree: &Tree, node: Node<'_>) -> String {
        let v = node.value();
        if self.is_classifier(tree) {
            let best = (0..v.len()).fold(0, |b, k| if v[k] > v[b] { k } else { b });
            format!("class: {}", self.class(best))
        } else {
            let vals: Vec<String> = v.iter().map(|x| format!("{x:.*}", self.decimals)).collect();
            format!("value: [{}]", vals.join(", "))
        }
    }
}

/// The names of the features a tree model was fitted on (the dataset's `feature_names`, when it
/// had them), kept in the model, and in its file, so that exports show them (as
/// scikit-learn's `feature_names_in_`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct FeatureNames(
    #[serde(deserialize_with = "margin_core::stored::optional_strings")]
    pub(crate)  Option<Vec<String>>,
);

impl FeatureNames {
    /// The names `data` carries.
    pub(crate) fn of(data: &Dataset) -> Self {
        Self(data.feature_names.clone())
    }

    /// One name per feature, if the training data had them.
    pub(crate) fn get(&self) -> Option<&[String]> {
        self.0.as_deref()
    }

    /// A loaded model's names: one per feature, if any.
    pub(crate) fn check(&self, n_features: usize) -> Result<()> {
        match self.get() {
            Some(names) => model_check::len("feature_names", names.len(), n_features),
            None => Ok(()),
        }
    }

    /// Export options naming the features by these names (the defaults when there are none).
    pub(crate) fn export_options(&self) -> ExportOptions<'_> {
        let opts = ExportOptions::default();
        match self.get() {
            Some(names) => opts.feature_names(names),
            None => opts,
        }
    }
}

/// A split's test and its negation (`feature_0 <= 4.50` / `feature_0 >  4.50`, or
/// `feature_3 in {0,2,5}` / `feature_3 not in {0,2,5}`); `None` for a leaf.
fn conditions(tree: &Tree, node: Node<'_>, opts: &ExportOptions<'_>) -> Option<(String, String)> {
    let name = opts.feature(tree, node.feature()?);
    if let Some(t) = node.threshold() {
        let t = format!("{t:.*}", opts.decimals);
        return Some((format!("{name} <= {t}"), format!("{name} >  {t}")));
    }
    let set: Vec<String> = node.left_categories()?.iter().map(u32::to_string).collect();
    let set = set.join(",");
    Some((
        format!("{name} in {{{set}}}"),
        format!("{name} not in {{{set}}}"),
    ))
}

/// The tree as indented text, one line per branch and leaf, as scikit-learn's `export_text`:
///
/// ```text
/// |--- feature_0 <= 4.50
/// |   |--- class: 0
/// |--- feature_0 >  4.50
/// |   |--- class: 1
/// ```
///
/// A categorical split reads `feature_3 in {0,2,5}` / `feature_3 not in {0,2,5}` (the codes
/// that go left).
pub fn export_text(tree: &Tree, opts: &ExportOptions<'_>) -> String {
    enum Item {
        Node(usize, usize),
        Line(String),
    }
    let indent = |depth: usize| format!("{}|---", "|   ".repeat(depth - 1));
    let mut out = String::new();
    // An explicit stack rather than recursion: a degenerate tree may be thousands deep.
    let mut stack = vec![Item::Node(0, 1)];
    while let Some(item) = stack.pop() {
        let (id, depth) = match item {
            Item::Line(line) => {
                out.push_str(&line);
                continue;
            }
            Item::Node(id, depth) => (id, depth),
        };
        let node = tree.node(id);
        match (node.children(), conditions(tree, node, opts)) {
            (Some((l, r)), Some((yes, no))) => {
                let _ = writeln!(out, "{} {yes}", indent(depth));
                stack.push(Item::Node(r, depth + 1));
                stack.push(Item::Line(format!("{} {no}\n", indent(depth))));
                stack.push(Item::Node(l, depth + 1));
            }
            _ => {
                let _ = writeln!(out, "{} {}", indent(depth), opts.outcome(tree, node));
            }
        }
    }
    out
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The tree in Graphviz DOT, one box per node (split, impurity, samples, value, class) and
/// edges labelled True/False at the root, as scikit-learn's `export_graphviz`. Render with
/// `dot -Tsvg tree.dot -o tree.svg`.
pub fn export_dot(tree: &Tree, opts: &ExportOptions<'_>) -> String {
    let impurity = opts.criterion.map_or("impurity", Criterion::name);
    let mut out = String::from(
        "digraph Tree {\nnode [shape=box, style=\"rounded\", fontname=\"helvetica\"] ;\n\
         edge [fontname=\"helvetica\"] ;\n",
    );
    let num = |x: f64| format!("{x:.*}", opts.decimals);
    for node in tree.nodes() {
        let mut lines = Vec::new();
        if let Some((yes, _)) = conditions(tree, node, opts) {
            lines.push(yes);
        }
        lines.push(format!("{impurity} = {}", num(node.impurity())));
        lines.push(format!("samples = {}", node.n_samples()));
        let values: Vec<String> = node.value().iter().map(|&v| num(v)).collect();
        lines.push(format!("value = [{}]", values.join(", ")));
        if opts.is_classifier(tree) {
            lines.push(opts.outcome(tree, node).replace(": ", " = "));
        }
        let label = lines
            .iter()
            .map(|l| dot_escape(l))
            .collect::<Vec<_>>()
            .join("\\n");
        let _ = writeln!(out, "{} [label=\"{label}\"] ;", node.id());
        if let Some((l, r)) = node.children() {
            let (tl, tr) = if node.id() == 0 {
                (
                    " [labeldistance=2.5, labelangle=45, headlabel=\"True\"]",
                    " [labeldistance=2.5, labelangle=-45, headlabel=\"False\"]",
                )
            } else {
                ("", "")
            };
            let _ = writeln!(out, "{} -> {l}{tl} ;", node.id());
            let _ = writeln!(out, "{} -> {r}{tr} ;", node.id());
        }
    }
    out.push_str("}\n");
    out
}
