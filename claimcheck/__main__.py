"""``python -m claimcheck``: the ``claimcheck`` command line (:func:`claimcheck.cli.main`), for an
environment whose scripts folder is not on the PATH."""

import sys

from claimcheck.cli import main

sys.exit(main())
