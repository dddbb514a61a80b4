"""The rendered course kept on disk: read back for the same content and code, rendered again for any change,
replaced when torn, never kept with problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.content import ContentError, Course, load_course, loader
from app.content.figures import FigureResolver


@pytest.fixture
def content(fixture_course: Path) -> Path:
    return fixture_course


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Records each real rendering (the renderer still runs)."""
    calls: list[Path] = []
    render = loader._render_course

    def counted(content_dir: Path, resolve_figure: FigureResolver) -> Course:
        calls.append(content_dir)
        return render(content_dir, resolve_figure)

    monkeypatch.setattr(loader, "_render_course", counted)
    return calls


def test_the_same_content_is_read_back_and_a_change_renders_anew(
    content: Path, tmp_path: Path, renders: list[Path]
) -> None:
    cache = tmp_path / "cache"
    first = load_course(content, cache_dir=cache)
    assert len(renders) == 1
    assert [path.name for path in cache.iterdir()] == [f"course-{loader.course_digest(content)}.pickle"]
    again = load_course(content, cache_dir=cache)
    assert len(renders) == 1
    assert again == first
    assert again is not first

    page = content / "guides" / "nvlink" / "en.md"
    page.write_text(page.read_text("utf-8") + "\nOne more line.\n", "utf-8")
    changed = load_course(content, cache_dir=cache)
    assert len(renders) == 2
    chapter = changed.chapter("nvlink")
    assert chapter is not None
    assert "One more line." in chapter.pages["en"].text
    assert len(list(cache.iterdir())) == 1  # the old file is gone


def test_a_torn_file_is_rendered_again_and_replaced(content: Path, tmp_path: Path, renders: list[Path]) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / f"course-{loader.course_digest(content)}.pickle"
    path.write_bytes(b"\x80\x05torn")
    course = load_course(content, cache_dir=cache)
    assert len(renders) == 1
    assert load_course(content, cache_dir=cache) == course
    assert len(renders) == 1


def test_a_course_with_problems_is_never_kept(content: Path, tmp_path: Path) -> None:
    (content / "guides" / "nvlink" / "ko.md").write_text("no front matter", "utf-8")
    cache = tmp_path / "cache"
    for _ in range(2):
        with pytest.raises(ContentError):
            load_course(content, cache_dir=cache)
    assert not cache.exists() or not list(cache.iterdir())
