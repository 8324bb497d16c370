"""``python -m claimcheck``: the ``claimcheck`` command line, where the scripts folder is not on the PATH."""

import sys

from claimcheck.cli import main

sys.exit(main())
