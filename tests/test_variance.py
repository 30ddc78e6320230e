import math

import pytest

from scalecore.variance import dot_product_samples, histogram, summary


@pytest.mark.parametrize("d", [3, 100, 1000])
def test_the_variance_of_q_dot_k_grows_like_d(d):
    samples = dot_product_samples(d, 3000, seed=0)
    assert math.isclose(summary(samples)["variance"], d, rel_tol=0.1)


@pytest.mark.parametrize("d", [3, 100, 1000])
def test_dividing_by_sqrt_d_restores_unit_variance(d):
    samples = dot_product_samples(d, 3000, seed=0, scaled=True)
    assert math.isclose(summary(samples)["variance"], 1.0, rel_tol=0.1)


def test_samples_are_reproducible():
    assert dot_product_samples(10, 5, seed=4) == dot_product_samples(10, 5, seed=4)


def test_histogram_counts_every_sample_once():
    counts = histogram([-10.0, -0.5, 0.0, 0.4, 99.0], bins=4, low=-1.0, high=1.0)
    assert counts == [1, 1, 2, 1]  # [-1,-.5) [-.5,0) [0,.5) [.5,1]


def test_bad_arguments_are_plain_errors():
    with pytest.raises(ValueError):
        dot_product_samples(0, 10, 0)
    with pytest.raises(ValueError):
        histogram([1.0], bins=3, low=1.0, high=1.0)


def test_the_standard_error_of_the_sampled_variance_says_how_far_a_sample_may_fall():
    """summary()'s variance_error is sqrt((m4 - variance^2) / n): for q . k with d = 1000 it is
    about sqrt(2 d^2 / n) (the fourth central moment of q . k is 3 d^2 + 6 d); the page quotes
    it beside the sampled 1,061, and theory's d stays within a few standard errors."""
    samples = dot_product_samples(1000, 4000, 0)
    found = summary(samples)
    assert math.isclose(found["variance_error"], math.sqrt((2 * 1000**2 + 6 * 1000) / 4000), rel_tol=0.15)
    assert abs(found["variance"] - 1000) < 4 * found["variance_error"]
    assert summary([1.0, 1.0, 1.0])["variance_error"] == 0.0
