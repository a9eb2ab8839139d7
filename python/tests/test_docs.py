"""The examples in the package's docstrings run and give what they show."""

import doctest

import pytest

import margin
import margin.svmutil


@pytest.mark.parametrize("module", [margin, margin.svmutil], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    failures, tried = doctest.testmod(module, verbose=False)
    assert tried > 0 and failures == 0


def test_every_class_documents_every_parameter():
    for name in margin.__all__:
        cls = getattr(margin, name)
        if not isinstance(cls, type) or cls is margin.MarginEstimator:
            continue
        params = cls().get_params()
        assert params, name
        for param in params:
            assert f"\n{param} : " in cls.__doc__, f"{name}.{param} is not documented"
