"""Read an llamafactory export with LLaMA-Factory's own data pipeline; write what it made as JSON.

Run by ``test_llamafactory.py`` in LLaMA-Factory's venv (``$VGAU_LLAMAFACTORY_PYTHON``):
``python llamafactory_reader.py OUT_JSON EXPORT_DIR DATASETS MODEL_DIR``. It runs ``get_dataset``
(``dataset_info.json`` parsing, the sharegpt converter, the ``qwen2_vl`` template and its
``mm_plugin``, supervised encoding) on a tiny Qwen2-VL folder. Two stand-ins, for what
this machine lacks and the image path never touches: the processor is the model's
processor class without a video processor (its stock one needs torchvision, whose PyPI
wheel does not match the CPU torch here), and ``torchaudio`` (imported by ``mm_plugin``
for audio only, same wheel problem) is an empty module.
"""

import json
import sys
import types

import transformers.training_args  # noqa: F401  (first: transformers reads whether torchaudio exists)

sys.modules["torchaudio"] = types.ModuleType("torchaudio")

from llamafactory.data import get_dataset, get_template_and_fix_tokenizer  # noqa: E402 - after the torchaudio stand-in
from llamafactory.hparams import get_train_args  # noqa: E402 - after the torchaudio stand-in
from llamafactory.model import load_tokenizer  # noqa: E402 - after the torchaudio stand-in
from llamafactory.model.patcher import patch_processor  # noqa: E402 - after the torchaudio stand-in
from qwen2vl_stand_in import image_only_processor  # noqa: E402 - beside this script


def main(out_json: str, export_dir: str, datasets: str, model_dir: str) -> None:
    args = {
        "model_name_or_path": model_dir,
        "stage": "sft",
        "do_train": True,
        "finetuning_type": "full",
        "dataset": datasets,
        "dataset_dir": export_dir,
        "template": "qwen2_vl",
        "cutoff_len": 1_000_000,
        "output_dir": f"{export_dir}/.llamafactory_run",
        "overwrite_cache": True,
        "report_to": "none",
    }
    model_args, data_args, training_args, _, _ = get_train_args(args)
    tokenizer = load_tokenizer(model_args)["tokenizer"]
    processor = image_only_processor(model_dir, tokenizer)
    processor.video_processor = processor.image_processor  # mm_plugin asks for one; no video is ever passed
    patch_processor(processor, tokenizer, model_args)
    template = get_template_and_fix_tokenizer(tokenizer, data_args)
    dataset = get_dataset(
        template, model_args, data_args, training_args, "sft", tokenizer=tokenizer, processor=processor
    )
    pad = tokenizer.convert_tokens_to_ids("<|image_pad|>")
    examples = []
    for example in dataset["train_dataset"]:
        trained = [token for token, label in zip(example["input_ids"], example["labels"]) if label != -100]
        examples.append(
            {
                "images": len(example["images"] or []),
                "image_pad_tokens": sum(token == pad for token in example["input_ids"]),
                "trained_text": tokenizer.decode(trained),
            }
        )
    with open(out_json, "w", encoding="utf-8") as handle:
        json.dump({"examples": examples}, handle)


if __name__ == "__main__":
    main(*sys.argv[1:5])
