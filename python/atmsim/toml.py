"""The one TOML reader of atmsim: the standard library's `tomllib` (Python 3.11+), else `tomli`,
the package tomllib was taken from, with the same API (pyproject.toml installs it on Python 3.9
and 3.10). Every module that parses TOML imports `tomllib` from here."""
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.9, 3.10
    import tomli as tomllib

__all__ = ["tomllib"]
