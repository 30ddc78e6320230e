"""Option types for kinds: MkDocs' config_options, with messages written for authors; the options
every kind's block has (:class:`PanelOptions`) and the error a kind's ``check`` raises.

They belong to the kind contract (a kind's ``Options`` and ``Settings`` are made of them); the
Markdown blocks, which expand a kind's block, use them from here: blocks depend on kinds, not
the reverse. The plugin's own options (adapters/mkdocs/config.py) use them too.

MkDocs' own messages name Python types ("Expected type: <class 'int'> but received: <class
'str'>"); an author needs the value they wrote and what to write instead. These subclasses keep
the machinery (``Config.validate()`` runs them, defaults and required options work as in any
MkDocs config) and only change what a failure says, like :class:`Bounded` below.
"""

import difflib
import json
import math
import re

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.base import ValidationError

from scalecore_generator.errors import ScalecoreError



TYPE_NAMES = {"float": "a number", "int": "an integer", "str": "text", "bool": "true or false", "list": "a list",
              "dict": "a mapping", "NoneType": "nothing"}
MKDOCS_TYPE_ERROR = re.compile(r"Expected type: <class '(\w+)'> but received: <class '(\w+)'>")


def in_words(error, value=None) -> str:
    """A validation message as an author reads it: MkDocs' ``Expected type: <class 'float'> but
    received: <class 'str'>`` (its ``config_options.Type``, which kinds' settings and options may
    use) becomes ``expected a number, got 'hot' (text)``; any other message is kept."""
    message = str(error)
    found = MKDOCS_TYPE_ERROR.fullmatch(message.strip())
    if not found:
        return message
    wanted = TYPE_NAMES.get(found[1], f"a {found[1]}")
    if isinstance(value, list) and found[1] != "list":  # a list option: the item of the wrong type
        value = next((item for item in value if type(item).__name__ == found[2]), value)
        return f"expected {wanted} in the list, got {describe(value)}"
    got = describe(value) if value is not None else TYPE_NAMES.get(found[2], f"a {found[2]}")
    return f"expected {wanted}, got {got}"


def describe(value) -> str:
    """A value as the author wrote it in YAML, and what YAML made of it."""
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a yes/no value; quote it if you meant text)"
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"{value!r} (text)"
    if isinstance(value, int):
        return f"{value} (an integer)"
    if isinstance(value, float):
        return f"{value!r} (a number)"
    if isinstance(value, list):
        return f"{json.dumps(value, ensure_ascii=False, default=str)} (a list)"
    if isinstance(value, dict):
        return f"{json.dumps(value, ensure_ascii=False, default=str)} (a mapping)"
    return f"{str(value)!r} (a {type(value).__name__})"


def listing(values) -> str:
    return ", ".join(str(value) for value in values)


def suggestion(word, choices) -> str:
    """' (did you mean 'seed'?)' when a choice is close to the word, else ''."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, [str(choice) for choice in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Integer(c.Type):
    """An integer (YAML's true/false are not integers), optionally within [low, high]."""

    def __init__(self, low: int | None = None, high: int | None = None, default=None):
        super().__init__(int, default=default)
        self.low, self.high = low, high

    def expected(self) -> str:
        if self.low is not None and self.high is not None:
            return f"an integer from {self.low} to {self.high}"
        if self.low is not None:
            return f"an integer >= {self.low}"
        return "an integer"

    def run_validation(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationError(f"expected {self.expected()}, got {describe(value)}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValidationError(f"expected {self.expected()}, got {value}")
        return value


class Number(c.Type):
    """A finite number (integer or decimal), stored as a float, optionally >= low."""

    def __init__(self, low: float | None = None, default=None):
        super().__init__((int, float), default=default)
        self.low = low

    def expected(self) -> str:
        return "a number" if self.low is None else f"a number >= {self.low:g}"

    def run_validation(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValidationError(f"expected {self.expected()}, got {describe(value)}")
        if not math.isfinite(value):
            raise ValidationError(f"expected a finite number, got {value!r}")
        if self.low is not None and value < self.low:
            raise ValidationError(f"expected {self.expected()}, got {value!r}")
        return float(value)


class Text(c.Type):
    """Non-empty text. ``what`` names it in messages ('a corpus name')."""

    def __init__(self, what: str = "", default=None):
        super().__init__(str, default=default)
        self.what = what

    def run_validation(self, value):
        expected = f"{self.what} (text)" if self.what else "text"
        if not isinstance(value, str):
            raise ValidationError(f"expected {expected}, got {describe(value)}")
        if not value.strip():
            raise ValidationError(f"expected non-empty {self.what or 'text'}, got {value!r}")
        return value


class OneOf(c.Choice):
    """One of a fixed set of names."""

    def run_validation(self, value):
        if isinstance(value, bool) or value not in self.choices:
            shown = repr(value) if isinstance(value, str) else describe(value)
            raise ValidationError(f"{shown} is not one of: {listing(self.choices)}"
                                  f"{suggestion(value, self.choices)}")
        return value


class ListOf(c.ListOfItems):
    """A list of items, each validated by ``item``.

    ``single``: one bare value is accepted as a list of one (``corpus: kjv``).
    ``order``: store the items in this order (a canonical form for sets such as ``show``).
    ``unique``: drop repeats (False for a row of numbers).
    """

    def __init__(self, item, default=None, min_items: int = 0, max_items: int | None = None,
                 single: bool = False, order=None, unique: bool = True, example: str = "[a, b]"):
        super().__init__(item, default=default)
        self.min_items, self.max_items = min_items, max_items
        self.single, self.order, self.unique, self.example = single, order, unique, example

    def run_validation(self, value):
        if self.single and not isinstance(value, list):
            value = [value]
        if not isinstance(value, list):
            raise ValidationError(f"expected a list such as {self.example}, got {describe(value)}")
        count = len(value)
        if count < self.min_items or (self.max_items is not None and count > self.max_items):
            if self.max_items is None:
                wanted = f"at least {self.min_items} item{'s' if self.min_items > 1 else ''}"
            else:
                wanted = f"{self.min_items} to {self.max_items} items"
            raise ValidationError(f"expected {wanted}, got {count}: {describe(value)}")
        items = list(super().run_validation(value))  # a new list, never the shared default
        if self.unique:
            items = list(dict.fromkeys(items))
        if self.order is not None:
            items.sort(key=list(self.order).index)
        return items


# Options of the plugin and of kinds' settings (MkDocs config_options, as MkDocs validates them):

class Bounded(c.Type):
    """An integer within [low, high]: sizes and seeds must be sane before a long bake starts."""

    def __init__(self, low: int, high: int, default=None):
        super().__init__(int, default=default)
        self.low, self.high = low, high

    def run_validation(self, value):
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            raise c.ValidationError(f"expected an integer from {self.low} to {self.high}, got {value!r}.")
        return value


def described(option, text: str, accepted: str | None = None):
    """An option with what it changes (markdown), and optionally its accepted values in words
    when its type cannot say them, for the generated options reference (reference())."""
    option.description, option.accepted = text, accepted
    return option


class OptionError(ScalecoreError):
    """A bad value of one option, raised by ``check``; the expansion adds the page and line.

    ``key`` None means the block as a whole (reported on its opening line).
    """

    def __init__(self, key: str | None, message: str):
        super().__init__(message)
        self.key, self.message = key, message


class PanelOptions(base.Config):
    """Options every kind has. ``/// kind | Title`` sets ``title`` too."""

    title = c.Optional(Text())
