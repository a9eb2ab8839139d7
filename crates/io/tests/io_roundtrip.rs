//! Property tests for the data-file readers and writers: writing then reading gives the same
//! dataset bit for bit, and no input, however malformed, makes a reader panic or return an
//! error without a position.

use margin_core::{Classes, CsrMatrix, Dataset, DenseMatrix, Error, Matrix, Records, Targets};
use margin_io::{
    CategoricalColumns, CsvOptions, IndexBase, LabelColumn, LibsvmOptions, read_csv_from,
    read_libsvm_from, write_csv_to, write_libsvm_to,
};
use proptest::collection::vec;
use proptest::prelude::*;

/// Finite values, weighted towards the awkward ones: extremes of magnitude, subnormals,
/// negative zero, short decimals.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO,
        2 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -1.0, 0.1, -0.5, 1e-300, -1e-300, 1e300, -1e300, 5e-324,
            f64::MIN_POSITIVE, f64::MAX, f64::MIN, 1e16, 1e-5, 1e16 - 2.0, 9.9999e-6, 123456.789,
        ]),
        1 => (-1000i32..1000).prop_map(f64::from),
        1 => -1e6..1e6f64,
    ]
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn targets_bits(t: &Targets) -> Result<Vec<u64>, Classes> {
    match t {
        Targets::Values(v) => Ok(bits(v)),
        Targets::Classes(c) => Err(c.clone()),
    }
}

fn sparse_dataset() -> impl Strategy<Value = Dataset> {
    (0usize..=30, 0usize..=20)
        .prop_flat_map(|(n, d)| {
            (
                Just(d),
                vec(vec(prop::option::weighted(0.3, value()), d), n),
                vec(value(), n),
            )
        })
        .prop_map(|(d, rows, labels)| {
            let records = CsrMatrix::from_optional_rows(rows, d).unwrap();
            Dataset::new(records, Targets::Values(labels)).unwrap()
        })
}

/// Column names that need quoting now and then (commas, quotes, semicolons), but that the
/// reader's trimming and `#` comments leave alone.
fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_,;\"]{0,8}"
}

/// Text class labels that cannot be mistaken for numbers (`inf`, `nan`).
fn text_label() -> impl Strategy<Value = String> {
    "c_[a-z0-9]{0,3}"
}

fn dense_dataset() -> impl Strategy<Value = (Dataset, u8)> {
    (1usize..=30, 1usize..=20)
        .prop_flat_map(|(n, d)| {
            (
                Just((n, d)),
                vec(value(), n * d),
                prop_oneof![
                    vec(value(), n).prop_map(Targets::Values),
                    vec(text_label(), n).prop_map(|t| Targets::Classes(Classes::from_text(&t))),
                ],
                // Distinct, and none is `label`, the name the writer gives the label column:
                // columns are chosen by name, so a header naming two alike is refused.
                prop::option::of(
                    prop::collection::hash_set(
                        name().prop_filter("the label column's name", |n| n != "label"),
                        d,
                    )
                    .prop_map(|names| names.into_iter().collect::<Vec<_>>()),
                ),
                prop::sample::select(vec![b',', b'\t', b';']),
            )
        })
        .prop_map(|((n, d), data, targets, names, delimiter)| {
            let mut ds =
                Dataset::new(DenseMatrix::from_row_major(data, n, d).unwrap(), targets).unwrap();
            if let Some(names) = names {
                ds = ds.with_feature_names(names).unwrap();
            }
            (ds, delimiter)
        })
}

proptest! {
    #[test]
    fn libsvm_write_then_read_is_identity(data in sparse_dataset()) {
        let mut text = Vec::new();
        write_libsvm_to(&mut text, &data).unwrap();
        let opts = LibsvmOptions { n_features: Some(data.n_features()), ..Default::default() };
        let back = read_libsvm_from(&text[..], &opts).unwrap();
        let (a, b) = (data.records.as_sparse().unwrap(), back.records.as_sparse().unwrap());
        let text = String::from_utf8_lossy(&text);
        prop_assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()), "{}", text);
        prop_assert_eq!(a.indptr(), b.indptr(), "{}", text);
        prop_assert_eq!(a.indices(), b.indices(), "{}", text);
        prop_assert_eq!(bits(a.values()), bits(b.values()), "{}", text);
        prop_assert_eq!(targets_bits(&data.targets), targets_bits(&back.targets), "{}", text);
        prop_assert_eq!(back.feature_names, None);
    }

    #[test]
    fn csv_write_then_read_is_identity((data, delimiter) in dense_dataset()) {
        let opts = CsvOptions {
            has_header: Some(data.feature_names.is_some()),
            delimiter,
            ..Default::default()
        };
        let mut text = Vec::new();
        write_csv_to(&mut text, &data, &opts).unwrap();
        let back = read_csv_from(&text[..], &opts).unwrap();
        let text = String::from_utf8_lossy(&text);
        let (a, b) = (data.records.to_dense().unwrap(), back.records.to_dense().unwrap());
        prop_assert!(matches!(back.records, Matrix::Dense(_)));
        prop_assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()), "{}", text);
        prop_assert_eq!(bits(a.as_slice()), bits(b.as_slice()), "{}", text);
        prop_assert_eq!(targets_bits(&data.targets), targets_bits(&back.targets), "{}", text);
        prop_assert_eq!(&data.feature_names, &back.feature_names, "{}", text);
    }

    #[test]
    fn readers_never_panic_on_arbitrary_bytes(bytes in vec(any::<u8>(), 0..400)) {
        check_both_readers(&bytes)?;
    }

    #[test]
    fn readers_never_panic_on_almost_valid_lines(
        lines in vec(libsvm_line(), 0..6),
        muts in vec(mutation(), 0..6),
        csv in any::<bool>(),
    ) {
        let text = if csv {
            lines.iter().map(|l| l.replace(' ', ",")).collect::<Vec<_>>().join("\n")
        } else {
            lines.join("\n")
        };
        let text = mutate(text.into_bytes(), &muts);
        check_both_readers(&text)?;
    }
}

/// A valid LIBSVM line: a label and increasing `index:value` pairs.
fn libsvm_line() -> impl Strategy<Value = String> {
    (value(), vec((1u32..30, value()), 0..6)).prop_map(|(label, mut pairs)| {
        pairs.sort_by_key(|p| p.0);
        pairs.dedup_by_key(|p| p.0);
        let mut line = margin_core::format::format_shortest(label);
        for (j, v) in pairs {
            line += &format!(" {j}:{}", margin_core::format::format_shortest(v));
        }
        line
    })
}

/// (kind, position, other position): swap two tokens, delete a byte, or insert a snippet.
fn mutation() -> impl Strategy<Value = (usize, usize, usize)> {
    (0usize..SNIPPETS.len() + 2, any::<usize>(), any::<usize>())
}

const SNIPPETS: &[&str] = &[
    ":",
    "0:",
    "nan",
    ",",
    "\t",
    "\r",
    "\r\n",
    "\n",
    " ",
    "#",
    "-",
    "+",
    "e",
    "inf",
    "\"",
    "1:1",
    "qid:1",
    "4294967295:1",
    "4294967296:1",
    "9999999999:1",
    "1e999",
    "\u{feff}",
    "\u{a0}",
    "\0",
    "a,b,c\n",
    "\"x\ny\"",
];

fn mutate(mut text: Vec<u8>, muts: &[(usize, usize, usize)]) -> Vec<u8> {
    for &(kind, pos, other) in muts {
        match kind {
            0 => {
                let mut tokens: Vec<Vec<u8>> =
                    text.split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
                let (i, j) = (pos % tokens.len(), other % tokens.len());
                tokens.swap(i, j);
                text = tokens.join(&b' ');
            }
            1 => {
                if !text.is_empty() {
                    text.remove(pos % text.len());
                }
            }
            k => {
                let at = pos % (text.len() + 1);
                text.splice(at..at, SNIPPETS[k - 2].bytes());
            }
        }
    }
    text
}

fn allowed(what: &str, input: &[u8], r: Result<Dataset, Error>) -> Result<(), TestCaseError> {
    let shown = String::from_utf8_lossy(input);
    match r {
        Ok(d) => {
            prop_assert!(d.check_consistent().is_ok(), "{what} {shown:?}");
            // Stored entries only: a valid one-line file may declare 2^32 - 1 features.
            let mut finite = true;
            for i in 0..d.n_samples() {
                d.records
                    .row(i)
                    .for_each_stored(|_, v| finite &= v.is_finite());
            }
            prop_assert!(finite, "{what} {shown:?}");
        }
        Err(Error::Parse {
            line,
            column,
            message,
        }) => {
            prop_assert!(
                line >= 1 && column >= 1,
                "{what} {shown:?}: line {line}, column {column}: {message}"
            );
        }
        Err(
            Error::ShapeMismatch { .. }
            | Error::InvalidParameter { .. }
            | Error::Column { .. }
            | Error::Io { .. },
        ) => {}
        Err(other) => prop_assert!(false, "{what} {shown:?}: unexpected error {other:?}"),
    }
    Ok(())
}

fn check_both_readers(input: &[u8]) -> Result<(), TestCaseError> {
    for opts in [
        LibsvmOptions::default(),
        LibsvmOptions {
            index_base: IndexBase::Zero,
            ..Default::default()
        },
        LibsvmOptions {
            index_base: IndexBase::Auto,
            n_features: Some(3),
        },
    ] {
        let r = read_libsvm_from(input, &opts);
        // The options are valid, so an error is about the text (and says where), or about the
        // feature count the caller gave.
        let own_fault = matches!(&r, Err(Error::InvalidParameter { .. }))
            || (opts.n_features.is_none() && matches!(&r, Err(Error::ShapeMismatch { .. })));
        let shown = String::from_utf8_lossy(input);
        prop_assert!(!own_fault, "libsvm {opts:?} {shown:?}: {r:?}");
        allowed(&format!("libsvm {opts:?}"), input, r)?;
    }
    for opts in [
        CsvOptions::default(),
        CsvOptions {
            categorical: CategoricalColumns::OneHot,
            ..Default::default()
        },
        CsvOptions {
            has_header: Some(true),
            label: LabelColumn::Name("y".into()),
            ..Default::default()
        },
        CsvOptions {
            has_header: Some(false),
            label: LabelColumn::Index(1),
            delimiter: b'\t',
            categorical: CategoricalColumns::OneHot,
            features: None,
        },
        CsvOptions {
            has_header: Some(true),
            features: Some(vec!["x".into(), "y".into()]),
            ..Default::default()
        },
        CsvOptions {
            label: LabelColumn::None,
            delimiter: b' ',
            ..Default::default()
        },
    ] {
        allowed(&format!("csv {opts:?}"), input, read_csv_from(input, &opts))?;
    }
    Ok(())
}

#[test]
fn csv_writer_writes_header_and_text_labels() {
    let records = DenseMatrix::from_rows(&[[1.0, -0.0], [1e-300, 2.5]]).unwrap();
    let data = Dataset::new(records, Targets::Classes(Classes::from_text(&["b", "a,c"])))
        .unwrap()
        .with_feature_names(vec!["x".into(), "y z".into()])
        .unwrap();
    let mut out = Vec::new();
    write_csv_to(&mut out, &data, &CsvOptions::default()).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "x,y z,label\n1,-0,b\n1e-300,2.5,\"a,c\"\n"
    );
}

#[test]
fn csv_file_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.csv");
    let records = DenseMatrix::from_rows(&[[0.5, 1.0], [2.0, 3.0]]).unwrap();
    let data = Dataset::new(records, Targets::Values(vec![1.0, -1.0])).unwrap();
    margin_io::write_csv(&path, &data, &CsvOptions::default()).unwrap();
    assert_eq!(
        margin_io::read_csv(&path, &CsvOptions::default()).unwrap(),
        data
    );
}
