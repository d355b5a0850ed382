"""Parse the README's ``train_ppo_ray`` flags with OpenRLHF's own argument parser; write what it read as JSON.

Run by ``test_trainer_commands.py`` in OpenRLHF's venv (``$VGAU_OPENRLHF_PYTHON``):
``python openrlhf_flags.py OUT_JSON ARG ...``. OpenRLHF 0.11 builds its parser inside
``train_ppo_ray.py``'s ``if __name__ == "__main__":`` block, after imports that need Ray
and GPUs; so the block's statements up to ``parser.parse_args()`` are taken from its
source, as they are, and run after those of the module's own imports that import here
(the standard library's: ``argparse``, ``os``, ``datetime``). The arguments are then
parsed (an unknown flag exits 2) and grouped with OpenRLHF's ``hierarchize``.
"""

import argparse
import ast
import contextlib
import io
import json
import sys


def openrlhf_parser() -> argparse.ArgumentParser:
    import importlib.util

    path = importlib.util.find_spec("openrlhf.cli.train_ppo_ray").origin
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    main = next(node for node in tree.body if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test))
    body = []
    for statement in main.body:
        if "parse_args" in ast.unparse(statement):
            break
        body.append(statement)
    namespace: dict = {}
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            try:
                exec(compile(ast.Module(body=[statement], type_ignores=[]), path, "exec"), namespace)  # noqa: S102
            except ImportError:
                continue  # Ray, vLLM, DeepSpeed: the trainer's, not the parser's
    exec(compile(ast.Module(body=body, type_ignores=[]), path, "exec"), namespace)  # noqa: S102  OpenRLHF's own code
    return namespace["parser"]


def main(out_json, *arguments):
    from openrlhf.utils.config import hierarchize

    parser = openrlhf_parser()
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        try:
            args = hierarchize(parser.parse_args(list(arguments)))
        except SystemExit:
            args = None
    read = (
        {}
        if args is None
        else {
            "data": {
                key: getattr(args.data, key, None)
                for key in ("prompt_dataset", "input_key", "label_key", "image_key", "apply_chat_template")
            },
            "remote_url": args.reward.remote_url,
        }
    )
    with open(out_json, "w", encoding="utf-8") as handle:
        json.dump(
            {"error": errors.getvalue().strip().splitlines()[-1:] if args is None else None, "read": read}, handle
        )


if __name__ == "__main__":
    main(*sys.argv[1:])
