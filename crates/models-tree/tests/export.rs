//! Text and DOT renderings of a tree.

use margin_core::{Dataset, DenseMatrix, Fit, Targets};
use margin_tree::{
    Criterion, DecisionTreeClassifier, DecisionTreeRegressor, ExportOptions, export_dot,
    export_text,
};

fn toy() -> Dataset {
    let x2 = [
        5.0, 3.0, 8.0, 1.0, 9.0, 2.0, 7.0, 4.0, 6.0, 10.0, 12.0, 11.0,
    ];
    let rows: Vec<Vec<f64>> = (0..12).map(|i| vec![i as f64 + 1.0, x2[i]]).collect();
    let y = vec![0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0];
    Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), Targets::Values(y)).unwrap()
}

/// Byte for byte what scikit-learn 1.9.1's `export_text` prints for the same tree
/// (DecisionTreeClassifier(criterion="entropy") on this toy set).
#[test]
fn text_matches_scikit_learn_export_text() {
    let model = DecisionTreeClassifier::params()
        .criterion(Criterion::Entropy)
        .fit(&toy())
        .unwrap();
    let want = "\
|--- feature_0 <= 4.50
|   |--- class: 0
|--- feature_0 >  4.50
|   |--- feature_1 <= 3.00
|   |   |--- class: 0
|   |--- feature_1 >  3.00
|   |   |--- feature_1 <= 11.50
|   |   |   |--- class: 1
|   |   |--- feature_1 >  11.50
|   |   |   |--- class: 0
";
    assert_eq!(export_text(model.tree(), &model.export_options()), want);
    let names = vec!["age".to_string(), "dose".to_string()];
    let named = export_text(model.tree(), &model.export_options().feature_names(&names));
    assert!(named.starts_with("|--- age <= 4.50\n"), "{named}");
}

#[test]
fn regression_leaves_show_values() {
    let x = DenseMatrix::from_rows(&[[1.0], [2.0], [3.0], [4.0]]).unwrap();
    let data = Dataset::new(x, Targets::Values(vec![1.0, 1.0, 5.0, 5.0])).unwrap();
    let model = DecisionTreeRegressor::params().fit(&data).unwrap();
    assert_eq!(
        export_text(model.tree(), &model.export_options()),
        "|--- feature_0 <= 2.50\n|   |--- value: [1.00]\n|--- feature_0 >  2.50\n|   |--- value: [5.00]\n"
    );
}

#[test]
fn dot_has_one_box_per_node_and_one_edge_per_child() {
    let model = DecisionTreeClassifier::params().fit(&toy()).unwrap();
    let dot = export_dot(model.tree(), &model.export_options());
    assert!(dot.starts_with("digraph Tree {\n") && dot.ends_with("}\n"));
    let n = model.tree().n_nodes();
    assert_eq!(dot.matches("[label=").count(), n);
    assert_eq!(dot.matches(" -> ").count(), n - 1);
    assert!(dot.contains("0 [label=\"feature_0 <= 4.50\\ngini = 0.50\\nsamples = 12\\nvalue = [6.00, 6.00]\\nclass = 0\"] ;"), "{dot}");
    assert!(dot.contains("headlabel=\"True\""));
    // Quotes in names are escaped.
    let names = vec!["a \"b\"".to_string(), "c".to_string()];
    let dot = export_dot(
        model.tree(),
        &ExportOptions::default().feature_names(&names),
    );
    assert!(dot.contains("a \\\"b\\\" <= 4.50"), "{dot}");
}
