"""``python -m expmech.proofs.cli``: the ``expmech`` command."""

import sys

from ._main import main

sys.exit(main())
