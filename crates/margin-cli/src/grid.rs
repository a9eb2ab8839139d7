//! `margin evaluate --grid`: a grid of parameter values, each point cross-validated on the same
//! folds (scikit-learn's `GridSearchCV`), the values set through the model's parameter
//! descriptions like any `--name value`.

use margin_core::params::flag_of;

use crate::Failure;
use crate::models::ParamArgs;

/// One point of the grid: its `(flag, value)` settings and the parameters with them set.
pub struct Candidate {
    /// `(flag, value)` pairs, in axis order.
    pub settings: Vec<(String, String)>,
    /// The command line's parameters with the settings added.
    pub params: ParamArgs,
}

/// Parses `--grid "NAME=V1,V2,... NAME=V1,..."` (axes separated by spaces or `;`) into the
/// grid's points (the cartesian product, last axis varying fastest) around `base`. A parameter
/// both on an axis and given as `--NAME`, named twice, or with no values is refused.
pub fn candidates(spec: &str, base: &ParamArgs) -> Result<Vec<Candidate>, Failure> {
    let bad = |why: String| {
        Failure::usage(format!(
            "--grid: {why}; expected NAME=V1,V2,... axes separated by spaces or `;` (as \"C=0.1,1,10 gamma=0.01,0.1\")"
        ))
    };
    let mut axes: Vec<(String, Vec<String>)> = Vec::new();
    for axis in spec.split([' ', ';']).filter(|a| !a.is_empty()) {
        let (name, values) = axis
            .split_once('=')
            .ok_or_else(|| bad(format!("`{axis}` has no `=`")))?;
        let flag = flag_of(name.trim());
        let values: Vec<String> = values
            .split(',')
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .collect();
        if values.is_empty() {
            return Err(bad(format!("`{name}` has no values")));
        }
        if axes.iter().any(|(f, _)| *f == flag) {
            return Err(bad(format!("`{name}` is named twice")));
        }
        if base.contains(&flag) {
            return Err(bad(format!(
                "`{name}` is also given as --{flag}; give it in one place"
            )));
        }
        axes.push((flag, values));
    }
    if axes.is_empty() {
        return Err(bad("no axis".into()));
    }
    let total: usize = axes.iter().map(|(_, v)| v.len()).product();
    Ok((0..total)
        .map(|mut n| {
            let mut settings = vec![(String::new(), String::new()); axes.len()];
            for (slot, (flag, values)) in settings.iter_mut().zip(&axes).rev() {
                *slot = (flag.clone(), values[n % values.len()].clone());
                n /= values.len();
            }
            let mut params = base.clone();
            for (flag, value) in &settings {
                params.insert(flag, value);
            }
            Candidate { settings, params }
        })
        .collect())
}

/// Whether a larger value of metric `name` is better (scores) or worse (errors).
pub fn larger_is_better(name: &str) -> bool {
    !matches!(name, "rmse" | "mae" | "mse" | "median-ae" | "max-error")
}

/// The summary of a grid search: one row per point with each metric's mean and standard
/// deviation over the folds, and the best point by the first metric.
pub fn summary(names: &[String], points: &[(String, Vec<f64>, Vec<f64>)]) -> String {
    let width = points
        .iter()
        .map(|(s, _, _)| s.len())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut text = format!("{:<width$}", "params");
    for n in names {
        text.push_str(&format!("{:>26}", format!("{n} (mean ± std)")));
    }
    text.push('\n');
    for (settings, means, sds) in points {
        text.push_str(&format!("{settings:<width$}"));
        for (m, s) in means.iter().zip(sds) {
            text.push_str(&format!("{:>26}", format!("{m:.6} ± {s:.6}")));
        }
        text.push('\n');
    }
    let sign = if larger_is_better(&names[0]) {
        1.0
    } else {
        -1.0
    };
    // The first of equally good points wins, as scikit-learn's rank 1 does.
    let best = points.iter().enumerate().fold(0, |best, (i, (_, m, _))| {
        if sign * m[0] > sign * points[best].1[0] {
            i
        } else {
            best
        }
    });
    text.push_str(&format!(
        "best: {} ({} {:.6})\n",
        points[best].0, names[0], points[best].1[0]
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_the_cartesian_product_in_axis_order() {
        let c = candidates("C=0.1,1 ;gamma=a,b,c", &ParamArgs::default()).unwrap();
        let shown: Vec<String> = c
            .iter()
            .map(|c| {
                c.settings
                    .iter()
                    .map(|(f, v)| format!("{f}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            shown,
            [
                "c=0.1 gamma=a",
                "c=0.1 gamma=b",
                "c=0.1 gamma=c",
                "c=1 gamma=a",
                "c=1 gamma=b",
                "c=1 gamma=c"
            ]
        );
        assert!(c[4].params.contains("gamma") && c[4].params.contains("c"));
    }

    #[test]
    fn malformed_grids_are_refused() {
        let mut base = ParamArgs::default();
        base.insert("c", "2");
        for (spec, why) in [
            ("C", "has no `=`"),
            ("gamma=", "has no values"),
            ("tol=1 tol=2", "named twice"),
            ("C=1,2", "also given as --c"),
            ("  ", "no axis"),
        ] {
            let e = candidates(spec, &base).err().unwrap();
            assert!(e.message.contains(why), "{spec}: {}", e.message);
        }
    }

    #[test]
    fn the_best_point_follows_the_metric_direction() {
        let points = vec![
            ("c=1".to_owned(), vec![0.5], vec![0.0]),
            ("c=2".to_owned(), vec![0.9], vec![0.1]),
            ("c=3".to_owned(), vec![0.9], vec![0.0]),
        ];
        assert!(
            summary(&["accuracy".into()], &points).ends_with("best: c=2 (accuracy 0.900000)\n")
        );
        assert!(summary(&["rmse".into()], &points).ends_with("best: c=1 (rmse 0.500000)\n"));
    }
}
