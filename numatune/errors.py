"""Errors a user can act on.

Each carries a one-line message and, where one helps, a hint on what to do next.
The CLI prints ``numatune: <message> (<hint>)`` and exits with ``exit_status``;
anything else that escapes is a bug and gets a traceback.
"""


class NumatuneError(Exception):
    exit_status = 2

    def __init__(self, message, hint=None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self):
        if self.hint:
            return "%s (%s)" % (self.message, self.hint)
        return self.message


class PolicyError(NumatuneError, ValueError):
    """The policy file is malformed or asks for something invalid."""


class UsageError(NumatuneError, ValueError):
    """Arguments that cannot work together, or refer to nothing."""


class BootConfigError(NumatuneError, ValueError):
    """A bootloader file numatune would have to edit cannot be parsed safely."""


class RefusedError(NumatuneError, PermissionError):
    """The host refuses the run: not root, or another run holds the lock."""


class HostError(NumatuneError, ValueError):
    """A host file is not in the format the kernel (or its tool) writes:
    numatune plans nothing from what it cannot read."""


class ExhaustedError(NumatuneError):
    """A read failed for want of descriptors or memory (EMFILE, ENFILE, ENOMEM):
    that says nothing of the file, and planning as if it were missing would
    plan (or recommend) for a host with files taken out of it."""

    def __init__(self, path, error):
        super().__init__("cannot read %s: %s" % (path, error.strerror or error),
                         "raise the open-files limit (ulimit -n; LimitNOFILE= for a systemd unit) "
                         "or free memory, and run again")


class DriftError(NumatuneError):
    """The host changed between the saved plan and the apply."""


class ApplyError(NumatuneError):
    """A write failed; what the run had done was rolled back."""
    exit_status = 1


# Optional libraries and the pip extra (or RPM) that installs each. A live run
# imports them lazily; when one is missing the user gets this line, not a traceback.
EXTRAS = {
    "oracledb": ("python-oracledb", "pip install 'numatune[oracle]'"),
    "textual": ("Textual", "pip install 'numatune[tui]', or the numatune-tui RPM"),
    "nagiosplugin": ("nagiosplugin (check's -w/-c ranges)", "pip install 'numatune[nagios]', or the "
                                                            "python3-nagiosplugin package"),
    # Dependencies of a plain install: missing only from a broken or --no-deps install.
    "pyroute2": ("pyroute2", "a dependency of numatune: pip install pyroute2, or reinstall numatune"),
    "pyudev": ("pyudev", "a dependency of numatune: pip install pyudev, or reinstall numatune"),
    "prometheus_client": ("prometheus_client", "a dependency of numatune: pip install prometheus_client, "
                                               "or reinstall numatune"),
    "tomli": ("tomli", "a dependency of numatune: pip install tomli, or reinstall numatune"),
    "tomlkit": ("tomlkit", "a dependency of numatune (recommend writes commented TOML with it): pip install "
                           "tomlkit, or reinstall numatune"),
}


class MissingLibraryError(NumatuneError):
    """An optional library this run needs is not installed."""


def missing_library(exc):
    """The one-line error for a ModuleNotFoundError of a known library, else None."""
    top = (getattr(exc, "name", None) or "").split(".")[0]
    if top not in EXTRAS:
        return None
    label, hint = EXTRAS[top]
    return MissingLibraryError("this run needs %s, which is not installed" % label, hint)
