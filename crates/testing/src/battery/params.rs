//! The checks every params struct's descriptions must pass.
//!
//! ```
//! # use margin_core::params::Params;
//! # #[derive(Clone, Debug, PartialEq, Params)]
//! # struct P {
//! #     #[param(help = "penalty")]
//! #     alpha: f64,
//! # }
//! margin_testing::battery::check_params(&P::default());
//! ```

use std::fmt::Debug;

use margin_core::params::Params;

/// Checks what [`#[derive(Params)]`](derive@margin_core::params::Params) cannot check at
/// compile time, for a params value `p` (usually the default, and one per configuration whose
/// parameters differ): names and their command-line spellings are unique, every help line is
/// present, `p` passes [`Params::check`], and every parameter `p` uses reads back: setting it
/// from the text of its own value leaves `p` unchanged. Panics with the first failure (tests
/// only).
pub fn check_params<P: Params + PartialEq + Debug>(p: &P) {
    let mut flags: Vec<String> = Vec::new();
    for param in P::params() {
        // Flags are names in lower case with `-`: unique flags mean unique names too.
        assert!(
            !flags.contains(&param.flag()),
            "--{} names two parameters",
            param.flag()
        );
        flags.push(param.flag());
        assert!(!param.help.is_empty(), "{}: no help", param.name);
    }
    if let Err(e) = p.check() {
        panic!("{p:?} does not pass its own check: {e}");
    }
    for param in P::params().iter().filter(|param| (param.used)(p)) {
        let text = (param.get)(p).to_string();
        let mut q = p.clone();
        if let Err(e) = q.set(param.name, &text) {
            panic!("{}: its own value `{text}` is refused: {e}", param.name);
        }
        assert_eq!(&q, p, "{} = {text} does not read back", param.name);
    }
}

/// Checks `P`'s defaults against a reference table (scikit-learn's documented defaults): each
/// `(name, text)` of `reference`, set on the default, leaves it unchanged, and every parameter
/// of `P` is either in `reference` or in `own` (margin's own parameters, or those that differ
/// on purpose: the caller documents why). Panics with the first failure (tests only).
pub fn check_defaults<P: Params + Default + PartialEq + Debug>(
    reference: &[(&str, &str)],
    own: &[&str],
) {
    for (name, text) in reference {
        let mut p = P::default();
        p.set(name, text)
            .unwrap_or_else(|e| panic!("{name} = {text}: {e}"));
        assert_eq!(p, P::default(), "{name}: the reference default is {text}");
    }
    for param in P::params() {
        assert!(
            reference.iter().any(|(n, _)| *n == param.name) || own.contains(&param.name),
            "{} is in neither list",
            param.name
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parameter whose reported value does not set it back (it writes twice the value).
    #[derive(Clone, Debug, PartialEq, Params)]
    struct Doubling {
        #[param(help = "doubles", get = |p| p.x, set = |p, v| p.x = 2.0 * v, setter(skip))]
        x: f64,
    }

    /// Two parameters with one command-line spelling.
    #[derive(Clone, Debug, PartialEq, Params)]
    struct Clash {
        #[param(name = "max_iter", help = "one", setter(skip))]
        a: f64,
        #[param(name = "max-iter", help = "two", setter(skip))]
        b: f64,
    }

    #[test]
    #[should_panic(expected = "does not read back")]
    fn a_value_that_does_not_read_back_fails() {
        check_params(&Doubling { x: 1.0 });
    }

    #[test]
    #[should_panic(expected = "names two parameters")]
    fn clashing_flags_fail() {
        check_params(&Clash::default());
    }

    #[test]
    #[should_panic(expected = "the reference default is 2")]
    fn a_default_other_than_the_reference_fails() {
        check_defaults::<Doubling>(&[("x", "2")], &[]);
    }

    #[test]
    #[should_panic(expected = "x is in neither list")]
    fn a_parameter_in_no_list_fails() {
        check_defaults::<Doubling>(&[], &[]);
    }

    #[test]
    fn consistent_descriptions_pass() {
        check_defaults::<Doubling>(&[("x", "0")], &[]);
        check_params(&Doubling::default()); // 0 doubles to 0
    }
}
