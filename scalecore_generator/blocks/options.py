"""The option types moved to scalecore_generator/kinds/options.py (they belong to the kind
contract; blocks depend on kinds). A site's kind written against this path still imports."""

from scalecore_generator.kinds.options import *  # noqa: F401,F403
