//! The picture every SVM lecture draws: two classes in the plane, the decision boundary
//! `f(x) = 0`, the margins `f(x) = ±1` and the support vectors, for a linear and an RBF kernel.
//!
//! `cargo run --release -p margin-svm --example svm_margin_2d [OUT.svg]`
//!
//! It prints each model's support-vector count (and, for the linear kernel, the geometric
//! margin `1/‖w‖`) and writes one SVG with both panels (default: `svm_margin.svg` in the
//! system's temporary directory).

use margin_core::generate::{Blobs, make_blobs};
use margin_core::{Dataset, DecisionFunction, DenseMatrix, Fit, Records};
use margin_kernels::Gamma;
use margin_svm::{KernelChoice, Svc};

/// Plot range (both axes) and panel size in pixels.
const LO: f64 = -3.0;
const HI: f64 = 3.0;
const SIZE: f64 = 420.0;
/// Grid cells per axis for the shaded decision function and its contours.
const GRID: usize = 90;

/// Two overlapping Gaussian clouds (standard deviation 0.7), classes 0 and 1, seeded.
fn two_clouds(n_per_class: usize) -> margin_core::Result<Dataset> {
    let centres = DenseMatrix::from_rows(&[[-1.0, -0.6], [1.0, 0.8]])?;
    make_blobs(
        &Blobs::default()
            .n_samples(2 * n_per_class)
            .centers(centres)
            .cluster_std(0.7)
            .seed(7),
    )
}

fn px(v: f64) -> f64 {
    (v - LO) / (HI - LO) * SIZE
}

fn py(v: f64) -> f64 {
    SIZE - px(v)
}

/// One panel: the decision function shaded on a grid, its −1/0/+1 contours, the samples, and
/// circles around the support vectors.
fn panel(model: &Svc, data: &Dataset, title: &str, dx: f64) -> margin_core::Result<String> {
    let step = (HI - LO) / GRID as f64;
    let corners: Vec<[f64; 2]> = (0..=GRID)
        .flat_map(|r| (0..=GRID).map(move |c| [LO + c as f64 * step, LO + r as f64 * step]))
        .collect();
    let f = model.decision_function(&DenseMatrix::from_rows(&corners)?)?;
    let at = |r: usize, c: usize| f.get(r * (GRID + 1) + c, 0);
    let mut svg = format!(r#"<g transform="translate({dx},30)">"#);
    for r in 0..GRID {
        for c in 0..GRID {
            let v = (at(r, c) + at(r + 1, c) + at(r, c + 1) + at(r + 1, c + 1)) / 4.0;
            // Stronger colour outside the margin band, paler inside it.
            let fill = match (v > 0.0, v.abs() < 1.0) {
                (true, true) => "#fde0d2",
                (true, false) => "#f7b79c",
                (false, true) => "#d6e6f7",
                (false, false) => "#a7c8ec",
            };
            let (x0, y1) = (px(LO + c as f64 * step), py(LO + (r + 1) as f64 * step));
            let w = SIZE / GRID as f64 + 0.5;
            svg += &format!(
                r#"<rect x="{x0:.1}" y="{y1:.1}" width="{w:.2}" height="{w:.2}" fill="{fill}"/>"#
            );
        }
    }
    // The boundary black and thick, the margins grey (a contour is many short segments, so a
    // dash pattern would restart on each and not show).
    for (level, stroke, width) in [(-1.0, "#555", 1.0), (0.0, "black", 2.2), (1.0, "#555", 1.0)] {
        svg += &format!(
            r#"<path d="{}" stroke="{stroke}" stroke-width="{width}" fill="none"/>"#,
            contour(&at, level, step)
        );
    }
    let y = data.targets.values()?;
    for i in 0..data.n_samples() {
        let row = data.records.row(i);
        let (x, z) = (px(row.get(0)), py(row.get(1)));
        let colour = if y[i] > 0.0 { "#c0392b" } else { "#1f5fa6" };
        svg += &format!(r#"<circle cx="{x:.1}" cy="{z:.1}" r="3.2" fill="{colour}"/>"#);
    }
    for &i in model.support_indices() {
        let row = data.records.row(i);
        svg += &format!(
            r#"<circle cx="{:.1}" cy="{:.1}" r="6.5" fill="none" stroke="black" stroke-width="1.2"/>"#,
            px(row.get(0)),
            py(row.get(1))
        );
    }
    svg += &format!(
        r#"<rect width="{SIZE}" height="{SIZE}" fill="none" stroke="black"/><text x="{}" y="-10" text-anchor="middle" font-family="sans-serif" font-size="15">{title}</text></g>"#,
        SIZE / 2.0
    );
    Ok(svg)
}

/// The level set `f = level` by marching squares: in each grid cell, the points where `f`
/// crosses the level on the cell's edges (linearly interpolated), joined pairwise.
fn contour(at: &impl Fn(usize, usize) -> f64, level: f64, step: f64) -> String {
    let mut d = String::new();
    for r in 0..GRID {
        for c in 0..GRID {
            // Corners counter-clockwise from the bottom left, and the edges between them.
            let corner = [(r, c), (r, c + 1), (r + 1, c + 1), (r + 1, c)];
            let mut crossings = Vec::new();
            for k in 0..4 {
                let (a, b) = (corner[k], corner[(k + 1) % 4]);
                let (fa, fb) = (at(a.0, a.1) - level, at(b.0, b.1) - level);
                if (fa < 0.0) != (fb < 0.0) {
                    let t = fa / (fa - fb);
                    let x = LO + (a.1 as f64 + t * (b.1 as f64 - a.1 as f64)) * step;
                    let y = LO + (a.0 as f64 + t * (b.0 as f64 - a.0 as f64)) * step;
                    crossings.push((px(x), py(y)));
                }
            }
            // Two crossings: one segment; four (a saddle cell): two, paired along the cell.
            for pair in crossings.chunks_exact(2) {
                d += &format!(
                    "M{:.1} {:.1}L{:.1} {:.1}",
                    pair[0].0, pair[0].1, pair[1].0, pair[1].1
                );
            }
        }
    }
    d
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("svm_margin.svg"));
    let data = two_clouds(60)?;
    let linear = Svc::params()
        .c(1.0)
        .kernel(KernelChoice::Linear)
        .fit(&data)?;
    let rbf = Svc::params()
        .c(1.0)
        .kernel(KernelChoice::Rbf {
            gamma: Gamma::Value(1.0),
        })
        .fit(&data)?;
    let margin = linear.margin().map_or(f64::NAN, |m| m[0]);
    println!(
        "linear kernel: {} support vectors, margin 1/‖w‖ = {margin:.4}",
        linear.support_indices().len(),
    );
    println!(
        "RBF kernel (γ = 1): {} support vectors",
        rbf.support_indices().len()
    );
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}"><rect width="100%" height="100%" fill="white"/>{}{}</svg>"#,
        2.0 * SIZE + 60.0,
        SIZE + 50.0,
        2.0 * SIZE + 60.0,
        SIZE + 50.0,
        panel(
            &linear,
            &data,
            &format!("linear, C = 1: margin 1/‖w‖ = {margin:.3}"),
            20.0
        )?,
        panel(&rbf, &data, "RBF γ = 1, C = 1", SIZE + 40.0)?,
    );
    std::fs::write(&out, svg)?;
    println!("wrote {}", out.display());
    Ok(())
}
