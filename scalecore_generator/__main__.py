import sys

from scalecore_generator.cli import main

sys.exit(main())
