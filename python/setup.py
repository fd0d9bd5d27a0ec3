"""Marks the wheel as platform-specific when it carries the compiler (a native program);
the metadata is in pyproject.toml."""

import os

from setuptools import setup
from setuptools.dist import Distribution


class _Distribution(Distribution):
    def has_ext_modules(self):
        here = os.path.dirname(os.path.abspath(__file__))
        return os.path.isdir(os.path.join(here, "infc", "_compiler"))


setup(distclass=_Distribution)
