//! The model registry against the parameter descriptions: every model `margin train` lists
//! describes its parameters, `--help` shows each of them, `margin params` prints the values
//! `train` starts from, and training from that file gives the same model file byte for byte as
//! training with no parameters. Every model file keeps the parameters it was trained with:
//! `margin info` shows a value other than the default, and its `--params-json` trains the same
//! model again.

use crate::common;

use std::path::Path;

use common::{fails_with, margin, stdout};

// The benchmark's coverage table: plain data, shared with the `e2e` bench binary.
#[path = "../../../benches/src/coverage.rs"]
mod bench_coverage;

/// The models `margin train --help` lists.
fn models() -> Vec<String> {
    let help = stdout(&margin(&["train", "--help"]));
    help.lines()
        .skip_while(|l| !l.starts_with("models:"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// A small data set every model fits: 150 rows of DNA (3 classes, 0/1 features), read by
/// every family (counts for naive Bayes, labels 1–3 as values for regressors).
fn small_dna(dir: &Path) -> String {
    let text = std::fs::read_to_string(common::root().join("datasets/dna.scale")).unwrap();
    let path = dir.join("dna150.svm");
    let rows: Vec<&str> = text.lines().take(150).collect();
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    path.to_str().unwrap().to_owned()
}

/// `(name, value)` pairs of a JSON object `margin params` printed (one pair per line).
fn pairs(json: &str) -> Vec<(String, String)> {
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(json).expect("margin params prints a JSON object");
    object
        .into_iter()
        .map(|(k, v)| {
            let text = match v {
                serde_json::Value::Null => "none".to_owned(),
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            (k, text)
        })
        .collect()
}

fn train(model: &str, extra: &[&str], data: &str, out: &Path) -> Vec<u8> {
    let mut args = vec!["train", model];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[data, "-o", out.to_str().unwrap()]);
    stdout(&margin(&args));
    std::fs::read(out).unwrap()
}

/// What is wrong with one model's parameter descriptions, if anything.
fn check_model(model: &str, data: &str, dir: &Path) -> Result<(), String> {
    let described = margin(&["params", model]);
    if !described.status.success() {
        return Err(String::from_utf8_lossy(&described.stderr).trim().to_owned());
    }
    let json = String::from_utf8(described.stdout).unwrap();
    let pairs = pairs(&json);
    if pairs.is_empty() {
        return Err("no parameters".into());
    }
    let help = stdout(&margin(&["train", model, "--help"]));
    for (name, _) in &pairs {
        let flag = format!("--{} ", name.to_lowercase().replace('_', "-"));
        if !help.contains(&flag) {
            return Err(format!("--help lacks {flag}"));
        }
    }
    let plain = train(model, &[], data, &dir.join("plain"));
    let file = dir.join("params.json");
    std::fs::write(&file, &json).unwrap();
    let from_file = train(
        model,
        &["--params", file.to_str().unwrap()],
        data,
        &dir.join("from_file"),
    );
    if plain != from_file {
        return Err("--params with its own defaults gives another model".into());
    }
    Ok(())
}

#[test]
fn every_model_describes_its_parameters_and_starts_from_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = small_dna(dir.path());
    let models = models();
    assert!(models.len() >= 30, "{models:?}");
    let failures: Vec<String> = models
        .iter()
        .filter_map(|m| {
            check_model(m, &data, dir.path())
                .err()
                .map(|e| format!("{m}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A value other than `default` (as `pairs` gives it) that a parameter of that type may take,
/// if one is guessed: a flipped boolean, an integer one larger, a number twice as large.
fn another_value(default: &str) -> Option<String> {
    match default {
        "true" => Some("false".into()),
        "false" => Some("true".into()),
        _ => {
            if let Ok(n) = default.parse::<u64>() {
                return Some((n + 1).to_string());
            }
            let x: f64 = default
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x != 0.0)?;
            Some(serde_json::Value::from(2.0 * x).to_string())
        }
    }
}

/// Trains `model` with the first parameter, in `margin params` order, whose guessed other
/// value (see [`another_value`]) trains, then checks that `margin info` on the file shows it,
/// and that training from `margin info --params-json` gives the same file.
fn check_stored(model: &str, data: &str, dir: &Path) -> Result<(), String> {
    let defaults = pairs(&stdout(&margin(&["params", model])));
    let out = dir.join(format!("{model}.margin"));
    let out_text = out.to_str().unwrap();
    let (name, value) = defaults
        .iter()
        .filter_map(|(name, default)| Some((name, another_value(default)?)))
        .find(|(name, value)| {
            let flag = format!("--{}", name.to_lowercase().replace('_', "-"));
            margin(&["train", model, &flag, value, data, "-o", out_text])
                .status
                .success()
        })
        .ok_or("no parameter took another value")?;
    let info = stdout(&margin(&["info", out_text]));
    let line = format!("  {name} = {value}");
    if !info.lines().any(|l| l == line) {
        return Err(format!(
            "trained with {name} = {value}; `margin info` shows\n{info}"
        ));
    }
    let json = stdout(&margin(&["info", out_text, "--params-json"]));
    let stored = pairs(&json);
    let names = |p: &[(String, String)]| p.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if names(&stored) != names(&defaults) {
        return Err(format!("--params-json lists {:?}", names(&stored)));
    }
    let file = dir.join(format!("{model}.json"));
    std::fs::write(&file, &json).unwrap();
    let again = train(
        model,
        &["--params", file.to_str().unwrap()],
        data,
        &dir.join("again"),
    );
    if again != std::fs::read(&out).unwrap() {
        return Err(format!(
            "training from `margin info --params-json` ({name} = {value}) gives another model"
        ));
    }
    Ok(())
}

#[test]
fn every_model_file_keeps_the_parameters_it_was_trained_with() {
    let dir = tempfile::tempdir().unwrap();
    let data = small_dna(dir.path());
    let failures: Vec<String> = models()
        .iter()
        .filter_map(|m| {
            check_stored(m, &data, dir.path())
                .err()
                .map(|e| format!("{m}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn predict_can_show_the_parameters_and_info_refuses_mismatched_flags() {
    let dir = tempfile::tempdir().unwrap();
    let data = small_dna(dir.path());
    let model = dir.path().join("ridge.margin");
    let model_text = model.to_str().unwrap();
    train("ridge", &["--alpha", "0.25"], &data, &model);
    let plain = margin(&["predict", model_text, &data]);
    let shown = margin(&["predict", model_text, &data, "--show-params"]);
    assert!(plain.status.success() && shown.status.success());
    // stdout is the same with or without the flag; the parameters go to stderr.
    assert_eq!(plain.stdout, shown.stdout);
    assert!(plain.stderr.is_empty());
    let err = String::from_utf8(shown.stderr).unwrap();
    assert!(
        err.starts_with("parameters:\n") && err.lines().any(|l| l == "  alpha = 0.25"),
        "{err}"
    );
    fails_with(&["info", &data, "--params-json"], 2, "is not one");
    fails_with(
        &["info", model_text, "--features"],
        2,
        "this is a model file",
    );
    // A model file whose stored parameters `fit` would refuse is refused by info and predict.
    let bytes = std::fs::read(&model).unwrap();
    let body = margin_io::body_of(&bytes).unwrap();
    let quarter = 0.25f64.to_le_bytes();
    let at = body.windows(8).rposition(|w| w == quarter).unwrap();
    let mut forged = body.to_vec();
    forged[at..at + 8].copy_from_slice(&(-1.0f64).to_le_bytes());
    let kind = margin_io::peek_kind(&bytes).unwrap();
    let schema = u32::from_le_bytes(bytes[14 + kind.len()..18 + kind.len()].try_into().unwrap());
    std::fs::write(&model, margin_io::seal(&kind, schema, &forged).unwrap()).unwrap();
    fails_with(&["info", model_text], 2, "`params` is invalid");
    fails_with(&["predict", model_text, &data], 2, "`alpha` = -1");
}

#[test]
fn command_line_values_override_the_file_and_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let data = small_dna(dir.path());
    let file = dir.path().join("ridge.json");
    let refused = |needle: &str| {
        let args = [
            "train",
            "ridge",
            "--params",
            file.to_str().unwrap(),
            &data,
            "-o",
            "/dev/null",
        ];
        fails_with(&args, 2, needle);
    };
    std::fs::write(&file, "{\"alpha\": -1}").unwrap();
    // The file's value is refused like a flag's, naming the parameter and its range.
    refused("--alpha: expected");
    // A flag wins over the file.
    let out = dir.path().join("m");
    let with_file = train(
        "ridge",
        &["--params", file.to_str().unwrap(), "--alpha", "2"],
        &data,
        &out,
    );
    let direct = train("ridge", &["--alpha", "2"], &data, &out);
    assert!(with_file == direct);
    fails_with(&["params", "no-such-model"], 2, "unknown model");
    std::fs::write(&file, "[]").unwrap();
    refused("not a JSON object");
}

/// The mean of the first metric in `margin evaluate`'s fold table.
fn plain_mean(args: &[&str]) -> String {
    let text = stdout(&margin(args));
    let line = text.lines().find(|l| l.starts_with("mean")).unwrap();
    line.split_whitespace().nth(1).unwrap().to_owned()
}

#[test]
fn each_grid_point_scores_as_its_own_evaluation() {
    let base = [
        "evaluate",
        "svc",
        "datasets/heart_scale",
        "--cv",
        "3",
        "--seed",
        "7",
    ];
    let mut args = base.to_vec();
    args.extend(["--grid", "C=0.5,2 gamma=0.05,scale"]);
    let text = stdout(&margin(&args));
    let rows: Vec<&str> = text.lines().skip(1).take(4).collect();
    for (row, (c, gamma)) in rows.iter().zip([
        ("0.5", "0.05"),
        ("0.5", "scale"),
        ("2", "0.05"),
        ("2", "scale"),
    ]) {
        assert!(row.starts_with(&format!("c={c} gamma={gamma} ")), "{row}");
        let mut alone = base.to_vec();
        alone.extend(["--c", c, "--gamma", gamma]);
        let mean = row.split_whitespace().nth(2).unwrap();
        assert_eq!(mean, plain_mean(&alone), "{row}");
    }
    let means: Vec<f64> = rows
        .iter()
        .map(|r| r.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    let best = rows[(0..4).fold(0, |b, i| if means[i] > means[b] { i } else { b })];
    let best_settings: Vec<&str> = best.split_whitespace().take(2).collect();
    assert!(
        text.contains(&format!("best: {} ", best_settings.join(" "))),
        "{text}"
    );
    fails_with(
        &[&base[..], &["--grid", "C=-1"]].concat(),
        2,
        "grid point c=-1: cross-validation fold",
    );
    fails_with(
        &[&base[..], &["--grid", "C=1", "--roc", "/tmp/x.svg"]].concat(),
        2,
        "--grid goes without --roc",
    );
}

/// Every model `margin train` lists is timed by a case of `cargo xtask bench` or has its
/// reason in `benches/src/coverage.rs`, and that table names no model the registry lacks.
#[test]
fn the_bench_times_every_registered_model_or_says_why_not() {
    use bench_coverage::{BENCHED, NOT_BENCHED};
    let models = models();
    let timed: Vec<&str> = BENCHED
        .iter()
        .flat_map(|(_, entries)| entries.iter().copied())
        .collect();
    for model in &models {
        let reasons = NOT_BENCHED.iter().filter(|(name, _)| name == model).count();
        let in_bench = timed.contains(&model.as_str());
        assert!(
            in_bench != (reasons == 1),
            "{model}: timed by a bench case ({in_bench}) or given one reason ({reasons}), exactly one"
        );
    }
    for name in timed.iter().chain(NOT_BENCHED.iter().map(|(name, _)| name)) {
        assert!(
            models.iter().any(|m| m == name),
            "{name} is not a registered model"
        );
    }
}

/// A LIBSVM model file records only the formulation, the kernel and whether it has a
/// probability model: `margin info` shows those, and the other parameters at their defaults.
#[test]
fn info_shows_the_parameters_a_libsvm_model_file_implies() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("heart.model");
    let model_text = model.to_str().unwrap();
    let args = ["svm-train", "-s", "3", "-c", "4", "-g", "0.5", "-b", "1"];
    stdout(&margin(
        &[&args[..], &["datasets/heart_scale", model_text]].concat(),
    ));
    let info = stdout(&margin(&["info", model_text]));
    assert!(
        info.contains("model: epsilon_svr (LIBSVM model file"),
        "{info}"
    );
    for line in [
        "  kernel = rbf",
        "  gamma = 0.5",
        "  probability = true",
        // Not in the file: the default, not svm-train's -c 4.
        "  C = 1.0",
    ] {
        assert!(info.lines().any(|l| l == line), "{line} not in\n{info}");
    }
    let json = pairs(&stdout(&margin(&["info", model_text, "--params-json"])));
    let defaults = pairs(&stdout(&margin(&["params", "svr"])));
    let names = |p: &[(String, String)]| p.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&json), names(&defaults));
}
