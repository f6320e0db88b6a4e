"""Exceptions of paimon_c: one class per libpaimon error code.

Every failure of a libpaimon call is raised as a subclass of
:class:`PaimonError`.  Its message is the whole cause chain, outermost
first ("compact table t: file data-1.parquet: page 3: corrupt RLE run"),
and the chain is also available step by step in :attr:`PaimonError.causes`.
"""

from typing import List, Optional, Sequence, Tuple

__all__ = [
    "PaimonError", "InvalidError", "NotFoundError", "ExistsError", "ConflictError",
    "UncertainError", "CorruptError", "UnsupportedError", "IOError", "OutOfMemoryError",
    "InternalError", "ERROR_CLASSES",
]

_CODE_NAMES = {0: "OK", 1: "EINVALID", 2: "ENOTFOUND", 3: "EEXIST", 4: "ECONFLICT", 5: "EUNCERTAIN",
               6: "ECORRUPT", 7: "EUNSUPPORTED", 8: "EIO", 9: "ENOMEM", 10: "EINTERNAL"}


class PaimonError(Exception):
    """A libpaimon error.

    Attributes:
        message: the whole cause chain as one text.
        code: the pm_code number of the outermost error (see ``code_name``).
        code_name: its stable name, e.g. ``"EINVALID"``.
        causes: ``[(code_name, message), ...]`` from the outermost error to
            the root cause, one entry per level of the chain.
    """

    #: The pm_code this class stands for (PaimonError itself: any).
    CODE: Optional[int] = None

    def __init__(self, message: str, code: Optional[int] = None,
                 causes: Sequence[Tuple[str, str]] = ()):
        super().__init__(message)
        self.message = message
        self.code = code if code is not None else (self.CODE if self.CODE is not None else 10)
        self.causes: List[Tuple[str, str]] = [tuple(c) for c in causes]

    @property
    def code_name(self) -> str:
        return _CODE_NAMES.get(self.code, "E%d" % self.code)

    @property
    def root_code_name(self) -> str:
        """The code name of the innermost error of the chain."""
        return self.causes[-1][0] if self.causes else self.code_name

    @property
    def root_message(self) -> str:
        """The message of the innermost error of the chain."""
        return self.causes[-1][1] if self.causes else self.message

    def __reduce__(self):
        return (type(self), (self.message, self.code, self.causes))

    def __str__(self) -> str:
        return self.message


class InvalidError(PaimonError, ValueError):
    """A bad argument, option, schema or input value (EINVALID)."""
    CODE = 1


class NotFoundError(PaimonError, LookupError):
    """The table, file, snapshot or column does not exist (ENOTFOUND)."""
    CODE = 2


class ExistsError(PaimonError):
    """The target already exists (EEXIST)."""
    CODE = 3


class ConflictError(PaimonError):
    """A concurrent change: plan again and retry (ECONFLICT)."""
    CODE = 4


class UncertainError(PaimonError):
    """The outcome of a publication is unknown: keep the files and retry the
    commit with the same commit user (EUNCERTAIN)."""
    CODE = 5


class CorruptError(PaimonError):
    """A file's bytes break its format (ECORRUPT)."""
    CODE = 6


class UnsupportedError(PaimonError, NotImplementedError):
    """Valid input using a feature paimon-c does not support (yet) (EUNSUPPORTED)."""
    CODE = 7


class IOError(PaimonError, OSError):  # noqa: A001 - mirrors pm_code EIO
    """An operating-system I/O failure (EIO)."""
    CODE = 8

    def __init__(self, message: str, code: Optional[int] = None,
                 causes: Sequence[Tuple[str, str]] = ()):
        PaimonError.__init__(self, message, code, causes)

    def __str__(self) -> str:
        return self.message


class OutOfMemoryError(PaimonError, MemoryError):
    """An allocation failed (ENOMEM)."""
    CODE = 9


class InternalError(PaimonError):
    """A broken invariant inside paimon-c: a bug (EINTERNAL)."""
    CODE = 10


#: pm_code → exception class.
ERROR_CLASSES = {cls.CODE: cls for cls in (
    InvalidError, NotFoundError, ExistsError, ConflictError, UncertainError, CorruptError,
    UnsupportedError, IOError, OutOfMemoryError, InternalError)}
