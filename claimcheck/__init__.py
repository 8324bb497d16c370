"""claimcheck: every quantitative claim of a book chapter as an executable pytest check.

The package holds one module per concern; :mod:`claimcheck.plugin` only wires them into pytest.
Heavy libraries (torch, transformers, matplotlib) are imported inside functions, so that
``pytest --help`` and collection stay fast.
"""

__version__ = "0.1.0"
