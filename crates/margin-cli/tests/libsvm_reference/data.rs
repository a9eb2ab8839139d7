//! The data sets of the differential suite: the bundled heart_scale and housing_scale, and small
//! sets generated here, deterministically (a fixed SplitMix64 stream), so that both tools read
//! the very same text. Every set can also be written as a precomputed (linear) kernel file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One sample: its label (the text written, a number) and its sparse features (index, value).
pub struct Row {
    pub label: String,
    pub features: Vec<(u32, f64)>,
}

/// A data set in LIBSVM's format, as rows.
pub struct DataSet {
    pub rows: Vec<Row>,
}

impl DataSet {
    /// The LIBSVM text of the set (feature values in Rust's shortest round-trip form).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for r in &self.rows {
            s.push_str(&r.label);
            for (i, v) in &r.features {
                let _ = write!(s, " {i}:{}", number(*v));
            }
            s.push('\n');
        }
        s
    }

    /// The set as a precomputed linear kernel: `label 0:serial 1:K(x,x1) … l:K(x,xl)`.
    pub fn to_linear_kernel_text(&self) -> String {
        let mut s = String::new();
        for (i, a) in self.rows.iter().enumerate() {
            let _ = write!(s, "{} 0:{}", a.label, i + 1);
            for (j, b) in self.rows.iter().enumerate() {
                let _ = write!(s, " {}:{}", j + 1, number(dot(&a.features, &b.features)));
            }
            s.push('\n');
        }
        s
    }
}

/// A number as written into the data files: exact (round-trips through strtod and Rust).
fn number(v: f64) -> String {
    let (a, b) = (format!("{v}"), format!("{v:e}"));
    if a.len() <= b.len() { a } else { b }
}

fn dot(a: &[(u32, f64)], b: &[(u32, f64)]) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                sum += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    sum
}

/// Reads a well-formed LIBSVM file (the bundled data sets) into rows.
pub fn read(path: &Path) -> DataSet {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let rows = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut words = line.split_whitespace();
            let label = words.next().unwrap_or("0").to_string();
            let features = words
                .map(|w| {
                    let (i, v) = w.split_once(':').expect("index:value");
                    (i.parse().expect("index"), v.parse().expect("value"))
                })
                .collect();
            Row { label, features }
        })
        .collect();
    DataSet { rows }
}

/// SplitMix64: a small fixed generator, so the sets are the same on every machine.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform();
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Rounds to `digits` decimals (the generated sets look like measured data, as iris does).
fn round(v: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (v * p).round() / p
}

/// Iris-like: 150 samples, 4 features (one decimal), classes 1, 2, 3 in blocks of 50.
pub fn iris_like() -> DataSet {
    let means = [
        [5.0, 3.4, 1.5, 0.2],
        [5.9, 2.8, 4.3, 1.3],
        [6.6, 3.0, 5.6, 2.0],
    ];
    let sds = [
        [0.35, 0.38, 0.17, 0.1],
        [0.5, 0.31, 0.47, 0.2],
        [0.64, 0.32, 0.55, 0.27],
    ];
    let mut rng = Rng(17);
    let mut rows = Vec::new();
    for class in 0..3 {
        for _ in 0..50 {
            let features = (0..4)
                .map(|f| {
                    let v = round(means[class][f] + sds[class][f] * rng.normal(), 1);
                    (f as u32 + 1, v.max(0.1))
                })
                .collect();
            rows.push(Row {
                label: (class + 1).to_string(),
                features,
            });
        }
    }
    DataSet { rows }
}

/// Four classes with unordered labels (3, -1, 7, 0), shuffled, 6 sparse features in [-1, 1].
pub fn multiclass() -> DataSet {
    let labels = ["3", "-1", "7", "0"];
    let mut rng = Rng(29);
    let mut rows = Vec::new();
    for _ in 0..100 {
        let class = (rng.next_u64() % 4) as usize;
        let mut features = Vec::new();
        for f in 0..6u32 {
            if rng.uniform() < 0.3 {
                continue; // an unstored zero, as sparse LIBSVM files have
            }
            let centre = if f as usize % 4 == class { 0.5 } else { -0.2 };
            let v = round((centre + 0.4 * rng.normal()).clamp(-1.0, 1.0), 4);
            if v != 0.0 {
                features.push((f + 1, v));
            }
        }
        rows.push(Row {
            label: labels[class].to_string(),
            features,
        });
    }
    DataSet { rows }
}

/// The scales of the extreme sets' five features (the 1e-7 … 6e5).
const EXTREME_SCALES: [f64; 5] = [1e-7, 1e-3, 1.0, 1e3, 6e5];

/// 110 samples whose features span 1e-7 … 6e5; labels ±1 from a noisy rule on the unscaled
/// values (`classify`), or a continuous target.
fn extreme(seed: u64, classify: bool) -> DataSet {
    let mut rng = Rng(seed);
    let mut rows = Vec::new();
    for _ in 0..110 {
        let raw: Vec<f64> = (0..5).map(|_| rng.uniform() * 2.0 - 1.0).collect();
        let score = raw[0] - 0.7 * raw[2] + 0.5 * raw[4] * raw[1] + 0.3 * rng.normal();
        let features = raw
            .iter()
            .zip(EXTREME_SCALES)
            .enumerate()
            .map(|(f, (v, s))| (f as u32 + 1, round(v * 1e4, 0) / 1e4 * s))
            .collect();
        let label = if classify {
            (if score > 0.0 { "+1" } else { "-1" }).to_string()
        } else {
            number(round(10.0 * score, 3))
        };
        rows.push(Row { label, features });
    }
    DataSet { rows }
}

/// Two classes at extreme feature scales.
pub fn extreme_classes() -> DataSet {
    extreme(41, true)
}

/// A regression target at extreme feature scales.
pub fn extreme_regression() -> DataSet {
    extreme(43, false)
}

/// A smooth regression problem: 100 samples, 3 features in [-1, 1].
pub fn sine_regression() -> DataSet {
    let mut rng = Rng(53);
    let mut rows = Vec::new();
    for _ in 0..100 {
        let x: Vec<f64> = (0..3)
            .map(|_| round(rng.uniform() * 2.0 - 1.0, 4))
            .collect();
        let y = (3.0 * x[0]).sin() + 0.5 * x[1] * x[2] + 0.1 * rng.normal();
        rows.push(Row {
            label: number(round(y, 4)),
            features: x
                .iter()
                .enumerate()
                .map(|(f, v)| (f as u32 + 1, *v))
                .collect(),
        });
    }
    DataSet { rows }
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    path
}
