"""Training data from the benchmark's families: solver traces and the files trainers read.

``traces`` holds the trace kinds (one canonical record of text and image segments per
row); ``exporters`` turns rows carrying those records into the formats of TRL,
LLaMA-Factory, verl, OpenRLHF and the unified-model trainers (BAGEL, ThinkMorph, MVoT).
"""
