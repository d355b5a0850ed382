"""vgau_data: the VGAU-Diag visual planning benchmark (arXiv 2608.22174).

Six solver-verified puzzle families (``vgau_data.registry.FAMILIES``), the dataset
builder, oracle aids, the replay scorer and thin model runners.
"""

__version__ = "0.1.0"
