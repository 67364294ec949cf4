"""Records as ``@dataclass`` makes them, without the dataclasses module.

dataclasses imports inspect (and with it ast, dis, tokenize, linecache) and
builds five functions per class from source: a fifth of the CPU time of a
three-sysctl `check`, spent before it reads anything (issue #38). A record
gets the same ``__init__`` (one function made from source, as fast per
instance: a giant plan makes 30,000 changes), ``__repr__``, ``__eq__``,
``__hash__`` and, frozen, the same refusals to assign; ``fields``,
``asdict`` and ``replace`` do what dataclasses' do, for records.

Declared like a dataclass: annotated class attributes in order, a default
by value or ``field(default_factory=..., repr=..., compare=...)``. Modules
that declare records use ``from __future__ import annotations``, so their
annotations are text and ``typing`` is not needed to read them.
"""
import reprlib
from operator import attrgetter

_MISSING = object()     # no default
_FACTORY = object()     # __init__'s default for a field with a default_factory


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record (dataclasses' error of that name)."""


class Field:
    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default=_MISSING, default_factory=_MISSING, repr=True, compare=True):
        self.name = None
        self.default, self.default_factory, self.repr, self.compare = default, default_factory, repr, compare

    def __repr__(self):
        return "Field(name=%r)" % self.name


def field(default=_MISSING, default_factory=_MISSING, repr=True, compare=True):
    return Field(default, default_factory, repr, compare)


def record(cls=None, frozen=False):
    """``@record`` or ``@record(frozen=True)``: ``@dataclass`` with eq, repr and init."""
    if cls is None:
        return lambda c: _make(c, frozen)
    return _make(cls, frozen)


def _make(cls, frozen):
    own = cls.__dict__.get("__annotations__", {})
    found = {}
    for base in reversed(cls.__mro__[1:]):
        found.update((f.name, f) for f in getattr(base, "__record_fields__", ()))
    for name in own:
        value = cls.__dict__.get(name, _MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        if f.default is _MISSING:
            if isinstance(value, Field):
                delattr(cls, name)      # as dataclasses: no class attribute for a factory's field
        else:
            setattr(cls, name, f.default)
        found[name] = f
    fields_ = tuple(found.values())
    cls.__record_fields__ = fields_
    cls.__match_args__ = tuple(f.name for f in fields_)
    cls.__init__ = _init(cls, fields_, frozen)
    shown = [f.name for f in fields_ if f.repr]
    compared = [f.name for f in fields_ if f.compare]
    key = attrgetter(*compared) if len(compared) > 1 else (
        (lambda obj, g=attrgetter(*compared): (g(obj),)) if compared else (lambda obj: ()))
    cls.__repr__ = _repr(shown)
    cls.__eq__ = _eq(key)
    if frozen:
        cls.__hash__ = lambda self: hash(key(self))
        cls.__setattr__, cls.__delattr__ = _frozen(cls, {f.name for f in fields_})
    else:
        cls.__hash__ = None     # mutable and compared by value: unhashable, as a dataclass
    return cls


def _init(cls, fields_, frozen):
    params, body, scope = [], [], {"_FACTORY": _FACTORY, "_object": object, "__name__": cls.__module__}
    for i, f in enumerate(fields_):
        value = f.name
        if f.default_factory is not _MISSING:
            scope["_factory_%d" % i] = f.default_factory
            params.append("%s=_FACTORY" % f.name)
            value = "_factory_%d() if %s is _FACTORY else %s" % (i, f.name, f.name)
        elif f.default is not _MISSING:
            scope["_default_%d" % i] = f.default
            params.append("%s=_default_%d" % (f.name, i))
        else:
            params.append(f.name)
        body.append("_object.__setattr__(self, %r, %s)" % (f.name, value) if frozen
                    else "self.%s = %s" % (f.name, value))
    defaults = ["=" in p for p in params]
    if True in defaults and False in defaults[defaults.index(True):]:
        raise TypeError("%s: a field without a default follows one with a default" % cls.__name__)
    source = "def __init__(self%s):\n    %s\n" % ("".join(", " + p for p in params), "\n    ".join(body or ["pass"]))
    exec(source, scope)
    init = scope["__init__"]
    init.__qualname__ = "%s.__init__" % cls.__qualname__
    return init


def _repr(shown):
    @reprlib.recursive_repr()
    def __repr__(self):
        return "%s(%s)" % (type(self).__qualname__, ", ".join("%s=%r" % (n, getattr(self, n)) for n in shown))
    return __repr__


def _eq(key):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _frozen(cls, names):
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError("cannot assign to field %r" % name)
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError("cannot delete field %r" % name)
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__


def fields(obj):
    """The Field of each field, in declared order (a record class or instance)."""
    try:
        return obj.__record_fields__
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def is_record(obj):
    return hasattr(obj, "__record_fields__")


def asdict(obj):
    """Fields as a dict, records within turned into dicts and containers copied (dataclasses.asdict)."""
    if not is_record(obj) or isinstance(obj, type):
        raise TypeError("asdict() should be called on record instances")
    return _copy(obj)


# What copy.deepcopy gives back as itself (its atomic types, by exact type): a boot config's
# hundred strings copied without importing copy (and weakref) into every plan.
_ATOMIC = frozenset((type(None), bool, int, float, complex, str, bytes))


def _copy(obj):
    if type(obj) in _ATOMIC:
        return obj
    if is_record(obj) and not isinstance(obj, type):
        return {f.name: _copy(getattr(obj, f.name)) for f in obj.__record_fields__}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*[_copy(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_copy(v) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_copy(k), _copy(v)) for k, v in obj.items())
    import copy
    return copy.deepcopy(obj)


def replace(obj, **changes):
    """A new record with ``changes`` over ``obj``'s fields (dataclasses.replace)."""
    for f in obj.__record_fields__:
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)
