import json
import math
import subprocess
import sys

import pytest

from scalecore.matrices import flatten, std
from scalecore.projections import draw_projections


def test_the_same_seed_draws_the_same_matrices_in_another_process():
    code = "import json; from scalecore.projections import draw_projections as d; print(json.dumps(d(7, 8, 4, True).w_k))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(other.stdout) == draw_projections(7, 8, 4, True).w_k


def test_different_seeds_draw_different_matrices():
    assert draw_projections(0, 8, 4, True).w_q != draw_projections(1, 8, 4, True).w_q


def test_the_init_guard_only_rescales_the_same_draws():
    plain, guarded = draw_projections(3, 16, 8, False), draw_projections(3, 16, 8, True)
    for a, b in zip(flatten(plain.w_v), flatten(guarded.w_v)):
        assert math.isclose(b, a / 4.0)


def test_the_draws_have_the_promised_spread():
    assert math.isclose(std(flatten(draw_projections(0, 64, 64, True).w_q)), 1 / 8, rel_tol=0.05)
    assert math.isclose(std(flatten(draw_projections(0, 64, 64, False).w_q)), 1.0, rel_tol=0.05)


def test_the_global_generator_is_left_alone():
    import random

    random.seed(123)
    expected = random.random()
    random.seed(123)
    draw_projections(0, 4, 4, True)
    assert random.random() == expected


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True])
def test_a_bad_seed_is_a_plain_error(seed):
    with pytest.raises(ValueError, match="non-negative integer"):
        draw_projections(seed, 4, 4, True)


@pytest.mark.parametrize("counts", [[5, 3, 8], [1, 1, 1], [0, 4, 7], [16], [15, 2], [1024, 1024, 1]])
@pytest.mark.parametrize("seed", [0, 1, 7, 123456])
def test_standard_normals_are_the_numbers_gauss_draws_with_its_state(seed, counts):
    """The draws written out as one loop (standard_normals) are rng.gauss(0.0, 1.0)'s, bit for bit,
    and leave the generator as gauss would (the second normal of an odd pair waiting)."""
    import random

    from scalecore.projections import standard_normals

    ours, theirs = random.Random(seed), random.Random(seed)
    for count in counts:
        drawn, expected = standard_normals(ours, count), [theirs.gauss(0.0, 1.0) for _ in range(count)]
        assert [v.hex() for v in drawn] == [v.hex() for v in expected]
    assert ours.gauss_next == theirs.gauss_next and ours.getstate() == theirs.getstate()
