"""Bridges to other evaluation harnesses: lmms-eval task files, a VLMEvalKit dataset class, and
``convert`` (the files those harnesses write -> our submissions).

Each bridge only adapts: prompts, images and step handling come from the package's own
protocols and environment, and answers are scored by ``vgau_data.metrics.scoring``, so a
harness scores exactly as ``vgau-data score`` does.
"""
