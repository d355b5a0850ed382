"""A stand-in for a meituan-longcat/LongCat-Next-inference checkout (commit af1a9a6): ``demo.py``'s
``NmmEnsemble`` with the async ``generate_new`` the demo calls, and ``nmm_pf.yaml``; it reads the
images a question names, answers text, and writes a drawing for a conditional image request."""

from __future__ import annotations

from pathlib import Path

from tests.runners.fake_checkouts import REPLY, write_files

__all__ = ["REPLY", "write", "write_checkpoint"]

FILES = {
    "demo.py": '''
import os
import re

from PIL import Image

CALLS = []


class NmmEnsemble:
    def __init__(self, configs):
        root = configs["backend_params"]["model-path"]
        assert os.environ["NMM_INFER_MODEL_ROOT"] == root
        self.reply = open(os.path.join(root, "nmm_infer", "reply.txt")).read()
        CALLS.append(("NmmEnsemble", root))

    async def generate_new(self, raw_input, request_id=None, sampling_params=None, multi_sampling_params=None,
                           delay=0, token_w=None, file_path="", enable_gen_multi=True, input_extra_infos=None, step=0):
        question = raw_input["question"]
        sizes = [Image.open(path).size for path in re.findall(r"<longcat_img_start>(.*?)<longcat_img_end>", question)]
        CALLS.append(("generate_new", question, sizes, request_id, dict(sampling_params), token_w, enable_gen_multi))
        if question.endswith("<longcat_img_start>"):
            generated = None
            if enable_gen_multi:
                generated = f"{file_path}.png"
                Image.new("RGB", (token_w * 16, token_w * 16), (0, 128, 0)).save(generated)
            return "", [], {}, generated
        return self.reply, [], {}, None
''',
    "nmm_pf.yaml": "backend_params:\n  model-path: ${NMM_INFER_MODEL_ROOT}\nmultimodal_params: {}\n",
    "framework/fluentllm.py": "# the LLM backend (SGLang)\n",
    "processor/preprocessor.py": "# the input processor\n",
    "processor/postprocessor.py": "# the image and audio decoders\n",
}


def write(folder: Path) -> Path:
    return write_files(folder, FILES)


def write_checkpoint(folder: Path, reply: str = REPLY) -> Path:
    write_files(folder, {"nmm_infer/reply.txt": reply, "config.json": "{}"})
    (folder / "model-00001.safetensors").write_bytes(b"weights")
    return folder
