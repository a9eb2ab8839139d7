//! `e2e scaling` (`cargo xtask bench --scaling`): each main family fitted at growing sizes of
//! generated data, margin and its peer each in its own child process, and drawn as fit time
//! against n on log–log axes with the fitted slope, so that how the cost grows shows, not only
//! one point.
//!
//! A family reuses the margin and peer sides of one case of the main table, fed the generated
//! regression problem (`--generate regression`; classifiers see it as binary, class 1 where
//! `y > 0`). Sizes run from 10³ to 10⁶ in half decades; a side stops at the last size whose
//! next one would pass the per-fit budget (predicted from the slope so far).

use std::fmt::Write as _;
use std::path::Path;

use margin_metrics::plot::{Series, line_chart};

use crate::cases::{CASES, Case};
use crate::data::{Data, Res};
use crate::runner::Plan;

/// One family's curve: the case whose two sides it times, on data of `d` features.
pub struct Family {
    pub name: &'static str,
    pub case: &'static str,
    pub d: usize,
    /// The peer, as the chart's legend names it.
    pub peer: &'static str,
}

/// The families `--scaling` draws, in the report's order.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "svc",
        case: "svc-heart",
        d: 20,
        peer: "LIBSVM",
    },
    Family {
        name: "svc-batched",
        case: "svc-batched-a9a",
        d: 20,
        peer: "LIBSVM",
    },
    Family {
        name: "linear-svc",
        case: "linsvc-l2-a9a",
        d: 20,
        peer: "LIBLINEAR",
    },
    Family {
        name: "logistic",
        case: "logistic-a9a",
        d: 20,
        peer: "scikit-learn",
    },
    Family {
        name: "tree",
        case: "tree-ijcnn1",
        d: 20,
        peer: "scikit-learn",
    },
    Family {
        name: "forest",
        case: "forest-ijcnn1",
        d: 20,
        peer: "scikit-learn",
    },
    Family {
        name: "boosting",
        case: "gb-synthetic",
        d: 20,
        peer: "scikit-learn",
    },
    Family {
        name: "knn",
        case: "knn-kdtree-d8",
        d: 8,
        peer: "scikit-learn",
    },
    Family {
        name: "kmeans",
        case: "kmeans-100k",
        d: 50,
        peer: "scikit-learn",
    },
    Family {
        name: "pca",
        case: "pca-full-20k",
        d: 50,
        peer: "scikit-learn",
    },
];

/// Training sizes, half a decade apart.
pub const SIZES: &[usize] = &[1_000, 3_162, 10_000, 31_623, 100_000, 316_228, 1_000_000];

/// Test rows beside `n` training rows (predictions are not charted; a tenth, within limits).
fn test_rows(n: usize) -> usize {
    (n / 10).clamp(100, 20_000)
}

/// One side's points `(n, fit seconds)`, and why it stopped before the largest size, if it
/// did (a failure, or the budget).
#[derive(Debug, Default)]
pub struct Curve {
    pub points: Vec<(usize, f64)>,
    pub stopped: Option<String>,
}

impl Curve {
    /// Whether the next size should run: the time predicted from the last two points (slope
    /// at least 1) within `budget` seconds.
    fn goes_on(&self, next: usize, budget: f64) -> bool {
        let Some(&(n, t)) = self.points.last() else {
            return true;
        };
        let slope = match self.points.len() {
            0 | 1 => 1.0,
            k => local_slope(self.points[k - 2], self.points[k - 1]).max(1.0),
        };
        t * (next as f64 / n as f64).powf(slope) <= budget
    }
}

fn local_slope((n0, t0): (usize, f64), (n1, t1): (usize, f64)) -> f64 {
    (t1 / t0).log10() / (n1 as f64 / n0 as f64).log10()
}

/// The least-squares slope of `log t` against `log n` over the points of at least 10 ms
/// (below that a fit's fixed costs dominate), or `None` with fewer than two of them.
pub fn fitted_slope(points: &[(usize, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.1 >= 0.01)
        .map(|&(n, t)| ((n as f64).log10(), t.log10()))
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let k = logs.len() as f64;
    let (mx, my) = (
        logs.iter().map(|p| p.0).sum::<f64>() / k,
        logs.iter().map(|p| p.1).sum::<f64>() / k,
    );
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    Some(sxy / sxx)
}

/// A family's two curves.
pub struct Measured {
    pub family: &'static Family,
    pub margin: Curve,
    pub peer: Option<Curve>,
}

/// The families named in `only` (all when empty), or which name is unknown.
pub fn families(only: &[String]) -> Result<Vec<&'static Family>, String> {
    if let Some(unknown) = only.iter().find(|o| !FAMILIES.iter().any(|f| f.name == *o)) {
        let names: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
        return Err(format!(
            "unknown family `{unknown}`; families: {}",
            names.join(", ")
        ));
    }
    Ok(FAMILIES
        .iter()
        .filter(|f| only.is_empty() || only.iter().any(|o| o == f.name))
        .collect())
}

fn case_of(family: &Family) -> Res<&'static Case> {
    Ok(CASES
        .iter()
        .find(|c| c.name == family.case)
        .ok_or_else(|| format!("family {}: no case {}", family.name, family.case))?)
}

/// Runs one family: every size up to `max_n` on each side while it stays within `budget`.
pub fn measure(plan: &Plan, family: &'static Family, budget: f64, max_n: usize) -> Res<Measured> {
    let case = case_of(family)?;
    let mut margin = Curve::default();
    let mut peer = plan.python.as_ref().map(|_| Curve::default());
    for &n in SIZES.iter().filter(|&&n| n <= max_n) {
        let data = Data::Regression {
            n_train: n,
            n_test: test_rows(n),
            d: family.d,
        }
        .to_args(&plan.bundled, plan.shared.as_deref())?;
        let sides = [(false, Some(&mut margin)), (true, peer.as_mut())];
        for (is_peer, curve) in sides {
            let Some(curve) = curve else { continue };
            if curve.stopped.is_some() {
                continue;
            }
            if !curve.goes_on(n, budget) {
                curve.stopped = Some(format!("n = {n} would pass the {budget} s budget"));
                continue;
            }
            let who = if is_peer { family.peer } else { "margin" };
            match plan.measure_once(case, is_peer, &data) {
                Ok(m) => {
                    eprintln!(
                        "e2e: scaling {:<12} n {n:>9} {who:<12} fit {:>9.4} s",
                        family.name, m.outcome.fit_s
                    );
                    curve.points.push((n, m.outcome.fit_s));
                }
                Err(e) => {
                    let first = e.lines().next().unwrap_or("failed").to_string();
                    eprintln!("e2e: scaling {} n {n} {who} failed: {first}", family.name);
                    curve.stopped = Some(format!("n = {n}: {first}"));
                }
            }
        }
    }
    Ok(Measured {
        family,
        margin,
        peer,
    })
}

fn slope_text(points: &[(usize, f64)]) -> String {
    fitted_slope(points).map_or("—".into(), |s| format!("{s:.2}"))
}

/// The report, headed by `about` (the command): one table per family (time per size, both
/// sides) with the fitted slopes and the family's chart beside it (`<family>.svg`).
pub fn markdown(measured: &[Measured], about: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Scaling: fit time against n\n\n{about}; generated data (`X` uniform in [−1, 1), \
         classifiers on `y > 0`), one fit per size and side in its own process; slopes are \
         least-squares fits of log t on log n over the fits of 10 ms or more.\n"
    );
    for m in measured {
        let f = m.family;
        let case = case_of(f).map(|c| (c.margin, c.peer)).unwrap_or(("", ""));
        let _ = writeln!(
            s,
            "## {} (d = {})\n\nmargin: {}; peer: {}\n",
            f.name, f.d, case.0, case.1
        );
        let _ = writeln!(s, "![{}]({}.svg)\n", f.name, f.name);
        let _ = writeln!(
            s,
            "| n | margin fit s | {} fit s | ratio |\n|---|---|---|---|",
            f.peer
        );
        for &n in SIZES {
            let at = |c: &Curve| c.points.iter().find(|p| p.0 == n).map(|p| p.1);
            let (a, b) = (at(&m.margin), m.peer.as_ref().and_then(at));
            if a.is_none() && b.is_none() {
                continue;
            }
            let show = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.4}"));
            let ratio = match (a, b) {
                (Some(a), Some(b)) => format!("{:.3}", a / b),
                _ => "—".into(),
            };
            let _ = writeln!(s, "| {n} | {} | {} | {ratio} |", show(a), show(b));
        }
        let _ = write!(s, "\nslope: margin {}", slope_text(&m.margin.points));
        if let Some(p) = &m.peer {
            let _ = write!(s, ", {} {}", f.peer, slope_text(&p.points));
        }
        let _ = writeln!(s, "\n");
        for (who, c) in [("margin", Some(&m.margin)), (f.peer, m.peer.as_ref())] {
            if let Some(why) = c.and_then(|c| c.stopped.as_ref()) {
                let _ = writeln!(s, "{who} stopped: {why}\n");
            }
        }
    }
    s
}

/// One family's chart: fit time against n on log–log axes (margin-metrics' line chart over
/// `log₁₀` of both), a line per side with its slope in the legend.
pub fn svg(m: &Measured) -> String {
    let sides = [
        ("margin", Some(&m.margin)),
        (m.family.peer, m.peer.as_ref()),
    ];
    let named: Vec<(String, &Curve)> = sides
        .into_iter()
        .filter_map(|(who, c)| c.map(|c| (format!("{who} (slope {})", slope_text(&c.points)), c)))
        .collect();
    let series: Vec<Series<'_>> = named
        .iter()
        .map(|(name, c)| Series {
            name,
            points: c
                .points
                .iter()
                .map(|&(n, t)| ((n as f64).log10(), t.log10()))
                .collect(),
            dashed: false,
        })
        .collect();
    line_chart(
        &format!("{}: fit time against n", m.family.name),
        "log₁₀ training rows",
        "log₁₀ fit seconds",
        &series,
        Some((3.0, 6.0)),
        None,
    )
}

/// Runs the families (each fit within `budget` seconds, up to `max_n` rows) and writes
/// `scaling.md` (headed by `about`, the command) and one chart per family into `out`.
pub fn run(
    plan: &Plan,
    families: &[&'static Family],
    (budget, max_n): (f64, usize),
    out: &Path,
    about: &str,
) -> Res<()> {
    let mut measured = Vec::new();
    for &f in families {
        measured.push(measure(plan, f, budget, max_n)?);
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    for m in &measured {
        let path = out.join(format!("{}.svg", m.family.name));
        std::fs::write(&path, svg(m))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let report = out.join("scaling.md");
    let text = markdown(&measured, about);
    std::fs::write(&report, &text)
        .map_err(|e| format!("cannot write {}: {e}", report.display()))?;
    println!("{text}");
    println!("report: {}", report.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_times_a_case_of_the_table() {
        for f in FAMILIES {
            assert!(case_of(f).is_ok(), "{}", f.name);
        }
        assert!(families(&["svc".into(), "no-such".into()]).is_err());
        assert_eq!(
            families(&["boosting".into()]).unwrap()[0].case,
            "gb-synthetic"
        );
    }

    #[test]
    fn slopes_of_power_laws_are_their_exponents() {
        let quadratic: Vec<(usize, f64)> = SIZES
            .iter()
            .map(|&n| (n, 1e-8 * (n as f64).powi(2)))
            .collect();
        assert!((fitted_slope(&quadratic).unwrap() - 2.0).abs() < 1e-9);
        // Fits under 10 ms are left out: here all but the last two.
        let linear: Vec<(usize, f64)> = SIZES.iter().map(|&n| (n, 1e-7 * n as f64)).collect();
        assert!((fitted_slope(&linear).unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(fitted_slope(&linear[..5]), None);
    }

    #[test]
    fn a_side_stops_before_a_fit_predicted_past_the_budget() {
        let mut c = Curve::default();
        assert!(c.goes_on(1_000, 10.0));
        c.points.push((10_000, 1.0));
        // One point: the next predicted with slope 1.
        assert!(c.goes_on(31_623, 3.2) && !c.goes_on(31_623, 3.1));
        c.points.push((31_623, 10.0));
        // Slope 2 from the last two: 100 s next.
        assert!(!c.goes_on(100_000, 60.0) && c.goes_on(100_000, 101.0));
    }

    #[test]
    fn the_chart_draws_both_sides_with_their_slopes() {
        let family = &FAMILIES[0];
        let m = Measured {
            family,
            margin: Curve {
                points: vec![(1_000, 0.01), (10_000, 0.5)],
                stopped: None,
            },
            peer: Some(Curve {
                points: vec![(1_000, 0.02), (10_000, 2.0)],
                stopped: None,
            }),
        };
        let svg = svg(&m);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(
            svg.contains("margin (slope 1.70)") && svg.contains("LIBSVM (slope 2.00)"),
            "{svg}"
        );
        let md = markdown(&[m], "`cargo xtask bench --scaling`");
        assert!(md.contains("| 10000 | 0.5000 | 2.0000 | 0.250 |"), "{md}");
    }
}
