//! Classification scores.

use margin_core::Result;

/// The fraction of predictions equal to the truth.
pub fn accuracy<T: PartialEq>(truth: &[T], predicted: &[T]) -> Result<f64> {
    crate::check_pair(truth.len(), predicted.len())?;
    let correct = truth.iter().zip(predicted).filter(|(t, p)| t == p).count();
    Ok(correct as f64 / truth.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn accuracy_is_the_fraction_of_matches(pairs in proptest::collection::vec((0u8..3, 0u8..3), 1..60)) {
            let (t, p): (Vec<u8>, Vec<u8>) = pairs.iter().copied().unzip();
            let matches = pairs.iter().filter(|(a, b)| a == b).count();
            prop_assert_eq!(accuracy(&t, &p).unwrap(), matches as f64 / pairs.len() as f64);
        }
    }

    #[test]
    fn empty_and_mismatched_inputs_are_refused() {
        assert!(accuracy::<u8>(&[], &[]).is_err());
        assert!(accuracy(&[1], &[1, 2]).is_err());
    }
}
