"""Waits on what the page does, never on the clock: animation frames and a layout that has stopped moving."""

from __future__ import annotations

from playwright.sync_api import Locator, Page

STILL_FRAMES = 5
MAX_FRAMES = 600  # ten seconds at 60 frames a second: a layout still moving then is a failure, not a wait


def next_frames(page: Page, count: int = 2) -> None:
    """Return after `count` rendering steps: what the browser reports per frame (scroll, intersection observers,
    resize observers) has been delivered by then."""
    page.evaluate(
        """count => new Promise(resolve => {
            const step = left => left ? requestAnimationFrame(() => step(left - 1)) : resolve();
            step(count);
        })""",
        count,
    )


def top_when_still(element: Locator) -> float:
    """The element's top once it has stayed at the same place for STILL_FRAMES frames in a row."""
    top = element.evaluate(
        """(element, [still, most]) => new Promise((resolve, reject) => {
            let last = null, same = 0, frames = 0;
            const look = () => {
                const top = element.getBoundingClientRect().top;
                same = last !== null && Math.abs(top - last) < 0.5 ? same + 1 : 0;
                last = top;
                if (same >= still) return resolve(top);
                if (++frames > most) return reject(new Error(`still moving after ${most} frames: ${top}`));
                requestAnimationFrame(look);
            };
            requestAnimationFrame(look);
        })""",
        [STILL_FRAMES, MAX_FRAMES],
    )
    return float(top)
