//! A model's parameters as the command line shows them, generated from its params struct's
//! descriptions ([`margin_core::params`]): the `--help` lines, `margin params MODEL` (the
//! defaults as a JSON object) and the `--params FILE` files `train` and `evaluate` read.

use std::path::{Path, PathBuf};

use clap::Args;
use margin_core::Error;
use margin_core::params::{ParamInfo, Value};

use crate::Failure;
use crate::models::find;
use crate::output::{Out, outln};

/// Where a parameter's help text starts (the column of the hand-written help lines).
const HELP_COLUMN: usize = 37;
/// The width help lines are wrapped to.
const WIDTH: usize = 100;

/// The `--help` lines of described parameters: flag, how values are written, the help, the
/// default, the allowed values and when the parameter is used.
pub fn params_help(infos: &[ParamInfo]) -> String {
    let mut lines = Vec::new();
    for info in infos {
        let head = format!("  --{} {}", info.flag, info.kind);
        let mut notes = vec![format!("default {}", info.value)];
        if !info.allowed.is_empty() {
            notes.push(info.allowed.to_owned());
        }
        if !info.applies.is_empty() {
            notes.push(format!("used {}", info.applies));
        }
        let text = format!("{} ({})", info.help, notes.join("; "));
        let mut words = text.split(' ');
        let mut line = if head.len() < HELP_COLUMN {
            format!("{head:<HELP_COLUMN$}")
        } else {
            lines.push(head);
            " ".repeat(HELP_COLUMN)
        };
        let mut fresh = true;
        for word in words.by_ref() {
            if !fresh && line.len() + 1 + word.len() > WIDTH {
                lines.push(std::mem::replace(&mut line, " ".repeat(HELP_COLUMN)));
                fresh = true;
            }
            if !fresh {
                line.push(' ');
            }
            line.push_str(word);
            fresh = false;
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// A value as JSON: numbers that JSON cannot hold (infinity, NaN) become strings, which
/// parameters read back as numbers.
fn json(value: &Value) -> serde_json::Value {
    match value {
        Value::None => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) => serde_json::Number::from_i128(*i)
            .map_or_else(|| serde_json::Value::String(i.to_string()), Into::into),
        Value::Float(x) => serde_json::Number::from_f64(*x)
            .map_or_else(|| serde_json::Value::String(value.to_string()), Into::into),
        Value::Text(s) => serde_json::Value::String(s.clone()),
    }
}

/// Described parameters as a JSON object, one `"name": value` line each, in help order.
pub fn params_json(infos: &[ParamInfo]) -> String {
    let lines: Vec<String> = infos
        .iter()
        .map(|info| {
            format!(
                "  {}: {}",
                serde_json::Value::String(info.name.to_owned()),
                json(&info.value)
            )
        })
        .collect();
    format!("{{\n{}\n}}", lines.join(",\n"))
}

/// Reads a parameter file: a JSON object of `name: value` pairs (numbers, strings, booleans,
/// and `null` for none), as text the parameters parse.
pub fn read_param_file(path: &Path) -> Result<Vec<(String, String)>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::from(Error::io(path, e)))?;
    let bad = |why: String| {
        Failure::usage(format!(
            "--params {}: {why}; expected a JSON object of parameter names and values, as `margin params MODEL` prints",
            path.display()
        ))
    };
    let object = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(object)) => object,
        Ok(_) => return Err(bad("not a JSON object".into())),
        Err(e) => return Err(bad(e.to_string())),
    };
    object
        .into_iter()
        .map(|(name, value)| {
            let text = match value {
                serde_json::Value::Null => "none".to_owned(),
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::String(s) => s,
                other => return Err(bad(format!("`{name}` is {other}, not a single value"))),
            };
            Ok((name, text))
        })
        .collect()
}

/// Arguments of `margin params`.
#[derive(Args, Debug)]
pub struct ParamsArgs {
    /// The model, as `margin train` names it.
    model: String,
    /// Write the JSON here (default: stdout).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
}

/// Runs `margin params`: the model's parameters with the values `margin train` starts from, as
/// a JSON object that `--params FILE` reads back.
pub fn run(args: &ParamsArgs) -> Result<(), Failure> {
    let entry = find(&args.model)?;
    let mut out = Out::file_or_stdout(args.output.as_deref())?;
    outln!(out, "{}", params_json(&entry.params()))?;
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(flag: &'static str, kind: &str, value: Value) -> ParamInfo {
        ParamInfo {
            name: flag,
            flag: flag.to_owned(),
            kind: kind.to_owned(),
            help: "what it does, in words long enough to need a second line of help text when wrapped",
            allowed: "a number > 0",
            applies: "with kernel rbf",
            value,
        }
    }

    #[test]
    fn help_lines_are_aligned_and_wrapped() {
        let text = params_help(&[
            info("c", "<number>", Value::Float(1.0)),
            info("class-weight", "none|balanced|LABEL:W,...", Value::None),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("  --c <number>   "));
        assert_eq!(lines[0].find("what"), Some(HELP_COLUMN));
        assert!(lines.iter().all(|l| l.len() <= WIDTH), "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("(default 1.0; a number > 0; used with kernel rbf)"));
        // A head wider than the column gets a line of its own.
        let long = lines
            .iter()
            .position(|l| l.contains("class-weight"))
            .unwrap();
        assert_eq!(
            lines[long].trim(),
            "--class-weight none|balanced|LABEL:W,..."
        );
        assert_eq!(lines[long + 1].find("what"), Some(HELP_COLUMN));
    }

    #[test]
    fn json_reads_back_as_the_same_text() {
        let infos = [
            info("C", "<number>", Value::Float(0.5)),
            info("tol", "<number>", Value::Float(f64::INFINITY)),
            info("max_iter", "<int>", Value::Int(-1)),
            info("seed", "<int>", Value::Int(i128::from(u64::MAX))),
            info("shrinking", "true|false", Value::Bool(true)),
            info("max_depth", "<int>|none", Value::None),
            info("kernel", "rbf|linear", Value::Text("rbf".into())),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        std::fs::write(&path, params_json(&infos)).unwrap();
        let read = read_param_file(&path).unwrap();
        let expected: Vec<(String, String)> = infos
            .iter()
            .map(|i| (i.name.to_owned(), i.value.to_string()))
            .collect();
        let mut sorted = expected.clone();
        sorted.sort();
        let mut read_sorted = read.clone();
        read_sorted.sort();
        assert_eq!(read_sorted, sorted);
    }

    #[test]
    fn a_file_that_is_not_an_object_of_values_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for (text, why) in [
            ("[1, 2]", "not a JSON object"),
            ("{\"C\": [1]}", "not a single value"),
            ("{\"C\": ", "EOF"),
        ] {
            let path = dir.path().join("p.json");
            std::fs::write(&path, text).unwrap();
            let e = read_param_file(&path).unwrap_err();
            assert!(e.message.contains(why), "{text}: {}", e.message);
            assert_eq!(e.code, 2);
        }
    }
}
