"""claimcheck's pytest glue: hooks and fixtures only, split by concern (CONTRIBUTING's map). The
``pytest11`` entry point loads only :mod:`.options`, which registers the rest (``options.GLUE``) in a
claims run (:func:`.options.claims_run`) and nothing (no hook, marker, fixture or file) in any other."""

pytest_plugins = ["claimcheck.plugin.options"]
