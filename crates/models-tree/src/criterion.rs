//! Split-quality criteria and the impurity of a node under each.

use std::fmt;
use std::str::FromStr;

use margin_core::Error;
use serde::{Deserialize, Serialize};

/// How a node's impurity, and so a split's quality, is measured (scikit-learn's `criterion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Criterion {
    /// Gini impurity `1 − Σ_c p_c²` (classification; scikit-learn's default).
    Gini,
    /// Shannon entropy `−Σ_c p_c log₂ p_c` (classification; ID3's and C4.5's measure).
    Entropy,
    /// The same entropy under scikit-learn's other name; trees are identical to `Entropy`'s.
    LogLoss,
    /// Weighted variance of the targets around their mean (regression; the default).
    SquaredError,
    /// Weighted mean absolute deviation from the weighted median (regression); leaves predict
    /// the weighted median.
    AbsoluteError,
}

impl Criterion {
    /// scikit-learn's spelling (`"gini"`, `"entropy"`, `"log_loss"`, `"squared_error"`,
    /// `"absolute_error"`).
    pub fn name(self) -> &'static str {
        match self {
            Criterion::Gini => "gini",
            Criterion::Entropy => "entropy",
            Criterion::LogLoss => "log_loss",
            Criterion::SquaredError => "squared_error",
            Criterion::AbsoluteError => "absolute_error",
        }
    }

    /// Whether the criterion measures class impurity (else it measures regression error).
    pub fn is_classification(self) -> bool {
        matches!(
            self,
            Criterion::Gini | Criterion::Entropy | Criterion::LogLoss
        )
    }
}

impl fmt::Display for Criterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Criterion {
    type Err = Error;

    /// Parses scikit-learn's names (dashes are accepted for underscores).
    fn from_str(s: &str) -> Result<Self, Error> {
        Ok(match s.replace('-', "_").as_str() {
            "gini" => Criterion::Gini,
            "entropy" => Criterion::Entropy,
            "log_loss" => Criterion::LogLoss,
            "squared_error" => Criterion::SquaredError,
            "absolute_error" => Criterion::AbsoluteError,
            _ => {
                return Err(Error::invalid_parameter(
                    "criterion",
                    s,
                    "gini, entropy, log_loss, squared_error or absolute_error",
                ));
            }
        })
    }
}

/// scikit-learn's names, as [`Criterion::name`] writes them and [`FromStr`] reads them.
impl margin_core::params::ParamType for Criterion {
    fn kind() -> std::borrow::Cow<'static, str> {
        "gini|entropy|log_loss|squared_error|absolute_error".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        text.trim().parse().map_err(crate::params::expected)
    }
    fn to_value(&self) -> margin_core::params::Value {
        margin_core::params::Value::Text(self.name().into())
    }
}

/// Gini impurity of weighted class counts summing to `total > 0`.
pub(crate) fn gini(counts: &[f64], total: f64) -> f64 {
    let sq: f64 = counts.iter().map(|c| c * c).sum();
    1.0 - sq / (total * total)
}

/// Entropy in bits of weighted class counts summing to `total > 0`.
pub(crate) fn entropy(counts: &[f64], total: f64) -> f64 {
    counts
        .iter()
        .filter(|&&c| c > 0.0)
        .map(|&c| {
            let p = c / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in [
            Criterion::Gini,
            Criterion::Entropy,
            Criterion::LogLoss,
            Criterion::SquaredError,
            Criterion::AbsoluteError,
        ] {
            assert_eq!(c.name().parse::<Criterion>().unwrap(), c);
        }
        assert!("mse".parse::<Criterion>().is_err());
    }

    #[test]
    fn impurities_of_known_distributions() {
        assert_eq!(gini(&[5.0, 5.0], 10.0), 0.5);
        assert_eq!(gini(&[4.0, 0.0], 4.0), 0.0);
        assert_eq!(entropy(&[5.0, 5.0], 10.0), 1.0);
        assert_eq!(entropy(&[2.0, 2.0, 2.0, 2.0], 8.0), 2.0);
        assert_eq!(entropy(&[3.0, 0.0], 3.0), 0.0);
    }
}
