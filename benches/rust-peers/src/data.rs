//! The data flags the runner passes (the same ones `e2e run-one` and `peers/run.py` take), the
//! loaders behind them, the timing rule and the labels' encoding. Loading is never timed.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::time::Instant;

pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The data flags of a child.
#[derive(Default, Debug)]
pub struct DataArgs {
    pub train: Option<String>,
    pub test: Option<String>,
    pub split: Option<usize>,
    pub n_features: Option<usize>,
    pub generate: Option<String>,
    pub n_train: Option<usize>,
    pub n_test: Option<usize>,
}

fn required<T: Copy>(value: Option<T>, flag: &str) -> Res<T> {
    value.ok_or_else(|| format!("this case needs {flag}").into())
}

/// A dense data set: `x` row-major `n × d`, one target per row.
pub struct Dense {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub n: usize,
    pub d: usize,
}

impl Dense {
    fn rows(&self, range: std::ops::Range<usize>) -> Dense {
        Dense {
            x: self.x[range.start * self.d..range.end * self.d].to_vec(),
            y: self.y[range.clone()].to_vec(),
            n: range.len(),
            d: self.d,
        }
    }

    /// The first `n` rows (fewer if there are fewer).
    pub fn head(&self, n: usize) -> Dense {
        self.rows(0..n.min(self.n))
    }
}

/// A LIBSVM file (plain, gzip or bzip2, told apart by their first bytes) as a dense matrix:
/// both libraries take dense input only.
fn read_libsvm(path: &str, d: usize) -> Res<Dense> {
    let mut head = [0u8; 3];
    let read = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    let file = File::open(path)?;
    let reader: Box<dyn Read> = if read >= 2 && head[..2] == [0x1f, 0x8b] {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else if read == 3 && &head == b"BZh" {
        Box::new(bzip2::read::MultiBzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (number, line) in BufReader::new(reader).lines().enumerate() {
        let line = line?;
        let mut tokens = line.split('#').next().unwrap_or("").split_whitespace();
        let Some(label) = tokens.next() else { continue };
        let bad = |what: &str| format!("{path}:{}: bad {what}", number + 1);
        y.push(label.parse::<f64>().map_err(|_| bad("label"))?);
        let start = x.len();
        x.resize(start + d, 0.0);
        for token in tokens {
            let (index, value) = token.split_once(':').ok_or_else(|| bad("feature"))?;
            let index: usize = index.parse().map_err(|_| bad("feature index"))?;
            if index == 0 || index > d {
                return Err(bad(&format!("feature index {index} (--n-features {d})")).into());
            }
            // LIBSVM files count features from 1.
            x[start + index - 1] = value.parse().map_err(|_| bad("feature value"))?;
        }
    }
    Ok(Dense {
        n: y.len(),
        x,
        y,
        d,
    })
}

/// Training and test sets from `--train` with `--test` or `--split`.
pub fn split(args: &DataArgs) -> Res<(Dense, Dense)> {
    let train = args.train.as_deref().ok_or("this case needs --train")?;
    let d = required(args.n_features, "--n-features")?;
    let data = read_libsvm(train, d)?;
    match (&args.test, args.split) {
        (Some(test), None) => Ok((data, read_libsvm(test, d)?)),
        (None, Some(n)) if n < data.n => Ok((data.rows(0..n), data.rows(n..data.n))),
        (None, Some(n)) => Err(format!("--split {n} leaves no test rows in {train}").into()),
        _ => Err("give exactly one of --test and --split".into()),
    }
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
const SEED_MIX: u64 = 0xD1B5_4A32_D192_ED03;

/// Value `i` of splitmix64 stream `seed` in [0, 1): the bits margin's child
/// (`benches/src/bin/e2e/data.rs`) and `run.py` draw, so all sides fit the same problem.
fn uniform(seed: u64, i: u64) -> f64 {
    let mut z = seed
        .wrapping_mul(SEED_MIX)
        .wrapping_add((i + 1).wrapping_mul(GOLDEN));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The generated least-squares problem: `X` uniform in [−1, 1), `y = X·β + noise`.
pub fn regression(args: &DataArgs) -> Res<(Dense, Dense)> {
    if args.generate.as_deref() != Some("regression") {
        return Err("this case needs --generate regression".into());
    }
    let n = required(args.n_train, "--n-train")?;
    let m = required(args.n_test, "--n-test")?;
    let d = required(args.n_features, "--n-features")?;
    let beta: Vec<f64> = (0..d as u64).map(|j| 2.0 * uniform(2, j) - 1.0).collect();
    let make = |rows: std::ops::Range<usize>| {
        let x: Vec<f64> = (rows.start * d..rows.end * d)
            .map(|k| 2.0 * uniform(1, k as u64) - 1.0)
            .collect();
        let y = rows
            .clone()
            .zip(x.chunks_exact(d))
            .map(|(i, row)| {
                let dot: f64 = row.iter().zip(&beta).map(|(a, b)| a * b).sum();
                dot + 0.5 * (2.0 * uniform(3, i as u64) - 1.0)
            })
            .collect();
        Dense {
            x,
            y,
            n: rows.len(),
            d,
        }
    };
    Ok((make(0..n), make(n..n + m)))
}

/// The generated scores and whether each sample is positive (1.0) or not (0.0).
pub fn scores(args: &DataArgs) -> Res<(Vec<f64>, Vec<f64>)> {
    if args.generate.as_deref() != Some("scores") {
        return Err("this case needs --generate scores".into());
    }
    let n = required(args.n_train, "--n-train")?;
    let s: Vec<f64> = (0..n as u64).map(|i| uniform(4, i)).collect();
    let positive = (0..n as u64)
        .map(|i| f64::from(u8::from(uniform(5, i) < s[i as usize])))
        .collect();
    Ok((s, positive))
}

/// A file's numeric labels as class indices `0..k` (in increasing label order), which both
/// libraries' classifiers need.
pub struct Classes(Vec<f64>);

impl Classes {
    pub fn of(train: &[f64]) -> Classes {
        let mut labels = train.to_vec();
        labels.sort_by(f64::total_cmp);
        labels.dedup();
        Classes(labels)
    }

    /// The index of each label; a label unseen in training gets `count()` (never predicted).
    pub fn encode(&self, y: &[f64]) -> Vec<usize> {
        y.iter()
            .map(|v| {
                self.0
                    .binary_search_by(|c| c.total_cmp(v))
                    .unwrap_or(self.0.len())
            })
            .collect()
    }
}

/// Share of equal entries.
pub fn accuracy<T: PartialEq>(truth: &[T], predicted: &[T]) -> f64 {
    let right = truth.iter().zip(predicted).filter(|(a, b)| a == b).count();
    right as f64 / truth.len().max(1) as f64
}

/// The coefficient of determination of `predicted` against `truth`.
pub fn r2(truth: &[f64], predicted: &[f64]) -> f64 {
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let ss_res: f64 = truth
        .iter()
        .zip(predicted)
        .map(|(t, p)| (t - p).powi(2))
        .sum();
    let ss_tot: f64 = truth.iter().map(|t| (t - mean).powi(2)).sum();
    1.0 - ss_res / ss_tot
}

/// Sum of squared distances from each row to its nearest centre (`centres` row-major, `k × d`).
pub fn inertia(data: &Dense, centres: &[f64]) -> f64 {
    data.x
        .chunks_exact(data.d)
        .map(|row| {
            centres
                .chunks_exact(data.d)
                .map(|c| row.iter().zip(c).map(|(a, b)| (a - b).powi(2)).sum::<f64>())
                .fold(f64::INFINITY, f64::min)
        })
        .sum()
}

/// `‖X − mean‖²_F`: the sum of squared singular values of the centred data, so explained
/// variance ratios are `σᵢ² / total_variance`.
pub fn total_variance(data: &Dense) -> f64 {
    let mut mean = vec![0.0; data.d];
    for row in data.x.chunks_exact(data.d) {
        mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
    }
    mean.iter_mut().for_each(|m| *m /= data.n as f64);
    data.x
        .chunks_exact(data.d)
        .map(|row| {
            row.iter()
                .zip(&mean)
                .map(|(v, m)| (v - m).powi(2))
                .sum::<f64>()
        })
        .sum()
}

/// A call shorter than this is repeated (one run of a few milliseconds is mostly scheduler
/// noise), until [`REPEAT_BUDGET_S`] is spent or [`REPEAT_MAX`] calls: the rule of margin's
/// side (`cases.rs`) and of `run.py`.
const REPEAT_BELOW_S: f64 = 0.05;
const REPEAT_BUDGET_S: f64 = 0.5;
const REPEAT_MAX: usize = 100;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Runs `f` and times it (see `REPEAT_*`); returns the last call's value and the median time.
pub fn timed<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let mut times = Vec::new();
    loop {
        let start = Instant::now();
        let value = std::hint::black_box(f());
        times.push(start.elapsed().as_secs_f64());
        if times[0] >= REPEAT_BELOW_S
            || times.iter().sum::<f64>() >= REPEAT_BUDGET_S
            || times.len() >= REPEAT_MAX
        {
            return (value, median(times));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_matches_margin_and_the_python_peer() {
        // The values of `uniform_matches_the_peer_script` in benches/src/bin/e2e/data.rs.
        assert_eq!(uniform(1, 0).to_bits(), 0.17601256256594233f64.to_bits());
        assert_eq!(uniform(7, 1000).to_bits(), 0.8106110226157056f64.to_bits());
    }

    #[test]
    fn inertia_and_total_variance_by_hand() {
        let data = Dense {
            x: vec![0.0, 0.0, 2.0, 0.0, 10.0, 1.0],
            y: vec![0.0; 3],
            n: 3,
            d: 2,
        };
        // Centres (1, 0) and (10, 0): 1 + 1 + 1.
        assert_eq!(inertia(&data, &[1.0, 0.0, 10.0, 0.0]), 3.0);
        // Mean (4, 1/3): x deviations 16 + 4 + 36, y deviations 1/9 + 1/9 + 4/9.
        assert!((total_variance(&data) - (56.0 + 6.0 / 9.0)).abs() < 1e-12);
    }

    #[test]
    fn classes_encode_unseen_labels_out_of_range() {
        let classes = Classes::of(&[3.0, -1.0, 3.0]);
        assert_eq!(classes.encode(&[-1.0, 3.0, 7.0]), vec![0, 1, 2]);
    }
}
