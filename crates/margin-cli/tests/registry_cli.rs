//! The command line follows margin-any's registry: every estimator that predicts (and PCA,
//! which `margin transform` applies) is offered by `margin train`, under the registry's name,
//! with the registry's parameters in its help and in `margin params`, and writes model files of
//! the registry's kind.

use margin_any::registry::{Role, estimators};

use crate::common;

use common::{margin, s, stdout};

/// The estimators `margin train` must offer.
fn offered() -> impl Iterator<Item = &'static margin_any::registry::Estimator> {
    estimators()
        .iter()
        .filter(|e| e.role != Role::Transformer || e.name == "pca")
}

#[test]
fn every_registered_estimator_is_trainable_with_its_parameters() {
    let list = stdout(&margin(&["train", "--help"]));
    for estimator in offered() {
        let name = estimator.name;
        assert!(
            list.lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "`margin train --help` does not list {name}:\n{list}"
        );
        let described = estimator.params().describe();
        let help = stdout(&margin(&["train", name, "--help"]));
        for param in &described {
            let flag = format!("--{} ", param.flag);
            assert!(help.contains(&flag), "{name}: no {flag} in\n{help}");
        }
        // `margin params` lists the same parameters (serde_json reads them in name order).
        let json: serde_json::Value =
            serde_json::from_str(&stdout(&margin(&["params", name]))).unwrap();
        let mut listed: Vec<&str> = json
            .as_object()
            .unwrap_or_else(|| panic!("{name}: {json}"))
            .keys()
            .map(String::as_str)
            .collect();
        let mut names: Vec<&str> = described.iter().map(|p| p.name).collect();
        listed.sort_unstable();
        names.sort_unstable();
        assert_eq!(listed, names, "{name}");
    }
}

#[test]
fn every_offered_estimator_writes_its_registered_kind() {
    let dir = tempfile::tempdir().unwrap();
    // Counts (multinomial naive Bayes takes nothing else) in two classes of 30 samples.
    let data = dir.path().join("counts.libsvm");
    let rows: Vec<String> = (0..60)
        .map(|i| {
            format!(
                "{} 1:{} 2:{} 3:{}",
                i / 30,
                i % 7 + 5 * (i / 30),
                i % 4,
                i % 3
            )
        })
        .collect();
    std::fs::write(&data, rows.join("\n") + "\n").unwrap();
    for estimator in offered() {
        let name = estimator.name;
        let model = dir.path().join(format!("{name}.margin"));
        // Regressors fit the labels as values.
        let mut args = vec!["train", name];
        if estimator.role == Role::Clusterer {
            args.extend(["--n-clusters", "3"]);
        }
        args.extend([s(&data), "-o", s(&model)]);
        let out = margin(&args);
        assert!(out.status.success(), "{name}: {out:?}");
        let info = stdout(&margin(&["info", s(&model)]));
        let kind = format!("model: {} ", estimator.kind());
        assert!(info.contains(&kind), "{name}: expected `{kind}` in\n{info}");
    }
}
