# The exception hierarchy mirrors include/maxent/core/error.hpp; messages are the library's.
import numpy as np
import pytest

import maxent


def test_hierarchy():
    for name in ("ModelError", "ConfigError", "UnknownLabelError", "ZeroLikelihoodError", "BudgetError",
                 "ParseError"):
        assert issubclass(getattr(maxent, name), maxent.Error)
    assert issubclass(maxent.NumericError, maxent.ConfigError)
    assert issubclass(maxent.Error, RuntimeError)


def test_messages_are_the_library_s():
    # the same text as the C++ exception's what() (see finite_pomdp.hpp, validate_stochastic)
    with pytest.raises(maxent.ModelError) as e:
        maxent.Model(np.array([[[0.5, 0.25], [0.0, 1.0]]]), np.eye(2), np.array([1.0, 0.0]), 2)
    assert str(e.value) == ("transition matrix P(s' | s, a) of action '0' (index 0): row 0 (state '0') sums to "
                            "0.75, not 1 within 1.0000000000000001e-09")
    with pytest.raises(maxent.ModelError) as e:
        maxent.Model(np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.array([[1.0], [-1.0]]), np.array([1.0, 0.0]), 2)
    assert "row 1 (state '1'), column 0 (observation '0') is negative: -1" in str(e.value)
    with pytest.raises(maxent.ConfigError) as e:
        maxent.ConstantStep(0.0)
    assert str(e.value) == "ConstantStep: alpha must be finite and > 0, got 0"
