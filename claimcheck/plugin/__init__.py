"""claimcheck's pytest glue: hooks and fixtures only, split by concern (CONTRIBUTING's map).

Registered through the ``pytest11`` entry point, it acts only in a claims run
(:func:`claimcheck.plugin.options.claims_run`); in any other run only :mod:`.options` is loaded,
and it registers nothing: no hooks, markers, fixtures, torch, ``CLAIMCHECK_*`` validation or files.
"""

# Only the options and the decision; the rest (options.GLUE) is registered in a claims run.
pytest_plugins = ["claimcheck.plugin.options"]
