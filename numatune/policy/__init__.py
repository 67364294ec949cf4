"""Policies: TOML files (``stack``: extends, --policy stacking, validation),
their schema language (``schema``), line lookup (``loader``) and waivers."""
