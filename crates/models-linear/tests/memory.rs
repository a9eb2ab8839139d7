//! Linear models and naive Bayes on sparse records wider than any machine holds densely: their
//! dense weights (one vector per class, as scikit-learn's) are refused up front with a typed
//! error that names the size and the way out, never an abort.

use margin_core::Fit;
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB, MultinomialNB};
use margin_linear::{LogisticRegression, Perceptron};
use margin_testing::battery::{Task, assert_refused_for_memory, huge_width};

#[test]
fn dense_weights_no_machine_holds_are_refused_naming_the_size() {
    // One dense vector per class, 2³² − 1 wide, for 64 classes: 2 TiB.
    let data = huge_width(Task::Classification);
    assert_refused_for_memory(LogisticRegression::params().fit(&data).unwrap_err());
    assert_refused_for_memory(Perceptron::params().fit(&data).unwrap_err());
    assert_refused_for_memory(MultinomialNB::params().fit(&data).unwrap_err());
    assert_refused_for_memory(BernoulliNB::params().fit(&data).unwrap_err());
    assert_refused_for_memory(GaussianNB::params().fit(&data).unwrap_err());
}
