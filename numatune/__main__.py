import sys

from numatune.cli import main

sys.exit(main())
