"""The ``*_reader.py`` scripts run inside other tools' venvs (LLaMA-Factory, verl, OpenRLHF): never import them here."""

collect_ignore_glob = ["*_reader.py"]
