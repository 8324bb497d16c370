"""claimcheck: every quantitative claim of a book chapter as an executable pytest check. One module
per concern; :mod:`claimcheck.plugin` wires them into pytest; heavy libraries are imported late."""

__version__ = "0.1.0"
