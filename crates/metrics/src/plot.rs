//! Small hand-written SVG charts: ROC and precision–recall curves, a confusion-matrix heat map,
//! learning and validation curves, as plain SVG 1.1 text; `to_png` rasterizes any of them
//! (resvg, with a bundled DejaVu Sans so text renders the same on every machine) and
//! [`write_chart`] picks the format from the file name.
//!
//! PNG needs the crate's `png` feature (off by default: resvg and the font are most of this
//! crate's build, and a user of the scores has no use for them). Without it `to_png` does not
//! exist and [`write_chart`] refuses a `.png` path with [`Error::Unsupported`]; SVG output
//! needs no feature.

use std::fmt::Write as _;
use std::path::Path;

use margin_core::{Error, Result};

use crate::confusion::ConfusionMatrix;
use crate::ranking::{PrecisionRecallCurve, RocCurve};
use crate::selection::CurvePoint;

const W: f64 = 480.0;
const H: f64 = 400.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 56.0;
const COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/// One line of a chart.
pub struct Series<'a> {
    /// Legend text.
    pub name: &'a str,
    /// Points in data coordinates, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Draw dashed (reference lines).
    pub dashed: bool,
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A step that gives about five ticks over `span`: 1, 2 or 5 times a power of ten.
fn tick_step(span: f64) -> f64 {
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag)
}

/// A line chart over the given ranges (`None`: fitted to the data, padded).
pub fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series<'_>],
    x_range: Option<(f64, f64)>,
    y_range: Option<(f64, f64)>,
) -> String {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let fit = |get: fn(&(f64, f64)) -> f64| {
        let (lo, hi) = all()
            .map(get)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if !lo.is_finite() {
            (0.0, 1.0)
        } else if lo == hi {
            (lo - 0.5, hi + 0.5)
        } else {
            let pad = (hi - lo) * 0.05;
            (lo - pad, hi + pad)
        }
    };
    let (x0, x1) = x_range.unwrap_or_else(|| fit(|p| p.0));
    let (y0, y1) = y_range.unwrap_or_else(|| fit(|p| p.1));
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">
<rect width="{W}" height="{H}" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
"##,
        W / 2.0,
        escape(title)
    );
    for (axis_lo, axis_hi, vertical) in [(x0, x1, true), (y0, y1, false)] {
        let step = tick_step(axis_hi - axis_lo);
        let mut t = (axis_lo / step).ceil() * step;
        while t <= axis_hi + step * 1e-9 {
            let label = if step >= 1.0 {
                format!("{t:.0}")
            } else {
                format!("{t:.*}", (-step.log10().floor()) as usize)
            };
            if vertical {
                let x = sx(t);
                let _ = writeln!(
                    svg,
                    r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#e0e0e0"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{label}</text>"##,
                    TOP + ph,
                    TOP + ph + 16.0
                );
            } else {
                let y = sy(t);
                let _ = writeln!(
                    svg,
                    r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"##,
                    LEFT + pw,
                    LEFT - 6.0,
                    y + 4.0
                );
            }
            t += step;
        }
    }
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>
<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>
<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">{}</text>"##,
        LEFT + pw / 2.0,
        H - 14.0,
        escape(x_label),
        TOP + ph / 2.0,
        TOP + ph / 2.0,
        escape(y_label)
    );
    for (k, s) in series.iter().enumerate() {
        let color = if s.dashed {
            "#888"
        } else {
            COLORS[k % COLORS.len()]
        };
        let dash = if s.dashed {
            r#" stroke-dasharray="5,4""#
        } else {
            ""
        };
        let pts: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y)| format!("{:.2},{:.2}", sx(x), sy(y)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="{}"/>"#,
            pts.join(" ")
        );
        // Legend in the lower right, where ROC and learning curves leave room.
        let ly = TOP + ph - 14.0 - 18.0 * (series.len() - 1 - k) as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
            LEFT + pw - 150.0,
            LEFT + pw - 126.0,
            LEFT + pw - 120.0,
            ly + 4.0,
            escape(s.name)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// A ROC curve with its area and the chance diagonal.
pub fn roc_svg(curve: &RocCurve, auc: f64) -> String {
    let name = format!("ROC (AUC = {auc:.4})");
    let series = [
        Series {
            name: &name,
            points: curve
                .fpr
                .iter()
                .copied()
                .zip(curve.tpr.iter().copied())
                .collect(),
            dashed: false,
        },
        Series {
            name: "chance",
            points: vec![(0.0, 0.0), (1.0, 1.0)],
            dashed: true,
        },
    ];
    line_chart(
        "ROC curve",
        "false positive rate",
        "true positive rate",
        &series,
        Some((0.0, 1.0)),
        Some((0.0, 1.0)),
    )
}

/// A precision–recall curve (drawn as steps) with its average precision.
pub fn precision_recall_svg(curve: &PrecisionRecallCurve, average_precision: f64) -> String {
    let mut points = Vec::with_capacity(2 * curve.recall.len());
    for k in (0..curve.recall.len()).rev() {
        if let Some(&(_, prev_p)) = points.last() {
            points.push((curve.recall[k], prev_p));
        }
        points.push((curve.recall[k], curve.precision[k]));
    }
    let name = format!("PR (AP = {average_precision:.4})");
    let series = [Series {
        name: &name,
        points,
        dashed: false,
    }];
    line_chart(
        "Precision-recall curve",
        "recall",
        "precision",
        &series,
        Some((0.0, 1.0)),
        Some((0.0, 1.05)),
    )
}

/// Mean training and held-out scores of a learning or validation curve against `x`.
pub fn curve_svg(title: &str, x_label: &str, points: &[CurvePoint], x_values: &[f64]) -> String {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let series = [
        Series {
            name: "training",
            points: points
                .iter()
                .zip(x_values)
                .map(|(p, &x)| (x, mean(&p.train_scores)))
                .collect(),
            dashed: false,
        },
        Series {
            name: "held out",
            points: points
                .iter()
                .zip(x_values)
                .map(|(p, &x)| (x, mean(&p.test_scores)))
                .collect(),
            dashed: false,
        },
    ];
    line_chart(title, x_label, "score", &series, None, None)
}

/// A confusion-matrix heat map: true classes down, predicted across, counts in the cells,
/// shade by the row's share.
pub fn confusion_svg(m: &ConfusionMatrix, names: &[String]) -> String {
    let k = m.n_classes();
    let cell = (300.0 / k.max(1) as f64).clamp(24.0, 80.0);
    let (left, top) = (110.0, 70.0);
    let (w, h) = (left + cell * k as f64 + 30.0, top + cell * k as f64 + 40.0);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">
<rect width="{w}" height="{h}" fill="white"/>
<text x="{:.1}" y="22" text-anchor="middle" font-size="15">Confusion matrix</text>
<text x="{:.1}" y="{:.1}" text-anchor="middle">predicted</text>
<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">true</text>
"##,
        w / 2.0,
        left + cell * k as f64 / 2.0,
        top - 28.0,
        top + cell * k as f64 / 2.0,
        top + cell * k as f64 / 2.0
    );
    for (t, row) in m.rows().iter().enumerate() {
        let total: u64 = row.iter().sum::<u64>().max(1);
        let name = names.get(t).map_or(String::new(), |n| escape(n));
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{name}</text>"#,
            left - 8.0,
            top + cell * (t as f64 + 0.5) + 4.0
        );
        for (p, &c) in row.iter().enumerate() {
            let share = c as f64 / total as f64;
            let shade = (255.0 - 200.0 * share) as u8;
            let text = if share > 0.6 { "white" } else { "black" };
            let (x, y) = (left + cell * p as f64, top + cell * t as f64);
            let _ = writeln!(
                svg,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{cell:.1}" height="{cell:.1}" fill="rgb({shade},{shade},255)" stroke="#fff"/><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{text}">{c}</text>"##,
                x + cell / 2.0,
                y + cell / 2.0 + 4.0
            );
        }
    }
    for (p, name) in names.iter().enumerate().take(k) {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + cell * (p as f64 + 0.5),
            top - 8.0,
            escape(name)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The font every chart's text is drawn with when rasterized (see `fonts/LICENSE.txt`).
#[cfg(feature = "png")]
const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// Rasterizes a chart's SVG to PNG bytes at its own size (feature `png`).
#[cfg(feature = "png")]
pub fn to_png(svg: &str) -> Result<Vec<u8>> {
    let mut options = resvg::usvg::Options::default();
    {
        let fonts = options.fontdb_mut();
        fonts.load_font_data(FONT.to_vec());
        fonts.set_sans_serif_family("DejaVu Sans");
    }
    let tree = resvg::usvg::Tree::from_str(svg, &options)
        .map_err(|e| Error::Numerical(format!("chart SVG did not parse: {e}")))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| Error::Numerical("empty chart".into()))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| Error::Numerical(format!("PNG encoding failed: {e}")))
}

/// Writes a chart as PNG when `path` ends in `.png`, as SVG otherwise. Without the `png`
/// feature a `.png` path is refused with [`Error::Unsupported`] before anything is written.
pub fn write_chart(path: &Path, svg: &str) -> Result<()> {
    let is_png = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let bytes = if is_png {
        png_bytes(svg)?
    } else {
        svg.as_bytes().to_vec()
    };
    margin_io::write_atomically(path, |w| w.write_all(&bytes))
}

#[cfg(feature = "png")]
fn png_bytes(svg: &str) -> Result<Vec<u8>> {
    to_png(svg)
}

/// The refusal of a `.png` chart in a build without the `png` feature.
#[cfg(not(feature = "png"))]
fn png_bytes(_svg: &str) -> Result<Vec<u8>> {
    Err(Error::unsupported(
        "writing a PNG chart",
        "build margin-metrics with its `png` feature, or write the chart as .svg",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_well_formed_svg_with_their_data() {
        let svg = roc_chart();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("AUC = 1.0000") && svg.contains("<polyline"));
        let m = ConfusionMatrix::new(&[0, 1, 1], &[0, 1, 0], 2).unwrap();
        let heat = confusion_svg(&m, &["a<b".into(), "c".into()]);
        assert!(heat.contains("a&lt;b") && heat.matches("<rect").count() == 1 + 4);
        assert_eq!(tick_step(1.0), 0.2);
        assert_eq!(tick_step(37.0), 10.0);
    }

    fn roc_chart() -> String {
        let roc =
            crate::roc_curve(&[false, true, true, false], &[0.1, 0.9, 0.6, 0.4], true).unwrap();
        roc_svg(&roc, 1.0)
    }

    #[cfg(feature = "png")]
    #[test]
    fn png_charts_draw_their_text() {
        let svg = roc_chart();
        let png = to_png(&svg).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Text is drawn: the same chart without its labels rasterizes differently.
        let bare = svg.replace("AUC = 1.0000", "");
        assert_ne!(to_png(&bare).unwrap(), png);
    }

    #[test]
    fn write_chart_picks_the_format_from_the_extension() {
        let dir = tempfile::tempdir().unwrap();
        let svg = roc_chart();
        let svg_path = dir.path().join("roc.svg");
        write_chart(&svg_path, &svg).unwrap();
        assert_eq!(std::fs::read_to_string(&svg_path).unwrap(), svg);
        let png_path = dir.path().join("roc.PNG");
        let written = write_chart(&png_path, &svg);
        if cfg!(feature = "png") {
            written.unwrap();
            let png = std::fs::read(&png_path).unwrap();
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        } else {
            match written {
                Err(Error::Unsupported { reason, .. }) => assert!(reason.contains("`png` feature")),
                other => panic!("expected Unsupported, got {other:?}"),
            }
            assert!(!png_path.exists(), "a refused chart leaves no file");
        }
    }
}
