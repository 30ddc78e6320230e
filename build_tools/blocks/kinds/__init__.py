"""One module per block kind; each registers itself with ``@register`` when imported."""
