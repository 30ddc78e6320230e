"""Option types for kinds, Scalecore's own: a kind's ``Options`` (what authors write in its block)
and ``Settings`` (its section of the plugin's ``kinds:`` option) are made of them, with messages
written for authors; the options every kind's block has (:class:`PanelOptions`) and the error a
kind's ``check`` raises.

No engine is imported here: a kind imports only Scalecore, so it builds under any engine an
adapter wires in (adapters/). The MkDocs adapter wraps these types where MkDocs needs its own
config_options (the plugin's options, adapters/mkdocs/config.py). A kind written against the old
API, MkDocs' ``config_options`` (``c.Type``, ``c.Choice``, ``c.ListOfItems``, ``c.Optional``), still
builds: its options run as :class:`EngineOption`, and the build says once what to import instead.

An option checks one value (``validate``: a missing value takes the default, else it is required;
``run_validation``: the check of a value that was given, the method a new type overrides); a
failure raises :class:`ValidationError`, whose text is what the author reads after
``option 'name':``. An :class:`OptionGroup` (``PanelOptions``, ``KindSettings``) holds a kind's
options in the order they are declared, and validates a mapping of values against them.
"""

import difflib
import json
import math
import re
from collections import UserDict

from scalecore_generator.errors import ScalecoreError

TYPE_NAMES = {"float": "a number", "int": "an integer", "str": "text", "bool": "true or false", "list": "a list",
              "dict": "a mapping", "NoneType": "nothing"}
# What an engine's own option types say (MkDocs' config_options.Type, which a kind written against
# the old API may still use): in_words says it in the author's words.
ENGINE_TYPE_ERROR = re.compile(r"Expected type: <class '(\w+)'> but received: <class '(\w+)'>")
ENGINES = ("mkdocs", "properdocs")  # engines whose option types a kind of the old API may hold


def in_words(error, value=None) -> str:
    """A validation message as an author reads it: an engine's ``Expected type: <class 'float'>
    but received: <class 'str'>`` (MkDocs' ``config_options.Type``, in a kind of the old API)
    becomes ``expected a number, got 'hot' (text)``; any other message is kept."""
    message = str(error)
    found = ENGINE_TYPE_ERROR.fullmatch(message.strip())
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


def closest(word, choices) -> str | None:
    """The choice closest to a mistyped word, if one is close enough."""
    if not isinstance(word, str):
        return None
    close = difflib.get_close_matches(word, [str(choice) for choice in choices], n=1, cutoff=0.6)
    return close[0] if close else None


def suggestion(word, choices) -> str:
    """' (did you mean 'seed'?)' when a choice is close to the word, else ''."""
    close = closest(word, choices)
    return f" (did you mean {close!r}?)" if close else ""


class ValidationError(ValueError):
    """A value an option does not accept; ``str()`` is what the author reads."""


class WrongType(ValidationError):
    """A value of the wrong type for :class:`Type`: in a list, the message names the item."""

    def __init__(self, wanted: str, value):
        super().__init__(f"expected {wanted}, got {describe(value)}")
        self.wanted = wanted


class Option:
    """One option: its default and the check of a value. ``default`` None (the default) makes it
    required; wrap it in :class:`Optional` for an option that may be left out with no default.

    A type of a kind's own subclasses this and overrides ``run_validation(value)``: return the
    value to keep (it may be converted) or raise :class:`ValidationError` saying what is
    accepted."""

    def __init__(self, default=None):
        self.default = default

    @property
    def default(self):
        return self._default.copy() if isinstance(self._default, (list, dict, set)) else self._default

    @default.setter
    def default(self, value):
        self._default = value

    @property
    def required(self) -> bool:
        return self.default is None

    def validate(self, value):
        """The value to keep: the default for a value left out (None), else the checked value."""
        if value is None:
            if self.default is None:
                raise ValidationError("required, and not given")
            value = self.default
        return self.run_validation(value)

    def run_validation(self, value):
        return value

    def pre_validation(self, options, key: str) -> None:
        """Before any option of the group is checked (a hook; nothing by default)."""

    def post_validation(self, options, key: str) -> None:
        """After every option of the group passed (a hook; nothing by default)."""

    # An option is declared as a class attribute of its group: reading it on a group's values
    # gives the value (``options.seed`` is ``options["seed"]``).
    def __set_name__(self, owner, name):
        self.name = name[:-1] if name.endswith("_") and not name.startswith("_") else name

    def __get__(self, group, owner=None):
        return self if group is None else group[self.name]

    def __set__(self, group, value):
        group[self.name] = value


class Optional(Option):
    """An option that may be left out: its value is then None (a kind's ``check`` fills it)."""

    def __init__(self, option: Option):
        if option.default is not None:
            raise ValueError(f"this option already has a default ({option.default!r}) and needs no Optional")
        super().__init__()
        self.option = option

    @property
    def required(self) -> bool:
        return False

    def validate(self, value):
        return None if value is None else self.option.validate(value)

    def run_validation(self, value):
        return None if value is None else self.option.validate(value)


class Type(Option):
    """A value of a Python type (``Type(float)``, ``Type(str)``), kept as it is, except that a
    whole number is a ``float`` where one is wanted, made one (an author writes ``factor: 3``;
    YAML reads 3 as an integer; Python's own typing takes an int for a float too)."""

    def __init__(self, type_: type | tuple[type, ...], default=None):
        super().__init__(default)
        self.type = type_

    def run_validation(self, value):
        types = self.type if isinstance(self.type, tuple) else (self.type,)
        if float in types and type(value) is int:
            return float(value)
        if not isinstance(value, types):
            raise WrongType(" or ".join(TYPE_NAMES.get(t.__name__, f"a {t.__name__}") for t in types), value)
        return value


class Integer(Option):
    """An integer (YAML's true/false are not integers), optionally within [low, high]."""

    def __init__(self, low: int | None = None, high: int | None = None, default=None):
        super().__init__(default)
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


def _shown(bound: float | None) -> str:
    """A bound as an author reads it: 1,000,000 rather than 1e+06, 0.5 as 0.5."""
    if bound is None:
        return ""
    return f"{int(bound):,}" if float(bound).is_integer() and abs(bound) < 1e15 else f"{bound:g}"


class Number(Option):
    """A finite number (integer or decimal), stored as a float, optionally >= low and <= high."""

    def __init__(self, low: float | None = None, default=None, high: float | None = None):
        super().__init__(default)
        self.low = low
        self.high = high

    def expected(self) -> str:
        low, high = _shown(self.low), _shown(self.high)
        if self.low is not None and self.high is not None:
            return f"a number from {low} to {high}"
        if self.high is not None:
            return f"a number <= {high}"
        return "a number" if self.low is None else f"a number >= {low}"

    def run_validation(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValidationError(f"expected {self.expected()}, got {describe(value)}")
        if not math.isfinite(value):
            raise ValidationError(f"expected a finite number, got {value!r}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValidationError(f"expected {self.expected()}, got {value!r}")
        return float(value)


class Text(Option):
    """Non-empty text. ``what`` names it in messages ('a corpus name')."""

    def __init__(self, what: str = "", default=None):
        super().__init__(default)
        self.what = what

    def run_validation(self, value):
        expected = f"{self.what} (text)" if self.what else "text"
        if not isinstance(value, str):
            raise ValidationError(f"expected {expected}, got {describe(value)}")
        if not value.strip():
            raise ValidationError(f"expected non-empty {self.what or 'text'}, got {value!r}")
        return value


class OneOf(Option):
    """One of a fixed set of names."""

    def __init__(self, choices, default=None):
        if isinstance(choices, str) or not len(choices):
            raise ValueError(f"expected a collection of choices, got {choices!r}")
        if default is not None and default not in choices:
            raise ValueError(f"{default!r} is not one of {choices!r}")
        super().__init__(default)
        self.choices = choices

    def run_validation(self, value):
        if isinstance(value, bool) or value not in self.choices:
            shown = repr(value) if isinstance(value, str) else describe(value)
            raise ValidationError(f"{shown} is not one of: {listing(self.choices)}"
                                  f"{suggestion(value, self.choices)}")
        return value


class ListOf(Option):
    """A list of items, each validated by ``item``.

    ``single``: one bare value is accepted as a list of one (``corpus: kjv``).
    ``order``: store the items in this order (a canonical form for sets such as ``show``).
    ``unique``: drop repeats (False for a row of numbers).
    """

    def __init__(self, item: Option, default=None, min_items: int = 0, max_items: int | None = None,
                 single: bool = False, order=None, unique: bool = True, example: str = "[a, b]"):
        super().__init__(default)
        self.item = item
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
        items = []  # a new list, never the shared default
        for item in value:
            try:
                items.append(self.item.run_validation(item))
            except WrongType as error:
                raise ValidationError(f"expected {error.wanted} in the list, got {describe(item)}") from None
        if self.unique:
            items = list(dict.fromkeys(items))
        if self.order is not None:
            items.sort(key=list(self.order).index)
        return items


class Bounded(Option):
    """An integer within [low, high]: sizes and seeds must be sane before a long bake starts
    (the plugin's options and kinds' settings)."""

    def __init__(self, low: int, high: int, default=None):
        super().__init__(default)
        self.low, self.high = low, high

    def run_validation(self, value):
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            raise ValidationError(f"expected an integer from {self.low} to {self.high}, got {value!r}.")
        return value


def described(option, text: str, accepted: str | None = None):
    """An option with what it changes (markdown), and optionally its accepted values in words
    when its type cannot say them, for the generated options reference."""
    option.description, option.accepted = text, accepted
    return option


class OptionError(ScalecoreError):
    """A bad value of one option, raised by ``check``; the expansion adds the page and line.

    ``key`` None means the block as a whole (reported on its opening line).
    """

    def __init__(self, key: str | None, message: str):
        super().__init__(message)
        self.key, self.message = key, message


# ------------------------------------------------------------------ a kind of the old API


def engine_of(option) -> str | None:
    """The engine whose config option ``option`` is ('mkdocs' for MkDocs' config_options and
    their subclasses), None for anything else; found by the classes' modules, importing nothing."""
    for klass in type(option).__mro__:
        root = klass.__module__.partition(".")[0]
        if root in ENGINES:
            return root
    return None


class EngineOption(Option):
    """An engine's own config option (MkDocs' ``config_options``) in a kind of the old API, run
    by its own code as MkDocs ran it; its failures become :class:`ValidationError` with the
    engine's message (which ``in_words`` says in the author's words)."""

    def __init__(self, option):
        self.option = option
        option.required = True  # as MkDocs' class-based configs set it on every option

    @property
    def default(self):
        return self.option.default

    @property
    def required(self) -> bool:
        return type(self.option).__name__ != "Optional" and self.option.default is None

    def validate(self, value):
        return self._run(self.option.validate, value)

    def run_validation(self, value):
        return self._run(self.option.run_validation, value)

    def pre_validation(self, options, key):
        self._run(self.option.pre_validation, options, key)

    def post_validation(self, options, key):
        self._run(self.option.post_validation, options, key)

    @staticmethod
    def _run(method, *args):
        try:
            return method(*args)
        except Exception as error:
            if type(error).__name__ != "ValidationError" or isinstance(error, ValidationError):
                raise
            raise ValidationError(str(error)) from None

    def __getattr__(self, key):  # its description, choices, ... for the options reference
        if key in ("option", "name") or key.startswith("__"):
            raise AttributeError(key)
        return getattr(self.option, key)

    def _engine_class(self) -> type:
        return next(k for k in type(self.option).__mro__ if k.__module__.partition(".")[0] in ENGINES)

    def old_name(self) -> str:
        """'config_options.Type', or 'CheckId (a config_options.Type)' for a kind's own subclass."""
        name = f"config_options.{self._engine_class().__name__}"
        return name if type(self.option) is self._engine_class() else f"{type(self.option).__name__} (a {name})"

    def new_name(self) -> str:
        """The Scalecore type that replaces it: Type for config_options.Type, ..., and Option (to
        subclass) for a kind's own type."""
        if type(self.option) is not self._engine_class():
            return "Option"
        return NEW_TYPES.get(self._engine_class().__name__, "Option")


NEW_TYPES = {"Type": "Type", "Choice": "OneOf", "ListOfItems": "ListOf", "Optional": "Optional"}


# ------------------------------------------------------------------ groups of options


class OptionGroup(UserDict):
    """A kind's options (its ``Options``) or settings (its ``Settings``): a subclass declares each
    as a class attribute (``seed = Integer(low=0, default=0)``), in the order messages and the
    canonical form list them. Its instances are the values, by key (``options["seed"]``).

    ``_schema``: (key, option) pairs, the inherited ones first. ``engine_options``: the keys whose
    options are an engine's (a kind of the old API), for the build's one-time notice."""

    _schema: tuple = ()
    engine_options: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        schema = dict(cls._schema)
        engine = list(cls.engine_options)
        for name, value in list(cls.__dict__.items()):
            if not isinstance(value, Option) and engine_of(value) is not None:
                value = EngineOption(value)
                value.__set_name__(cls, name)
                setattr(cls, name, value)
                engine.append(value.name)
            if isinstance(value, Option):
                schema[getattr(value, "name", name)] = value
        cls._schema = tuple(schema.items())
        cls.engine_options = tuple(dict.fromkeys(engine))

    def __init__(self, config_file_path: str | None = None):
        super().__init__()
        for key, option in self._schema:
            self[key] = option.default
        self.config_file_path = config_file_path or ""

    def load_dict(self, values: dict) -> None:
        if not isinstance(values, dict):
            raise ValidationError(f"expected a mapping of option: value, got {describe(values)}")
        self.update(values)

    def validate(self) -> tuple[list[tuple[str, ValidationError]], list[tuple[str, str]]]:
        """Check every value: (failed, warnings). ``failed`` holds the first option that failed,
        with its error; ``warnings`` the keys no option has ("unknown")."""
        failed, warnings = [], []
        for key, option in self._schema:
            try:
                option.pre_validation(self, key)
            except ValidationError as error:
                failed.append((key, error))
        for key, option in self._schema:
            try:
                self[key] = option.validate(self.get(key))
            except ValidationError as error:
                failed.append((key, error))
                break
        known = {key for key, _ in self._schema}
        warnings += [(key, f"unknown option: {key}") for key in self if key not in known]
        if not failed:
            for key, option in self._schema:
                try:
                    option.post_validation(self, key)
                except ValidationError as error:
                    failed.append((key, error))
        return failed, warnings


class PanelOptions(OptionGroup):
    """Options every kind has. ``/// kind | Title`` sets ``title`` too."""

    title = Optional(Text())
