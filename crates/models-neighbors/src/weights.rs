//! How the k neighbours of a query are weighted in a vote or an average.

use margin_core::params::ParamType;
use margin_core::{Error, Result};
use serde::{Deserialize, Serialize};

/// Neighbour weights (scikit-learn's `weights`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Weights {
    /// Every neighbour counts the same.
    #[default]
    Uniform,
    /// A neighbour counts `1 / distance`. When some neighbours are at distance 0 (or so close
    /// that `1 / distance` overflows), they share the decision with weight 1 each and the
    /// others get 0, as in scikit-learn.
    Distance,
}

margin_core::param_choice!(Weights { Uniform => "uniform", Distance => "distance" });

impl Weights {
    /// `uniform` or `distance`.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::parse(name).map_err(|expected| Error::invalid_parameter("weights", name, expected))
    }

    /// The weight of each neighbour of one query, from its distances.
    pub(crate) fn of(self, distances: &[f64], out: &mut [f64]) {
        match self {
            Weights::Uniform => out.fill(1.0),
            Weights::Distance => {
                for (w, &d) in out.iter_mut().zip(distances) {
                    *w = 1.0 / d;
                }
                if out.iter().any(|w| w.is_infinite()) {
                    out.iter_mut()
                        .for_each(|w| *w = if w.is_infinite() { 1.0 } else { 0.0 });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_weights_are_inverse_distances_and_exact_matches_take_over() {
        let mut w = [0.0; 3];
        Weights::Distance.of(&[0.5, 1.0, 4.0], &mut w);
        assert_eq!(w, [2.0, 1.0, 0.25]);
        Weights::Distance.of(&[0.0, 0.0, 4.0], &mut w);
        assert_eq!(w, [1.0, 1.0, 0.0]);
        Weights::Uniform.of(&[0.0, 2.0, 4.0], &mut w);
        assert_eq!(w, [1.0; 3]);
    }
}
