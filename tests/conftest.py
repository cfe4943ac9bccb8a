import mpmath
import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _reset_mpmath_precision():
    """Every test starts and ends at mpmath's default precision, whatever it changed."""
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
