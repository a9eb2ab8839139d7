//! Fits a small tree on the bundled heart_scale data, prints it as text, writes `tree.dot`
//! and, when Graphviz's `dot` is on the PATH, renders `tree.svg`.
//!
//! ```text
//! cargo run -p margin-tree --example tree_export
//! ```

use std::process::Command;

use margin_core::Fit;

use margin_io::datasets;
use margin_tree::{Criterion, DecisionTreeClassifier, export_dot, export_text};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = datasets::heart_scale()?;
    let model = DecisionTreeClassifier::params()
        .criterion(Criterion::Entropy)
        .max_depth(Some(3))
        .fit(&data)?;
    print!("{}", export_text(model.tree(), &model.export_options()));
    std::fs::write(
        "tree.dot",
        export_dot(model.tree(), &model.export_options()),
    )?;
    println!("wrote tree.dot");
    match Command::new("dot")
        .args(["-Tsvg", "tree.dot", "-o", "tree.svg"])
        .status()
    {
        Ok(status) if status.success() => println!("wrote tree.svg"),
        Ok(status) => println!("dot failed ({status}); tree.svg not written"),
        Err(_) => println!("Graphviz `dot` is not on the PATH; skipping tree.svg"),
    }
    Ok(())
}
