"""The paper's models page: every model of Tables 1-4 has a row, a registered backend and a command that parses."""

from __future__ import annotations

import shlex

import pytest

from tests.docs.pages import code_names, page, table

PAPER_MODELS = (
    # Table 1, open-source VLMs
    "Qwen2.5-VL-7B-Instruct", "Nemotron-nano-12b-v2-vl", "Qwen3-VL-8B-Instruct", "Qwen3.5-9B",
    # Table 1, closed-source VLMs (reasoning mode)
    "Qwen3.6-Plus", "Doubao-Seed-2.0-pro", "Gemini-3.1-Pro-Preview", "GPT-5.4",
    # Tables 1, 2 and 4, unified models
    "MammothModa2", "STAR-7B", "OmniGen2", "Janus-Pro", "LLaDA2.0-Uni", "Show-o2", "BAGEL", "LongCat-Next",
    "Nano-Banana", "Nano Banana 2",
    # Table 3, answering models and image sources
    "Qwen3.5-0.8B", "Qwen3.5-2B", "Qwen3.5-4B", "Qwen3.5-27B", "Gaussian noise", "Mismatch Image", "Qwen-Image",
    "Qwen-Image-Edit", "Oracle generation",
)  # fmt: skip
"""The model names of the paper's Tables 1-4, as it spells them (checked by hand against its text)."""

SECTIONS = {
    "## Open-source VLMs": "direct text_cot oracle_vcot oracle_gta oracle_aug_vcot",
    "## Closed-source VLMs": "text_cot oracle_vcot oracle_gta oracle_aug_vcot",
    "## Unified models": "direct text_cot self_gta self_vcot self_vcot_fixed self_vr",
    "## The diagnosis: answering models": "text_cot oracle_gta oracle_vcot",
    "## The diagnosis: image sources": "self_gta self_vcot self_vr",
}
"""Each section's protocols, put for ``$P`` in its commands."""


def _rows() -> list[tuple[str, list[str], str]]:
    """(protocols, row cells, section) for every table row of the page, in order."""
    text = page("models.md")
    rows = []
    for heading, protocols in SECTIONS.items():
        body = text[text.index(heading) :]
        following = [body.find(h, 1) for h in SECTIONS if body.find(h, 1) > 0]
        body = body[: min(following)] if following else body
        rows += [(protocols, row, heading) for row in table(body, body.split("| ", 1)[1].split(" |", 1)[0])]
    return rows


def test_models_page__names_every_model_of_the_papers_tables() -> None:
    named = [row[0].split(" (")[0] for _, row, _ in _rows()]
    missing = [model for model in PAPER_MODELS if model not in named]
    assert not missing, f"models of the paper's tables without a row: {missing}"
    assert "Qwen3.5-0.8B" in page("models.md") and "Qwen3.6-Plus" in page("models.md")


def test_models_page__backends_are_registered_and_commands_parse() -> None:
    from vgau_data.cli import build_parser
    from vgau_data.runners.backends import BACKENDS

    parser = build_parser()
    for protocols, row, heading in _rows():
        backends = code_names(row[1])
        assert backends and all(name in BACKENDS for name in backends) or row[1] == "none", (heading, row)
        (command,) = code_names(row[2])
        argv = shlex.split(command.replace("$P", protocols))
        assert argv[:2] == ["vgau-data", "run"], command
        try:
            args = parser.parse_args(argv[1:])
        except SystemExit:
            pytest.fail(f"{heading}: `{command}` does not parse")
        assert args.backend in BACKENDS and (args.generator is None or args.generator in BACKENDS)
        if args.backend == "openai":  # its options, reasoning switches included, build the backend (no request sent)
            from vgau_data.cli.run import build_backend

            assert build_backend(args, []).model == args.model
        assert row[1] == "none" or args.backend in backends or args.generator in backends, (heading, row)
