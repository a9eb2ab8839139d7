//! LIBSVM's text model files (`svm-train`'s output, `svm-predict`'s input): written so that
//! LIBSVM's own tools read them, and read from LIBSVM.

use std::fmt::Write as _;
use std::path::Path;

use core_linalg::io::{LibsvmOptions, format_g, read_libsvm_from};
use core_linalg::{Error, Label, Matrix, Records, Result};
use kernels::{KernelSpec, Linear, Polynomial, Precomputed, Rbf, Sigmoid};
use optim::StopReason;

use crate::expansion::Expansion;
use crate::svc::{BinaryModel, Multiclass, Svc};
use crate::{OneClassSvm, Svr};

/// A model LIBSVM's file format can hold.
#[derive(Clone, Debug, PartialEq)]
pub enum LibsvmModel {
    /// `svm_type c_svc`.
    Svc(Svc),
    /// `svm_type epsilon_svr`.
    Svr(Svr),
    /// `svm_type one_class`.
    OneClass(OneClassSvm),
}

fn kernel_lines(kernel: &KernelSpec, out: &mut String) -> Result<()> {
    let g = |x: f64| format_g(x, 17);
    match kernel {
        KernelSpec::Linear(_) => out.push_str("kernel_type linear\n"),
        KernelSpec::Polynomial(p) => {
            let _ = write!(
                out,
                "kernel_type polynomial\ndegree {}\ngamma {}\ncoef0 {}\n",
                p.degree(),
                g(p.gamma()),
                g(p.coef0())
            );
        }
        KernelSpec::Rbf(r) => {
            let _ = write!(out, "kernel_type rbf\ngamma {}\n", g(r.gamma()));
        }
        KernelSpec::Sigmoid(s) => {
            let _ = write!(
                out,
                "kernel_type sigmoid\ngamma {}\ncoef0 {}\n",
                g(s.gamma()),
                g(s.coef0())
            );
        }
        KernelSpec::Precomputed(_) => out.push_str("kernel_type precomputed\n"),
        other => {
            return Err(Error::invalid_parameter(
                "kernel",
                kernels::Kernel::name(other),
                "linear, polynomial, rbf, sigmoid or precomputed (LIBSVM's model files hold no other kernel; save with margin's own model file)",
            ));
        }
    }
    Ok(())
}

fn label_int(l: &Label) -> Result<i64> {
    match l {
        Label::Number(x) if x.fract() == 0.0 && x.abs() < 2f64.powi(31) => Ok(*x as i64),
        other => Err(Error::invalid_parameter(
            "label",
            other,
            "integer labels (LIBSVM model files store labels as int)",
        )),
    }
}

fn sv_line(out: &mut String, coefs: &[f64], sv: core_linalg::RowView<'_>, precomputed: bool) {
    for c in coefs {
        let _ = write!(out, "{} ", format_g(*c, 17));
    }
    if precomputed {
        let _ = write!(out, "0:{} ", sv.get(0) as i64);
    } else {
        sv.for_each_stored(|j, v| {
            if v != 0.0 {
                let _ = write!(out, "{}:{} ", j + 1, format_g(v, 8));
            }
        });
    }
    out.push('\n');
}

impl LibsvmModel {
    /// The model in LIBSVM's text format.
    pub fn to_text(&self) -> Result<String> {
        let mut out = String::new();
        match self {
            LibsvmModel::Svc(m) => {
                if m.multiclass() != Multiclass::OneVsOne {
                    return Err(Error::invalid_parameter(
                        "multiclass",
                        "one-vs-rest",
                        "one-vs-one (LIBSVM model files hold only one-vs-one)",
                    ));
                }
                out.push_str(if m.is_nu() {
                    "svm_type nu_svc\n"
                } else {
                    "svm_type c_svc\n"
                });
                kernel_lines(m.kernel(), &mut out)?;
                let k = m.labels().len();
                let n_sv = m.support_class().len();
                let _ = write!(out, "nr_class {k}\ntotal_sv {n_sv}\nrho");
                for p in m.problems() {
                    let _ = write!(out, " {}", format_g(p.rho, 17));
                }
                out.push_str("\nlabel");
                for l in m.labels() {
                    let _ = write!(out, " {}", label_int(l)?);
                }
                if let Some(sig) = m
                    .problems()
                    .iter()
                    .map(|p| p.probability)
                    .collect::<Option<Vec<_>>>()
                {
                    out.push_str("\nprobA");
                    for (a, _) in &sig {
                        let _ = write!(out, " {}", format_g(*a, 17));
                    }
                    out.push_str("\nprobB");
                    for (_, b) in &sig {
                        let _ = write!(out, " {}", format_g(*b, 17));
                    }
                }
                out.push_str("\nnr_sv");
                for c in m.n_support() {
                    let _ = write!(out, " {c}");
                }
                out.push_str("\nSV\n");
                // LIBSVM's layout: for a support vector of class c, row j of sv_coef holds its
                // coefficient in the problem between c and the j-th other class.
                let mut coef = vec![vec![0.0; n_sv]; k.saturating_sub(1)];
                for p in m.problems() {
                    let (a, b) = (p.positive, p.negative.unwrap_or(0));
                    // A support vector of the negative class with α = 0 in this problem has
                    // coefficient α·y = −0, which LIBSVM writes as `-0`.
                    for (s, &c) in m.support_class().iter().enumerate() {
                        if c == b {
                            coef[a][s] = -0.0;
                        }
                    }
                    for &(s, v) in &p.coef {
                        let c = m.support_class()[s];
                        let other = if c == a { b } else { a };
                        coef[if other > c { other - 1 } else { other }][s] = v;
                    }
                }
                let precomputed = matches!(m.kernel(), KernelSpec::Precomputed(_));
                for s in 0..n_sv {
                    let row: Vec<f64> = coef.iter().map(|r| r[s]).collect();
                    sv_line(&mut out, &row, m.support_vectors().row(s), precomputed);
                }
            }
            LibsvmModel::Svr(m) => expansion_text(
                if m.is_nu() { "nu_svr" } else { "epsilon_svr" },
                &m.expansion,
                &mut out,
            )?,
            LibsvmModel::OneClass(m) => expansion_text("one_class", &m.expansion, &mut out)?,
        }
        Ok(out)
    }

    /// Writes the model to `path` in LIBSVM's format (whole or not at all: through a
    /// temporary file renamed into place).
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = self.to_text()?;
        core_linalg::io::write_atomically(path, |w| w.write_all(text.as_bytes()))
    }

    /// Reads a LIBSVM model file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::from_text(&text)
    }

    /// Parses LIBSVM's text format.
    pub fn from_text(text: &str) -> Result<Self> {
        let mut header: Vec<(usize, &str, Vec<&str>)> = Vec::new();
        let mut lines = text.lines().enumerate();
        let mut sv_start = None;
        for (i, line) in lines.by_ref() {
            let mut words = line.split_whitespace();
            let Some(key) = words.next() else { continue };
            if key == "SV" {
                sv_start = Some(i + 1);
                break;
            }
            header.push((i + 1, key, words.collect()));
        }
        let sv_start = sv_start.ok_or_else(|| {
            Error::parse(
                text.lines().count().max(1),
                1,
                "no `SV` line: not a LIBSVM model file",
            )
        })?;
        let get = |key: &str| header.iter().find(|(_, k, _)| *k == key);
        let num = |key: &str| -> Result<Option<f64>> {
            match get(key) {
                None => Ok(None),
                Some((line, _, v)) => v
                    .first()
                    .and_then(|s| s.parse::<f64>().ok())
                    .map(Some)
                    .ok_or_else(|| Error::parse(*line, 1, format!("`{key}` needs a number"))),
            }
        };
        let nums = |key: &str| -> Result<Vec<f64>> {
            match get(key) {
                None => Ok(Vec::new()),
                Some((line, _, v)) => v
                    .iter()
                    .map(|s| {
                        s.parse::<f64>().map_err(|_| {
                            Error::parse(*line, 1, format!("`{key}`: `{s}` is not a number"))
                        })
                    })
                    .collect(),
            }
        };
        let word = |key: &str| get(key).and_then(|(_, _, v)| v.first().copied());
        let svm_type = word("svm_type").ok_or_else(|| Error::parse(1, 1, "missing `svm_type`"))?;
        let gamma = num("gamma")?.unwrap_or(0.0);
        let coef0 = num("coef0")?.unwrap_or(0.0);
        let kernel: KernelSpec = match word("kernel_type") {
            Some("linear") => Linear.into(),
            Some("polynomial") => {
                Polynomial::new(gamma, coef0, num("degree")?.unwrap_or(3.0) as u32)?.into()
            }
            Some("rbf") => Rbf::with_gamma(gamma)?.into(),
            Some("sigmoid") => Sigmoid::new(gamma, coef0)?.into(),
            Some("precomputed") => Precomputed.into(),
            other => {
                return Err(Error::parse(
                    get("kernel_type").map_or(1, |h| h.0),
                    1,
                    format!("unknown kernel_type {other:?}"),
                ));
            }
        };
        let nr_class = num("nr_class")?.unwrap_or(2.0) as usize;
        let rho = nums("rho")?;
        let n_coef_rows = nr_class.saturating_sub(1).max(1);
        // SV lines: coefficients, then a LIBSVM-format sparse row.
        let mut coefs: Vec<Vec<f64>> = Vec::new();
        let mut rows = String::new();
        for (i, line) in text.lines().enumerate().skip(sv_start) {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            if words.len() < n_coef_rows {
                return Err(Error::parse(
                    i + 1,
                    1,
                    format!("expected {n_coef_rows} coefficients"),
                ));
            }
            let c = words[..n_coef_rows]
                .iter()
                .map(|s| {
                    s.parse::<f64>().map_err(|_| {
                        Error::parse(i + 1, 1, format!("coefficient `{s}` is not a number"))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            coefs.push(c);
            rows.push_str("0 ");
            rows.push_str(&words[n_coef_rows..].join(" "));
            rows.push('\n');
        }
        let base = if matches!(kernel, KernelSpec::Precomputed(_)) {
            core_linalg::io::IndexBase::Zero
        } else {
            core_linalg::io::IndexBase::One
        };
        let support = read_libsvm_from(
            rows.as_bytes(),
            &LibsvmOptions {
                index_base: base,
                ..Default::default()
            },
        )
        .map_err(|e| match e {
            Error::Parse {
                line,
                column,
                message,
            } => Error::parse(line + sv_start, column, message),
            other => other,
        })?
        .records;
        let support = Matrix::Sparse(support.to_sparse());
        let n_sv = support.n_samples();
        let expansion = |rho: f64| {
            Expansion {
                kernel: kernel.clone(),
                n_features: support.n_features(),
                support: support.clone(),
                support_indices: (0..n_sv).collect(),
                coef: coefs.iter().map(|c| c[0]).collect(),
                rho,
                objective: f64::NAN,
                iterations: 0,
                stop: StopReason::Converged,
                weights: None,
            }
            .with_linear_weights()
        };
        let first_rho = *rho
            .first()
            .ok_or_else(|| Error::parse(1, 1, "missing `rho`"))?;
        match svm_type {
            "epsilon_svr" | "nu_svr" => Ok(LibsvmModel::Svr(Svr {
                expansion: expansion(first_rho)?,
                nu: svm_type == "nu_svr",
            })),
            "one_class" => Ok(LibsvmModel::OneClass(OneClassSvm {
                expansion: expansion(first_rho)?,
            })),
            "c_svc" | "nu_svc" => {
                let labels: Vec<Label> = nums("label")?.into_iter().map(Label::Number).collect();
                let nr_sv: Vec<usize> = nums("nr_sv")?.into_iter().map(|v| v as usize).collect();
                if labels.len() != nr_class
                    || nr_sv.len() != nr_class
                    || nr_sv.iter().sum::<usize>() != n_sv
                {
                    return Err(Error::parse(
                        1,
                        1,
                        "`label`, `nr_sv` and the SV lines disagree with `nr_class`",
                    ));
                }
                if rho.len() != nr_class * (nr_class - 1) / 2 {
                    return Err(Error::parse(
                        get("rho").map_or(1, |h| h.0),
                        1,
                        "`rho` needs one value per pair of classes",
                    ));
                }
                let start: Vec<usize> = nr_sv
                    .iter()
                    .scan(0, |acc, &c| {
                        let s = *acc;
                        *acc += c;
                        Some(s)
                    })
                    .collect();
                let (prob_a, prob_b) = (nums("probA")?, nums("probB")?);
                let prob = (prob_a.len() == rho.len() && prob_b.len() == rho.len())
                    .then_some((prob_a, prob_b));
                let support_class: Vec<usize> = (0..nr_class)
                    .flat_map(|c| std::iter::repeat_n(c, nr_sv[c]))
                    .collect();
                let mut problems = Vec::new();
                let mut p = 0;
                for a in 0..nr_class {
                    for b in a + 1..nr_class {
                        let mut coef = Vec::new();
                        coef.extend((start[a]..start[a] + nr_sv[a]).map(|s| (s, coefs[s][b - 1])));
                        coef.extend((start[b]..start[b] + nr_sv[b]).map(|s| (s, coefs[s][a])));
                        coef.retain(|&(_, v)| v != 0.0);
                        problems.push(BinaryModel {
                            positive: a,
                            negative: Some(b),
                            coef,
                            rho: rho[p],
                            objective: f64::NAN,
                            iterations: 0,
                            stop: StopReason::Converged,
                            n_bounded: 0,
                            probability: prob.as_ref().map(|(a, b)| (a[p], b[p])),
                        });
                        p += 1;
                    }
                }
                Ok(LibsvmModel::Svc(Svc::from_parts(
                    kernel,
                    labels,
                    support,
                    support_class,
                    problems,
                    Multiclass::OneVsOne,
                    svm_type == "nu_svc",
                )?))
            }
            other => Err(Error::parse(
                get("svm_type").map_or(1, |h| h.0),
                1,
                format!(
                    "svm_type `{other}` is not supported (c_svc, epsilon_svr and one_class are)"
                ),
            )),
        }
    }

    /// Number of features the model's support vectors span.
    pub fn n_features(&self) -> usize {
        match self {
            LibsvmModel::Svc(m) => m.n_features(),
            LibsvmModel::Svr(m) => m.expansion.n_features,
            LibsvmModel::OneClass(m) => m.expansion.n_features,
        }
    }

    /// The same model accepting records of `n_features` columns (LIBSVM ignores feature
    /// indices a model never saw; a sparse support set widens at no cost).
    pub fn with_n_features(self, n_features: usize) -> Result<Self> {
        Ok(match self {
            LibsvmModel::Svc(m) => LibsvmModel::Svc(m.with_n_features(n_features)?),
            LibsvmModel::Svr(mut m) => {
                m.expansion = m.expansion.with_n_features(n_features)?;
                LibsvmModel::Svr(m)
            }
            LibsvmModel::OneClass(mut m) => {
                m.expansion = m.expansion.with_n_features(n_features)?;
                LibsvmModel::OneClass(m)
            }
        })
    }
}

fn expansion_text(svm_type: &str, e: &Expansion, out: &mut String) -> Result<()> {
    let _ = writeln!(out, "svm_type {svm_type}");
    kernel_lines(&e.kernel, out)?;
    let _ = write!(
        out,
        "nr_class 2\ntotal_sv {}\nrho {}\nSV\n",
        e.coef.len(),
        format_g(e.rho, 17)
    );
    let precomputed = matches!(e.kernel, KernelSpec::Precomputed(_));
    for (s, &c) in e.coef.iter().enumerate() {
        sv_line(out, &[c], e.support.row(s), precomputed);
    }
    Ok(())
}
