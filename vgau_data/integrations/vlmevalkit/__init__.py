"""VLMEvalKit: TSV export of the single-turn protocols and a dataset class that scores with our replay.

VLMEvalKit runs one image-text question per row, so it covers ``direct``, ``text_cot``
and ``oracle_gta`` (board + oracle aid); the interactive protocols need ``vgau-data run``
or the lmms-eval tasks. Each family x protocol is one VLMEvalKit dataset named
``VGAU_<family>_<protocol>`` (``export.dataset_name``), stored as ``$LMUData/<name>.tsv``.

VLMEvalKit only finds dataset classes inside its own ``vlmeval.dataset`` package, so the
class ships as a file to copy there (``dataset_class_file()``, see docs/harnesses.md), and its
``evaluate`` calls ``scoring.evaluate_predictions``.
"""

from __future__ import annotations

from importlib import resources

DATASET_CLASS_FILE = "vgau_vlmevalkit.py"


def dataset_class_file() -> str:
    """The shipped VLMEvalKit dataset class file, to copy into ``vlmeval/dataset/``.

    Example:
        >>> dataset_class_file().endswith("vgau_vlmevalkit.py")
        True
    """
    return str(resources.files("vgau_data.integrations.vlmevalkit") / DATASET_CLASS_FILE)
