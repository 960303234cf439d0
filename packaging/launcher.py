"""PyInstaller entry script: the bundled ``dualview`` executable runs ``app.__main__.main``."""

import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
