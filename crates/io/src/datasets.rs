//! The small real datasets bundled with margin (see `datasets/README.md` in this crate for
//! sources and licences). They are embedded in the binary, so they load the same from any
//! directory.
//!
//! Available with the cargo feature `datasets` (on by default). The files take about 1.6 MB;
//! a program that needs none of them turns the feature off (`default-features = false`). The
//! other margin crates depend on margin-core that way, so the data is embedded only where it
//! is asked for.
//!
//! The classification sets come with class targets (their numeric labels as [`Label`]
//! numbers, so predictions compare with `1.0`, `-1` …); `housing_scale` with values.
//!
//! [`Label`]: margin_core::Label
//!
//! | function | task | rows × features |
//! |---|---|---|
//! | [`heart_scale`] | binary, labels −1/+1 | 270 × 13 |
//! | [`svmguide1`] / [`svmguide1_test`] | binary, labels 0/1, unscaled | 3,089 / 4,000 × 4 |
//! | [`dna`] / [`dna_test`] | 3 classes, binary features | 2,000 / 1,186 × 180 |
//! | [`housing_scale`] | regression | 506 × 13 |
//! | [`a9a`] / [`a9a_test`] | binary, labels −1/+1, sparse binary features | 32,561 / 16,281 × 123 |

use crate::{LibsvmOptions, read_libsvm_from};
use margin_core::{Dataset, Result, Targets};

macro_rules! bundled {
    ($file:literal) => {
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/", $file))
    };
}

/// Reads a gzip-compressed bundled file (the larger sets ship compressed).
fn load_gz(bytes: &[u8], n_features: usize) -> Result<Dataset> {
    read_libsvm_from(
        std::io::BufReader::new(flate2::read::GzDecoder::new(bytes)),
        &LibsvmOptions {
            n_features: Some(n_features),
            ..Default::default()
        },
    )
}

fn load(bytes: &[u8], n_features: usize) -> Result<Dataset> {
    read_libsvm_from(
        bytes,
        &LibsvmOptions {
            n_features: Some(n_features),
            ..Default::default()
        },
    )
}

/// A classification set: its numeric LIBSVM labels as classes, so `targets.classes()?` and
/// `labels()` read them as they read any class labels (regression still reads them as numbers
/// through `targets.values()`).
fn classes(data: Result<Dataset>) -> Result<Dataset> {
    let mut data = data?;
    data.targets = Targets::Classes(data.targets.to_classes()?.into_owned());
    Ok(data)
}

/// A bundled dataset by its file name (`heart_scale`, `svmguide1`, `svmguide1.t`, `dna.scale`,
/// `dna.scale.t`, `housing_scale`, `a9a`, `a9a.t`), or `None` for an unknown name.
pub fn by_name(name: &str) -> Option<Result<Dataset>> {
    Some(match name {
        "heart_scale" => heart_scale(),
        "svmguide1" => svmguide1(),
        "svmguide1.t" => svmguide1_test(),
        "dna.scale" => dna(),
        "dna.scale.t" => dna_test(),
        "housing_scale" => housing_scale(),
        "a9a" => a9a(),
        "a9a.t" => a9a_test(),
        _ => return None,
    })
}

/// The names [`by_name`] knows.
pub const NAMES: [&str; 8] = [
    "heart_scale",
    "svmguide1",
    "svmguide1.t",
    "dna.scale",
    "dna.scale.t",
    "housing_scale",
    "a9a",
    "a9a.t",
];

/// Statlog Heart, scaled to [−1, 1] by LIBSVM's authors: 270 samples, 13 features, labels ±1.
pub fn heart_scale() -> Result<Dataset> {
    classes(load(bundled!("heart_scale"), 13))
}

/// svmguide1 training part (astroparticle data from LIBSVM's practical guide): 3,089 × 4,
/// labels 0/1, features not scaled (scale them first, as the guide does).
pub fn svmguide1() -> Result<Dataset> {
    classes(load(bundled!("svmguide1"), 4))
}

/// svmguide1 test part: 4,000 × 4.
pub fn svmguide1_test() -> Result<Dataset> {
    classes(load(bundled!("svmguide1.t"), 4))
}

/// Statlog DNA (primate splice junctions) training part: 2,000 × 180 binary features, classes
/// 1, 2, 3.
pub fn dna() -> Result<Dataset> {
    classes(load(bundled!("dna.scale"), 180))
}

/// Statlog DNA test part: 1,186 × 180.
pub fn dna_test() -> Result<Dataset> {
    classes(load(bundled!("dna.scale.t"), 180))
}

/// Boston housing, scaled to [−1, 1]: 506 × 13, target the median home value in k$.
pub fn housing_scale() -> Result<Dataset> {
    load(bundled!("housing_scale"), 13)
}

/// UCI Adult as preprocessed by Platt (LIBSVM's `a9a`): 32,561 × 123 sparse binary
/// features, labels ±1 (does the person earn more than $50k a year?).
pub fn a9a() -> Result<Dataset> {
    classes(load_gz(bundled!("a9a.gz"), 123))
}

/// The `a9a` test part: 16,281 × 123.
pub fn a9a_test() -> Result<Dataset> {
    classes(load_gz(bundled!("a9a.t.gz"), 123))
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::Records;

    #[test]
    fn shapes_and_class_counts_match_the_manifest() {
        let cases = [
            (heart_scale().unwrap(), 270, 13, Some(vec![150, 120])),
            (svmguide1().unwrap(), 3089, 4, Some(vec![1089, 2000])),
            (svmguide1_test().unwrap(), 4000, 4, Some(vec![2000, 2000])),
            (dna().unwrap(), 2000, 180, Some(vec![464, 485, 1051])),
            (dna_test().unwrap(), 1186, 180, Some(vec![303, 280, 603])),
            (housing_scale().unwrap(), 506, 13, None),
            (a9a().unwrap(), 32561, 123, Some(vec![24720, 7841])),
            (a9a_test().unwrap(), 16281, 123, Some(vec![12435, 3846])),
        ];
        for (d, n, f, counts) in cases {
            assert_eq!((d.records.n_samples(), d.records.n_features()), (n, f));
            if let Some(c) = counts {
                assert_eq!(d.targets.to_classes().unwrap().counts(), c);
            }
        }
        for name in NAMES {
            assert!(by_name(name).unwrap().is_ok());
        }
        assert!(by_name("nope").is_none());
    }
}
