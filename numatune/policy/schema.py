"""A small declarative schema for policy tables, in the spirit of tuned's
declared plugin options: each knob family states the keys it accepts, their
types and ranges, and validation reports the first problem with its dotted key.
"""
import re


class SchemaError(Exception):
    """A problem at a dotted key; the loader adds file and line."""

    def __init__(self, key, message, hint=None, parts=None):
        super().__init__(message)
        self.key = key
        # The key as TOML parts: quoted keys may hold dots ("kernel.numa_balancing").
        self.parts = parts
        self.message = message
        self.hint = hint


# C0 controls but tab, DEL and C1: a NUL would reach a sysfs file, a newline
# would add a line to a config file, an ESC could repaint what the reviewer
# reads in the plan. No policy value needs one.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def control_problem(text):
    m = _CONTROL.search(text)
    if m and m.group() in "\n\r":
        return "must be one line"
    if m:
        return "holds the control character %r at offset %d" % (m.group(), m.start())
    return None


def _type_name(types):
    names = {bool: "a boolean", int: "an integer", str: "a string", float: "a number",
             list: "an array", dict: "a table"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def _compiled(spec, slot):
    """``spec``'s pattern in ``slot`` (text, a compiled pattern or None), compiled once and kept there."""
    pattern = getattr(spec, slot)
    if pattern is not None and not isinstance(pattern, re.Pattern):
        pattern = re.compile(pattern)
        setattr(spec, slot, pattern)
    return pattern


class Scalar:
    def __init__(self, *types, choices=None, minimum=None, maximum=None, pattern=None,
                 check=None, doc=""):
        self.types = types
        self.choices = choices
        self.minimum = minimum
        self.maximum = maximum
        self._pattern = pattern or None
        self.check = check
        self.doc = doc

    @property
    def pattern(self):
        """The value's pattern, compiled when a value is first checked against it: every family's
        schema is declared at import, and a policy's few keys use few of its 25 patterns."""
        return _compiled(self, "_pattern")

    def validate(self, value, key, parts=()):
        # bool is an int in Python; a policy saying `count = true` is a mistake.
        ok = isinstance(value, self.types) and not (
            isinstance(value, bool) and bool not in self.types)
        if not ok:
            raise SchemaError(key, "%s must be %s, not %r" % (key, _type_name(self.types), value))
        if self.choices is not None and value not in self.choices:
            import difflib  # a misspelling's suggestion only: not on every run's start
            close = difflib.get_close_matches(str(value), [str(c) for c in self.choices], 1)
            raise SchemaError(
                key, "%s = %r is not one of %s" % (key, value, ", ".join(map(repr, self.choices))),
                "did you mean %r?" % close[0] if close else None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.minimum is not None and value < self.minimum:
                raise SchemaError(key, "%s = %r is below the minimum %r" % (key, value, self.minimum))
            if self.maximum is not None and value > self.maximum:
                raise SchemaError(key, "%s = %r is above the maximum %r" % (key, value, self.maximum))
        if isinstance(value, str) and control_problem(value):
            raise SchemaError(key, "%s = %r: %s" % (key, value, control_problem(value)),
                              "write it without control characters (newline, NUL, escape sequences)")
        # fullmatch: "$" also matches before a final newline ("foo=bar\n").
        if self.pattern is not None and isinstance(value, str) and not self.pattern.fullmatch(value):
            raise SchemaError(key, "%s = %r is not a valid value" % (key, value), self.doc or None)
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise SchemaError(key, "%s = %r: %s" % (key, value, problem))


class Array:
    def __init__(self, item, doc=""):
        self.item = item
        self.doc = doc

    def validate(self, value, key, parts=()):
        if not isinstance(value, list):
            raise SchemaError(key, "%s must be an array, not %r" % (key, value))
        for i, v in enumerate(value):
            self.item.validate(v, "%s[%d]" % (key, i), parts)


class Table:
    """Known keys in ``fields``; other keys allowed only if ``extra`` is given,
    and then they must match ``extra_key`` (a regex) and validate as ``extra``."""

    def __init__(self, fields=None, extra=None, extra_key=None, extra_doc="", doc="", whole_entries=False):
        self.fields = fields or {}
        # A later policy file's entry replaces an earlier one whole (policy.loader.merge).
        self.whole_entries = whole_entries
        self.extra = extra
        self._extra_key = extra_key or None
        self.extra_doc = extra_doc
        self.doc = doc

    @property
    def extra_key(self):
        return _compiled(self, "_extra_key")

    def validate(self, value, key, parts=()):
        if not isinstance(value, dict):
            raise SchemaError(key, "%s must be a table, not %r" % (key or "policy", value))
        for name, sub in value.items():
            if control_problem(name):
                raise SchemaError(key or name, "a key in [%s] %s" % (key or "root", control_problem(name)),
                                  parts=parts)
            sub_key = "%s.%s" % (key, name) if key else name
            sub_parts = parts + (name,)
            spec = self.fields.get(name)
            if spec is None and self.extra is not None:
                if self.extra_key is not None and not self.extra_key.fullmatch(name):
                    raise SchemaError(sub_key, "%r is not a valid key in [%s]" % (name, key),
                                      self.extra_doc or None, parts=sub_parts)
                spec = self.extra
            if spec is None:
                import difflib
                close = difflib.get_close_matches(name, list(self.fields), 1)
                raise SchemaError(
                    sub_key, "unknown key %r in table %s" % (name, key or "root"),
                    "did you mean %r?" % close[0] if close else
                    "known keys: %s" % ", ".join(sorted(self.fields)), parts=sub_parts)
            try:
                spec.validate(sub, sub_key, sub_parts)
            except SchemaError as e:
                if e.parts is None:
                    e.parts = sub_parts
                raise


class TableArray:
    """An array of tables, ``[[block]]``."""

    def __init__(self, table):
        self.table = table

    def validate(self, value, key, parts=()):
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise SchemaError(key, "%s must be an array of tables ([[%s]])" % (key, key))
        for i, v in enumerate(value):
            self.table.validate(v, "%s[%d]" % (key, i), parts)


class Either:
    """The first alternative whose type fits decides; e.g. a value or a table."""

    def __init__(self, *alternatives):
        self.alternatives = alternatives

    def validate(self, value, key, parts=()):
        for alt in self.alternatives:
            if isinstance(alt, Table) and isinstance(value, dict):
                return alt.validate(value, key, parts)
            if isinstance(alt, Array) and isinstance(value, list):
                return alt.validate(value, key, parts)
            if isinstance(alt, Scalar) and isinstance(value, alt.types) and not isinstance(value, (dict, list)):
                return alt.validate(value, key, parts)
        self.alternatives[0].validate(value, key, parts)


WHY = Scalar(str, doc="why this rule exists; shown in the plan")


def path_problem(value):
    # Host paths are read under --root: a ".." component would step out of it.
    if ".." in value.split("/"):
        return "a path with '..' in it could leave the root; give it without '..'"
    return None


def abs_path(doc="an absolute path"):
    """An absolute host path without '..' components."""
    return Scalar(str, pattern=r"/.*", check=path_problem, doc=doc)
