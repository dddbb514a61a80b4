"""Where a figure comes from: every hardware figure and calibration constant cites one."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Source:
    """A citable document: a vendor page, whitepaper, specification or public benchmark record."""

    title: str
    url: str
