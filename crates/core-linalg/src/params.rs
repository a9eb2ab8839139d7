//! Hyperparameters as data: every params struct describes its parameters once, through
//! [`Params`](trait@Params), and the command line, grid search, parameter files, model files
//! and the Python classes read those descriptions instead of retyping the list (linfa's checked
//! params and scikit-learn's `get_params`/`set_params`, done once).
//!
//! A struct declares its parameters with `#[derive(Params)]`, one `#[param(...)]` attribute per
//! field: the parameter's name (scikit-learn's; the field's by default), a one-line help, its
//! default, and optionally the values it allows and the configurations it applies to. The
//! derive writes the descriptors, `Default`, a builder method per field (documented with the
//! field's doc comment) and the checks; a new parameter is one field and its attribute.
//!
//! | attribute | meaning |
//! |---|---|
//! | `help = "…"` | one line of help (required) |
//! | `name = "C"` | the parameter's name, when not the field's |
//! | `default = EXPR` | the default (else `Default::default()`) |
//! | `valid = ("phrase", \|v\| …)` | the values allowed: a phrase, and a test of `&T` |
//! | `applies = ("phrase", \|p\| …)` | when the parameter is used: a phrase, and a test of the struct |
//! | `ty = T, get = …, set = …` | text type and accessors, for a field stored in another form |
//! | `setter(into)`, `setter(strip_option)`, `setter(skip)`, `setter(via = …, arg = T)` | how the builder takes its value |
//! | `flatten`, with `help_for(…)`, `valid_for(…)` | a settings block whose parameters become this struct's |
//! | `skip` | a field that is not a parameter |
//!
//! On the struct, `#[params(check = …)]` adds the rules that tie parameters together,
//! `#[params(order(…))]` gives the listing order when it is not the fields' (model files fix
//! the field order), and `#[params(block)]` marks a settings block other structs flatten (see
//! `margin_kernels::KernelParams` for one, with an example).
//!
//! ```
//! use margin_core::params::{Params, Value};
//! use margin_core::{Error, Result};
//!
//! #[derive(Clone, Debug, PartialEq, Params)]
//! struct RidgeLike {
//!     /// Penalty strength on the weights (default 1).
//!     #[param(
//!         help = "penalty strength on the weights",
//!         default = 1.0,
//!         valid = ("a finite number ≥ 0", |a| a.is_finite() && *a >= 0.0)
//!     )]
//!     alpha: f64,
//!     /// Fit an unpenalized intercept (default true).
//!     #[param(help = "fit an unpenalized intercept", default = true)]
//!     fit_intercept: bool,
//!     /// Iteration limit (default none: no limit).
//!     #[param(help = "iteration limit (none: no limit)", setter(strip_option))]
//!     max_iter: Option<usize>,
//! }
//!
//! let mut p = RidgeLike::default().max_iter(50);
//! p.set("alpha", "0.5")?;
//! p.set("max_iter", "none")?;
//! assert_eq!(p.get("alpha"), Some(Value::Float(0.5)));
//! assert!(matches!(p.set("alpha", "-1"), Err(Error::InvalidParameter { .. })));
//! assert_eq!(p.alpha, 0.5); // a refused value leaves the parameter as it was
//! assert_eq!(RidgeLike::defaults()[0], ("alpha", Value::Float(1.0)));
//! assert!(RidgeLike::default().alpha(-1.0).check().is_err());
//! # Ok::<(), Error>(())
//! ```

use std::borrow::Cow;
use std::fmt;

use crate::dataset::ClassWeight;
use crate::error::{Error, Result};
use crate::label::Label;

/// Derives [`Params`](trait@Params), `Default` and the builder methods of a struct of
/// hyperparameters from one `#[param(...)]` attribute per field (see the module documentation).
pub use margin_derive::Params;

/// A parameter's value as text sources and reports see it. Its [`Display`](fmt::Display) is
/// text that [`Params::set`] reads back to the same value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// No value (`None`, scikit-learn's `None`), written `none`.
    None,
    /// `true` or `false`.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A number.
    Float(f64),
    /// A name from a fixed set, or any other text form.
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("none"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            // `{:?}` is the shortest text that parses back to the same f64 (1e-5, not 0.00001).
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

/// A type a parameter can have: how it reads from text and how it reports itself.
pub trait ParamType: Sized {
    /// How values of the type are written, for help texts: `<number>`, `<int>`,
    /// `true|false`, `lbfgs|newton`.
    fn kind() -> Cow<'static, str>;
    /// Reads a value; the error says what was expected (it becomes the `expected` part of
    /// [`Error::InvalidParameter`]).
    fn parse(text: &str) -> std::result::Result<Self, String>;
    /// The value, as [`Value`].
    fn to_value(&self) -> Value;
}

impl ParamType for f64 {
    fn kind() -> Cow<'static, str> {
        "<number>".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        text.trim()
            .parse()
            .map_err(|_| "a number (as 0.5, 1e-3 or inf)".to_owned())
    }
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }
}

impl ParamType for bool {
    fn kind() -> Cow<'static, str> {
        "true|false".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        match text.trim() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err("true or false".to_owned()),
        }
    }
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

macro_rules! integer_param {
    ($($t:ty => $what:literal),* $(,)?) => {$(
        impl ParamType for $t {
            fn kind() -> Cow<'static, str> {
                "<int>".into()
            }
            fn parse(text: &str) -> std::result::Result<Self, String> {
                text.trim().parse().map_err(|_| $what.to_owned())
            }
            fn to_value(&self) -> Value {
                // Every integer type here, usize included (at most 64 bits on every target
                // Rust supports), fits in i128: the fallback is never taken.
                Value::Int(i128::try_from(*self).unwrap_or(i128::MAX))
            }
        }
    )*};
}
integer_param!(
    u32 => "a non-negative integer below 2^32",
    u64 => "a non-negative integer below 2^64",
    i64 => "an integer",
    usize => "a non-negative integer",
);

/// `none` or a value of `T` (scikit-learn's `None`).
impl<T: ParamType> ParamType for Option<T> {
    fn kind() -> Cow<'static, str> {
        format!("{}|none", T::kind()).into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        if text.trim() == "none" {
            return Ok(None);
        }
        T::parse(text)
            .map(Some)
            .map_err(|e| format!("{e}, or none"))
    }
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::None, T::to_value)
    }
}

/// One or more values of `T` separated by commas (`0.3,0.7`, `0,2,5`): class priors, column
/// lists. Not for types whose own text has commas.
impl<T: ParamType> ParamType for Vec<T> {
    fn kind() -> Cow<'static, str> {
        format!("{},...", T::kind()).into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        text.split(',')
            .map(T::parse)
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| format!("values separated by commas, each {e}"))
    }
    fn to_value(&self) -> Value {
        let texts: Vec<String> = self.iter().map(|v| v.to_value().to_string()).collect();
        Value::Text(texts.join(","))
    }
}

/// Two numbers separated by a comma (`-10,10`): a range such as scikit-learn's `center_box`.
impl ParamType for (f64, f64) {
    fn kind() -> Cow<'static, str> {
        "<number>,<number>".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        match Vec::<f64>::parse(text).as_deref() {
            Ok([a, b]) => Ok((*a, *b)),
            _ => Err("two numbers separated by a comma (as -10,10)".to_owned()),
        }
    }
    fn to_value(&self) -> Value {
        vec![self.0, self.1].to_value()
    }
}

/// `none` (every class weighs 1), `balanced`, or a weight per class label written
/// `LABEL:WEIGHT,LABEL:WEIGHT` (scikit-learn's `class_weight` dict, LIBSVM's `-wLABEL WEIGHT`);
/// a class not named keeps weight 1. A label that reads as a number is a number (`1`, `+1` and
/// `1.0` name one class), any other is text; the weight is after the last `:`.
impl ParamType for ClassWeight {
    fn kind() -> Cow<'static, str> {
        "none|balanced|LABEL:W,...".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        match text.trim() {
            "none" => return Ok(ClassWeight::Uniform),
            "balanced" => return Ok(ClassWeight::Balanced),
            _ => {}
        }
        let mut given: Vec<(Label, f64)> = Vec::new();
        for item in text.split(',') {
            let bad = |why: &str| {
                format!(
                    "none, balanced or LABEL:WEIGHT pairs separated by commas (as 1:0.1,-1:2); `{item}` {why}"
                )
            };
            let (label, weight) = item.rsplit_once(':').ok_or_else(|| bad("has no `:`"))?;
            let weight: f64 = weight
                .trim()
                .parse()
                .map_err(|_| bad("has no number after `:`"))?;
            let label = label.trim();
            if label.is_empty() {
                return Err(bad("has no label before `:`"));
            }
            let label = match label.parse::<f64>() {
                Ok(x) if x.is_finite() => Label::Number(x),
                _ => Label::Text(label.to_owned()),
            };
            if given.iter().any(|(l, _)| *l == label) {
                return Err(bad("names a class twice"));
            }
            given.push((label, weight));
        }
        Ok(ClassWeight::Given(given))
    }
    fn to_value(&self) -> Value {
        match self {
            ClassWeight::Uniform => Value::None,
            ClassWeight::Balanced => Value::Text("balanced".into()),
            ClassWeight::Given(given) => Value::Text(
                given
                    .iter()
                    .map(|(label, w)| format!("{label}:{w:?}"))
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        }
    }
}

/// `a|b|c` as words: `a, b or c` (what a refused choice was expected to be).
pub fn alternatives(kind: &str) -> String {
    match kind.rsplit_once('|') {
        Some((head, last)) => format!("{} or {last}", head.replace('|', ", ")),
        None => kind.to_owned(),
    }
}

/// Implements [`ParamType`] for an enum of unit variants, each named by one or more strings
/// (the first is the one reports write; the others are accepted aliases). Variants after
/// `unlisted:` are read and written but left out of [`ParamType::kind`] (the choices help
/// texts offer): a value a params struct can hold but that text alone does not make.
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Solver { Lbfgs, Newton, Custom }
/// margin_core::param_choice!(Solver {
///     Lbfgs => "lbfgs",
///     Newton => "newton" | "newton-cholesky";
///     unlisted: Custom => "custom"
/// });
///
/// use margin_core::params::ParamType;
/// assert_eq!(Solver::parse("newton-cholesky"), Ok(Solver::Newton));
/// assert_eq!(Solver::kind(), "lbfgs|newton");
/// assert_eq!(Solver::parse("custom"), Ok(Solver::Custom));
/// assert_eq!(Solver::parse("sgd"), Err("lbfgs or newton".to_owned()));
/// ```
#[macro_export]
macro_rules! param_choice {
    ($t:ty {
        $($variant:ident => $name:literal $(| $alias:literal)*),+
        $(; unlisted: $($hidden:ident => $hidden_name:literal),+)?
        $(,)?
    }) => {
        impl $crate::params::ParamType for $t {
            fn kind() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(concat!($($name, "|"),+).trim_end_matches('|'))
            }
            fn parse(text: &str) -> ::std::result::Result<Self, ::std::string::String> {
                match text.trim() {
                    $($name $(| $alias)* => Ok(<$t>::$variant),)+
                    $($($hidden_name => Ok(<$t>::$hidden),)+)?
                    _ => Err($crate::params::alternatives(&Self::kind())),
                }
            }
            fn to_value(&self) -> $crate::params::Value {
                $crate::params::Value::Text(match self {
                    $(<$t>::$variant => $name,)+
                    $($(<$t>::$hidden => $hidden_name,)+)?
                }.to_owned())
            }
        }
    };
}

/// Reads a parameter's value from params `P` (shared, as a check reads it too).
pub type Getter<P> = std::sync::Arc<dyn Fn(&P) -> Value + Send + Sync>;
/// Parses text and stores it in params `P`.
pub type Storer<P> = Box<dyn Fn(&mut P, &str) -> Result<()> + Send + Sync>;
/// Checks a parameter's value in params `P`.
pub type Checker<P> = Box<dyn Fn(&P) -> Result<()> + Send + Sync>;
/// Tells whether a parameter is used by the configuration params `P` hold.
pub type Usage<P> = Box<dyn Fn(&P) -> bool + Send + Sync>;
/// A phrase and the test it describes (the values allowed, or when a parameter is used).
pub type Rule<T> = (&'static str, Option<fn(&T) -> bool>);

/// One parameter of a params struct `P`: what `#[derive(Params)]` generates for each field.
pub struct Param<P> {
    /// The name, scikit-learn's where it has the parameter (`C`, `alpha`, `max_iter`).
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// How values are written (see [`ParamType::kind`]).
    pub kind: fn() -> Cow<'static, str>,
    /// The values allowed beyond what the type itself enforces, as a phrase ("a number > 0");
    /// empty when every value of the type is allowed.
    pub allowed: &'static str,
    /// When the parameter is used, as a phrase ("with kernel rbf, poly or sigmoid"); empty
    /// when always.
    pub applies: &'static str,
    /// Reads the parameter.
    pub get: Getter<P>,
    /// Parses `text` and stores it (without the range check).
    pub store: Storer<P>,
    /// Checks the stored value against [`Param::allowed`].
    pub check: Checker<P>,
    /// Whether the parameter is used by the configuration `P` holds (see
    /// [`Param::applies`]).
    pub used: Usage<P>,
}

/// What a parameter of type `T` on params `P` is made of: how it is read and stored, the
/// values allowed and when it is used (see [`Param::new`]).
pub struct ParamParts<P, T> {
    /// The name.
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The phrase for the values allowed ("" for any) and the test, if any.
    pub valid: Rule<T>,
    /// The phrase for when the parameter is used ("" for always) and the test, if any.
    pub applies: Rule<P>,
    /// Reads the value.
    pub get: fn(&P) -> T,
    /// Stores a value.
    pub set: fn(&mut P, T),
}

impl<P: 'static> Param<P> {
    /// The parameter `parts` describes, its text read and written as `T`.
    pub fn new<T: ParamType + 'static>(parts: ParamParts<P, T>) -> Self {
        let ParamParts {
            name,
            help,
            valid: (allowed, valid),
            applies: (applies, used),
            get,
            set,
        } = parts;
        Param {
            name,
            help,
            kind: T::kind,
            allowed,
            applies,
            get: std::sync::Arc::new(move |p| get(p).to_value()),
            store: Box::new(move |p, text| {
                let v = T::parse(text)
                    .map_err(|expected| Error::invalid_parameter(name, text, expected))?;
                set(p, v);
                Ok(())
            }),
            check: Box::new(move |p| match valid {
                Some(valid) => {
                    let v = get(p);
                    if valid(&v) {
                        Ok(())
                    } else {
                        Err(Error::invalid_parameter(name, v.to_value(), allowed))
                    }
                }
                None => Ok(()),
            }),
            used: Box::new(move |p| used.is_none_or(|used| used(p))),
        }
    }

    /// The parameters of a settings block `B` held by `P` (a `#[param(flatten)]` field), as
    /// parameters of `P`: `part` and `part_mut` reach the block; `help` replaces the help line
    /// of the parameters it names (a shared block described in the words of the model that
    /// holds it).
    pub fn nested<B: Params>(
        part: fn(&P) -> &B,
        part_mut: fn(&mut P) -> &mut B,
        help: &[(&str, &'static str)],
    ) -> Vec<Param<P>> {
        B::params()
            .iter()
            .map(|inner| Param {
                name: inner.name,
                help: help
                    .iter()
                    .find(|(name, _)| *name == inner.name)
                    .map_or(inner.help, |(_, help)| help),
                kind: inner.kind,
                allowed: inner.allowed,
                applies: inner.applies,
                get: std::sync::Arc::new(move |p| (inner.get)(part(p))),
                store: Box::new(move |p, text| (inner.store)(part_mut(p), text)),
                check: Box::new(move |p| (inner.check)(part(p))),
                used: Box::new(move |p| (inner.used)(part(p))),
            })
            .collect()
    }

    /// Gives the parameter `name` of `params` (a flattened block's, as [`Param::nested`]
    /// returns them) the allowed values of the struct that holds the block: `allowed` as the
    /// phrase, `valid` as the test (of the whole struct). A block shared by several models
    /// whose ranges differ (a tree's `criterion` for classifiers and regressors) states each
    /// model's range this way.
    ///
    /// # Panics
    /// If `params` has no parameter `name`: a declaration error the params' own tests meet.
    pub fn revalidate(
        params: &mut [Param<P>],
        name: &str,
        allowed: &'static str,
        valid: fn(&P) -> bool,
    ) {
        let param = params
            .iter_mut()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("valid_for names {name}, which the block does not have"));
        let get = std::sync::Arc::clone(&param.get);
        let name = param.name;
        param.allowed = allowed;
        param.check = Box::new(move |p| {
            if valid(p) {
                Ok(())
            } else {
                Err(Error::invalid_parameter(name, get(p), allowed))
            }
        });
    }
}

/// The command-line spelling of a parameter name: lower case, `-` for `_` (`C` is `--c`,
/// `max_iter` is `--max-iter`).
pub fn flag_of(name: &str) -> String {
    name.to_lowercase().replace('_', "-")
}

impl<P> Param<P> {
    /// The command-line spelling of the name (see [`flag_of`]).
    pub fn flag(&self) -> String {
        flag_of(self.name)
    }
}

/// One parameter as help texts and parameter files show it: its description with the value
/// a params value holds (see [`Params::describe`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// The name (see [`Param::name`]).
    pub name: &'static str,
    /// The command-line spelling (see [`Param::flag`]).
    pub flag: String,
    /// How values are written (see [`ParamType::kind`]).
    pub kind: String,
    /// One line of help.
    pub help: &'static str,
    /// The values allowed beyond the type's (see [`Param::allowed`]); empty for any.
    pub allowed: &'static str,
    /// When the parameter is used (see [`Param::applies`]); empty for always.
    pub applies: &'static str,
    /// The value.
    pub value: Value,
}

/// A struct of hyperparameters that describes itself (implemented with
/// [`#[derive(Params)]`](derive@Params)).
pub trait Params: Clone + 'static {
    /// The parameters, in the order help texts list them (built once, on first use).
    fn params() -> &'static [Param<Self>];

    /// Rules that tie parameters together (beyond each one's own range); none by default.
    fn check_together(&self) -> Result<()> {
        Ok(())
    }

    /// Checks every parameter's range, then the rules that tie them together: what `fit` calls
    /// first, and what [`Params::set`] calls for the parameter it sets.
    fn check(&self) -> Result<()> {
        for p in Self::params() {
            (p.check)(self)?;
        }
        self.check_together()
    }

    /// The parameter called `name` (its scikit-learn name or its command-line spelling).
    fn param(name: &str) -> Result<&'static Param<Self>> {
        Self::params()
            .iter()
            .find(|p| p.name == name || p.flag() == name)
            .ok_or_else(|| {
                Error::invalid_parameter(
                    "parameter name",
                    name,
                    format!(
                        "one of {}",
                        Self::params()
                            .iter()
                            .map(|p| p.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })
    }

    /// Sets parameter `name` from text (as a command line or a parameter file gives it). A
    /// value that does not parse, or is outside the parameter's range, is refused and leaves
    /// the parameter unchanged.
    fn set(&mut self, name: &str, text: &str) -> Result<()> {
        let param = Self::param(name)?;
        let before = self.clone();
        (param.store)(self, text)?;
        if let Err(e) = (param.check)(self) {
            *self = before;
            // Report the value as it was written, not as it was stored.
            return Err(match e {
                Error::InvalidParameter { name, expected, .. } => Error::InvalidParameter {
                    name,
                    value: text.to_owned(),
                    expected,
                },
                other => other,
            });
        }
        Ok(())
    }

    /// The first parameter of `given` (names or command-line spellings) that the configuration
    /// `self` holds does not use (`gamma` with a linear kernel): the one rule of every surface
    /// that takes parameters as text. The command line (for flags, not parameter files, which
    /// list every parameter) and DataFusion's parameter strings refuse such a parameter,
    /// saying when it is used ([`Param::applies`]); margin's Python classes accept and ignore
    /// it, as scikit-learn's do.
    fn first_unused<'a>(
        &self,
        given: impl IntoIterator<Item = &'a str>,
    ) -> Option<&'static Param<Self>> {
        given
            .into_iter()
            .filter_map(|name| Self::param(name).ok())
            .find(|param| !(param.used)(self))
    }

    /// The value of parameter `name`, or `None` when there is no such parameter.
    fn get(&self, name: &str) -> Option<Value> {
        Self::param(name).ok().map(|p| (p.get)(self))
    }

    /// Every parameter with its value, in [`Params::params`] order.
    fn values(&self) -> Vec<(&'static str, Value)> {
        Self::params()
            .iter()
            .map(|p| (p.name, (p.get)(self)))
            .collect()
    }

    /// Every parameter described, with the value `self` holds (for a default params value:
    /// the defaults).
    fn describe(&self) -> Vec<ParamInfo> {
        Self::params()
            .iter()
            .map(|p| ParamInfo {
                name: p.name,
                flag: p.flag(),
                kind: (p.kind)().into_owned(),
                help: p.help,
                allowed: p.allowed,
                applies: p.applies,
                value: (p.get)(self),
            })
            .collect()
    }

    /// Every parameter with its default value.
    fn defaults() -> Vec<(&'static str, Value)>
    where
        Self: Default,
    {
        Self::default().values()
    }
}

/// Parameters set by name at run time, as grid search sets them: every [`Params`] type (its
/// names are fixed) and composites whose names are built from their parts' at run time (a
/// pipeline's `svc__C`, scikit-learn's `step__param`).
pub trait ParamsByName: Clone + 'static {
    /// The full name of parameter `name` (which may be spelled as on the command line), or an
    /// error listing the names there are.
    fn param_name(&self, name: &str) -> Result<String>;

    /// Sets parameter `name` from text; a value that does not parse or is out of range is
    /// refused and leaves the parameters unchanged (see [`Params::set`]).
    fn set_by_name(&mut self, name: &str, text: &str) -> Result<()>;

    /// Every parameter with its value, under its full name.
    fn values_by_name(&self) -> Vec<(String, Value)>;
}

impl<P: Params> ParamsByName for P {
    fn param_name(&self, name: &str) -> Result<String> {
        Ok(P::param(name)?.name.to_owned())
    }

    fn set_by_name(&mut self, name: &str, text: &str) -> Result<()> {
        self.set(name, text)
    }

    fn values_by_name(&self) -> Vec<(String, Value)> {
        self.values()
            .into_iter()
            .map(|(name, v)| (name.to_owned(), v))
            .collect()
    }
}

/// A fitted model that keeps the hyperparameters it was fitted with.
///
/// Every fitted model has an inherent `hyperparams()` that returns its params struct (for a
/// model that several params types fit, as margin-svm's `Svc` from C- or ν-SVC parameters, an
/// enum of them); its model file stores them, and loading checks them
/// as `fit` would. This trait lets code that handles many model kinds (`margin info`, the
/// estimator battery) read them without knowing the type. Kept to one method, as
/// [`NFeatures`](crate::NFeatures).
pub trait Hyperparams {
    /// The parameters the model was fitted with, described and with their values, in the
    /// order of the params type's [`Params::params`] (what [`Params::describe`] gives).
    fn describe_hyperparams(&self) -> Vec<ParamInfo>;
}

/// Implements [`Hyperparams`] for fitted models by describing what their inherent
/// `hyperparams()` returns: `margin_core::impl_hyperparams!(Svc, Svr);`. The returned type
/// needs a `describe()`: every [`Params`] type has one, and an enum of params types defines its
/// own.
#[macro_export]
macro_rules! impl_hyperparams {
    ($($model:ty),+ $(,)?) => {
        $(
            impl $crate::params::Hyperparams for $model {
                fn describe_hyperparams(&self) -> ::std::vec::Vec<$crate::params::ParamInfo> {
                    #[allow(unused_imports)]
                    use $crate::params::Params as _;
                    <$model>::hyperparams(self).describe()
                }
            }
        )+
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(super) enum Solver {
        Exact,
        Sgd,
    }
    param_choice!(Solver { Exact => "exact", Sgd => "sgd" | "stochastic" });

    /// A block of one parameter, flattened into `Example`.
    #[derive(Clone, Debug, PartialEq, Params)]
    #[params(block)]
    struct Inner {
        #[param(
            help = "tolerance",
            default = 1e-3,
            valid = ("a finite number > 0", |t| t.is_finite() && *t > 0.0)
        )]
        tol: f64,
    }

    #[derive(Clone, Debug, PartialEq, Params)]
    #[params(check = |p| {
        if p.eta0.is_some() && p.solver != Solver::Sgd {
            return Err(Error::invalid_parameter("eta0", p.eta0.unwrap_or(0.0), "only with solver sgd"));
        }
        Ok(())
    })]
    struct Example {
        #[param(name = "C", help = "regularization", default = 1.0, valid = ("a number > 0", |c| *c > 0.0))]
        c: f64,
        #[param(flatten)]
        inner: Inner,
        #[param(help = "solver", default = Solver::Exact)]
        solver: Solver,
        /// Stored only for the SGD solver, as the solver enum's payload would be.
        #[param(
            help = "initial step",
            ty = f64,
            get = |p| p.eta0.unwrap_or(0.1),
            set = |p, v| p.eta0 = Some(v),
            valid = ("a number > 0", |e| *e > 0.0),
            applies = ("with solver sgd", |p| p.solver == Solver::Sgd),
            setter(skip)
        )]
        eta0: Option<f64>,
        #[param(help = "depth limit", setter(skip))]
        max_depth: Option<usize>,
        #[param(help = "class weights", setter(skip))]
        class_weight: ClassWeight,
        #[param(help = "seed", setter(skip))]
        seed: u64,
    }

    #[test]
    fn builders_store_what_text_stores() {
        let mut by_text = Example::default();
        by_text.set("C", "3").unwrap();
        by_text.set("tol", "1e-6").unwrap();
        by_text.set("solver", "sgd").unwrap();
        assert_eq!(
            Example::default().c(3.0).tol(1e-6).solver(Solver::Sgd),
            by_text
        );
    }

    #[test]
    fn a_given_parameter_the_configuration_does_not_use_is_found() {
        let mut p = Example::default();
        assert_eq!(
            p.first_unused(["C", "eta0", "tol"]).map(|q| q.name),
            Some("eta0")
        );
        assert!(p.first_unused(["C", "max-depth", "unknown"]).is_none());
        p.set("solver", "sgd").unwrap();
        assert!(p.first_unused(["eta0"]).is_none());
    }

    #[test]
    fn a_refused_choice_lists_the_alternatives() {
        assert_eq!(Solver::parse("x"), Err("exact or sgd".to_owned()));
        assert_eq!(alternatives("a|b|c"), "a, b or c");
        assert_eq!(alternatives("a"), "a");
    }

    #[test]
    fn defaults_are_read_from_default() {
        assert_eq!(
            Example::defaults(),
            vec![
                ("C", Value::Float(1.0)),
                ("tol", Value::Float(1e-3)),
                ("solver", Value::Text("exact".into())),
                ("eta0", Value::Float(0.1)),
                ("max_depth", Value::None),
                ("class_weight", Value::None),
                ("seed", Value::Int(0)),
            ]
        );
        assert!(Example::default().check().is_ok());
    }

    #[test]
    fn set_parses_checks_and_keeps_the_old_value_on_refusal() {
        let mut p = Example::default();
        p.set("C", "2.5").unwrap();
        p.set("c", "3").unwrap(); // the command-line spelling
        p.set("tol", "1e-6").unwrap();
        p.set("max-depth", "4").unwrap();
        p.set("solver", "stochastic").unwrap();
        p.set("eta0", "0.5").unwrap();
        p.set("class_weight", "1:2,-1:0.5").unwrap();
        p.set("seed", "18446744073709551615").unwrap();
        assert_eq!(p.c, 3.0);
        assert_eq!(p.inner.tol, 1e-6);
        assert_eq!(p.max_depth, Some(4));
        assert_eq!(p.solver, Solver::Sgd);
        assert_eq!(p.eta0, Some(0.5));
        assert_eq!(
            p.class_weight,
            ClassWeight::Given(vec![(Label::Number(1.0), 2.0), (Label::Number(-1.0), 0.5)])
        );
        assert_eq!(p.seed, u64::MAX);

        let before = p.clone();
        for (name, text) in [
            ("C", "0"),
            ("C", "abc"),
            ("tol", "inf"),
            ("solver", "newton"),
            ("max_depth", "-1"),
            ("class_weight", "1:x"),
            ("seed", "-1"),
        ] {
            match p.set(name, text) {
                Err(Error::InvalidParameter { value, .. }) => assert_eq!(value, text),
                other => panic!("{name}={text}: {other:?}"),
            }
        }
        assert_eq!(p, before);
        assert!(matches!(
            p.set("gamma", "1"),
            Err(Error::InvalidParameter { ref expected, .. }) if expected.contains("C, tol, solver")
        ));
    }

    #[test]
    fn refusals_name_the_parameter_and_the_range() {
        let mut p = Example::default();
        let e = p.set("C", "-1").unwrap_err();
        assert_eq!(
            e.to_string(),
            Error::invalid_parameter("C", "-1", "a number > 0").to_string()
        );
        p.c = f64::NAN;
        assert_eq!(
            p.check().unwrap_err().to_string(),
            Error::invalid_parameter("C", "NaN", "a number > 0").to_string()
        );
        let p = Example {
            eta0: Some(0.2),
            ..Example::default()
        };
        assert!(
            matches!(p.check(), Err(Error::InvalidParameter { ref name, .. }) if name == "eta0")
        );
    }

    #[test]
    fn lists_read_from_commas_and_back() {
        assert_eq!(Vec::<f64>::parse(" 0.25, 0.75"), Ok(vec![0.25, 0.75]));
        assert_eq!(Vec::<usize>::parse("3"), Ok(vec![3]));
        assert!(Vec::<f64>::parse("0.5,x").is_err());
        assert!(Vec::<f64>::parse("").is_err());
        assert!(Vec::<usize>::parse("1,,2").is_err());
        assert_eq!(Vec::<usize>::kind(), "<int>,...");
        let v = vec![0.1, 1e-300, 2.5];
        assert_eq!(Vec::<f64>::parse(&v.to_value().to_string()), Ok(v));
        assert_eq!(
            Option::<Vec<usize>>::parse("none").map(|v| v.to_value()),
            Ok(Value::None)
        );
    }

    #[test]
    fn applies_and_kinds_describe_the_parameters() {
        let eta0 = Example::param("eta0").unwrap();
        assert!(!(eta0.used)(&Example::default()));
        let mut p = Example::default();
        p.set("solver", "sgd").unwrap();
        assert!((eta0.used)(&p));
        assert!((Example::param("C").unwrap().used)(&p));
        let kinds: Vec<_> = Example::params().iter().map(|p| (p.kind)()).collect();
        assert_eq!(
            kinds,
            [
                "<number>",
                "<number>",
                "exact|sgd",
                "<number>",
                "<int>|none",
                "none|balanced|LABEL:W,...",
                "<int>"
            ]
        );
        assert_eq!(Example::param("max_depth").unwrap().flag(), "max-depth");
        assert_eq!(Example::param("C").unwrap().flag(), "c");
    }

    /// The same parameters as `Example`, declared with the derive: a block flattened in, its
    /// builder methods forwarded, the listing order apart from the field order.
    mod derived {
        use super::{ClassWeight, Error, Solver, Value};
        use crate::params::{ParamType, Params};

        /// A settings block, as an SVM's solver settings.
        #[derive(Clone, Debug, PartialEq, Params)]
        #[params(block, check = |b| if b.tol > 1.0 && b.solver == crate::params::tests::Solver::Sgd {
            Err(Error::invalid_parameter("tol", b.tol, "at most 1 with solver sgd"))
        } else {
            Ok(())
        })]
        pub struct Tolerance {
            /// Stopping tolerance.
            #[param(
                help = "tolerance",
                default = 1e-3,
                valid = ("a finite number > 0", |t| t.is_finite() && *t > 0.0)
            )]
            tol: f64,
            /// Iteration limit (none: no limit).
            #[param(help = "iteration limit", setter(strip_option))]
            max_iter: Option<usize>,
            #[param(help = "solver", default = crate::params::tests::Solver::Exact)]
            solver: crate::params::tests::Solver,
        }

        #[derive(Clone, Debug, PartialEq, Params)]
        #[params(order(c, inner, class_weight, eta0, seed))]
        struct Model {
            #[param(flatten, help_for(tol = "tolerance of the model's solver"))]
            inner: Tolerance,
            /// Regularization.
            #[param(name = "C", help = "regularization", default = 1.0,
                valid = ("a number > 0", |c| *c > 0.0))]
            c: f64,
            #[param(help = "class weights", setter(into))]
            class_weight: ClassWeight,
            #[param(
                help = "initial step",
                ty = f64,
                get = |p| p.eta0.unwrap_or(0.1),
                set = |p, v| p.eta0 = Some(v),
                valid = ("a number > 0", |e| *e > 0.0),
                applies = ("with solver sgd", |p| p.inner.solver == Solver::Sgd),
                setter(strip_option)
            )]
            eta0: Option<f64>,
            #[param(help = "seed", default = 7)]
            seed: u64,
            #[param(skip, default = vec![1])]
            scratch: Vec<u8>,
        }

        /// A block's parameter listed apart, and a block parameter's range given per struct.
        #[derive(Clone, Debug, PartialEq, Params)]
        #[params(order(inner::solver, seed, inner))]
        struct Split {
            #[param(
                flatten,
                valid_for(tol = ("at most 0.5 here", |p| p.inner.tol <= 0.5))
            )]
            inner: Tolerance,
            #[param(help = "seed")]
            seed: u64,
        }

        #[test]
        fn order_lists_a_block_parameter_apart_and_valid_for_narrows_its_range() {
            let names: Vec<_> = Split::params().iter().map(|p| p.name).collect();
            assert_eq!(names, ["solver", "seed", "tol", "max_iter"]);
            let tol = Split::param("tol").unwrap();
            assert_eq!(tol.allowed, "at most 0.5 here");
            let mut p = Split::default();
            let e = p.set("tol", "0.75").unwrap_err();
            assert_eq!(
                e.to_string(),
                Error::invalid_parameter("tol", "0.75", "at most 0.5 here").to_string()
            );
            assert_eq!(p, Split::default());
            p.set("tol", "0.25").unwrap();
            assert_eq!(p.get("tol"), Some(Value::Float(0.25)));
            assert!(p.check().is_ok());
            let built = Split::default().tol(0.25).max_iter(3).solver(Solver::Exact);
            assert_eq!(
                built.inner,
                Tolerance {
                    tol: 0.25,
                    max_iter: Some(3),
                    solver: Solver::Exact
                }
            );
        }

        #[test]
        fn the_derive_lists_defaults_in_order_and_flattens_blocks() {
            let names: Vec<_> = Model::params().iter().map(|p| p.name).collect();
            assert_eq!(
                names,
                [
                    "C",
                    "tol",
                    "max_iter",
                    "solver",
                    "class_weight",
                    "eta0",
                    "seed"
                ]
            );
            assert_eq!(
                Model::param("tol").unwrap().help,
                "tolerance of the model's solver"
            );
            assert_eq!(Model::param("max_iter").unwrap().help, "iteration limit");
            let d = Model::default();
            assert_eq!(
                (d.c, d.inner.tol, d.seed, d.scratch.clone()),
                (1.0, 1e-3, 7, vec![1])
            );
            assert_eq!(d.get("eta0"), Some(Value::Float(0.1)));
            assert_eq!(d.get("max_iter"), Some(Value::None));
            assert_eq!(Model::param("C").unwrap().flag(), "c");
            assert_eq!(
                Model::params()
                    .iter()
                    .map(|p| (p.kind)())
                    .collect::<Vec<_>>()[..3],
                ["<number>", "<number>", "<int>|none"]
            );
            assert_eq!(Solver::kind(), "exact|sgd");
        }

        #[test]
        fn builders_forward_into_blocks_and_checks_reach_them() {
            let p = Model::default()
                .c(2.0)
                .tol(1e-6)
                .max_iter(50)
                .solver(Solver::Sgd)
                .class_weight(ClassWeight::Balanced)
                .eta0(0.5)
                .seed(3);
            assert_eq!(p.c, 2.0);
            assert_eq!(
                p.inner,
                Tolerance {
                    tol: 1e-6,
                    max_iter: Some(50),
                    solver: Solver::Sgd
                }
            );
            assert_eq!(p.eta0, Some(0.5));
            assert!(p.check().is_ok());
            assert!((Model::param("eta0").unwrap().used)(&p));
            assert!(!(Model::param("eta0").unwrap().used)(&Model::default()));

            let mut q = p.clone();
            assert!(matches!(
                q.set("tol", "-1"),
                Err(Error::InvalidParameter { .. })
            ));
            assert_eq!(q, p, "a refused value leaves the block as it was");
            q.set("tol", "2").unwrap();
            assert!(
                q.check().is_err(),
                "the block's own rule (tol ≤ 1 with sgd) is checked"
            );
            q.set("max-iter", "none").unwrap();
            assert_eq!(q.inner.max_iter, None);
            assert!(Model::default().c(-1.0).check().is_err());
        }

        proptest::proptest! {
            /// Every value the derived struct reports, written as text, sets it to itself.
            #[test]
            fn derived_values_read_back(c in 1e-300f64..1e300, tol in 1e-12f64..1.0,
                    seed in proptest::prelude::any::<u64>(), sgd in proptest::prelude::any::<bool>()) {
                let mut p = Model::default().c(c).tol(tol).seed(seed);
                if sgd {
                    p = p.solver(Solver::Sgd).eta0(c);
                }
                let mut q = Model::default();
                for param in Model::params().iter().filter(|param| (param.used)(&p)) {
                    q.set(param.name, &(param.get)(&p).to_string()).unwrap();
                }
                proptest::prop_assert_eq!(q, p);
            }
        }
    }

    mod round_trip {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Every value a struct reports, written as text, sets the struct to itself.
            #[test]
            fn values_read_back(
                c in 1e-300f64..1e300,
                tol in 1e-12f64..1.0,
                max_depth in proptest::option::of(0usize..1000),
                seed in any::<u64>(),
                sgd in any::<bool>(),
                weights in proptest::collection::vec((-50i32..50, 0.0f64..10.0), 0..4),
            ) {
                let mut p = Example {
                    c,
                    inner: Inner { tol },
                    max_depth,
                    seed,
                    ..Example::default()
                };
                if sgd {
                    p.solver = Solver::Sgd;
                    p.eta0 = Some(c);
                }
                let mut seen = Vec::new();
                let given: Vec<(Label, f64)> = weights
                    .into_iter()
                    .filter(|(l, _)| { let new = !seen.contains(l); seen.push(*l); new })
                    .map(|(l, w)| (Label::Number(f64::from(l)), w))
                    .collect();
                if !given.is_empty() {
                    p.class_weight = ClassWeight::Given(given);
                }
                let mut q = Example::default();
                if sgd {
                    q.set("solver", "sgd").unwrap();
                }
                for param in Example::params().iter().filter(|param| (param.used)(&p)) {
                    q.set(param.name, &(param.get)(&p).to_string()).unwrap();
                }
                prop_assert_eq!(q, p);
            }
        }
    }
}
