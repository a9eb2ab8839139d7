//! The results as a text table (stdout), a Markdown report and an SVG bar chart of the fit
//! ratios, plus the facts about the machine and the software that make a report readable later.

use std::fmt::Write as _;
use std::process::Command;

use crate::runner::{Row, Side, Status};
use crate::rust_peers::{self, Cell, Outcome};

/// The column headers of both tables, without the Rust peers' (which go before the note).
const HEADERS: [&str; 13] = [
    "case",
    "dataset",
    "n×d",
    "margin fit s",
    "peer fit s",
    "fit ratio",
    "predict ratio",
    "metric",
    "margin score",
    "peer score",
    "margin MB",
    "peer MB",
    "note",
];

const DASH: &str = "—";

/// The headers, with two columns per Rust peer when `rust` is set.
fn headers(rust: bool) -> Vec<String> {
    let mut headers: Vec<String> = HEADERS.iter().map(|h| h.to_string()).collect();
    if rust {
        let note = headers.pop().unwrap_or_default();
        for peer in rust_peers::PEERS {
            headers.push(format!("{peer} fit ratio"));
            headers.push(format!("{peer} score"));
        }
        headers.push(note);
    }
    headers
}

/// A Rust peer's two cells: margin's fit time over the peer's, and the peer's score.
fn rust_cells(margin_fit_s: Option<f64>, cell: Option<&Cell>) -> [String; 2] {
    let dash = || DASH.to_string();
    match (margin_fit_s, cell.map(|c| &c.outcome)) {
        (Some(m), Some(Outcome::Done(side))) => {
            [ratio(m, side.fit_s), format!("{:.6}", side.score)]
        }
        (_, Some(Outcome::Skipped(_))) => ["skipped".into(), dash()],
        (_, Some(Outcome::TimedOut(s))) => [format!("timeout > {s:.0} s"), dash()],
        (_, Some(Outcome::Failed(_))) => ["FAILED".into(), dash()],
        _ => [dash(), dash()],
    }
}

fn secs(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else if x >= 0.001 {
        format!("{x:.4}")
    } else {
        format!("{x:.2e}")
    }
}

fn ratio(margin: f64, peer: f64) -> String {
    let r = margin / peer;
    if r >= 0.1 {
        format!("{r:.2}")
    } else if r >= 0.01 {
        format!("{r:.3}")
    } else {
        format!("{r:.1e}")
    }
}

/// The note of a finished row: what lets a reader judge whether the two sides did the same work.
fn note(margin: &Side, peer: Option<&Side>) -> String {
    let mut parts = Vec::new();
    if let Some(sv) = margin.n_sv {
        match peer.and_then(|p| p.n_sv) {
            Some(p) => parts.push(format!("SV {sv} vs {p}")),
            None => parts.push(format!("SV {sv}")),
        }
    }
    if let Some(obj) = margin.objective {
        match peer.and_then(|p| p.objective) {
            Some(p) => parts.push(format!(
                "primal obj {obj:.6} vs {p:.6} ({:+.2e} rel.)",
                (obj - p) / p.abs()
            )),
            None => parts.push(format!("primal obj {obj:.6}")),
        }
    }
    parts.join("; ")
}

/// The cells of one row, in [`headers`] order.
fn cells(row: &Row, rust: bool) -> Vec<String> {
    let case = row.case;
    let mut cells = vec![case.name.to_string(), case.dataset.to_string()];
    match &row.status {
        Status::Skipped(why) | Status::Failed(why) => {
            cells.extend(std::iter::repeat_n(DASH.to_string(), HEADERS.len() - 3));
            let tag = if matches!(row.status, Status::Skipped(_)) {
                "skipped"
            } else {
                "FAILED"
            };
            // The table keeps one line; the report's failure section has the whole message.
            let first_line = why.lines().next().unwrap_or_default();
            let short: String = first_line.chars().take(120).collect();
            cells.push(format!("{tag}: {short}"));
        }
        Status::Done {
            n,
            d,
            metric,
            margin,
            peer,
        } => {
            let p = peer.as_ref();
            let or_dash = |v: Option<String>| v.unwrap_or_else(|| DASH.to_string());
            cells.push(format!("{n}×{d}"));
            cells.push(secs(margin.fit_s));
            cells.push(or_dash(p.map(|p| secs(p.fit_s))));
            cells.push(or_dash(p.map(|p| ratio(margin.fit_s, p.fit_s))));
            cells.push(or_dash(
                p.and_then(|p| Some(ratio(margin.predict_s?, p.predict_s?))),
            ));
            cells.push(metric.clone());
            cells.push(format!("{:.6}", margin.score));
            cells.push(or_dash(p.map(|p| format!("{:.6}", p.score))));
            cells.push(format!("{:.0}", margin.peak_rss_mb));
            cells.push(or_dash(p.map(|p| format!("{:.0}", p.peak_rss_mb))));
            cells.push(note(margin, p));
        }
    }
    if rust {
        let note = cells.pop().unwrap_or_default();
        let margin_fit_s = match &row.status {
            Status::Done { margin, .. } => Some(margin.fit_s),
            _ => None,
        };
        for peer in rust_peers::PEERS {
            let cell = row.rust.iter().find(|c| c.peer == peer);
            cells.extend(rust_cells(margin_fit_s, cell));
        }
        cells.push(note);
    }
    cells
}

/// The results as an aligned plain-text table; `rust` adds the Rust peers' columns.
pub fn text_table(rows: &[Row], rust: bool) -> String {
    let body: Vec<Vec<String>> = rows.iter().map(|r| cells(r, rust)).collect();
    let header = headers(rust);
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            std::iter::once(&header)
                .chain(&body)
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |r: &[String]| {
        let padded: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, &w))| {
                let pad = " ".repeat(w - cell.chars().count());
                // Text columns left-aligned, numbers right-aligned.
                if c < 2 || c == 7 || c == widths.len() - 1 {
                    format!("{cell}{pad}")
                } else {
                    format!("{pad}{cell}")
                }
            })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut out = line(&header);
    out.push('\n');
    out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
    for r in &body {
        out.push('\n');
        out.push_str(&line(r));
    }
    out.push('\n');
    out
}

fn markdown_table(rows: &[Row], rust: bool) -> String {
    let header = headers(rust);
    let mut out = format!("| {} |\n", header.join(" | "));
    out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in rows {
        let escaped: Vec<String> = cells(row, rust)
            .iter()
            .map(|c| c.replace('|', "\\|"))
            .collect();
        out.push_str(&format!("| {} |\n", escaped.join(" | ")));
    }
    out
}

/// Facts about the run that the report records.
pub struct Context {
    pub mode: String,
    pub threads: usize,
    pub peers: Result<String, String>,
    /// `None` without `--rust-peers`; the libraries' versions, or why they did not run.
    pub rust_peers: Option<Result<String, String>>,
    pub invocation: String,
    pub runner: String,
    pub load_before: String,
}

/// Output of a command, trimmed, or "unknown".
fn command_output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The 1-, 5- and 15-minute load averages (the machine is shared; a high load explains noise).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn memory() -> String {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.1} GiB", kib / (1024.0 * 1024.0)))
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The Markdown report.
pub fn markdown(rows: &[Row], ctx: &Context) -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut md = String::new();
    let w = &mut md;
    // `write!` to a String cannot fail.
    let _ = writeln!(w, "# margin benchmark report\n");
    let _ = writeln!(
        w,
        "- date: {}",
        command_output("date", &["-u", "+%Y-%m-%d %H:%M UTC"])
    );
    let _ = writeln!(w, "- mode: {}", ctx.mode);
    let _ = writeln!(
        w,
        "- threads per side: {} (RAYON_NUM_THREADS, OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, \
         MKL_NUM_THREADS; OMP_WAIT_POLICY=PASSIVE)",
        ctx.threads
    );
    let _ = writeln!(
        w,
        "- machine: {cores} cores (nproc), {}, {} memory; load average (1, 5, 15 min) {} \
         before, {} after",
        cpu_model(),
        memory(),
        ctx.load_before,
        load_average()
    );
    let _ = writeln!(w, "- rustc: {}", command_output("rustc", &["--version"]));
    match &ctx.peers {
        Ok(versions) => {
            let _ = writeln!(w, "- peers: {versions}");
        }
        Err(why) => {
            let _ = writeln!(w, "- peers: not run ({why}); ratios are shown as {DASH}");
        }
    }
    match &ctx.rust_peers {
        Some(Ok(versions)) => {
            let _ = writeln!(
                w,
                "- Rust peers: {versions} (benches/rust-peers, release build)"
            );
        }
        Some(Err(why)) => {
            let _ = writeln!(w, "- Rust peers: not run ({why})");
        }
        None => {}
    }
    let rust = matches!(ctx.rust_peers, Some(Ok(_)));
    let _ = writeln!(w, "\n## Results\n");
    let _ = writeln!(w, "{}", markdown_table(rows, rust));
    let _ = writeln!(
        w,
        "Times are medians over the repetitions, each (case, side, repetition) in its own \
         process, the sides alternating; loading the data is not timed; inside a child, a fit \
         or predict call under 50 ms is repeated (up to 0.5 s or 100 calls) and its median \
         taken. Ratios are margin / peer from the same run (< 1: margin is faster). Peak \
         memory is each child's own (margin: VmHWM; Python: ru_maxrss, which includes the \
         interpreter, numpy and scipy, about 50 MB, and scikit-learn where a case imports it, \
         about 70 MB more). LIBSVM predicts through its C predictor, one call per prebuilt \
         row; LIBLINEAR's weights predict as one scipy sparse product (as scikit-learn's \
         LinearSVC does).\n"
    );
    let _ = writeln!(w, "![fit time ratios](ratios.svg)\n");
    if rust {
        let _ = writeln!(w, "{}", rust_section(rows));
    }
    let failures: Vec<(String, &str)> = rows
        .iter()
        .flat_map(|r| {
            let own = match &r.status {
                Status::Failed(why) => Some((r.case.name.to_string(), why.as_str())),
                _ => None,
            };
            let rust = r.rust.iter().filter_map(|c| match &c.outcome {
                Outcome::Failed(why) => {
                    Some((format!("{} ({})", r.case.name, c.peer), why.as_str()))
                }
                _ => None,
            });
            own.into_iter().chain(rust)
        })
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(w, "## Failures\n");
        for (name, why) in failures {
            let _ = writeln!(w, "### {name}\n\n```text\n{why}\n```\n");
        }
    }
    let _ = writeln!(w, "## Cases\n");
    let _ = writeln!(w, "| case | margin | peer |\n|---|---|---|");
    for row in rows {
        let c = row.case;
        let _ = writeln!(w, "| {} | {} | {} |", c.name, c.margin, c.peer);
    }
    let _ = writeln!(w, "\n## Commands\n");
    let _ = writeln!(w, "```sh\n{}\n```\n", ctx.invocation);
    if ctx.runner != ctx.invocation {
        let _ = writeln!(w, "which ran:\n\n```sh\n{}\n```\n", ctx.runner);
    }
    let _ = writeln!(w, "Each case's children (first repetition):\n\n```sh");
    for row in rows {
        for command in &row.commands {
            let _ = writeln!(w, "{command}");
        }
    }
    let _ = writeln!(w, "```");
    md
}

/// The Rust peers' details: one line per (case, peer) that ran, timed out or was skipped.
fn rust_section(rows: &[Row]) -> String {
    let mut out = String::from(
        "## Rust peers\n\nEach peer runs after margin and the Python peer of the same case, in \
         its own processes (`benches/rust-peers`, the `rust-peers` binary), its own repetitions \
         under the same per-case budget; a child still running when the budget is spent is \
         killed (\"timeout\"). Ratios are margin / peer. Peak memory: VmHWM.\n\n\
         | case | peer | fit s | predict s | fit ratio | predict ratio | score | MB | what it runs |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let margin = match &row.status {
            Status::Done { margin, .. } => Some(margin),
            _ => None,
        };
        for cell in &row.rust {
            let name = row.case.name;
            let line = match &cell.outcome {
                Outcome::NotListed => continue,
                Outcome::Done(p) => {
                    let r = |m: Option<f64>, p: Option<f64>| match (m, p) {
                        (Some(m), Some(p)) => ratio(m, p),
                        _ => DASH.to_string(),
                    };
                    format!(
                        "| {name} | {} | {} | {} | {} | {} | {:.6} | {:.0} | {} |",
                        cell.peer,
                        secs(p.fit_s),
                        p.predict_s.map_or(DASH.to_string(), secs),
                        r(margin.map(|m| m.fit_s), Some(p.fit_s)),
                        r(margin.and_then(|m| m.predict_s), p.predict_s),
                        p.score,
                        p.peak_rss_mb,
                        cell.description.replace('|', "\\|")
                    )
                }
                Outcome::Skipped(why) => format!(
                    "| {name} | {} | {DASH} | {DASH} | {DASH} | {DASH} | {DASH} | {DASH} | skipped: {} |",
                    cell.peer,
                    why.replace('|', "\\|")
                ),
                Outcome::TimedOut(s) => format!(
                    "| {name} | {} | > {s:.0} | {DASH} | {DASH} | {DASH} | {DASH} | {DASH} | killed at the budget: {} |",
                    cell.peer,
                    cell.description.replace('|', "\\|")
                ),
                Outcome::Failed(why) => format!(
                    "| {name} | {} | {DASH} | {DASH} | {DASH} | {DASH} | {DASH} | {DASH} | FAILED: {} |",
                    cell.peer,
                    why.lines().next().unwrap_or_default().replace('|', "\\|")
                ),
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// A horizontal bar chart of the fit ratios on a log axis, bars growing from the line at 1.
pub fn ratios_svg(rows: &[Row]) -> String {
    let bars: Vec<(&str, f64)> = rows
        .iter()
        .filter_map(|r| match &r.status {
            Status::Done {
                margin,
                peer: Some(p),
                ..
            } => Some((r.case.name, margin.fit_s / p.fit_s)),
            _ => None,
        })
        .collect();
    const WIDTH: f64 = 760.0;
    const LABELS: f64 = 130.0;
    const RIGHT: f64 = 70.0;
    const TOP: f64 = 48.0;
    const ROW: f64 = 24.0;
    const BOTTOM: f64 = 48.0;
    let height = TOP + ROW * bars.len().max(1) as f64 + BOTTOM;
    let mut svg = String::new();
    let s = &mut svg;
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r##"<rect width="100%" height="100%" fill="#ffffff"/><text x="{}" y="24" text-anchor="middle" font-size="14">fit time, margin / peer (log scale; left of 1: margin faster)</text>"##,
        WIDTH / 2.0
    );
    if bars.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">no ratios: the peers did not run</text></svg>"#,
            WIDTH / 2.0,
            TOP + ROW / 2.0
        );
        return svg;
    }
    // Decades around every ratio and around 1, so the 1.0 line is always inside the axis.
    let lo = bars
        .iter()
        .map(|b| b.1)
        .fold(0.5f64, f64::min)
        .log10()
        .floor();
    let hi = bars
        .iter()
        .map(|b| b.1)
        .fold(2.0f64, f64::max)
        .log10()
        .ceil();
    let plot = WIDTH - LABELS - RIGHT;
    let x = |r: f64| LABELS + (r.log10() - lo) / (hi - lo) * plot;
    let bottom = TOP + ROW * bars.len() as f64;
    // 1-2-5 ticks over a narrow axis; decades only over a wide one, where they would crowd.
    let steps: &[f64] = if hi - lo > 2.0 {
        &[1.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    for k in lo as i32..=hi as i32 {
        for &m in steps {
            let v = m * 10f64.powi(k);
            if v.log10() > hi + 1e-9 {
                continue;
            }
            let xv = x(v);
            let _ = writeln!(
                s,
                r##"<line x1="{xv:.1}" y1="{TOP}" x2="{xv:.1}" y2="{bottom}" stroke="#e0e0e0"/><text x="{xv:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
                bottom + 16.0,
                trim_number(v)
            );
        }
    }
    for (i, (name, r)) in bars.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let (x1, x2) = (x(1.0), x(*r));
        let color = if *r <= 1.0 { "#2ca02c" } else { "#d62728" };
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}"/><text x="{:.1}" y="{:.1}" fill="#222">{}×</text>"##,
            LABELS - 8.0,
            y + ROW * 0.65,
            name,
            x1.min(x2),
            y + 4.0,
            (x2 - x1).abs().max(1.0),
            ROW - 8.0,
            // Values in their own column at the right, clear of bars and names.
            WIDTH - RIGHT + 8.0,
            y + ROW * 0.65,
            ratio(*r, 1.0)
        );
    }
    let one = x(1.0);
    let _ = writeln!(
        s,
        r##"<line x1="{one:.1}" y1="{}" x2="{one:.1}" y2="{bottom}" stroke="#000" stroke-width="1.5"/><text x="{}" y="{:.1}" text-anchor="middle">ratio (margin fit time / peer fit time)</text></svg>"##,
        TOP - 6.0,
        LABELS + plot / 2.0,
        bottom + 36.0
    );
    svg
}

/// `0.01`, `0.2`, `5`, `100`: tick labels without trailing zeros.
fn trim_number(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::CASES;

    fn side(fit_s: f64, score: f64) -> Side {
        Side {
            fit_s,
            predict_s: Some(fit_s / 10.0),
            score,
            peak_rss_mb: 12.0,
            objective: None,
            n_sv: None,
        }
    }

    fn cell(peer: &'static str, outcome: Outcome) -> Cell {
        Cell {
            peer,
            description: format!("{peer} does it"),
            outcome,
        }
    }

    /// A finished row (margin 1 s, Python peer 2 s) with the given Rust peers' cells, and a
    /// skipped one.
    fn rows(rust: Vec<Cell>) -> Vec<Row> {
        vec![
            Row {
                case: &CASES[0],
                status: Status::Done {
                    n: 200,
                    d: 13,
                    metric: "accuracy".into(),
                    margin: side(1.0, 0.8),
                    peer: Some(side(2.0, 0.81)),
                },
                commands: vec!["e2e run-one --case svc-heart".into()],
                rust,
            },
            Row {
                case: &CASES[1],
                status: Status::Skipped("dna.scale is missing".into()),
                commands: Vec::new(),
                rust: Vec::new(),
            },
        ]
    }

    fn context(rust_peers: Option<Result<String, String>>) -> Context {
        Context {
            mode: "quick".into(),
            threads: 2,
            peers: Ok("python 3.11".into()),
            rust_peers,
            invocation: "cargo xtask bench --quick".into(),
            runner: "e2e run --quick".into(),
            load_before: "1.0 1.0 1.0".into(),
        }
    }

    #[test]
    fn without_rust_peers_the_table_keeps_its_columns() {
        let table = text_table(&rows(Vec::new()), false);
        let header = table.lines().next().unwrap();
        assert!(
            header.starts_with("case") && header.ends_with("note"),
            "{header}"
        );
        assert!(!header.contains("linfa"), "{header}");
        assert_eq!(headers(false).len(), HEADERS.len());
        let md = markdown(&rows(Vec::new()), &context(None));
        assert!(!md.contains("Rust peers"), "{md}");
    }

    #[test]
    fn rust_peer_columns_show_ratio_score_and_why_not() {
        let rust = vec![
            cell("linfa", Outcome::Done(side(4.0, 0.75))),
            cell("smartcore", Outcome::TimedOut(240.0)),
        ];
        let rows = rows(rust);
        let header = headers(true);
        assert_eq!(header.len(), HEADERS.len() + 4);
        assert_eq!(header[header.len() - 5], "linfa fit ratio");
        assert_eq!(header.last().map(String::as_str), Some("note"));
        let done = cells(&rows[0], true);
        let at = |name: &str| done[header.iter().position(|h| h == name).unwrap()].clone();
        // margin 1 s against linfa's 4 s.
        assert_eq!(at("linfa fit ratio"), "0.25");
        assert_eq!(at("linfa score"), "0.750000");
        assert_eq!(at("smartcore fit ratio"), "timeout > 240 s");
        assert_eq!(at("smartcore score"), DASH);
        // The Python peer's columns are unchanged: margin 1 s against 2 s.
        assert_eq!(at("fit ratio"), "0.50");
        let skipped = cells(&rows[1], true);
        assert_eq!(skipped.len(), header.len());
        assert!(skipped.last().unwrap().starts_with("skipped"));
        let table = text_table(&rows, true);
        assert!(table.lines().next().unwrap().contains("smartcore score"));
    }

    #[test]
    fn the_report_lists_versions_details_and_rust_failures() {
        let rust = vec![
            cell("linfa", Outcome::Skipped("binary only".into())),
            cell(
                "smartcore",
                Outcome::Failed("smartcore: exit 1: boom\ncommand: x".into()),
            ),
        ];
        let md = markdown(
            &rows(rust),
            &context(Some(Ok("linfa 0.7.1, smartcore 0.4.10".into()))),
        );
        assert!(
            md.contains("- Rust peers: linfa 0.7.1, smartcore 0.4.10"),
            "{md}"
        );
        assert!(md.contains("| linfa fit ratio | linfa score |"), "{md}");
        assert!(md.contains("## Rust peers"), "{md}");
        assert!(md.contains("| svc-heart | linfa |") && md.contains("skipped: binary only"));
        assert!(md.contains("### svc-heart (smartcore)"), "{md}");
        let failed = markdown(
            &rows(Vec::new()),
            &context(Some(Err("the build failed".into()))),
        );
        assert!(
            failed.contains("- Rust peers: not run (the build failed)"),
            "{failed}"
        );
        assert!(!failed.contains("linfa fit ratio"), "{failed}");
    }
}
