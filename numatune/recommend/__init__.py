"""`numatune recommend`: the site policy the papers would write for this host.

``build`` reads every family once and asks each family's ``recommend(facts)``
what this host's shape calls for; ``entry`` is what a family answers with;
``document`` writes the commented TOML (tomlkit) or JSON. Kept light: the
families import ``entry`` from here."""
