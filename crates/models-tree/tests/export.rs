//! Text and DOT renderings of a tree, and the feature names a fitted model keeps for them.

use margin_core::{Dataset, DenseMatrix, Fit, Targets};
use margin_io::ModelFile;
use margin_tree::{
    AdaBoostClassifier, Criterion, DecisionTreeClassifier, DecisionTreeRegressor, ExportOptions,
    RandomForestClassifier, RandomForestRegressor, export_dot, export_text,
};

use crate::common::toy;

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

fn named_toy() -> Dataset {
    toy()
        .with_feature_names(vec!["petal_width".into(), "petal_length".into()])
        .unwrap()
}

/// A model keeps the names of the dataset it was fitted on (scikit-learn's
/// `feature_names_in_`) and its export options start from them.
#[test]
fn trees_export_the_names_of_the_dataset_they_were_fitted_on() {
    let data = named_toy();
    let names = data.feature_names.clone().unwrap();
    let classifier = DecisionTreeClassifier::params().fit(&data).unwrap();
    assert_eq!(classifier.feature_names(), Some(&names[..]));
    let text = export_text(classifier.tree(), &classifier.export_options());
    assert!(text.starts_with("|--- petal_width <= 4.50\n"), "{text}");
    assert!(text.contains("petal_length <= 3.00"), "{text}");
    assert!(!text.contains("feature_"), "{text}");
    let dot = export_dot(classifier.tree(), &classifier.export_options());
    assert!(dot.contains("petal_width <= 4.50"), "{dot}");

    let mut values = data.clone();
    values.targets = Targets::Values((0..12).map(f64::from).collect());
    let regressor = DecisionTreeRegressor::params()
        .max_depth(Some(1))
        .fit(&values)
        .unwrap();
    assert_eq!(regressor.feature_names(), Some(&names[..]));
    let text = export_text(regressor.tree(), &regressor.export_options());
    assert!(text.starts_with("|--- petal_"), "{text}");
}

#[test]
fn without_names_features_are_numbered_and_given_names_override_the_stored_ones() {
    let plain = DecisionTreeClassifier::params().fit(&toy()).unwrap();
    assert_eq!(plain.feature_names(), None);
    let text = export_text(plain.tree(), &plain.export_options());
    assert!(text.starts_with("|--- feature_0 <= 4.50\n"), "{text}");

    let named = DecisionTreeClassifier::params().fit(&named_toy()).unwrap();
    let mine = vec!["age".to_string(), "dose".to_string()];
    let text = export_text(named.tree(), &named.export_options().feature_names(&mine));
    assert!(text.starts_with("|--- age <= 4.50\n"), "{text}");
    assert!(!text.contains("petal"), "{text}");
}

#[test]
fn saved_and_loaded_trees_keep_their_names() {
    let data = named_toy();
    let classifier = DecisionTreeClassifier::params().fit(&data).unwrap();
    let back = DecisionTreeClassifier::from_bytes(&classifier.to_bytes().unwrap()).unwrap();
    assert_eq!(back.feature_names(), classifier.feature_names());
    assert_eq!(
        export_text(back.tree(), &back.export_options()),
        export_text(classifier.tree(), &classifier.export_options())
    );
    let mut values = data.clone();
    values.targets = Targets::Values((0..12).map(f64::from).collect());
    let regressor = DecisionTreeRegressor::params().fit(&values).unwrap();
    let back = DecisionTreeRegressor::from_bytes(&regressor.to_bytes().unwrap()).unwrap();
    assert_eq!(back.feature_names(), Some(&data.feature_names.unwrap()[..]));
}

/// Forests and AdaBoost keep the names too, and name them in the export of any of their trees.
#[test]
fn ensembles_name_the_features_of_their_trees() {
    let data = named_toy();
    let names = data.feature_names.clone().unwrap();
    let starts_named = |tree: &margin_tree::Tree, opts: &ExportOptions<'_>| {
        let text = export_text(tree, opts);
        assert!(text.starts_with("|--- petal_"), "{text}");
    };
    let forest = RandomForestClassifier::params()
        .n_estimators(3)
        .fit(&data)
        .unwrap();
    let forest = RandomForestClassifier::from_bytes(&forest.to_bytes().unwrap()).unwrap();
    assert_eq!(forest.feature_names(), Some(&names[..]));
    starts_named(&forest.trees()[2], &forest.export_options());
    assert!(export_dot(&forest.trees()[0], &forest.export_options()).contains("gini = "));

    let mut values = data.clone();
    values.targets = Targets::Values((0..12).map(f64::from).collect());
    let forest = RandomForestRegressor::params()
        .n_estimators(2)
        .fit(&values)
        .unwrap();
    let forest = RandomForestRegressor::from_bytes(&forest.to_bytes().unwrap()).unwrap();
    assert_eq!(forest.feature_names(), Some(&names[..]));
    starts_named(&forest.trees()[1], &forest.export_options());

    let boosted = AdaBoostClassifier::params()
        .n_estimators(3)
        .fit(&data)
        .unwrap();
    let boosted = AdaBoostClassifier::from_bytes(&boosted.to_bytes().unwrap()).unwrap();
    assert_eq!(boosted.feature_names(), Some(&names[..]));
    starts_named(&boosted.trees()[0], &boosted.export_options());
    let plain = AdaBoostClassifier::params()
        .n_estimators(3)
        .fit(&toy())
        .unwrap();
    assert_eq!(plain.feature_names(), None);
}
