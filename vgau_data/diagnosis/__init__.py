"""The paper's diagnosis reports (section 4.3-4.4): ``vgau-data diagnose RUNS_DIR``.

Where things are:
    conditions.py      what a set of records is: answering model x image source x paradigm
    fidelity_cache.py  per-image fidelity (cells, SSIM, red route, LPIPS), cached per model folder
    collect.py         a runs folder -> ``Diagnosis`` (accuracy and fidelity per condition)
    grid.py            the wrapped plain-text table the reports print with
    tables.py          Table 3 (both layouts), fidelity tables, UReason's context deltas
    paired.py          UniG2U's paired comparison of a unified model with its base VLM
    figure.py          Figure 3: accuracy against LPIPS and against cell agreement

Nothing here imports torch unless an LPIPS scorer is asked for; matplotlib only for plots.
"""
