"""``python -m scalecore``: the command line; see :mod:`scalecore.cli`."""

import sys

from scalecore.cli import main

sys.exit(main())
