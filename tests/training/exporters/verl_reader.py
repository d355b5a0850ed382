"""Read a verl export with verl's own ``RLHFDataset``; write what it made as JSON.

Run by ``test_verl.py`` in verl's venv (``$VGAU_VERL_PYTHON``):
``python verl_reader.py OUT_JSON MODEL_DIR CACHE_DIR FILE.parquet ...``. The dataset reads the files
with ``datasets``, keeps only prompts its length filter can process (it applies the chat
template, opens the images through ``qwen_vl_utils`` and runs the processor; a row that
fails is dropped), and ``__getitem__`` builds each row's ``raw_prompt`` by splitting the
content on ``<image>``. Stand-ins for what this machine lacks and the image path never
touches: the processor is the model's class without a video processor (the stock one
needs torchvision, whose PyPI wheel does not match the CPU torch here), and
``torchvision`` itself, which ``qwen_vl_utils`` imports for video only, is an empty module.
"""

import json
import sys
import types

import transformers
from omegaconf import OmegaConf
from qwen2vl_stand_in import image_only_processor  # beside this script
from verl.utils.dataset.rl_dataset import RLHFDataset

transformers.utils.is_torchvision_available()  # read (and cached) before the stand-in exists
torchvision = types.ModuleType("torchvision")
torchvision.__version__ = "0.0.0"
torchvision.io = types.ModuleType("torchvision.io")
torchvision.transforms = types.ModuleType("torchvision.transforms")
torchvision.transforms.InterpolationMode = types.SimpleNamespace(BICUBIC="bicubic", BILINEAR="bilinear")
sys.modules.update(
    {"torchvision": torchvision, "torchvision.io": torchvision.io, "torchvision.transforms": torchvision.transforms}
)


def main(out_json: str, model_dir: str, cache_dir: str, *files: str) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    processor = image_only_processor(model_dir, tokenizer)
    config = OmegaConf.create(
        {
            "prompt_key": "prompt",
            "image_key": "images",
            "max_prompt_length": 1_000_000,
            "cache_dir": cache_dir,
            "filter_overlong_prompts": True,
            "filter_overlong_prompts_workers": 1,
        }
    )
    dataset = RLHFDataset(list(files), tokenizer, config, processor)
    rows = []
    for index in range(len(dataset)):
        row = dataset[index]
        rows.append(
            {
                "data_source": row["data_source"],
                "parts": [part["type"] for message in row["raw_prompt"] for part in message["content"]],
                "ground_truth": row["reward_model"]["ground_truth"],
                "style": row["reward_model"]["style"],
                "ability": row["ability"],
                "extra_info": {
                    k: v
                    for k, v in row["extra_info"].items()
                    if k in ("family", "id", "split", "optimal_length", "band", "protocol", "index", "render_style")
                },
                "index": row["index"],
            }
        )
    with open(out_json, "w", encoding="utf-8") as handle:
        json.dump({"rows": rows}, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
