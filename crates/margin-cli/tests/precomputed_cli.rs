//! `margin train <svm> --kernel precomputed` with scikit-learn's contract: the training data is
//! the Gram matrix K(train, train), the data to predict K(test, train). The kernel values are
//! computed here with plain loops, independently of margin's kernels.

use crate::common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::{fails_with, margin, predict, root, stdout, train};

/// Training rows taken from the head of a bundled file; the rest are the test rows.
const N_TRAIN: usize = 150;

/// A LIBSVM file's targets and dense rows (13 features for heart_scale and housing_scale).
fn read_libsvm(name: &str) -> (Vec<f64>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(root().join("datasets").join(name)).unwrap();
    let (mut y, mut x) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut words = line.split_whitespace();
        y.push(words.next().unwrap().parse().unwrap());
        let mut row = vec![0.0; 13];
        for pair in words {
            let (j, v) = pair.split_once(':').unwrap();
            row[j.parse::<usize>().unwrap() - 1] = v.parse().unwrap();
        }
        x.push(row);
    }
    (y, x)
}

/// A kernel as the test computes it.
#[derive(Clone, Copy)]
enum Kernel {
    Linear,
    Rbf(f64),
}

impl Kernel {
    fn dot(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for (p, q) in a.iter().zip(b) {
            s += p * q;
        }
        s
    }

    /// LIBSVM's training kernel values (svm.cpp `Kernel::kernel_linear` / `kernel_rbf`): dot
    /// products summed in feature order, RBF from the squared norms. The SMO solver caches them
    /// rounded to f32 as LIBSVM does, so values equal to margin's own give the same solver path.
    fn eval(self, a: &[f64], b: &[f64]) -> f64 {
        match self {
            Kernel::Linear => Self::dot(a, b),
            Kernel::Rbf(g) => {
                (-g * (Self::dot(a, a) + Self::dot(b, b) - 2.0 * Self::dot(a, b))).exp()
            }
        }
    }

    /// `K(rows, basis)`.
    fn gram(self, rows: &[Vec<f64>], basis: &[Vec<f64>]) -> Vec<Vec<f64>> {
        rows.iter()
            .map(|a| basis.iter().map(|b| self.eval(a, b)).collect())
            .collect()
    }

    /// The same kernel as `margin train` flags.
    fn flags(self) -> Vec<String> {
        match self {
            Kernel::Linear => vec!["--kernel".into(), "linear".into()],
            Kernel::Rbf(g) => vec![
                "--kernel".into(),
                "rbf".into(),
                "--gamma".into(),
                g.to_string(),
            ],
        }
    }
}

/// Writes rows and targets as CSV (a header, then the values, the target last); `{}` prints the
/// shortest text that reads back as the same f64.
fn write_csv(path: &Path, rows: &[Vec<f64>], y: &[f64]) -> String {
    let width = rows.first().map_or(0, Vec::len);
    let mut text: Vec<String> = (1..=width).map(|j| format!("k{j}")).collect();
    text.push("target".into());
    let mut out = text.join(",") + "\n";
    for (row, t) in rows.iter().zip(y) {
        for v in row {
            write!(out, "{v},").unwrap();
        }
        writeln!(out, "{t}").unwrap();
    }
    std::fs::write(path, out).unwrap();
    path.to_str().unwrap().to_owned()
}

/// Writes rows as a LIBSVM file, with `0:first(i)` in front when given (LIBSVM's precomputed
/// layout: the serial number of a training row, anything for a test row).
fn write_libsvm(
    path: &Path,
    rows: &[Vec<f64>],
    y: &[f64],
    first: Option<&dyn Fn(usize) -> f64>,
) -> String {
    let mut out = String::new();
    for (i, (row, t)) in rows.iter().zip(y).enumerate() {
        write!(out, "{t}").unwrap();
        if let Some(f) = first {
            write!(out, " 0:{}", f(i)).unwrap();
        }
        for (j, v) in row.iter().enumerate() {
            write!(out, " {}:{v}", j + 1).unwrap();
        }
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
    path.to_str().unwrap().to_owned()
}

/// The numbers of a predictions file (labels or values, one a line).
fn numbers(path: &Path) -> Vec<f64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// One data set split into its first `N_TRAIN` rows and the rest, with the file names of both
/// parts as features, as Gram matrices (CSV) and in LIBSVM's precomputed layout.
struct Split {
    dir: PathBuf,
    train_features: String,
    test_features: String,
    train_gram: String,
    test_gram: String,
    train_libsvm_gram: String,
    test_libsvm_gram: String,
}

fn split(dir: &Path, name: &str, kernel: Kernel) -> Split {
    let (y, x) = read_libsvm(name);
    let (y_train, y_test) = y.split_at(N_TRAIN);
    let (x_train, x_test) = x.split_at(N_TRAIN);
    let k_train = kernel.gram(x_train, x_train);
    let k_test = kernel.gram(x_test, x_train);
    let file = |f: &str| dir.join(format!("{name}.{f}"));
    Split {
        dir: dir.to_owned(),
        train_features: write_libsvm(&file("train"), x_train, y_train, None),
        test_features: write_libsvm(&file("test"), x_test, y_test, None),
        train_gram: write_csv(&file("train.csv"), &k_train, y_train),
        test_gram: write_csv(&file("test.csv"), &k_test, y_test),
        train_libsvm_gram: write_libsvm(
            &file("train.k"),
            &k_train,
            y_train,
            Some(&|i| (i + 1) as f64),
        ),
        test_libsvm_gram: write_libsvm(&file("test.k"), &k_test, y_test, Some(&|_| 0.0)),
    }
}

impl Split {
    /// `margin train MODEL ARGS TRAIN -o M`, then `margin predict M TEST -o P`: P's numbers.
    fn train_predict(
        &self,
        tag: &str,
        model: &str,
        args: &[String],
        train: &str,
        test: &str,
    ) -> Vec<f64> {
        let (m, p) = (self.dir.join(tag), self.dir.join(format!("{tag}.out")));
        let (m, p) = (m.to_str().unwrap(), p.to_str().unwrap());
        let mut words: Vec<&str> = vec!["train", model];
        words.extend(args.iter().map(String::as_str));
        words.extend([train, "-o", m]);
        stdout(&margin(&words));
        predict(m, test, p);
        numbers(Path::new(p))
    }

    /// The same model on the raw features with `kernel`, and on its Gram matrices.
    fn both(&self, model: &str, kernel: Kernel, extra: &[&str]) -> (Vec<f64>, Vec<f64>) {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let raw = [kernel.flags(), extra.clone()].concat();
        let pre = [vec!["--kernel".into(), "precomputed".into()], extra].concat();
        (
            self.train_predict(
                "raw",
                model,
                &raw,
                &self.train_features,
                &self.test_features,
            ),
            self.train_predict("pre", model, &pre, &self.train_gram, &self.test_gram),
        )
    }
}

/// Asserts `a` and `b` agree to `tol` relative to their size (at least 1).
fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        assert!(
            (p - q).abs() <= tol * p.abs().max(1.0),
            "row {i}: {p} vs {q}"
        );
    }
}

// Why labels are compared exactly and values to 1e-9: training sees the same kernel values
// either way (computed here as LIBSVM's solver computes them, then cached as f32), so the solver
// takes the same path and finds the same support vectors and coefficients. At prediction margin
// evaluates raw-feature kernels in blocks (matrix products, norms), not term by term as the loops
// here do, so the decision values differ in the last bits (about 1e-15); labels do not move.

#[test]
fn svc_on_a_gram_matrix_predicts_as_on_the_features() {
    let dir = tempfile::tempdir().unwrap();
    for kernel in [Kernel::Linear, Kernel::Rbf(0.1)] {
        let s = split(dir.path(), "heart_scale", kernel);
        let (raw, pre) = s.both("svc", kernel, &[]);
        assert_eq!(raw.len(), 270 - N_TRAIN);
        assert_eq!(raw, pre);
        let (raw, pre) = s.both("nu-svc", kernel, &["--nu", "0.4"]);
        assert_eq!(raw, pre);
    }
}

#[test]
fn svc_probabilities_on_a_gram_matrix_are_those_on_the_features() {
    // Platt scaling's internal folds select training rows, which keep their serial numbers.
    let dir = tempfile::tempdir().unwrap();
    let s = split(dir.path(), "heart_scale", Kernel::Linear);
    let proba = |tag: &str, kernel: &str, data: &str, test: &str| {
        let m = dir.path().join(tag);
        let m = m.to_str().unwrap();
        train(&[
            "svc",
            "--kernel",
            kernel,
            "--probability",
            "true",
            data,
            "-o",
            m,
        ]);
        stdout(&margin(&["predict", m, test, "--proba"]))
    };
    let raw = proba("raw", "linear", &s.train_features, &s.test_features);
    assert!(raw.starts_with("label -1 1\n"), "{raw}");
    assert_eq!(
        raw,
        proba("pre", "precomputed", &s.train_gram, &s.test_gram)
    );
}

#[test]
fn svr_on_a_gram_matrix_predicts_as_on_the_features() {
    let dir = tempfile::tempdir().unwrap();
    for kernel in [Kernel::Linear, Kernel::Rbf(0.2)] {
        let s = split(dir.path(), "housing_scale", kernel);
        let (raw, pre) = s.both("svr", kernel, &["--c", "10", "--epsilon", "0.5"]);
        assert_eq!(raw.len(), 506 - N_TRAIN);
        close(&raw, &pre, 1e-9);
        let (raw, pre) = s.both("nu-svr", kernel, &["--c", "10"]);
        close(&raw, &pre, 1e-9);
    }
}

#[test]
fn one_class_svm_on_a_gram_matrix_predicts_as_on_the_features() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = Kernel::Rbf(0.1);
    let s = split(dir.path(), "heart_scale", kernel);
    let (raw, pre) = s.both("one-class-svm", kernel, &["--nu", "0.3"]);
    assert!(raw.contains(&1.0) && raw.contains(&-1.0), "{raw:?}");
    assert_eq!(raw, pre);
}

/// A LIBSVM model file's ρ line(s) and every support vector's coefficient(s).
fn solution(model: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(model).unwrap();
    let (head, svs) = text.split_once("SV\n").unwrap();
    let rho = head.lines().filter(|l| l.starts_with("rho "));
    let coefs = svs.lines().map(|l| l.split(' ').next().unwrap());
    rho.chain(coefs).map(str::to_owned).collect()
}

#[test]
fn precomputed_models_predict_as_svm_train_t_4() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("heart_scale", "svc", "0", Kernel::Linear),
        ("housing_scale", "svr", "3", Kernel::Rbf(0.2)),
    ];
    for (data, model, svm_type, kernel) in cases {
        let s = split(dir.path(), data, kernel);
        let pre = ["--kernel".to_string(), "precomputed".into()];
        let ours = s.train_predict("pre", model, &pre, &s.train_gram, &s.test_gram);
        let (m, p) = (s.dir.join("libsvm"), s.dir.join("libsvm.out"));
        let (m, p) = (m.to_str().unwrap(), p.to_str().unwrap());
        stdout(&margin(&[
            "svm-train",
            "-q",
            "-s",
            svm_type,
            "-t",
            "4",
            &s.train_libsvm_gram,
            m,
        ]));
        stdout(&margin(&["svm-predict", &s.test_libsvm_gram, m, p]));
        // Both sum each decision value over the support vectors in their order, reading the
        // same kernel values: to the last bit.
        assert_eq!(ours, numbers(Path::new(p)));
        // The kernel values computed here are the solver's own: svm-train on the features
        // with the same kernel finds the same coefficients and ρ.
        let raw = s.dir.join("libsvm.raw");
        let mut words = vec!["svm-train", "-q", "-s", svm_type];
        let gamma = match kernel {
            Kernel::Linear => None,
            Kernel::Rbf(g) => Some(g.to_string()),
        };
        match &gamma {
            None => words.extend(["-t", "0"]),
            Some(g) => words.extend(["-t", "2", "-g", g]),
        }
        words.extend([s.train_features.as_str(), raw.to_str().unwrap()]);
        stdout(&margin(&words));
        assert_eq!(solution(Path::new(m)), solution(&raw), "{data}");
        // A LIBSVM file of the Gram matrix (no serial numbers) is read as the CSV is.
        let sparse = dir.path().join(format!("{data}.plain"));
        let (y, x) = read_libsvm(data);
        let k = kernel.gram(&x[..N_TRAIN], &x[..N_TRAIN]);
        let sparse = write_libsvm(&sparse, &k, &y[..N_TRAIN], None);
        let again = s.train_predict("sparse", model, &pre, &sparse, &s.test_gram);
        assert_eq!(ours, again);
    }
}

#[test]
fn cross_validation_on_a_gram_matrix_matches_the_features() {
    // Each fold trains on some rows of the whole Gram matrix: their columns still name every
    // sample of the file, so a fold's kernel is K(fold, fold), as LIBSVM's `-v` with `-t 4`.
    let dir = tempfile::tempdir().unwrap();
    let (y, x) = read_libsvm("heart_scale");
    let kernel = Kernel::Rbf(0.1);
    let features = write_libsvm(&dir.path().join("all"), &x, &y, None);
    let gram = write_csv(&dir.path().join("all.csv"), &kernel.gram(&x, &x), &y);
    let evaluate = |kernel: &[String], data: &str, tag: &str| {
        let report = dir.path().join(format!("{tag}.md"));
        let roc = dir.path().join(format!("{tag}.svg"));
        let mut words = vec!["evaluate", "svc"];
        words.extend(kernel.iter().map(String::as_str));
        words.extend([
            data,
            "--cv",
            "5",
            "--seed",
            "7",
            "--metrics",
            "accuracy,mcc",
            "--roc",
            roc.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ]);
        let table = stdout(&margin(&words));
        let auc = std::fs::read_to_string(report)
            .unwrap()
            .lines()
            .find(|l| l.starts_with("Pooled cross-validated AUROC"))
            .unwrap()
            .to_owned();
        (table, auc)
    };
    let raw = evaluate(&kernel.flags(), &features, "raw");
    let pre = evaluate(&["--kernel".into(), "precomputed".into()], &gram, "pre");
    assert!(raw.0.contains("mean"), "{}", raw.0);
    assert_eq!(raw, pre);
}

#[test]
fn precomputed_kernels_refuse_what_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let s = split(dir.path(), "heart_scale", Kernel::Linear);
    let (y, x) = read_libsvm("heart_scale");
    let k = Kernel::Linear.gram(&x[..N_TRAIN], &x[..N_TRAIN]);
    let model = dir.path().join("m");
    let m = model.to_str().unwrap();
    // K(train, train) with a column too few, and with a column too many.
    let narrow: Vec<Vec<f64>> = k.iter().map(|r| r[1..].to_vec()).collect();
    let narrow = write_csv(&dir.path().join("narrow.csv"), &narrow, &y[..N_TRAIN]);
    fails_with(
        &["train", "svc", "--kernel", "precomputed", &narrow, "-o", m],
        2,
        "square Gram matrix K(train, train), one column per training sample in the order of the rows; found 150 rows and 149 columns, it needs 150 columns",
    );
    let wide: Vec<Vec<f64>> = k.iter().map(|r| [r.clone(), vec![1.0]].concat()).collect();
    let wide = write_libsvm(&dir.path().join("wide"), &wide, &y[..N_TRAIN], None);
    fails_with(
        &["train", "svr", "--kernel", "precomputed", &wide, "-o", m],
        2,
        "found 150 rows and 151 columns, it needs 150 columns",
    );
    assert!(!model.exists());
    // Kernel parameters do nothing with a precomputed kernel: refused, not ignored.
    for (flag, value) in [("--gamma", "0.5"), ("--degree", "2"), ("--coef0", "1")] {
        fails_with(
            &[
                "train",
                "one-class-svm",
                "--kernel",
                "precomputed",
                flag,
                value,
                &s.train_gram,
                "-o",
                m,
            ],
            2,
            &format!("{flag}: {} is used only with kernel ", &flag[2..]),
        );
    }
    // At prediction, K(test, train) needs one column per training sample.
    train(&["svc", "--kernel", "precomputed", &s.train_gram, "-o", m]);
    let (y_test, x_test) = (&y[N_TRAIN..], &x[N_TRAIN..]);
    let k_test = Kernel::Linear.gram(x_test, &x[..N_TRAIN + 1]);
    let wide = write_csv(&dir.path().join("wide_test.csv"), &k_test, y_test);
    fails_with(
        &["predict", m, &wide],
        2,
        "the model was trained on a precomputed kernel of 150 training samples: the data must be K(test, train), one column per training sample in the training order (150 columns), found 151 columns",
    );
    // The raw features are not a kernel. (A LIBSVM file may stop below the last column: it
    // stores no zeros, and K(test, train) can be 0 in a whole column.)
    let features = write_csv(&dir.path().join("features.csv"), x_test, y_test);
    fails_with(
        &["predict", m, &features],
        2,
        "(150 columns), found 13 columns",
    );
    stdout(&margin(&["predict", m, &s.test_gram]));
}

#[test]
fn help_lists_the_precomputed_kernel() {
    let help = stdout(&margin(&["train", "svr", "--help"]));
    assert!(
        help.contains("linear|poly|rbf|sigmoid|precomputed"),
        "{help}"
    );
    // A custom kernel is given whole in the library; the command line does not offer it.
    assert!(!help.contains("custom"), "{help}");
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("Gram matrix K(train, train)"), "{help}");
    fails_with(
        &[
            "train",
            "svc",
            "--kernel",
            "gram",
            "datasets/heart_scale",
            "-o",
            "x",
        ],
        2,
        "expected linear, poly, rbf, sigmoid or precomputed, found `gram`",
    );
}
