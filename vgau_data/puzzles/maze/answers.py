"""The answer format: the direction list ``<ANSWER_JSON>["up","left"]</ANSWER_JSON>`` shared with sokoban."""

from __future__ import annotations

from vgau_data.puzzles.grids import direction_payload, format_direction_answer, parse_direction_answer

parse_answer = parse_direction_answer
answer_payload = direction_payload
format_answer = format_direction_answer
