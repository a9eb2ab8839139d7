//! # testing: what every margin model's tests run
//!
//! A dev-dependency of the model crates, kept out of the libraries users depend on:
//!
//! - the **estimator battery** ([`battery`]): one set of bad and awkward inputs every model must
//!   survive (empty, non-finite, one class, wrong width, sparse and dense alike), forged model
//!   files every kind must refuse or survive, parameter descriptors that must agree with the
//!   library's defaults, observers that must see every iteration;
//! - the reader of the reference **fixtures** ([`fixture`]) the model crates compare against
//!   (scikit-learn and LIBSVM outputs, each written by a generator script that records the
//!   command and versions that produced it).
//!
//! Both panic with a list of what failed, so they belong in tests only.

#![forbid(unsafe_code)]

pub mod battery;
pub mod fixture;
