pytest_plugins = ["pytester"]

# pytester's in-process runs drop from sys.modules every module first imported inside them; torch
# (imported by the runner fingerprint) cannot be imported twice in one process and segfaults if it
# is. Importing it once here, outside any inner run, keeps it loaded across them.
import torch  # noqa: E402,F401
