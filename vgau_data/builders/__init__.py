"""Build the VGAU puzzles dataset into a local Hub-layout folder, and push it."""

from vgau_data.builders.build import BuildConfig, BuildReport, build_dataset
from vgau_data.builders.hub_folder import dataset_fingerprint
from vgau_data.builders.load import load_puzzles
from vgau_data.builders.push import push_dataset

__all__ = ["BuildConfig", "BuildReport", "build_dataset", "dataset_fingerprint", "load_puzzles", "push_dataset"]
