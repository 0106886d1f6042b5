"""Checks shared by both games' record replays: the error type, the header, recorded numbers."""


class RecordError(ValueError):
    """A record that does not describe a legal game; the message names the first bad entry."""


def check_header(record, game: str, required: tuple[str, ...]) -> None:
    """A JSON object of ``game`` holding every ``required`` key, with its rules an object."""
    if not isinstance(record, dict):
        raise RecordError("a record is a JSON object")
    missing = [k for k in required if k not in record]
    if missing:
        raise RecordError(f"missing key {missing[0]!r} (required: {', '.join(required)})")
    if record["game"] != game:
        raise RecordError(f"game: expected {game!r}, got {record['game']!r}")
    if not isinstance(record["rules"], dict):
        raise RecordError("rules: expected an object of Rules fields")


def rules_of(rules_class, fields):
    """The record's rules, a ``rules_class`` (a dataclass) made from its ``rules`` object
    (``check_header`` saw that it is one); a RecordError naming a key the class does not
    take, with the keys it takes."""
    from dataclasses import fields as keys_of

    valid = [f.name for f in keys_of(rules_class) if f.init]
    unknown = [key for key in fields if key not in valid]
    if unknown:
        raise RecordError(f"rules: unknown key {unknown[0]!r} (valid: {', '.join(valid)})")
    try:
        return rules_class(**fields)
    except (TypeError, ValueError) as error:
        raise RecordError(f"rules: {error}") from None


def expect(where: str, said, derived) -> None:
    """Raise naming the first place (``scores[2]``, ``breakdown[1].give``) where a recorded
    value differs from the replay."""
    if said == derived:
        return
    if isinstance(said, list) and isinstance(derived, list) and len(said) == len(derived):
        for i, (a, b) in enumerate(zip(said, derived, strict=True)):
            expect(f"{where}[{i}]", a, b)
    if isinstance(said, dict) and isinstance(derived, dict) and set(said) == set(derived):
        for key in derived:
            expect(f"{where}.{key}", said[key], derived[key])
    raise RecordError(f"{where}: the record says {said}, the replay gives {derived}")


def seats_of(mask) -> list[int]:
    """The seats of a bit mask (the game's ``winner_mask``), ascending."""
    mask = int(mask)
    return [seat for seat in range(mask.bit_length()) if (mask >> seat) & 1]
