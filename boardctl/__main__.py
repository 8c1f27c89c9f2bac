"""Allow ``python -m boardctl``."""

from boardctl.cli import main

raise SystemExit(main())
