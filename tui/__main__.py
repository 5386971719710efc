"""`python -m tui`: the same as the `tui` command."""

import sys

from tui.cli.main import main

sys.exit(main())
