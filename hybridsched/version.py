"""The package's version, on the ground floor so that any module may record it.

This is the one place the version is written: pyproject.toml reads it at build
time (``[tool.setuptools.dynamic]``), so the wheel's metadata, ``hybridsched
--version``, every result's ``produced_by`` and CITATION.cff's release agree;
a release changes this line, CITATION.cff's ``version`` and CHANGELOG.md.
"""

__version__ = "0.1.0"
