# For setuptools older than 77 (RHEL 8/9): the metadata is in setup.cfg,
# generated from pyproject.toml. See packaging/legacy/sync.py.
from setuptools import setup

setup()
