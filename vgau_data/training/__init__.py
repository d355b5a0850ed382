"""Training data from the benchmark's families: decontaminated splits, solver traces, the files trainers read.

- ``bands``: bands of optimal lengths and the length each candidate is built to.
- ``keys``: canonical keys (a board up to its family's symmetries) and trajectory keys.
- ``heldout``: the test set's keys, shipped, and the script that computes them.
- ``catalog``: pass one, candidates generated and keyed, duplicates and test states dropped.
- ``shards``: pass two, kept rows rendered into Parquet shards.
- ``engines``: this process, a process pool or Ray Core tasks.
- ``manifest``: ``manifest.json`` and the dataset card.
- ``generate``: the driver (``vgau-data generate``).
- ``decontam``: overlaps of any built folder with the test set (``vgau-data decontam``).
- ``traces``: the trace kinds (one canonical record of text and image segments per row).
- ``exporters``: rows carrying those records in the formats of TRL, LLaMA-Factory, verl,
  OpenRLHF and the unified-model trainers (BAGEL, ThinkMorph, MVoT) (``vgau-data export-training``).
"""
