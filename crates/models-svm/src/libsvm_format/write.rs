//! Writing LIBSVM's text model files, byte for byte as LIBSVM 3.37's `svm_save_model`.

use std::fmt::Write as _;

use margin_core::format::format_g;

use margin_core::{Error, Label, Records, Result, RowView};
use margin_io::IndexBase;
use margin_kernels::KernelSpec;

use super::SingleClass;
use crate::expansion::Expansion;
use crate::svc::{Multiclass, Svc};

/// The operation every refusal here names: the model is fine, LIBSVM's format cannot hold it.
const WRITING: &str = "writing a LIBSVM model file";

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
            return Err(Error::unsupported(
                WRITING,
                format!(
                    "the model's kernel is {}, and LIBSVM's model files hold only linear, polynomial, rbf, sigmoid or precomputed kernels: save with margin's own model file",
                    margin_kernels::Kernel::name(other)
                ),
            ));
        }
    }
    Ok(())
}

/// A label as the `int` LIBSVM stores (any of `int`'s values, `INT_MIN` included: what x86-64's
/// `(int)y` makes of a label outside `int`).
fn label_int(l: &Label) -> Result<i64> {
    let int = -(2f64.powi(31))..2f64.powi(31);
    match l {
        Label::Number(x) if x.fract() == 0.0 && int.contains(x) => Ok(*x as i64),
        other => Err(Error::unsupported(
            WRITING,
            format!(
                "the model has the label {other}, and LIBSVM model files store labels as int: save with margin's own model file, or refit on integer labels"
            ),
        )),
    }
}

/// `key v1 v2 …` with LIBSVM's `%.17g`.
fn value_line(out: &mut String, key: &str, values: impl IntoIterator<Item = f64>) {
    out.push_str(key);
    for v in values {
        let _ = write!(out, " {}", format_g(v, 17));
    }
    out.push('\n');
}

/// The feature index LIBSVM writes for column 0.
fn first_index(base: IndexBase) -> usize {
    match base {
        IndexBase::Zero => 0,
        IndexBase::One | IndexBase::Auto => 1,
    }
}

fn sv_line(out: &mut String, coefs: &[f64], sv: RowView<'_>, precomputed: bool, first: usize) {
    for c in coefs {
        let _ = write!(out, "{} ", format_g(*c, 17));
    }
    if precomputed {
        let _ = write!(out, "0:{} ", sv.get(0) as i64);
    } else {
        // LIBSVM writes every stored node, explicit zeros of the training file included; a
        // dense row stores no such distinction, so its zeros are left out.
        let keep_zeros = matches!(sv, RowView::Sparse(_));
        sv.for_each_stored(|j, v| {
            if keep_zeros || v != 0.0 {
                let _ = write!(out, "{}:{} ", j + first, format_g(v, 8));
            }
        });
    }
    out.push('\n');
}

pub(super) fn svc_text(m: &Svc, base: IndexBase, out: &mut String) -> Result<()> {
    if m.multiclass() != Multiclass::OneVsOne {
        return Err(Error::unsupported(
            WRITING,
            "the model was fitted one-vs-rest, and LIBSVM model files hold only one-vs-one: save with margin's own model file, or refit with multiclass one-vs-one",
        ));
    }
    out.push_str(if m.is_nu() {
        "svm_type nu_svc\n"
    } else {
        "svm_type c_svc\n"
    });
    kernel_lines(m.kernel(), out)?;
    let k = m.classes().len();
    let n_sv = m.support_class().len();
    let _ = writeln!(out, "nr_class {k}\ntotal_sv {n_sv}");
    value_line(out, "rho", m.problems().iter().map(|p| p.rho));
    out.push_str("label");
    for l in m.classes() {
        let _ = write!(out, " {}", label_int(l)?);
    }
    out.push('\n');
    if let Some(sig) = m
        .problems()
        .iter()
        .map(|p| p.probability)
        .collect::<Option<Vec<_>>>()
    {
        value_line(out, "probA", sig.iter().map(|s| s.0));
        value_line(out, "probB", sig.iter().map(|s| s.1));
    }
    out.push_str("nr_sv");
    for c in m.n_support() {
        let _ = write!(out, " {c}");
    }
    out.push_str("\nSV\n");
    // LIBSVM's layout: for a support vector of class c, row j of sv_coef holds its
    // coefficient in the problem between c and the j-th other class.
    let mut coef = vec![vec![0.0; n_sv]; k.saturating_sub(1)];
    for p in m.problems() {
        let (a, b) = (p.positive, p.negative.unwrap_or(0));
        // A support vector with α = 0 in this problem has coefficient α·y (C-SVC) or
        // α·(y/r) (ν-SVC), a zero with the sign of y, or the opposite sign when ν-SVC ended
        // with r < 0; LIBSVM writes −0 as `-0`.
        let flipped = p.equivalent_c.is_some_and(|c| c < 0.0);
        let zero = |negative: bool| if negative != flipped { -0.0 } else { 0.0 };
        for (s, &c) in m.support_class().iter().enumerate() {
            if c == b {
                coef[a][s] = zero(true);
            } else if c == a && b > a {
                coef[b - 1][s] = zero(false);
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
        sv_line(
            out,
            &row,
            m.support_vectors().row(s),
            precomputed,
            first_index(base),
        );
    }
    Ok(())
}

/// A regression or one-class model: one `rho`, one coefficient per SV line, and its
/// probability model line (`probA` or `prob_density_marks`) when it has one.
pub(super) fn expansion_text(
    svm_type: &str,
    e: &Expansion,
    probability: Option<(&str, Vec<f64>)>,
    base: IndexBase,
    out: &mut String,
) -> Result<()> {
    let _ = writeln!(out, "svm_type {svm_type}");
    kernel_lines(&e.kernel, out)?;
    let _ = writeln!(out, "nr_class 2\ntotal_sv {}", e.coef.len());
    value_line(out, "rho", [e.rho]);
    if let Some((key, values)) = probability {
        value_line(out, key, values);
    }
    out.push_str("SV\n");
    let precomputed = matches!(e.kernel, KernelSpec::Precomputed(_));
    for (s, &c) in e.coef.iter().enumerate() {
        sv_line(out, &[c], e.support.row(s), precomputed, first_index(base));
    }
    Ok(())
}

/// A classifier trained on one class ([`SingleClass`]): LIBSVM's header with no pair (an empty
/// `rho`, and empty `probA`/`probB` when trained with `-b 1`) and no SV line.
pub(super) fn single_class_text(m: &SingleClass, out: &mut String) -> Result<()> {
    out.push_str(if m.nu {
        "svm_type nu_svc\n"
    } else {
        "svm_type c_svc\n"
    });
    kernel_lines(&m.kernel, out)?;
    let _ = writeln!(out, "nr_class 1\ntotal_sv 0\nrho\nlabel {}", m.label);
    if m.probability {
        out.push_str("probA\nprobB\n");
    }
    out.push_str("nr_sv 0\nSV\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use margin_core::{Classes, Dataset, DenseMatrix, Fit, Targets};
    use margin_kernels::Laplacian;

    use super::*;
    use crate::LibsvmModel;

    /// Three separable pairs of points, one class a pair, with `labels` as the classes.
    fn three(labels: Classes) -> Dataset {
        let x = DenseMatrix::from_row_major(
            vec![0.0, 0.0, 0.1, 0.0, 5.0, 0.0, 5.1, 0.0, 0.0, 5.0, 0.0, 5.1],
            6,
            2,
        )
        .unwrap();
        Dataset::new(x, Targets::Classes(labels)).unwrap()
    }

    fn numbered() -> Dataset {
        three(Classes::from_numbers(&[1.0, 1.0, 2.0, 2.0, 3.0, 3.0]).unwrap())
    }

    /// The refusal of writing `m`, whose reason must contain `needle`.
    fn refused(m: Svc, needle: &str) {
        match LibsvmModel::Svc(m).to_text() {
            Err(Error::Unsupported { operation, reason }) => {
                assert_eq!(operation, WRITING);
                assert!(reason.contains(needle), "{reason}");
                assert!(reason.contains("margin's own model file"), "{reason}");
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }

    #[test]
    fn a_one_vs_one_model_with_a_libsvm_kernel_and_integer_labels_is_written() {
        let m = Svc::params().fit(&numbered()).unwrap();
        assert!(LibsvmModel::Svc(m).to_text().is_ok());
    }

    #[test]
    fn a_one_vs_rest_model_is_not_writable_rather_than_a_bad_parameter() {
        let m = Svc::params()
            .multiclass(Multiclass::OneVsRest)
            .fit(&numbered())
            .unwrap();
        refused(m, "one-vs-rest");
    }

    #[test]
    fn a_kernel_libsvm_cannot_store_is_not_writable() {
        let m = Svc::params()
            .kernel(Laplacian::with_gamma(0.5).unwrap())
            .fit(&numbered())
            .unwrap();
        refused(m, "laplacian");
    }

    #[test]
    fn text_labels_are_not_writable() {
        let m = Svc::params()
            .fit(&three(Classes::from_text(&["a", "a", "b", "b", "c", "c"])))
            .unwrap();
        refused(m, "label a");
    }
}
