//! The small real datasets bundled with margin (see `datasets/README.md` for sources and
//! licences). They are embedded in the binary, so they load the same from any directory.
//!
//! | function | task | rows × features |
//! |---|---|---|
//! | [`heart_scale`] | binary, labels −1/+1 | 270 × 13 |
//! | [`svmguide1`] / [`svmguide1_test`] | binary, labels 0/1, unscaled | 3,089 / 4,000 × 4 |
//! | [`dna`] / [`dna_test`] | 3 classes, binary features | 2,000 / 1,186 × 180 |
//! | [`housing_scale`] | regression | 506 × 13 |

use crate::dataset::Dataset;
use crate::error::Result;
use crate::io::{LibsvmOptions, read_libsvm_from};

macro_rules! bundled {
    ($file:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../datasets/",
            $file
        ))
    };
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

/// A bundled dataset by its file name (`heart_scale`, `svmguide1`, `svmguide1.t`, `dna.scale`,
/// `dna.scale.t`, `housing_scale`), or `None` for an unknown name.
pub fn by_name(name: &str) -> Option<Result<Dataset>> {
    Some(match name {
        "heart_scale" => heart_scale(),
        "svmguide1" => svmguide1(),
        "svmguide1.t" => svmguide1_test(),
        "dna.scale" => dna(),
        "dna.scale.t" => dna_test(),
        "housing_scale" => housing_scale(),
        _ => return None,
    })
}

/// The names [`by_name`] knows.
pub const NAMES: [&str; 6] = [
    "heart_scale",
    "svmguide1",
    "svmguide1.t",
    "dna.scale",
    "dna.scale.t",
    "housing_scale",
];

/// Statlog Heart, scaled to [−1, 1] by LIBSVM's authors: 270 samples, 13 features, labels ±1.
pub fn heart_scale() -> Result<Dataset> {
    load(bundled!("heart_scale"), 13)
}

/// svmguide1 training part (astroparticle data from LIBSVM's practical guide): 3,089 × 4,
/// labels 0/1, features not scaled (scale them first, as the guide does).
pub fn svmguide1() -> Result<Dataset> {
    load(bundled!("svmguide1"), 4)
}

/// svmguide1 test part: 4,000 × 4.
pub fn svmguide1_test() -> Result<Dataset> {
    load(bundled!("svmguide1.t"), 4)
}

/// Statlog DNA (primate splice junctions) training part: 2,000 × 180 binary features, classes
/// 1, 2, 3.
pub fn dna() -> Result<Dataset> {
    load(bundled!("dna.scale"), 180)
}

/// Statlog DNA test part: 1,186 × 180.
pub fn dna_test() -> Result<Dataset> {
    load(bundled!("dna.scale.t"), 180)
}

/// Boston housing, scaled to [−1, 1]: 506 × 13, target the median home value in k$.
pub fn housing_scale() -> Result<Dataset> {
    load(bundled!("housing_scale"), 13)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Records;

    #[test]
    fn shapes_and_class_counts_match_the_manifest() {
        let cases = [
            (heart_scale().unwrap(), 270, 13, Some(vec![150, 120])),
            (svmguide1().unwrap(), 3089, 4, Some(vec![1089, 2000])),
            (svmguide1_test().unwrap(), 4000, 4, Some(vec![2000, 2000])),
            (dna().unwrap(), 2000, 180, Some(vec![464, 485, 1051])),
            (dna_test().unwrap(), 1186, 180, Some(vec![303, 280, 603])),
            (housing_scale().unwrap(), 506, 13, None),
        ];
        for (d, n, f, counts) in cases {
            assert_eq!((d.records.n_samples(), d.records.n_features()), (n, f));
            if let Some(c) = counts {
                assert_eq!(d.targets.classes().unwrap().counts(), c);
            }
        }
        for name in NAMES {
            assert!(by_name(name).unwrap().is_ok());
        }
        assert!(by_name("nope").is_none());
    }
}
