//! `margin tree-export MODEL [--dot] [--tree N]`: a saved tree as text (scikit-learn's
//! `export_text` layout) or Graphviz DOT (`dot -Tsvg` draws it). For a forest or AdaBoost
//! model, `--tree N` picks one of its trees (default the first). Features are named as in the
//! training data when it had names (a CSV file's header), else `feature_0`, `feature_1`, ….

use std::path::PathBuf;

use clap::Args;
use margin_io::ModelFile;
use margin_tree::{
    AdaBoostClassifier, DecisionTreeClassifier, DecisionTreeRegressor, ExportOptions,
    RandomForestClassifier, RandomForestRegressor, Tree, export_dot, export_text,
};

use crate::Failure;
use crate::output::Out;

/// Arguments of `margin tree-export`.
#[derive(Args, Debug)]
pub struct TreeExportArgs {
    /// A model file written by `margin train tree|tree-regressor|forest|forest-regressor|adaboost`.
    model: PathBuf,
    /// Write Graphviz DOT instead of text.
    #[arg(long)]
    dot: bool,
    /// Which tree of a forest or AdaBoost model (0-based).
    #[arg(long, default_value_t = 0)]
    tree: usize,
    /// Decimals of thresholds and values (0 to 17, the most an f64 holds).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=17))]
    decimals: u8,
}

fn pick(trees: &[Tree], i: usize) -> Result<&Tree, Failure> {
    trees.get(i).ok_or_else(|| {
        Failure::usage(format!(
            "--tree {i}: the model has {} tree(s), numbered from 0",
            trees.len()
        ))
    })
}

/// Prints the chosen tree of the model file.
pub fn run(args: &TreeExportArgs) -> Result<(), Failure> {
    let path = &args.model;
    let bytes = margin_io::read_model_file(path).map_err(|e| Failure::in_file(path, e))?;
    let kind = margin_io::peek_kind(&bytes).map_err(|e| Failure::in_file(path, e))?;
    let load = |e| Failure::in_file(path, e);
    let render = |tree: &Tree, opts: ExportOptions<'_>| {
        let opts = opts.decimals(usize::from(args.decimals));
        if args.dot {
            export_dot(tree, &opts)
        } else {
            export_text(tree, &opts)
        }
    };
    let text = match kind.as_str() {
        DecisionTreeClassifier::KIND => {
            let m = DecisionTreeClassifier::from_bytes(&bytes).map_err(load)?;
            render(
                pick(std::slice::from_ref(m.tree()), args.tree)?,
                m.export_options(),
            )
        }
        DecisionTreeRegressor::KIND => {
            let m = DecisionTreeRegressor::from_bytes(&bytes).map_err(load)?;
            render(
                pick(std::slice::from_ref(m.tree()), args.tree)?,
                m.export_options(),
            )
        }
        RandomForestClassifier::KIND => {
            let m = RandomForestClassifier::from_bytes(&bytes).map_err(load)?;
            render(pick(m.trees(), args.tree)?, m.export_options())
        }
        RandomForestRegressor::KIND => {
            let m = RandomForestRegressor::from_bytes(&bytes).map_err(load)?;
            render(pick(m.trees(), args.tree)?, m.export_options())
        }
        AdaBoostClassifier::KIND => {
            let m = AdaBoostClassifier::from_bytes(&bytes).map_err(load)?;
            render(pick(m.trees(), args.tree)?, m.export_options())
        }
        other => {
            return Err(Failure::usage(format!(
                "{}: a `{other}` model holds no decision tree",
                path.display()
            )));
        }
    };
    let mut out = Out::stdout();
    out.write_all(text.as_bytes())?;
    out.finish()
}
