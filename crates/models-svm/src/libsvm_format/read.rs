//! Reading LIBSVM's text model files, checking every count, index and number first (see the
//! parent module for the list).

use margin_core::{CsrMatrix, Error, Label, Matrix, Records, Result};
use margin_io::{IndexBase, LibsvmOptions, read_libsvm_from};
use margin_kernels::{KernelSpec, Linear, Polynomial, Precomputed, Rbf, Sigmoid};
use margin_optim::Stop;

use super::{LibsvmModel, SingleClass};
use crate::expansion::Expansion;
use crate::probability::NR_MARKS;
use crate::svc::{BinaryModel, Svc, SvcHyperparams};
use crate::svr::SvrHyperparams;
use crate::{OneClassSvm, OneClassSvmParams, Svr};

/// [`LibsvmModel::from_text_indexed`]: `base` is how the SV lines' feature indices map to
/// columns (precomputed-kernel lines are zero-based whatever it says).
pub(super) fn parse(text: &str, base: IndexBase) -> Result<LibsvmModel> {
    let header = Header::parse(text)?;
    let kind = header.svm_type()?;
    let kernel = header.kernel()?;
    header.refuse_foreign_keys(kind, &kernel)?;
    let nr_class: usize = header.require("nr_class")?.int("an integer ≥ 2")?;
    // One class: what LIBSVM's svm_train makes of classification data with a single label.
    let fewest = if kind.is_classifier() { 1 } else { 2 };
    if nr_class < fewest || (kind.is_classifier() && nr_class > i32::MAX as usize) {
        return Err(header.require("nr_class")?.error(
            1,
            format!("{nr_class} classes: expected {fewest} to {}", i32::MAX),
        ));
    }
    if !kind.is_classifier() && nr_class != 2 {
        return Err(header.require("nr_class")?.error(
            1,
            format!(
                "{nr_class} for a {} model: LIBSVM writes 2 for regression and one-class models",
                kind.name()
            ),
        ));
    }
    let pairs = nr_class * (nr_class - 1) / 2;
    let total_sv: usize = header
        .require("total_sv")?
        .int("a count of support vectors")?;
    let rho = header
        .require("rho")?
        .finite(pairs, "one per pair of classes")?;
    let precomputed = matches!(kernel, KernelSpec::Precomputed(_));
    let sv = SvSection::parse(text, &header, nr_class - 1, total_sv, precomputed, base)?;
    let expansion = |rho: f64| {
        Expansion {
            kernel: kernel.clone(),
            n_features: sv.support.n_features(),
            support: sv.support.clone(),
            support_indices: (0..total_sv).collect(),
            coef: sv.coefs.iter().map(|c| c[0]).collect(),
            rho,
            objective: f64::NAN,
            iterations: 0,
            stop: Stop::CONVERGED,
            weights: None,
        }
        .with_linear_weights()
    };
    match kind {
        SvmType::EpsilonSvr | SvmType::NuSvr => {
            let laplace_scale = match header.get("probA") {
                None => None,
                Some(e) => {
                    let s = e.finite(1, "value (the Laplace scale σ)")?[0];
                    if s < 0.0 {
                        return Err(e.error(1, format!("{s}: a scale σ must be ≥ 0")));
                    }
                    Some(s)
                }
            };
            Ok(LibsvmModel::Svr(Svr {
                params: SvrHyperparams::from_libsvm(
                    &kernel,
                    kind == SvmType::NuSvr,
                    laplace_scale.is_some(),
                ),
                expansion: expansion(rho[0])?,
                laplace_scale,
                probability_folds: margin_core::Convergence::default(),
            }))
        }
        SvmType::OneClass => {
            let density_marks = match header.get("prob_density_marks") {
                None => None,
                Some(e) => {
                    let marks = e.finite(NR_MARKS, "values")?;
                    let mut fixed = [0.0; NR_MARKS];
                    fixed.copy_from_slice(&marks);
                    Some(fixed)
                }
            };
            Ok(LibsvmModel::OneClass(OneClassSvm {
                params: OneClassSvmParams::from_libsvm(&kernel, density_marks.is_some()),
                expansion: expansion(rho[0])?,
                density_marks,
            }))
        }
        SvmType::CSvc | SvmType::NuSvc => {
            let classifier = ClassifierHeader::parse(&header, nr_class, total_sv)?;
            if nr_class == 1 {
                if total_sv != 0 {
                    return Err(header.require("total_sv")?.error(
                        1,
                        format!(
                            "is {total_sv} for one class: LIBSVM trains no support vector then"
                        ),
                    ));
                }
                return Ok(LibsvmModel::SingleClass(SingleClass {
                    kernel,
                    label: classifier.ints[0],
                    nu: kind == SvmType::NuSvc,
                    probability: classifier.prob.is_some(),
                    n_features: 0,
                }));
            }
            Ok(LibsvmModel::Svc(classifier.model(
                kernel,
                sv,
                &rho,
                kind == SvmType::NuSvc,
            )?))
        }
    }
}

/// LIBSVM's `svm_type` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SvmType {
    CSvc,
    NuSvc,
    OneClass,
    EpsilonSvr,
    NuSvr,
}

impl SvmType {
    const ALL: [SvmType; 5] = [
        SvmType::CSvc,
        SvmType::NuSvc,
        SvmType::OneClass,
        SvmType::EpsilonSvr,
        SvmType::NuSvr,
    ];

    fn name(self) -> &'static str {
        match self {
            SvmType::CSvc => "c_svc",
            SvmType::NuSvc => "nu_svc",
            SvmType::OneClass => "one_class",
            SvmType::EpsilonSvr => "epsilon_svr",
            SvmType::NuSvr => "nu_svr",
        }
    }

    fn is_classifier(self) -> bool {
        matches!(self, SvmType::CSvc | SvmType::NuSvc)
    }

    /// The header keys LIBSVM writes for this type besides the common ones.
    fn keys(self) -> &'static [&'static str] {
        match self {
            SvmType::CSvc | SvmType::NuSvc => &["label", "probA", "probB", "nr_sv"],
            SvmType::EpsilonSvr | SvmType::NuSvr => &["probA"],
            SvmType::OneClass => &["prob_density_marks"],
        }
    }
}

/// The bytes of the LIBSVM model file at `path` (a file, a pipe or a FIFO: opened once, read in
/// order).
///
/// The first word must be a key of LIBSVM's header (or margin's magic bytes, which
/// [`LibsvmModel::from_bytes`] refuses naming the command that reads them): it is checked on
/// the first block read, so `/dev/zero`, a data file or any binary file is refused at once
/// instead of being read whole; the rest grows through [`margin_core::memory`].
pub(super) fn model_bytes(path: &std::path::Path) -> Result<Vec<u8>> {
    use std::io::{BufRead, BufReader};
    let io = |e| Error::io(path, e);
    let file = std::fs::File::open(path).map_err(io)?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if chunk.is_empty() {
            return Ok(bytes);
        }
        if bytes.is_empty() && !chunk.starts_with(b"MARGINMF") {
            let word = chunk
                .split(u8::is_ascii_whitespace)
                .next()
                .unwrap_or_default();
            if !HEADER_KEYS.iter().any(|k| k.as_bytes() == word) {
                let shown = String::from_utf8_lossy(&word[..word.len().min(24)])
                    .escape_debug()
                    .to_string();
                return Err(Error::model_file(format!(
                    "{}: not a LIBSVM model file: it begins with `{shown}`, where a LIBSVM model begins with `svm_type`",
                    path.display()
                )));
            }
        }
        let n = chunk.len();
        if bytes.len() + n > bytes.capacity() {
            // Doubling keeps the copies linear in the file's length.
            let more = bytes.len().max(n);
            margin_core::memory::reserve(
                &mut bytes,
                more,
                "the LIBSVM model file",
                margin_core::memory::SMALLER_INPUT,
            )?;
        }
        bytes.extend_from_slice(chunk);
        reader.consume(n);
    }
}

/// Every key LIBSVM's model reader knows.
const HEADER_KEYS: [&str; 13] = [
    "svm_type",
    "kernel_type",
    "degree",
    "gamma",
    "coef0",
    "nr_class",
    "total_sv",
    "rho",
    "label",
    "probA",
    "probB",
    "prob_density_marks",
    "nr_sv",
];

/// The whitespace-separated tokens of a line with their 1-based columns.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s + 1, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// One header line: its key and values, where they are.
struct Entry<'a> {
    line: usize,
    key: &'a str,
    values: Vec<(usize, &'a str)>,
}

impl Entry<'_> {
    fn error(&self, column: usize, message: impl std::fmt::Display) -> Error {
        Error::parse(self.line, column, format!("`{}` {message}", self.key))
    }

    /// Exactly `n` values.
    fn values(&self, n: usize, what: &str) -> Result<&[(usize, &str)]> {
        if self.values.len() == n {
            Ok(&self.values)
        } else {
            Err(self.error(
                1,
                format!("needs {n} {what} on its line, found {}", self.values.len()),
            ))
        }
    }

    /// The one value as an integer of type `T`.
    fn int<T: std::str::FromStr>(&self, what: &str) -> Result<T> {
        let (col, v) = self.values(1, "value")?[0];
        v.parse()
            .map_err(|_| self.error(col, format!("`{v}` is not {what}")))
    }

    /// The one value as a word.
    fn word(&self) -> Result<&str> {
        Ok(self.values(1, "value")?[0].1)
    }

    /// Exactly `n` finite numbers.
    fn finite(&self, n: usize, what: &str) -> Result<Vec<f64>> {
        self.values(n, what)?
            .iter()
            .map(|&(col, v)| match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                Ok(_) => Err(self.error(col, format!("`{v}` is not finite"))),
                Err(_) => Err(self.error(col, format!("`{v}` is not a number"))),
            })
            .collect()
    }

    /// Exactly `n` integers of type `T`.
    fn ints<T: std::str::FromStr>(&self, n: usize, what: &str) -> Result<Vec<T>> {
        self.values(n, what)?
            .iter()
            .map(|&(col, v)| {
                v.parse()
                    .map_err(|_| self.error(col, format!("`{v}` is not {what}")))
            })
            .collect()
    }
}

/// The header lines up to `SV`.
struct Header<'a> {
    entries: Vec<Entry<'a>>,
    /// Line number of the `SV` line.
    sv_line: usize,
}

impl<'a> Header<'a> {
    fn parse(text: &'a str) -> Result<Self> {
        let mut entries: Vec<Entry<'a>> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let toks = tokens(line);
            let Some(&(col, key)) = toks.first() else {
                continue;
            };
            if key == "SV" {
                return Ok(Header {
                    entries,
                    sv_line: i + 1,
                });
            }
            if !HEADER_KEYS.contains(&key) {
                return Err(Error::parse(
                    i + 1,
                    col,
                    format!(
                        "unknown text in model file: `{key}` (a LIBSVM model header has {} and then `SV`)",
                        HEADER_KEYS.join(", ")
                    ),
                ));
            }
            if let Some(first) = entries.iter().find(|e| e.key == key) {
                return Err(Error::parse(
                    i + 1,
                    col,
                    format!("`{key}` appears twice (first on line {})", first.line),
                ));
            }
            entries.push(Entry {
                line: i + 1,
                key,
                values: toks[1..].to_vec(),
            });
        }
        Err(Error::parse(
            text.lines().count().max(1),
            1,
            "no `SV` line: not a LIBSVM model file",
        ))
    }

    fn get(&self, key: &str) -> Option<&Entry<'a>> {
        self.entries.iter().find(|e| e.key == key)
    }

    fn require(&self, key: &str) -> Result<&Entry<'a>> {
        self.get(key).ok_or_else(|| {
            Error::parse(
                self.sv_line,
                1,
                format!("`SV` before `{key}`: a LIBSVM model header must give `{key}`"),
            )
        })
    }

    fn svm_type(&self) -> Result<SvmType> {
        let e = self.require("svm_type")?;
        let name = e.word()?;
        SvmType::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| {
                e.error(
                    e.values[0].0,
                    format!(
                        "`{name}`: unknown svm type (LIBSVM's are c_svc, nu_svc, one_class, epsilon_svr and nu_svr)"
                    ),
                )
            })
    }

    /// The kernel parameter keys `kernel_type` needs.
    fn kernel_keys(kernel_type: &str) -> &'static [&'static str] {
        match kernel_type {
            "polynomial" => &["degree", "gamma", "coef0"],
            "rbf" => &["gamma"],
            "sigmoid" => &["gamma", "coef0"],
            _ => &[],
        }
    }

    fn kernel(&self) -> Result<KernelSpec> {
        let e = self.require("kernel_type")?;
        let name = e.word()?;
        let num = |key: &str| -> Result<f64> { Ok(self.require(key)?.finite(1, "value")?[0]) };
        let built: Result<KernelSpec> = match name {
            "linear" => Ok(Linear.into()),
            "polynomial" => {
                let degree: u32 = self
                    .require("degree")?
                    .int("a non-negative integer degree")?;
                // LIBSVM trains (and so writes) a degree 0 and a negative coef0.
                Polynomial::libsvm(num("gamma")?, num("coef0")?, degree).map(Into::into)
            }
            "rbf" => Rbf::with_gamma(num("gamma")?).map(Into::into),
            "sigmoid" => {
                let (gamma, coef0) = (num("gamma")?, num("coef0")?);
                Sigmoid::with_gamma(gamma)
                    .and_then(|k| k.with_coef0(coef0))
                    .map(Into::into)
            }
            "precomputed" => Ok(Precomputed.into()),
            other => {
                return Err(e.error(
                    e.values[0].0,
                    format!(
                        "`{other}`: unknown kernel function (LIBSVM's are linear, polynomial, rbf, sigmoid and precomputed)"
                    ),
                ));
            }
        };
        built.map_err(|err| match err {
            Error::Parse { .. } => err,
            other => e.error(1, format!("{name}: {other}")),
        })
    }

    /// Refuses keys LIBSVM never writes for this type and kernel: their values would be lost
    /// (or a foreign file misread).
    fn refuse_foreign_keys(&self, kind: SvmType, kernel: &KernelSpec) -> Result<()> {
        let kernel_type = match kernel {
            KernelSpec::Polynomial(_) => "polynomial",
            KernelSpec::Rbf(_) => "rbf",
            KernelSpec::Sigmoid(_) => "sigmoid",
            _ => "",
        };
        let common = ["svm_type", "kernel_type", "nr_class", "total_sv", "rho"];
        for e in &self.entries {
            let belongs = common.contains(&e.key)
                || kind.keys().contains(&e.key)
                || Self::kernel_keys(kernel_type).contains(&e.key);
            if !belongs {
                return Err(e.error(
                    1,
                    format!(
                        "does not belong in a {} model with a {} kernel (LIBSVM never writes it there)",
                        kind.name(),
                        margin_kernels::Kernel::name(kernel)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A classifier's own header lines.
struct ClassifierHeader {
    labels: Vec<Label>,
    nr_sv: Vec<usize>,
    prob: Option<(Vec<f64>, Vec<f64>)>,
    /// The labels as written.
    ints: Vec<i32>,
}

impl ClassifierHeader {
    fn parse(header: &Header<'_>, nr_class: usize, total_sv: usize) -> Result<Self> {
        let pairs = nr_class * (nr_class - 1) / 2;
        let label_entry = header.require("label")?;
        let ints: Vec<i32> = label_entry.ints(nr_class, "an integer label (one per class)")?;
        for (k, l) in ints.iter().enumerate() {
            if ints[..k].contains(l) {
                return Err(label_entry.error(
                    label_entry.values[k].0,
                    format!("lists label {l} twice: class labels must be distinct"),
                ));
            }
        }
        let nr_sv_entry = header.require("nr_sv")?;
        let nr_sv: Vec<usize> =
            nr_sv_entry.ints(nr_class, "a count of support vectors (one per class)")?;
        let sum = nr_sv.iter().try_fold(0usize, |a, &c| a.checked_add(c));
        if sum != Some(total_sv) {
            return Err(nr_sv_entry.error(
                1,
                format!(
                    "adds up to {} but total_sv is {total_sv}",
                    sum.map_or_else(|| "more than any count".to_owned(), |s| s.to_string())
                ),
            ));
        }
        let prob = match (header.get("probA"), header.get("probB")) {
            (None, None) => None,
            (Some(a), Some(b)) => Some((
                a.finite(pairs, "values (one per pair of classes)")?,
                b.finite(pairs, "values (one per pair of classes)")?,
            )),
            (Some(e), None) | (None, Some(e)) => {
                return Err(e.error(
                    1,
                    "without its partner: a classifier's probability model needs both probA and probB",
                ));
            }
        };
        Ok(Self {
            labels: ints.iter().map(|&l| Label::Number(f64::from(l))).collect(),
            nr_sv,
            prob,
            ints,
        })
    }

    /// The classifier: support vectors grouped by class (`nr_sv`), one binary problem per pair.
    fn model(self, kernel: KernelSpec, sv: SvSection, rho: &[f64], nu: bool) -> Result<Svc> {
        let nr_class = self.labels.len();
        let start: Vec<usize> = self
            .nr_sv
            .iter()
            .scan(0, |acc, &c| {
                let s = *acc;
                *acc += c;
                Some(s)
            })
            .collect();
        let support_class: Vec<usize> = (0..nr_class)
            .flat_map(|c| std::iter::repeat_n(c, self.nr_sv[c]))
            .collect();
        let mut problems = Vec::new();
        let mut p = 0;
        for a in 0..nr_class {
            for b in a + 1..nr_class {
                let mut coef = Vec::new();
                let of = |c: usize| start[c]..start[c] + self.nr_sv[c];
                coef.extend(of(a).map(|s| (s, sv.coefs[s][b - 1])));
                coef.extend(of(b).map(|s| (s, sv.coefs[s][a])));
                coef.retain(|&(_, v)| v != 0.0);
                problems.push(BinaryModel {
                    positive: a,
                    negative: Some(b),
                    coef,
                    rho: rho[p],
                    objective: f64::NAN,
                    iterations: 0,
                    stop: Stop::CONVERGED,
                    n_bounded: 0,
                    probability: self.prob.as_ref().map(|(pa, pb)| (pa[p], pb[p])),
                    probability_folds: margin_core::Convergence::default(),
                    equivalent_c: None,
                });
                p += 1;
            }
        }
        let params = SvcHyperparams::from_libsvm(&kernel, nu, self.prob.is_some());
        Svc::from_parts(
            kernel,
            self.labels,
            sv.support,
            support_class,
            problems,
            params,
        )
    }
}

/// The SV lines: coefficients and support vectors.
struct SvSection {
    coefs: Vec<Vec<f64>>,
    support: Matrix,
}

impl SvSection {
    fn parse(
        text: &str,
        header: &Header<'_>,
        n_coef: usize,
        total_sv: usize,
        precomputed: bool,
        base: IndexBase,
    ) -> Result<Self> {
        let mut coefs: Vec<Vec<f64>> = Vec::new();
        // Each SV line's features, behind a dummy label, for the LIBSVM data reader; and where
        // they were (line, byte offset of the features) to report its errors in place.
        let mut rows = String::new();
        let mut places: Vec<(usize, usize)> = Vec::new();
        let mut last_line = header.sv_line;
        for (i, line) in text.lines().enumerate().skip(header.sv_line) {
            let toks = tokens(line);
            if toks.is_empty() {
                continue;
            }
            last_line = i + 1;
            if coefs.len() == total_sv {
                return Err(Error::parse(
                    i + 1,
                    1,
                    format!("SV line beyond the {total_sv} that `total_sv` announces"),
                ));
            }
            if toks.len() < n_coef || toks[..n_coef].iter().any(|(_, t)| t.contains(':')) {
                return Err(Error::parse(
                    i + 1,
                    1,
                    format!(
                        "an SV line starts with {n_coef} coefficient(s) (nr_class − 1), then index:value features"
                    ),
                ));
            }
            let c = toks[..n_coef]
                .iter()
                .map(|&(col, s)| match s.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    Ok(_) => Err(Error::parse(
                        i + 1,
                        col,
                        format!("coefficient `{s}` is not finite"),
                    )),
                    Err(_) => Err(Error::parse(
                        i + 1,
                        col,
                        format!("coefficient `{s}` is not a number"),
                    )),
                })
                .collect::<Result<Vec<_>>>()?;
            coefs.push(c);
            let offset = toks.get(n_coef).map_or(line.len(), |&(col, _)| col - 1);
            rows.push_str("0 ");
            rows.push_str(&line[offset..]);
            rows.push('\n');
            places.push((i + 1, offset));
        }
        if coefs.len() < total_sv {
            return Err(Error::parse(
                last_line,
                1,
                format!(
                    "`total_sv` is {total_sv} but the file holds {} SV line(s)",
                    coefs.len()
                ),
            ));
        }
        let support = if total_sv == 0 {
            CsrMatrix::new(vec![0], Vec::new(), Vec::new(), 0)?
        } else {
            let base = if precomputed { IndexBase::Zero } else { base };
            let options = LibsvmOptions {
                index_base: base,
                ..Default::default()
            };
            read_libsvm_from(rows.as_bytes(), &options)
                .map_err(|e| match e {
                    // The reader's line k is the k-th SV line; its columns are 2 bytes ("0 ")
                    // right of the features' place on that line.
                    Error::Parse {
                        line,
                        column,
                        message,
                    } => match places.get(line.wrapping_sub(1)) {
                        Some(&(l, offset)) => {
                            Error::parse(l, (column + offset).saturating_sub(2).max(1), message)
                        }
                        None => Error::parse(line, column, message),
                    },
                    other => other,
                })?
                .records
                .to_sparse()
        };
        if precomputed {
            for (s, &(line, offset)) in places.iter().enumerate() {
                let row = support.row(s);
                let serial_ok = |v: f64| v >= 1.0 && v.fract() == 0.0 && v <= f64::from(i32::MAX);
                if row.indices != [0] || !serial_ok(row.values[0]) {
                    return Err(Error::parse(
                        line,
                        offset + 1,
                        "a precomputed-kernel SV line holds its coefficients and `0:serial` (the serial number of a training sample, an integer ≥ 1) and nothing else",
                    ));
                }
            }
        }
        Ok(SvSection {
            coefs,
            support: Matrix::Sparse(support),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small valid three-class model, edited by each test.
    const THREE: &str = "svm_type c_svc
kernel_type rbf
gamma 0.5
nr_class 3
total_sv 4
rho 0.1 0.2 0.3
label 1 2 3
nr_sv 2 1 1
SV
1 0.5 1:0.5 3:1
-1 0 2:1
0.5 -0.5 1:-1
-1 1 2:0.25 4:1
";

    fn refused(text: &str) -> (usize, String) {
        match LibsvmModel::from_text(text) {
            Err(Error::Parse { line, message, .. }) => (line, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn model_files_are_read_once_and_refused_by_their_first_word() {
        let e = LibsvmModel::load(std::path::Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("not a LIBSVM model file"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::write(&data, "+1 1:0.5\n").unwrap();
        let e = LibsvmModel::load(&data).unwrap_err();
        assert!(e.to_string().contains("begins with `+1`"), "{e}");
        // A FIFO is read once, in order.
        let fifo = dir.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, THREE))
        };
        assert!(matches!(
            LibsvmModel::load(&fifo).unwrap(),
            LibsvmModel::Svc(_)
        ));
        writer.join().unwrap().unwrap();
    }

    #[test]
    fn the_reference_model_loads() {
        let LibsvmModel::Svc(m) = LibsvmModel::from_text(THREE).unwrap() else {
            panic!("not a classifier")
        };
        assert_eq!(m.classes().len(), 3);
        assert_eq!(m.n_support(), [2, 1, 1]);
        assert_eq!(m.n_features(), 4);
    }

    #[test]
    fn counts_that_disagree_are_refused_with_their_line() {
        let cases = [
            ("total_sv 4", "total_sv 5", 13, "holds 4 SV line"),
            ("total_sv 4", "total_sv 3", 13, "beyond the 3"),
            ("nr_sv 2 1 1", "nr_sv 2 1 2", 8, "adds up to 5"),
            ("nr_sv 2 1 1", "nr_sv 2 2", 8, "needs 3"),
            ("label 1 2 3", "label 1 2 1", 7, "twice"),
            ("label 1 2 3", "label 1 2 x", 7, "not an integer label"),
            ("rho 0.1 0.2 0.3", "rho 0.1 0.2", 6, "needs 3"),
            ("rho 0.1 0.2 0.3", "rho 0.1 nan 0.3", 6, "not finite"),
            ("nr_class 3", "nr_class 0", 4, "0 classes: expected 1 to"),
            // One class is LIBSVM's single-class model: it has no pair, so no rho.
            ("nr_class 3", "nr_class 1", 6, "needs 0"),
            ("nr_class 3", "nr_class 2.5", 4, "not an integer"),
            ("1 0.5 1:0.5 3:1", "1 inf 1:0.5 3:1", 10, "not finite"),
            ("1 0.5 1:0.5 3:1", "1 1:0.5 3:1", 10, "2 coefficient"),
            ("1 0.5 1:0.5 3:1", "1 0.5 3:0.5 1:1", 10, "increase"),
            ("1 0.5 1:0.5 3:1", "1 0.5 0:0.5 3:1", 10, "index 0"),
            ("1 0.5 1:0.5 3:1", "1 0.5 1:0.5 3:nan", 10, "feature value"),
            ("gamma 0.5", "gamma 0.5\ngamma 0.5", 4, "twice"),
            (
                "gamma 0.5",
                "gamma 0.5\nfoo 1",
                4,
                "unknown text in model file",
            ),
            ("gamma 0.5", "gamma 0.5\ndegree 3", 4, "does not belong"),
            (
                "label 1 2 3",
                "label 1 2 3\nprobA 1 2 3",
                8,
                "without its partner",
            ),
            ("svm_type c_svc", "svm_type c_svm", 1, "unknown svm type"),
            (
                "kernel_type rbf",
                "kernel_type gauss",
                2,
                "unknown kernel function",
            ),
        ];
        for (from, to, line, needle) in cases {
            let text = THREE.replacen(from, to, 1);
            let (got_line, message) = refused(&text);
            assert!(
                message.contains(needle) && got_line == line,
                "{to:?}: line {got_line} `{message}`, expected line {line} with `{needle}`"
            );
        }
    }

    #[test]
    fn missing_keys_are_named() {
        let (line, message) = refused(&THREE.replacen("nr_sv 2 1 1\n", "", 1));
        assert_eq!(line, 8);
        assert!(message.contains("`nr_sv`"), "{message}");
        let (_, message) = refused("svm_type c_svc\n");
        assert!(message.contains("no `SV` line"), "{message}");
    }

    #[test]
    fn regression_and_one_class_models_are_checked_too() {
        let svr = "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.5\nprobA 2.5\nSV\n1 1:1\n-1 2:1\n";
        let LibsvmModel::Svr(m) = LibsvmModel::from_text(svr).unwrap() else {
            panic!("not a regressor")
        };
        assert_eq!(m.laplace_scale(), Some(2.5));
        assert_eq!(refused(&svr.replace("total_sv 2", "total_sv 3")).0, 9);
        assert_eq!(refused(&svr.replace("total_sv 2", "total_sv 1")).0, 9);
        assert_eq!(refused(&svr.replace("nr_class 2", "nr_class 3")).0, 3);
        assert!(
            refused(&svr.replace("probA 2.5", "probA -1"))
                .1
                .contains("≥ 0")
        );
        assert!(
            refused(&svr.replace("probA 2.5", "probB 2.5"))
                .1
                .contains("does not belong")
        );
        assert!(
            refused(&svr.replace("rho 0.5", "rho inf"))
                .1
                .contains("not finite")
        );
        let one = svr
            .replace("epsilon_svr", "one_class")
            .replace("probA 2.5", "prob_density_marks 1 2 3 4 5 6 7 8 9 10");
        let LibsvmModel::OneClass(m) = LibsvmModel::from_text(&one).unwrap() else {
            panic!("not one-class")
        };
        assert_eq!(m.density_marks().map(|d| d[9]), Some(10.0));
        let nine = one.replace(" 10\n", "\n");
        assert!(refused(&nine).1.contains("needs 10"));
        let nan = one.replace(" 10\n", " nan\n");
        assert!(refused(&nan).1.contains("not finite"));
        // A model without support vectors (ε-SVR with a wide tube) predicts −ρ everywhere.
        let empty =
            "svm_type epsilon_svr\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 0\nrho 0.5\nSV\n";
        let model = LibsvmModel::from_text(empty)
            .unwrap()
            .with_n_features(3)
            .unwrap();
        let x = margin_core::DenseMatrix::zeros(2, 3);
        assert_eq!(model.predict_values(&x).unwrap(), [-0.5, -0.5]);
    }

    #[test]
    fn precomputed_support_vectors_hold_only_their_serial() {
        let good = "svm_type epsilon_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 2\nrho 0.5\nSV\n1 0:1 \n-1 0:3 \n";
        assert!(LibsvmModel::from_text(good).is_ok());
        for bad in ["1 0:0 ", "1 0:1.5 ", "1 0:1 1:2 ", "1 1:1 ", "1 0:-2 "] {
            let text = good.replacen("1 0:1 ", bad, 1);
            let (line, message) = refused(&text);
            assert_eq!(line, 7, "{bad}: {message}");
            assert!(message.contains("0:serial"), "{bad}: {message}");
        }
    }

    #[test]
    fn margin_model_files_and_binary_junk_are_named() {
        let e = LibsvmModel::from_bytes(b"MARGINMF\x02\x00\x00\x00...").unwrap_err();
        assert!(
            matches!(&e, Error::ModelFile { reason } if reason.contains("margin predict")),
            "{e}"
        );
        let e = LibsvmModel::from_bytes(b"svm_type c_svc\nkernel_type \xff\n").unwrap_err();
        assert!(
            matches!(
                &e,
                Error::Parse {
                    line: 2,
                    column: 13,
                    ..
                }
            ),
            "{e}"
        );
    }

    /// What LIBSVM 3.37's svm-train writes for `heart_scale` with every label set to 1
    /// (`-b 1` adds the empty `probA` and `probB` lines).
    const SINGLE: &str = "svm_type c_svc\nkernel_type rbf\ngamma 0.076923076923076927\nnr_class 1\ntotal_sv 0\nrho\nlabel 1\nprobA\nprobB\nnr_sv 0\nSV\n";

    #[test]
    fn single_class_models_load_predict_and_write_back() {
        for (text, probability) in [
            (SINGLE.to_owned(), true),
            (SINGLE.replace("probA\nprobB\n", ""), false),
            (
                SINGLE
                    .replace("c_svc", "nu_svc")
                    .replace("label 1", "label -7"),
                true,
            ),
        ] {
            let model = LibsvmModel::from_text(&text).unwrap();
            let LibsvmModel::SingleClass(m) = &model else {
                panic!("not a single-class model: {model:?}")
            };
            assert_eq!(model.has_probability(), probability);
            assert_eq!(model.to_text().unwrap(), text);
            let model = model.clone().with_n_features(3).unwrap();
            let x = margin_core::DenseMatrix::zeros(2, 3);
            let label = f64::from(m.label());
            assert_eq!(model.predict_values(&x).unwrap(), [label, label]);
            match model.predict_probability(&x) {
                Ok((labels, probs)) => {
                    assert!(probability);
                    assert_eq!(labels, [label, label]);
                    assert_eq!(probs.as_slice(), [1.0, 1.0]);
                }
                Err(e) => {
                    assert!(!probability, "{e}");
                    assert!(
                        matches!(&e, Error::Unsupported { operation, .. } if operation == "predict_probability"),
                        "{e:?}"
                    );
                }
            }
        }
        let with_sv = SINGLE
            .replace("total_sv 0", "total_sv 1")
            .replace("nr_sv 0", "nr_sv 1")
            .replace("SV\n", "SV\n1:0.5\n");
        let (line, message) = refused(&with_sv);
        assert_eq!(line, 5, "{message}");
        assert!(
            refused(&SINGLE.replace("label 1", "label 1 2"))
                .1
                .contains("needs 1")
        );
        assert!(
            refused(&SINGLE.replace("probA\n", "probA 0.5\n"))
                .1
                .contains("needs 0")
        );
        // Regression and one-class models still have nr_class 2.
        let svr = "svm_type epsilon_svr\nkernel_type linear\nnr_class 1\ntotal_sv 0\nrho 0\nSV\n";
        assert!(refused(svr).1.contains("expected 2"));
    }

    #[test]
    fn zero_based_sv_lines_read_and_write_index_zero() {
        let text = "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.5\nSV\n1 0:2 2:1 \n-1 1:3 \n";
        let zero = LibsvmModel::from_text_indexed(text, IndexBase::Zero).unwrap();
        assert_eq!(zero.n_features(), 3);
        assert_eq!(zero.to_text_indexed(IndexBase::Zero).unwrap(), text);
        // Column j is index j: x = (1, 0, 0) meets only the first SV's index 0.
        let x = margin_core::DenseMatrix::from_rows(&[[1.0, 0.0, 0.0]]).unwrap();
        assert_eq!(zero.predict_values(&x).unwrap(), [2.0 - 0.5]);
        let auto = LibsvmModel::from_text_indexed(text, IndexBase::Auto).unwrap();
        assert_eq!(auto.to_text_indexed(IndexBase::Zero).unwrap(), text);
        assert_eq!(auto.n_features(), 3);
        assert!(refused(text).1.contains("index 0"));
        // A one-based model written zero-based names each column one lower.
        let one = text.replace("0:2 2:1", "1:2 3:1").replace("1:3", "2:3");
        let read = LibsvmModel::from_text(&one).unwrap();
        assert_eq!(read.to_text_indexed(IndexBase::Zero).unwrap(), text);
        assert_eq!(read.to_text().unwrap(), one);
    }

    #[test]
    fn polynomials_load_as_libsvm_trains_them() {
        // svm-train -t 1 -d 0 -r -1: a degree of 0 and a negative coef0.
        let text = "svm_type c_svc\nkernel_type polynomial\ndegree 0\ngamma 0.5\ncoef0 -1\nnr_class 2\ntotal_sv 2\nrho 1\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:1 \n-1 2:1 \n";
        let model = LibsvmModel::from_text(text).unwrap();
        assert_eq!(model.to_text().unwrap(), text);
    }

    #[test]
    fn written_models_read_back() {
        let model = LibsvmModel::from_text(THREE).unwrap();
        let text = model.to_text().unwrap();
        assert_eq!(
            LibsvmModel::from_text(&text).unwrap().to_text().unwrap(),
            text
        );
    }
}
