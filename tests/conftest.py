pytest_plugins = ["pytester"]

# pytester's in-process runs drop from sys.modules every module first imported inside them; torch
# (imported by the runner fingerprint) cannot be imported twice in one process and segfaults if it
# is. Importing it once here, outside any inner run, keeps it loaded across them.
try:
    import torch  # noqa: E402,F401
except ImportError:  # the core's tests run without the LLM kit's dependencies
    pass
