"""Exceptions raised by vgau_data.

A model's illegal step is never an exception: it is a value (``Illegal``). These are
for programmer and user errors: bad arguments, corrupt states, missing extras.
"""

from __future__ import annotations


class VgauError(Exception):
    """Base of every vgau_data error."""


class SearchLimitError(VgauError, RuntimeError):
    """A solver's search met more positions than its ``max_states`` before deciding."""


class UnknownFamilyError(VgauError, LookupError):
    """A family name that is not in the registry."""


class StateError(VgauError, ValueError):
    """A state JSON string that does not describe a valid board."""


class GenerationError(VgauError, RuntimeError):
    """A generator that could not produce an instance within its attempt budget."""


class DatasetError(VgauError, ValueError):
    """A dataset folder or file that cannot be used as asked: a corrupt Parquet file, a build that would mix."""


class SubmissionError(VgauError, ValueError):
    """A leaderboard submission that does not match the dataset or the schema."""


class MissingDependencyError(VgauError, ImportError):
    """An optional dependency that an entry point needs is not installed."""


class PaperDataError(VgauError, ValueError):
    """A file or record of the authors' published data that cannot be converted (the message names it)."""


class InputFileError(VgauError, ValueError):
    """A file we were asked to read that is not a regular file inside the folder given, or is too large."""


class WriteError(VgauError, OSError):
    """A file that could not be written whole; the file it would have replaced is unchanged."""
