"""`python -m dialbox` runs the command line."""

import sys

from dialbox.cli import main

sys.exit(main())
