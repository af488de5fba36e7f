import pytest

from .bot_helpers import braun_dir


@pytest.fixture(scope="session")
def braun():
    folder = braun_dir()
    if folder is None:
        pytest.skip("Braun ETC data absent: set HYBRIDSCHED_DATA to a folder containing "
                    "braun-etc-512x16/ (the 12 u_x_yyzz.0 files)")
    return folder
