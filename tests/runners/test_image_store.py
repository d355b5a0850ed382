"""Generated images on disk: content-addressed PNG files, the generation cache, the image sender."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from vgau_data.runners.backends.base import GeneratedImage, GenParams, ImageRequest
from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
from vgau_data.runners.driver import RunPlan, run_benchmark
from vgau_data.runners.image_store import (
    INDEX_NAME,
    ImageStore,
    StoringBackend,
    image_path,
    request_key,
    send_images,
)
from vgau_data.runners.instances import DatasetSource
from vgau_data.runners.messages import Conversation, user
from vgau_data.runners.protocols import ProtocolConfig
from vgau_data.runners.records import RecordWriter
from vgau_data.safe_io import TEMP_SUFFIX

GEN = GenParams(max_new_tokens=8)


class Counting(ScriptedImageGenerator):
    """The oracle generator, counting the images it makes."""

    def __init__(self, model: str = "oracle", **options) -> None:
        super().__init__(model, answerer=None, **options)
        self.made = 0

    def generate(self, requests, gen):
        self.made += len(requests)
        return super().generate(requests, gen)


def _request(instance, instruction: str = "Add the grid.", conversation: Conversation | None = None) -> ImageRequest:
    return ImageRequest(
        session_id=f"{instance.id}/self_gta/run0", purpose="aid", instruction=instruction, images=(instance.image,),
        conversation=conversation, family=instance.task, difficulty=instance.difficulty,
        oracle_state=instance.initial_state(),
    )  # fmt: skip


def test_store__files_are_named_by_the_sha256_of_their_png_bytes_and_checked_on_reading(instances, tmp_path) -> None:
    store = ImageStore(tmp_path)
    image = instances[0].image
    sha = store.put(image)
    path = image_path(tmp_path, sha)
    assert path == tmp_path / "images" / sha[:2] / f"{sha}.png"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    assert store.put(image.copy()) == sha and ImageStore(tmp_path).put(image) == sha, "same pixels, same file"
    assert store.get(sha).tobytes() == image.tobytes()
    path.write_bytes(path.read_bytes()[:-1])
    assert store.get(sha) is None, "a damaged file is not what its name says"
    assert store.get("0" * 64) is None
    assert not list(path.parent.glob(f"*{TEMP_SUFFIX}"))


def test_store__a_stored_file_that_is_a_link_out_or_another_format_is_generated_again(instances, tmp_path) -> None:
    store = ImageStore(tmp_path / "model")
    sha = store.put(instances[0].image)
    path = image_path(tmp_path / "model", sha)
    outside = tmp_path / "elsewhere.png"
    path.rename(outside)
    path.symlink_to(outside)  # the same bytes, but outside the model folder
    assert store.get(sha) is None
    path.unlink()
    path.write_bytes(b"%!PS-Adobe-3.0\n")
    assert store.get(sha) is None


def test_store__a_full_disk_fails_the_write_and_leaves_no_temporary(instances, tmp_path, monkeypatch) -> None:
    import errno
    import os

    from vgau_data.errors import WriteError

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    store = ImageStore(tmp_path)
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(WriteError, match="No space left on device"):
        store.put(instances[0].image)
    assert not [p for p in (tmp_path / "images").rglob("*") if p.is_file()]


def test_storing_backend__a_request_seen_before_is_never_generated_again(instances, tmp_path) -> None:
    generator = Counting()
    instance = instances[0]
    first = StoringBackend(generator, ImageStore(tmp_path)).generate([_request(instance)], GEN)[0]
    assert generator.made == 1 and first.meta["sha256"] and "cached" not in first.meta
    reopened = StoringBackend(generator, ImageStore(tmp_path))  # a resumed run reads the index again
    again = reopened.generate([_request(instance), _request(instance, "Add a dashed grid.")], GEN)
    assert generator.made == 2, "only the request with another instruction was generated"
    assert again[0].meta["cached"] and again[0].image.tobytes() == first.image.tobytes()
    assert again[0].meta["sha256"] == first.meta["sha256"]
    lines = [json.loads(line) for line in (tmp_path / "images" / INDEX_NAME).read_text().splitlines()]
    assert len(lines) == 2 and len({line["key"] for line in lines}) == 2
    assert {(line["session"], line["purpose"], line["round"]) for line in lines} == {
        (f"{instance.id}/self_gta/run0", "aid", 0)
    }
    with (tmp_path / "images" / INDEX_NAME).open("a") as index:
        index.write('{"key": "torn')  # a run killed mid-line
    assert StoringBackend(generator, ImageStore(tmp_path)).generate([_request(instance)], GEN)[0].meta["cached"]


def test_request_key__changes_with_whatever_reaches_the_generator(instances) -> None:
    instance, other = instances[0], instances[1]
    base = _request(instance)
    keys = {
        request_key("m", base, GEN),
        request_key("m2", base, GEN),
        request_key("m", base, GenParams(max_new_tokens=8, seed=1)),
        request_key("m", _request(instance, "Other."), GEN),
        request_key("m", _request(instance, conversation=Conversation((user(instance.image, "hi"),))), GEN),
        request_key("m", _request(instance, conversation=Conversation((user(other.image, "hi"),))), GEN),
    }
    assert len(keys) == 6
    assert request_key("m", _request(instance), GEN) == request_key("m", base, GEN)


def test_send_images__stamps_the_seed_and_says_who_drew(instances) -> None:
    seen = []

    class Watching(ScriptedImageGenerator):
        def generate(self, requests, gen):
            seen.extend(requests)
            return super().generate(requests, gen)

    (made,) = send_images(Watching("noise", answerer=None), [_request(instances[0])], GenParams(seed=11))
    assert seen[0].seed == 11
    assert (made.meta["source"], made.meta["generator"]) == ("noise", "scripted-image:noise")


def test_run__each_image_is_on_disk_before_the_record_line_that_names_it(instances, tmp_path, monkeypatch) -> None:
    appended = []
    original = RecordWriter.append

    def append(writer, record):
        for image in record.get("images", []):
            assert image_path(writer.path.parents[2], image["sha256"]).is_file()
        appended.append(record)
        original(writer, record)

    monkeypatch.setattr(RecordWriter, "append", append)
    chosen = [i for i in instances if i.task in ("maze", "parking")]
    backend = ScriptedImageGenerator("oracle", instances=chosen)  # a whole scripted model: it answers too
    plan = RunPlan(out_dir=tmp_path, protocols=[ProtocolConfig(name="self_vcot", budget="fixed")], gen=GEN)
    dataset = DatasetSource("test", str(tmp_path), "0" * 64)
    summary = run_benchmark(backend, chosen, dataset, plan)
    assert summary.finished == 3 * len(chosen) == len(appended), "3 runs by default for a protocol that draws"
    assert all(record["images"] and record["verdict"]["optimal"] for record in appended)
    again = run_benchmark(backend, chosen, dataset, plan)
    assert (again.finished, again.skipped) == (0, 3 * len(chosen))


@pytest.mark.parametrize("size", [0, 1])
def test_store__an_empty_or_missing_index_is_an_empty_cache(tmp_path: Path, size: int) -> None:
    store = ImageStore(tmp_path)
    if size:
        (tmp_path / "images").mkdir()
        (tmp_path / "images" / INDEX_NAME).write_text("")
    assert store.lookup("k") is None
    assert store.remember("k", _request_for_nothing(), GeneratedImage(error="failed")).error == "failed"
    assert not (tmp_path / "images" / INDEX_NAME).is_file() or not (tmp_path / "images" / INDEX_NAME).read_text()


def _request_for_nothing() -> ImageRequest:
    return ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="")
