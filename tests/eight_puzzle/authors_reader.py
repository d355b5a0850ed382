"""The 8-puzzle as the authors' code would read it, had they published it: maze's direction list.

Final answer: the last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` list of directions, strict JSON;
step reply: the first direction word. The authors published no 8-puzzle: this reader is maze's
(``DirectionListReader``), the nearest of their readers to a list of slides.
"""

from __future__ import annotations

from vgau_data.puzzles.authors_reading import DirectionListReader

AUTHORS_READER = DirectionListReader("eight_puzzle")
