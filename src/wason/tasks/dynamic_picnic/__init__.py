"""Dynamic Picnic, validated: a game master writes the items, a validator panel (or a word predicate) decides
them, and only validated items reach the player. See ``docs/dynamic-picnic.md``."""
