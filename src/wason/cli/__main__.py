"""``python -m wason.cli``: the ``wason`` command."""

import sys

from wason.cli import main

sys.exit(main())
