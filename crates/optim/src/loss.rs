//! Per-sample losses of linear models, as functions of the score `f = w·x + b`.
//!
//! Classification losses take labels `y ∈ {−1, +1}` and depend on the margin `y·f`; the
//! squared loss takes a real target. [`Loss::derivative`] is `∂ℓ/∂f` (for the hinge, the
//! subgradient that is `−y` strictly inside the margin and 0 elsewhere), so the gradient of
//! `ℓ(y, w·x + b)` is `derivative · x` for `w` and `derivative` for `b`.

use serde::{Deserialize, Serialize};

/// A loss `ℓ(y, f)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Loss {
    /// `max(0, 1 − y f)`: the SVM's L1 loss.
    Hinge,
    /// `max(0, 1 − y f)²`: the L2-loss SVM (LIBLINEAR `-s 1/2`).
    SquaredHinge,
    /// `ln(1 + e^{−y f})`: logistic regression's cross-entropy.
    Logistic,
    /// `½ (f − y)²`: least squares.
    Squared,
}

impl Loss {
    /// `ℓ(y, f)`.
    pub fn value(self, y: f64, f: f64) -> f64 {
        match self {
            Self::Hinge => (1.0 - y * f).max(0.0),
            Self::SquaredHinge => {
                let h = (1.0 - y * f).max(0.0);
                h * h
            }
            Self::Logistic => log1p_exp(-y * f),
            Self::Squared => 0.5 * (f - y) * (f - y),
        }
    }

    /// `∂ℓ/∂f` at `(y, f)`.
    pub fn derivative(self, y: f64, f: f64) -> f64 {
        match self {
            Self::Hinge => {
                if y * f < 1.0 {
                    -y
                } else {
                    0.0
                }
            }
            Self::SquaredHinge => -2.0 * y * (1.0 - y * f).max(0.0),
            // −y·σ(−y f), written so that neither branch overflows.
            Self::Logistic => -y * sigmoid(-y * f),
            Self::Squared => f - y,
        }
    }

    /// `∂²ℓ/∂f²` at `(y, f)` (the squared hinge's generalized second derivative, 2 inside
    /// the margin and 0 outside; 0 for the hinge, whose curvature is not defined).
    pub fn second_derivative(self, y: f64, f: f64) -> f64 {
        match self {
            Self::Hinge => 0.0,
            Self::SquaredHinge => {
                if y * f < 1.0 {
                    2.0
                } else {
                    0.0
                }
            }
            Self::Logistic => {
                let p = sigmoid(y * f);
                p * (1.0 - p)
            }
            Self::Squared => 1.0,
        }
    }

    /// Whether the loss is differentiable everywhere (the hinge is not at `y f = 1`).
    pub fn is_smooth(self) -> bool {
        !matches!(self, Self::Hinge)
    }
}

/// `ln(1 + eᶻ)` without overflow for large `z` or loss of precision for very negative `z`.
pub fn log1p_exp(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

/// The logistic function `1 / (1 + e^{−z})`, stable for any finite `z`.
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LOSSES: [Loss; 4] = [
        Loss::Hinge,
        Loss::SquaredHinge,
        Loss::Logistic,
        Loss::Squared,
    ];

    #[test]
    fn hand_values() {
        assert_eq!(Loss::Hinge.value(1.0, 0.25), 0.75);
        assert_eq!(Loss::Hinge.value(-1.0, -2.0), 0.0);
        assert_eq!(Loss::SquaredHinge.value(-1.0, 0.5), 2.25);
        assert!((Loss::Logistic.value(1.0, 0.0) - 2f64.ln()).abs() < 1e-15);
        assert_eq!(Loss::Squared.value(3.0, 1.0), 2.0);
    }

    #[test]
    fn logistic_is_finite_at_extreme_scores() {
        for f in [1e4, -1e4, 1e300, -1e300] {
            for y in [1.0, -1.0] {
                let (v, d) = (Loss::Logistic.value(y, f), Loss::Logistic.derivative(y, f));
                assert!(v.is_finite() && d.is_finite(), "y={y} f={f}: {v} {d}");
            }
        }
        // ln(1 + e^{1e4}) = 1e4 to double precision; e^{-1e4} underflows to 0 gracefully.
        assert_eq!(Loss::Logistic.value(-1.0, 1e4), 1e4);
        assert_eq!(Loss::Logistic.value(1.0, 1e4), 0.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Central differences agree with the analytic derivative away from the hinge's kink.
        #[test]
        fn derivatives_match_finite_differences(
            positive in any::<bool>(),
            f in -5.0f64..5.0,
            target in -3.0f64..3.0,
            which in 0usize..4,
        ) {
            let loss = LOSSES[which];
            let y = if loss == Loss::Squared { target } else if positive { 1.0 } else { -1.0 };
            prop_assume!(loss == Loss::Squared || loss == Loss::Logistic || (1.0 - y * f).abs() > 1e-3);
            let h = 1e-6;
            let numeric = (loss.value(y, f + h) - loss.value(y, f - h)) / (2.0 * h);
            let analytic = loss.derivative(y, f);
            prop_assert!((numeric - analytic).abs() <= 1e-6 * (1.0 + analytic.abs()),
                "{loss:?} y={y} f={f}: numeric {numeric} analytic {analytic}");
        }

        #[test]
        fn second_derivatives_match_finite_differences(
            positive in any::<bool>(),
            f in -5.0f64..5.0,
            which in 1usize..4,
        ) {
            let loss = LOSSES[which];
            let y = if positive { 1.0 } else { -1.0 };
            prop_assume!(loss != Loss::SquaredHinge || (1.0 - y * f).abs() > 1e-3);
            let h = 1e-5;
            let numeric = (loss.derivative(y, f + h) - loss.derivative(y, f - h)) / (2.0 * h);
            let analytic = loss.second_derivative(y, f);
            prop_assert!((numeric - analytic).abs() <= 1e-6 * (1.0 + analytic.abs()),
                "{loss:?} y={y} f={f}: numeric {numeric} analytic {analytic}");
        }

        #[test]
        fn sigmoid_and_log1p_exp_agree_with_their_definitions(z in -30.0f64..30.0) {
            prop_assert!((sigmoid(z) - 1.0 / (1.0 + (-z).exp())).abs() < 1e-15);
            prop_assert!((log1p_exp(z) - (1.0 + z.exp()).ln()).abs() < 1e-12 * (1.0 + z.abs()));
        }
    }
}
