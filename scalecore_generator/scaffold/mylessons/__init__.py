"""This site's own computations: a package that ships in the browser as its own wheel."""

__version__ = "0.1.0"
