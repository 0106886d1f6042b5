"""``key=value`` rule options (the command line's ``--rule``), shared by both games' ``Rules``.

Each game's ``Rules`` declares its options as ``OPTIONS``: key -> kind, where a kind is one of

* ``INT``: a whole number;  ``INT_OR_DEFAULT``: a whole number, or ``default`` (the table of
  the rules of record);
* ``BOOL``: ``true``/``false`` (also ``yes``/``no``, ``1``/``0``);
* ``SEAT``: ``random`` or a seat number;
* ``TABLE``: whole numbers separated by commas, rows separated by ``/`` (``15,10,5/10,7,4``);
  ``TABLE_OR_DEFAULT``: the same, or ``default``;
* a tuple of words: one of them.

:func:`parse_pairs` turns ``["key=value", ...]`` into plain option values (JSON-ready: tables
as lists); the ``Rules`` constructor then checks ranges and combinations. Every error is a
``ValueError`` of one line that names the valid keys or values.
"""

INT = "int"
INT_OR_DEFAULT = "int-or-default"
BOOL = "bool"
SEAT = "seat"
TABLE = "table"
TABLE_OR_DEFAULT = "table-or-default"

_TRUE = ("true", "yes", "1", "on")
_FALSE = ("false", "no", "0", "off")
_HINTS = {
    INT: "a whole number",
    INT_OR_DEFAULT: "a whole number or 'default'",
    BOOL: "true or false",
    SEAT: "'random' or a seat number",
    TABLE: "numbers separated by ',' (rows by '/')",
    TABLE_OR_DEFAULT: "numbers separated by ',' (rows by '/') or 'default'",
}


def hint(kind) -> str:
    """What a value of ``kind`` looks like, for messages and ``--help``."""
    if isinstance(kind, tuple):
        return "one of " + ", ".join(kind)
    return _HINTS[kind]


def parse_pairs(pairs, options: dict, game: str) -> dict:
    """Option values from ``key=value`` strings; a key given twice is a ValueError (which of
    two values was meant is not for the program to guess)."""
    values = {}
    for pair in pairs or ():
        key, sep, text = str(pair).partition("=")
        key = key.strip()
        if not sep:
            keys = ", ".join(options)
            raise ValueError(
                f"--rule takes key=value, got {pair!r} (valid keys for {game}: {keys})"
            )
        if key not in options:
            raise ValueError(f"unknown rule {key!r} for {game} (valid keys: {', '.join(options)})")
        value = parse_value(key, text.strip(), options[key])
        if key in values:
            raise ValueError(
                f"rule {key} is given twice ({key}={_text(values[key])} and {pair}); give it once"
            )
        values[key] = value
    return values


def parse_value(key: str, text: str, kind):
    """One option value of ``kind`` from its text; ValueError naming the valid values."""
    low = text.lower()
    if isinstance(kind, tuple):
        if low in kind:
            return low
        raise ValueError(f"rule {key} must be one of {', '.join(kind)}, got {text!r}")
    if kind in (INT_OR_DEFAULT, TABLE_OR_DEFAULT) and low == "default":
        return None
    if kind == BOOL:
        if low in _TRUE + _FALSE:
            return low in _TRUE
    elif kind == SEAT and low == "random":
        return "random"
    elif kind in (INT, INT_OR_DEFAULT, SEAT):
        if _is_int(text):
            return int(text)
    elif kind in (TABLE, TABLE_OR_DEFAULT):
        table = _table(text)
        if table is not None:
            return table
    if kind == SEAT and low == "rotate":  # a way of running games, not a rule of one game
        raise ValueError(
            f"rule {key} takes {hint(kind)}, got {text!r}: a rotating first player is "
            "--first-player rotate, the default of tournaments and studies"
        )
    raise ValueError(f"rule {key} takes {hint(kind)}, got {text!r}")


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit() and text.count("-") <= 1


def _table(text: str):
    rows = [row.split(",") for row in text.split("/")]
    if not all(_is_int(x.strip()) for row in rows for x in row):
        return None
    table = [[int(x) for x in row] for row in rows]
    return table[0] if len(table) == 1 and "/" not in text else table


def as_pairs(values: dict) -> list[str]:
    """The ``key=value`` strings of option values (inverse of :func:`parse_pairs`)."""
    return [f"{key}={_text(value)}" for key, value in values.items()]


def changed_pairs(rules) -> list[str]:
    """The ``key=value`` pairs of the options whose values in ``rules`` (a game's ``Rules``)
    differ from the rules of record for its player count: what ``--rule`` would have to say."""
    chosen, of_record = rules.as_dict(), type(rules)(n_players=rules.n_players).as_dict()
    return as_pairs({key: value for key, value in chosen.items() if value != of_record[key]})


def _text(value) -> str:
    if value is None:
        return "default"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], list | tuple):
            return "/".join(_text(row) for row in value)
        return ",".join(str(x) for x in value)
    return str(value)
