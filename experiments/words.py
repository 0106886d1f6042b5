"""Words of printed lines and messages shared by the commands."""


def count_of(n: int, noun: str) -> str:
    """``n`` and its noun, plural unless ``n`` is 1: '1 seating group', '2,400 games'."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def repeated(items) -> list:
    """The items a list holds more than once, sorted (for a message naming the first)."""
    items = list(items)
    return sorted({item for item in items if items.count(item) > 1})


def listed(names) -> str:
    """Names in a sentence: 'a', 'a and b', 'a, b and c'."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
