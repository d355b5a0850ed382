"""Read an openrlhf export with OpenRLHF's own prompt pipeline; write what it made as JSON.

Run by ``test_openrlhf.py`` in a venv holding OpenRLHF (``$VGAU_OPENRLHF_PYTHON``):
``python openrlhf_reader.py OUT_JSON MODEL_DIR FILE.jsonl``. ``blending_datasets`` loads the
file as ``train_ppo_ray`` does, ``PromptDataset`` applies the chat template to the
``prompt`` chat (``--data.apply_chat_template``) and reads ``label`` and ``images``
(``--data.label_key label --data.image_key images``), and ``process_prompt_with_images``
decodes the images with ``load_images`` and runs the processor, as its agent does before
generation. OpenRLHF's full install needs GPUs (deepspeed, vLLM); its data modules do
not, so the venv holds ``openrlhf`` without dependencies plus what those modules import.
The processor is the model's class without a video processor (the stock one needs
torchvision, whose PyPI wheel does not match the CPU torch here). ``strategy`` is the
trainer object these functions read ``args.data`` and ``print`` from.
"""

import json
import sys
import types

import transformers
from openrlhf.datasets.prompts_dataset import PromptDataset
from openrlhf.datasets.utils import blending_datasets
from openrlhf.utils.vlm_utils import process_prompt_with_images
from qwen2vl_stand_in import image_only_processor  # beside this script


def main(out_json: str, model_dir: str, path: str) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    processor = image_only_processor(model_dir, tokenizer)
    data = types.SimpleNamespace(input_key="prompt", label_key="label", image_key="images", apply_chat_template=True)
    strategy = types.SimpleNamespace(
        args=types.SimpleNamespace(data=data), is_rank_0=lambda: True, print=lambda *a: None
    )
    dataset = PromptDataset(blending_datasets(path, None, strategy), tokenizer, strategy)
    pad = tokenizer.convert_tokens_to_ids("<|image_pad|>")
    rows = []
    for index in range(len(dataset)):
        datasource, prompt, label, images = dataset[index]
        token_ids, mm_inputs, pil_images = process_prompt_with_images(processor, prompt, images)
        rows.append(
            {
                "datasource": datasource,
                "label": label,
                "images": len(pil_images),
                "image_sizes": [list(image.size) for image in pil_images],
                "image_pad_tokens": sum(token == pad for token in token_ids),
                "grid_rows": int(mm_inputs["image_grid_thw"].shape[0]) if mm_inputs else 0,
                "prompt_ends_with_generation": prompt.endswith("<|im_start|>assistant\n"),
            }
        )
    with open(out_json, "w", encoding="utf-8") as handle:
        json.dump({"rows": rows}, handle)


if __name__ == "__main__":
    main(*sys.argv[1:4])
