"""VGAU-Diag puzzles as a VLMEvalKit dataset (copy this file into ``vlmeval/dataset/``).

Shipped by the ``vgau-data`` package (``vgau_data.integrations.vlmevalkit.dataset_class_file()``).
Register it in ``vlmeval/dataset/__init__.py``::

    from .vgau_vlmevalkit import VGAUPuzzles
    # and add VGAUPuzzles to the IMAGE_DATASET list there

Data: ``vgau-data export vlmevalkit vgau_puzzles --out $LMUData`` writes one TSV per
family and single-turn protocol, ``VGAU_<family>_<protocol>.tsv``. Run, e.g.::

    python run.py --data VGAU_maze_text_cot VGAU_sokoban_text_cot --model GPT4o

``evaluate`` scores by replay with the installed ``vgau_data`` (the same scorer as
``vgau-data score``) and writes ``<prediction file>_acc.csv``; the run summary leads with
overall optimal accuracy, then feasible (``report_primary_metric``).
"""

from vlmeval.dataset.image_base import ImageBaseDataset

from vgau_data.integrations.vlmevalkit.export import SINGLE_TURN, dataset_name
from vgau_data.registry import FAMILIES


class VGAUPuzzles(ImageBaseDataset):
    TYPE = "VQA"
    # An empty URL makes VLMEvalKit read $LMUData/<name>.tsv, written by `vgau-data export vlmevalkit`.
    DATASET_URL = {dataset_name(family, protocol): "" for family in FAMILIES for protocol in SINGLE_TURN}
    DATASET_MD5 = {}

    def evaluate(self, eval_file, **judge_kwargs):
        from vgau_data.integrations.vlmevalkit.scoring import evaluate_predictions

        return evaluate_predictions(eval_file)

    @classmethod
    def report_primary_metric(cls, metrics):
        # The run summary leads with optimal accuracy, then feasible (the paper's Table 1 order).
        from vgau_data.integrations.vlmevalkit.scoring import primary_metrics

        return primary_metrics(metrics) or super().report_primary_metric(metrics)
