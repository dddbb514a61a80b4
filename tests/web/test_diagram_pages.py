"""The interactive diagrams over HTTP: fragments and pages, accessible SVG, numbers that match the model, pages
whose address carries every diagram's state, and 422 messages in the learner's words for bad input."""

from __future__ import annotations

import math
import re
from xml.etree import ElementTree

import pytest
from fastapi.testclient import TestClient
from markupsafe import Markup

from app.diagrams import DIAGRAMS, busbw_sweep, fields, link_compare, ring_allreduce, scaling
from app.i18n import LANGUAGES
from app.simulator import LINKS, SYSTEMS, CollectiveQuery, simulate_collective, sweep, training_step, transfer_time_s
from app.web.diagram_pages import deferred_figure
from app.web.i18n import load_translations
from tests.web.html import assert_clean, parse
from tests.web.quizzes import HX

DIAGRAM_IDS = ("link-compare", "topology", "ring-allreduce", "busbw-sweep", "scaling")

SVG_NS = "{http://www.w3.org/2000/svg}"


TRANSLATIONS = load_translations()


def chart_svgs(html: str) -> list[ElementTree.Element]:
    """Every chart <svg> in the document (each chart is drawn wide and narrow), parsed as XML."""
    return [ElementTree.fromstring(match) for match in re.findall(r'<svg class="dg-svg.*?</svg>', html, re.S)]


def data_values(html: str) -> list[float]:
    return [float(v) for v in re.findall(r'<data value="([^"]+)"', html)]


def assert_close(actual: float, expected: float) -> None:
    assert math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-15), (actual, expected)


# --- fragments and pages ---------------------------------------------------------------------------------


def figure_in(html: str, diagram_id: str) -> str:
    match = re.search(rf'<figure class="dg [^>]*id="diagram-{diagram_id}".*?</figure>', html, re.S)
    assert match is not None, diagram_id
    return match.group(0)


@pytest.mark.parametrize("language", LANGUAGES)
def test_pages_defer_each_figure_below_the_first_screen_and_carry_it_whole(client: TestClient, language: str) -> None:
    """Inside a page, a deferred figure is the very fragment htmx gets, its body wrapped in one <noscript>."""
    pages = {
        "lab": (client.get(f"/{language}/lab").text, DIAGRAM_IDS, {"link-compare"}),
        "chapter": (
            client.get(f"/{language}/guides/nvlink").text,
            ("link-compare", "topology", "busbw-sweep", "ring-allreduce"),
            set(),
        ),
    }
    for name, (html, diagram_ids, eager) in pages.items():
        for diagram_id in diagram_ids:
            fragment = client.get(f"/{language}/lab/{diagram_id}", headers=HX).text.strip()
            figure = figure_in(html, diagram_id)
            if diagram_id in eager:
                assert figure == fragment, (name, diagram_id)
                continue
            assert figure.count("<noscript") == 1, (name, diagram_id)
            caption, _, rest = figure.partition("</figcaption>")
            assert rest.startswith('<noscript class="dg-deferred">')
            assert rest.endswith("</noscript></figure>")
            unwrapped = caption + "</figcaption>" + rest.removeprefix('<noscript class="dg-deferred">')
            assert unwrapped.replace("</noscript></figure>", "</figure>") == fragment, (name, diagram_id)


def test_a_fragment_that_is_not_one_captioned_figure_cannot_be_deferred() -> None:
    for html in (
        "<figure><p>no caption</p></figure>",
        "<figcaption>x</figcaption><p>no figure end</p>",
        "<figure><figcaption>x</figcaption></noscript></figure>",  # would end the <noscript> early
    ):
        with pytest.raises(ValueError, match="caption comes first"):
            deferred_figure(Markup(html))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("diagram_id", DIAGRAM_IDS)
def test_fragment_for_htmx_and_full_page_otherwise(client: TestClient, diagram_id: str, language: str) -> None:
    fragment = client.get(f"/{language}/lab/{diagram_id}", headers=HX)
    assert fragment.status_code == 200
    assert "HX-Request" in fragment.headers["vary"]
    assert "<html" not in fragment.text
    assert fragment.text.lstrip().startswith('<figure class="dg ')
    assert f'id="diagram-{diagram_id}"' in fragment.text
    assert_clean(fragment.text)

    page = client.get(f"/{language}/lab/{diagram_id}")
    assert page.status_code == 200
    assert "HX-Request" in page.headers["vary"]
    assert f'<html lang="{language}"' in page.text
    assert f'id="diagram-{diagram_id}"' in page.text
    assert f'href="/{language}/lab"' in page.text, "a way back to the lab"
    assert_clean(page.text)


def test_history_restore_gets_the_full_page(client: TestClient) -> None:
    response = client.get("/en/lab/topology", headers=HX | {"HX-History-Restore-Request": "true"})
    assert "<html" in response.text


@pytest.mark.parametrize("diagram_id", DIAGRAM_IDS)
def test_svg_is_xml_with_title_and_desc_it_is_labelled_by(client: TestClient, diagram_id: str) -> None:
    html = client.get(f"/en/lab/{diagram_id}", headers=HX).text
    wide, narrow = chart_svgs(html)
    assert "dg-svg-wide" in (wide.get("class") or "")
    assert "dg-svg-narrow" in (narrow.get("class") or "")
    ids = [element.get("id") for svg in (wide, narrow) for element in svg.iter() if element.get("id")]
    assert len(ids) == len(set(ids)), "each drawing has ids of its own"
    for svg in (wide, narrow):
        assert svg.get("role") == "img"
        title, desc = svg.find(f"{SVG_NS}title"), svg.find(f"{SVG_NS}desc")
        assert title is not None
        assert desc is not None
        assert (title.text or "").strip()
        assert len((desc.text or "").strip()) > 40
        assert (svg.get("aria-labelledby") or "").split() == [title.get("id"), desc.get("id")]
        for element in svg.iter():
            assert "style" not in element.attrib
            assert not {"fill", "stroke"} & set(element.attrib), "paint belongs in the stylesheet"
    assert float((narrow.get("viewBox") or "").split()[2]) == 300


@pytest.mark.parametrize("diagram_id", DIAGRAM_IDS)
def test_form_swaps_only_the_chart_and_submits_to_the_page_it_is_on(client: TestClient, diagram_id: str) -> None:
    page = parse(client.get(f"/en/lab/{diagram_id}", headers=HX).text)
    (form,) = page.find("form")
    root = f"diagram-{diagram_id}"
    assert form["method"] == "get"
    assert form["action"] == f"#{root}", "without JavaScript: this page, at this diagram"
    assert form["hx-get"] == f"/en/lab/{diagram_id}"
    assert "change" in (form["hx-trigger"] or "")
    assert (form["hx-target"], form["hx-select"]) == (f"#{root}-chart", f"#{root}-chart")
    assert form["hx-select-oob"] == f"#{root}-fields"
    assert form["hx-swap"] == "outerHTML"
    assert page.find("div", id=f"{root}-chart")
    assert page.find("div", id=f"{root}-fields")
    (status,) = page.find("p", id=f"{root}-status")
    assert status["role"] == "status", "a polite live region outside the swapped region"
    assert page.find("button", type="submit"), "a submit button for browsers without JavaScript"
    labelled = {a.get("for") for t, a in page.elements if t == "label"}
    for tag, attributes in page.elements:
        if tag in ("select", "input"):
            assert (attributes.get("name") or "").startswith(f"{diagram_id}."), "field names carry the diagram"
        if tag in ("select", "input") and attributes.get("type") not in ("hidden", "radio"):
            assert attributes.get("id") in labelled, f"<{tag} name={attributes.get('name')}> has no <label>"


def test_unknown_diagram_or_language_is_404(client: TestClient) -> None:
    assert client.get("/en/lab/no-such-diagram").status_code == 404
    assert client.get("/en/lab/no-such-diagram", headers=HX).status_code == 404
    assert client.get("/xx/lab/topology").status_code == 404
    assert client.get("/xx/lab").status_code == 404


@pytest.mark.parametrize(("language", "nav"), [("en", "Lab"), ("ko", "실험실")])
def test_lab_shows_every_diagram_in_the_language(client: TestClient, language: str, nav: str) -> None:
    response = client.get(f"/{language}/lab")
    assert response.status_code == 200
    assert f'<html lang="{language}"' in response.text
    page = parse(response.text)
    assert {a.get("href") for a in page.find("a")} >= {f"/{language}/lab"}
    assert f">{nav}</a>" in response.text
    for diagram_id in DIAGRAM_IDS:
        assert f'id="diagram-{diagram_id}"' in response.text
    assert len(page.find("div", **{"class": "lab-diagram"})) == len(DIAGRAM_IDS)
    assert "hx-push-url" not in response.text, "diagrams.js keeps the lab's own address instead"
    assert "data-dg-address" in response.text
    assert len(chart_svgs(response.text)) == 2 * len(DIAGRAM_IDS)
    assert_clean(response.text)
    if language == "ko":
        assert "데이터 표" in response.text
        assert "Data table" not in response.text


@pytest.mark.parametrize("language", LANGUAGES)
def test_chapter_embeds_the_real_diagrams_without_pushing_urls(client: TestClient, language: str) -> None:
    html = client.get(f"/{language}/guides/nvlink").text
    for diagram_id in ("link-compare", "topology", "ring-allreduce"):
        assert '<figure class="dg dg-' in html
        assert f'id="diagram-{diagram_id}"' in html
    assert "diagram-pending" not in html
    assert len(chart_svgs(html)) == 2 * html.count('<figure class="dg dg-') >= 6
    assert "hx-push-url" not in html, "inside a chapter a diagram must not change the address"
    assert_clean(html)


# --- the numbers are the model's ---------------------------------------------------------------------------


def test_link_table_matches_the_presets_and_transfer_times(client: TestClient) -> None:
    html = client.get("/en/lab/link-compare?size=3&unit=GB&scale=log", headers=HX).text
    rows = dict(re.findall(r'<tr data-link="([a-z0-9-]+)">(.*?)</tr>', html, re.S))
    assert set(rows) == set(LINKS)
    for link_id, row in rows.items():
        link = LINKS[link_id]
        values = data_values(row)
        assert_close(values[0], link.per_direction_GBps)
        assert_close(values[1], link.bidirectional_GBps)
        assert_close(values[-1], transfer_time_s(3 * 10**9, link.per_direction_GBps))
        if link.line_rate_Gbps:
            assert_close(values[2], link.line_rate_Gbps)
    assert "logarithmic scale" in html


def test_link_compare_says_which_size_unit(client: TestClient) -> None:
    html = client.get("/en/lab/link-compare?size=1&unit=GiB", headers=HX).text
    assert "1 GiB is 1,073,741,824 B" in html
    nvlink4 = transfer_time_s(2**30, LINKS["nvlink4"].per_direction_GBps)
    assert f"{nvlink4 * 1e3:.3g} ms" in html  # 2.39 ms, the chapter's worked example


@pytest.mark.parametrize(
    ("topology", "a", "b", "links"),
    [
        ("pcie-gen5-8gpu", 0, 1, ["pcie5", "pcie5"]),
        ("pcie-gen5-8gpu", 0, 3, ["pcie5"] * 4),
        ("pcie-gen5-8gpu", 1, 6, ["pcie5", "pcie5", None, "pcie5", "pcie5"]),
        ("dgx-h100", 2, 7, ["nvlink4", "nvlink4"]),
        ("gb200-nvl72", 0, 71, ["nvlink5", "nvlink5"]),
        ("rail-fat-tree", 3, 5, ["nvlink4", "nvlink4"]),
        ("rail-fat-tree", 3, 11, ["pcie5", "ib-ndr", "ib-ndr", "pcie5"]),
        ("rail-fat-tree", 3, 12, ["pcie5", "ib-ndr", "ib-ndr", "ib-ndr", "ib-ndr", "pcie5"]),
    ],
)
def test_topology_lists_hops_and_bottleneck_from_the_presets(
    client: TestClient, topology: str, a: int, b: int, links: list[str | None]
) -> None:
    query = f"topology={topology}&gpu_a={a}&gpu_b={b}&drawn={topology}"
    html = client.get(f"/en/lab/topology?{query}", headers=HX).text
    hops = re.findall(r"<li><span class=\"dg-hop-ends\">.*?</li>", html, re.S)
    assert len(hops) == len(links)
    for hop, link_id in zip(hops, links, strict=True):
        if link_id is None:
            assert "not in the presets" in hop
        else:
            assert data_values(hop) == [LINKS[link_id].per_direction_GBps]
    slowest = min(LINKS[link_id].per_direction_GBps for link_id in links if link_id)
    assert f"{slowest:g} GB/s per direction" in html
    assert html.count('class="dg-path"') >= 2


def test_topology_resets_the_gpus_when_the_machine_changes(client: TestClient) -> None:
    # The GPU lists were drawn for NVL72; the learner picks the 8-GPU board: no 422, its example pair instead.
    response = client.get("/en/lab/topology?topology=dgx-h100&gpu_a=40&gpu_b=70&drawn=gb200-nvl72", headers=HX)
    assert response.status_code == 200
    assert '<option value="0" selected>GPU 0</option>' in response.text


@pytest.mark.parametrize(("gpus", "step"), [(2, 1), (4, 0), (4, 3), (5, 6), (8, 14)])
def test_ring_time_and_bytes_after_k_steps(client: TestClient, gpus: int, step: int) -> None:
    size = 3 * 2**30
    html = client.get(
        f"/en/lab/ring-allreduce?gpus={gpus}&size=3&unit=GiB&system=dgx-a100&step={step}&drawn={gpus}", headers=HX
    ).text
    bandwidth_Bps = SYSTEMS["dgx-a100"].scale_up_GBps * 1e9
    total = simulate_collective(
        CollectiveQuery("all_reduce", system="dgx-a100", gpus_per_node=gpus, algorithm="ring", mode="ideal"), size
    ).time_s
    assert_close(total, 2 * (gpus - 1) / gpus * size / bandwidth_Bps)
    facts = re.search(r'<dl class="dg-facts">(.*?)</dl>', html, re.S)
    assert facts is not None
    chunk, sent, elapsed = data_values(facts.group(1))
    assert_close(chunk, size / gpus)
    assert_close(sent, step * size / gpus)
    assert math.isclose(elapsed, step * (size / gpus) / bandwidth_Bps, rel_tol=1e-9)
    assert f"Step {step} of {2 * (gpus - 1)}" in html
    assert html.count('class="dg-transfer"') == (2 * gpus if step else 0), "each GPU's arrow, in both drawings"


def test_busbw_table_is_the_sweep(client: TestClient) -> None:
    query = (
        "op=all_reduce&mode=calibrated&min_bytes=1024&max_bytes=1073741824&metric=both"
        "&system1=dgx-b200&algorithm1=ring&nodes1=2&system2=none&algorithm2=auto&nodes2=1"
        "&system3=pcie-gen4-8gpu&algorithm3=tree&nodes3=1"
    )
    html = client.get(f"/en/lab/busbw-sweep?{query}", headers=HX).text
    first = sweep(CollectiveQuery("all_reduce", system="dgx-b200", nodes=2, algorithm="ring"), 1024, 2**30)
    third = sweep(CollectiveQuery("all_reduce", system="pcie-gen4-8gpu", nodes=1, algorithm="tree"), 1024, 2**30)
    body = html.split("<tbody>")[1]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    assert len(rows) == len(first) == 21
    for row, one, three in zip(rows, first, third, strict=True):
        values = data_values(row)
        assert values[0] == one.message_bytes
        for actual, expected in zip(
            values[1:],
            (one.time_s, one.algbw_GBps, one.busbw_GBps, three.time_s, three.algbw_GBps, three.busbw_GBps),
            strict=True,
        ):
            assert_close(actual, expected)
    crossover = next(r.message_bytes for r in first if r.bottleneck != "latency")
    assert f"Bandwidth-bound from {_binary(crossover)}" in html
    assert html.count('class="dg-crossover ') == 2 * 2


def _binary(size: int) -> str:
    for exponent, prefix in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 2**exponent:
            return f"{size / 2**exponent:g} {prefix}"
    return f"{size} B"


def test_scaling_points_are_training_steps(client: TestClient) -> None:
    html = client.get(
        "/en/lab/scaling?params_b=70&compute_ms=500&mode=calibrated&system1=dgx-h100&system2=none&system3=none",
        headers=HX,
    ).text
    body = html.split("<tbody>")[1]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    expected = [(1, 2), (1, 4), (1, 8)] + [(nodes, 8) for nodes in (2, 4, 8, 16, 32, 64, 128)]
    assert len(rows) == len(expected)
    first_exposed = None
    for row, (nodes, per_node) in zip(rows, expected, strict=True):
        step = training_step(70 * 10**9, "dgx-h100", nodes, 0.5, 2, gpus_per_node=per_node)
        gpus, time_s = data_values(row)
        assert gpus == nodes * per_node
        assert_close(time_s, step.allreduce_time_s)
        assert ("yes" in row) == step.exposed
        if step.exposed and first_exposed is None:
            first_exposed = nodes * per_node
    assert first_exposed is not None
    assert f"Communication exceeds compute from {first_exposed} GPUs on" in html
    assert html.count('class="dg-exposed"') == 2


# --- bad input: 422 with the message in the form, in the learner's language ------------------------------------

BAD_INPUTS = [
    ("link-compare", "size=0&unit=GiB&scale=linear", "size", "0"),
    ("link-compare", "size=-3&unit=GiB&scale=linear", "size", "-3"),
    ("link-compare", "size=2048&unit=GiB&scale=linear", "size", "2048"),
    ("link-compare", "size=abc&unit=GiB&scale=linear", "size", "abc"),
    ("link-compare", "size=1&unit=XB&scale=linear", "unit", None),
    ("link-compare", "size=1&unit=GiB&scale=cubic", "scale", None),
    ("topology", "topology=dgx-h100&gpu_a=0&gpu_b=8&drawn=dgx-h100", "gpu_b", None),  # a list: only 0..7
    ("topology", "topology=dgx-h200&gpu_a=0&gpu_b=1&drawn=dgx-h200", "topology", None),
    ("ring-allreduce", "gpus=9&size=1&unit=GiB&system=dgx-h100&step=0&drawn=9", "gpus", None),
    ("ring-allreduce", "gpus=4&size=1&unit=GiB&system=dgx-h100&step=7&drawn=4", "step", "7"),
    ("ring-allreduce", "gpus=4&size=1099511627777&unit=MB&system=dgx-h100&step=0&drawn=4", "size", "1099511627777"),
    ("ring-allreduce", "gpus=4&size=1&unit=GiB&system=nope&step=0&drawn=4", "system", None),
    ("busbw-sweep", "system1=pcie-gen5-8gpu&algorithm1=nvls", "algorithm1", None),
    ("busbw-sweep", "system2=gb200-nvl72&nodes2=9", "nodes2", "9"),
    ("busbw-sweep", "min_bytes=4096&max_bytes=1024", "min_bytes", None),
    ("busbw-sweep", "max_bytes=2199023255552", "max_bytes", None),
    ("busbw-sweep", "op=all_everything", "op", None),
    ("scaling", "params_b=0", "params_b", "0"),
    ("scaling", "params_b=600", "params_b", "600"),
    ("scaling", "compute_ms=-5", "compute_ms", "-5"),
    ("scaling", "system1=none", "system1", None),
]


@pytest.mark.parametrize(("diagram_id", "query", "field", "kept"), BAD_INPUTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_bad_input_is_a_422_in_the_learners_words_beside_a_chart(
    client: TestClient, diagram_id: str, query: str, field: str, kept: str | None, language: str
) -> None:
    diagram = DIAGRAMS[diagram_id]
    base = field.rstrip("123") if diagram_id == "busbw-sweep" else field
    label = TRANSLATIONS[language].gettext(diagram.labels[base])
    for headers in (HX, {}):
        response = client.get(f"/{language}/lab/{diagram_id}?{query}", headers=headers)
        assert response.status_code == 422
        assert "HX-Request" in response.headers["vary"]
        assert ("<html" in response.text) == (not headers)
        assert (response.headers.get("hx-reswap") == "none") == bool(headers), "htmx keeps the last good chart"
        error = re.search(r'<p class="dg-error" id="diagram-[a-z-]+-error" role="alert">(.*?)</p>', response.text, re.S)
        assert error is not None
        message = error.group(1).strip()
        assert label in message, f"{message!r} does not name the field as the form does ({label!r})"
        assert not re.search(rf"\b{base}\b", message), f"{message!r} names the form field {base!r}"
        if language == "ko":
            assert re.search("[가-힣]", message), message
            assert message.endswith(("세요.", "니다.")), message
        else:
            assert " must " in message or ": " in message
        page = parse(response.text)
        marked = page.find("select", name=f"{diagram_id}.{field}") + page.find("input", name=f"{diagram_id}.{field}")
        marked += [a for t, a in page.elements if t == "fieldset" and a.get("role") == "radiogroup"]
        assert any(a.get("aria-invalid") == "true" for a in marked), f"{field} is not marked invalid"
        if kept is not None:
            assert f'value="{kept}"' in response.text, "the form keeps what the learner typed"
        assert len(chart_svgs(response.text)) == 2, "a chart stays beside the message"
        assert_clean(response.text)


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Buffer to move must be between 1 byte and 1 TiB (1,024 GiB)."),
        ("ko", "전송할 버퍼에는 1바이트부터 1 TiB (1,024 GiB)까지의 크기를 입력하세요."),
    ],
)
def test_the_size_message_reads_as_a_sentence(client: TestClient, language: str, message: str) -> None:
    html = client.get(f"/{language}/lab/link-compare?size=2048&unit=GiB", headers=HX).text
    assert message in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_decimal_comma_is_understood_and_anything_else_with_commas_is_explained(
    client: TestClient, language: str
) -> None:
    understood = client.get(f"/{language}/lab/link-compare?size=2,5&unit=GiB", headers=HX)
    assert understood.status_code == 200
    assert "2.5 GiB is 2,684,354,560 B" in understood.text or "2.5 GiB" in understood.text
    assert 'href="?link-compare.size=2.5#diagram-link-compare"' in understood.text, "the address says 2.5"
    thousands = client.get(f"/{language}/lab/scaling?params_b=1,024&system2=none&system3=none", headers=HX)
    assert thousands.status_code == 422, "1,024 is a thousand and twenty-four, beyond the model's limit"
    unreadable = client.get(f"/{language}/lab/link-compare?size=2,5,5&unit=GiB", headers=HX)
    assert unreadable.status_code == 422
    assert "2,5" in unreadable.text.split('role="alert">')[1].split("</p>")[0], "the message shows the comma"


def test_the_forms_limits_are_the_servers(client: TestClient) -> None:
    html = {diagram_id: client.get(f"/en/lab/{diagram_id}", headers=HX).text for diagram_id in DIAGRAM_IDS}
    sweep_form = parse(html["busbw-sweep"])
    for number in (1, 2, 3):
        (nodes,) = sweep_form.find("input", name=f"busbw-sweep.nodes{number}")
        assert nodes["type"] == "number"
        assert (int(nodes["min"] or 0), int(nodes["max"] or 0)) == (1, busbw_sweep.MAX_NODES)
        too_many = client.get(f"/en/lab/busbw-sweep?nodes{number}={busbw_sweep.MAX_NODES + 1}", headers=HX)
        assert too_many.status_code == 422
    high = fields.tebibytes(link_compare.MAX_BYTES)
    assert high == fields.tebibytes(ring_allreduce.MAX_BYTES) == "1 TiB"
    for diagram_id in ("link-compare", "ring-allreduce"):
        (size,) = parse(html[diagram_id]).find("input", name=f"{diagram_id}.size")
        assert size["type"] == "text", "type=number reads 2,4 as 24 in Chromium"
        assert size["inputmode"] == "decimal"
        assert f"diagram-{diagram_id}-size-hint" in (size["aria-describedby"] or "").split()
        assert f">from 1 byte to {high}</span>" in html[diagram_id]
        over = client.get(f"/en/lab/{diagram_id}?size={link_compare.MAX_BYTES // 2**30 + 1}&unit=GiB", headers=HX)
        assert over.status_code == 422
        assert client.get(f"/en/lab/{diagram_id}?size={link_compare.MAX_BYTES // 2**30}&unit=GiB").status_code == 200
    for name, maximum, unit in (
        ("params_b", scaling.MAX_PARAMETERS_B, "B"),
        ("compute_ms", scaling.MAX_COMPUTE_MS, "ms"),
    ):
        assert f">above 0, at most {fields.limit(maximum, unit)}</span>" in html["scaling"]
        assert client.get(f"/en/lab/scaling?{name}={maximum * 1.001:.6f}", headers=HX).status_code == 422


# --- the address carries every diagram's state --------------------------------------------------------------

FAT_TREE = "topology.topology=rail-fat-tree&topology.gpu_a=2&topology.gpu_b=29&topology.drawn=rail-fat-tree"


def test_the_lab_is_drawn_in_the_state_of_its_address(client: TestClient) -> None:
    plain = client.get("/en/lab").text
    response = client.get(f"/en/lab?{FAT_TREE}&ring-allreduce.step=2&unknown.field=1&topology.nope=3")
    assert response.status_code == 200
    assert response.headers["cache-control"] == client.get("/en/lab").headers["cache-control"]
    assert response.content == client.get(f"/en/lab?{FAT_TREE}&ring-allreduce.step=2").content, "same state"
    page = parse(response.text)
    (machine,) = page.find("select", name="topology.topology")
    assert '<option value="rail-fat-tree" selected>' in response.text
    assert machine["id"] == "diagram-topology-topology"
    assert "Step 2 of 6" in response.text
    assert response.text.count('<figure class="dg dg-') == plain.count('<figure class="dg dg-') == len(DIAGRAM_IDS)
    fragment = client.get("/en/lab/link-compare", headers=HX).text
    assert fragment.strip() in response.text, "the other diagrams are in their default state"


def test_a_chapter_is_drawn_in_the_state_of_its_address(client: TestClient) -> None:
    response = client.get("/en/guides/nvlink?ring-allreduce.step=3&ring-allreduce.gpus=4")
    assert response.status_code == 200
    assert "Step 3 of 6" in response.text
    assert "Step 3 of 6" not in client.get("/en/guides/nvlink").text
    assert (
        '<link rel="canonical" href="http://testserver/en/guides/nvlink">' in response.text
        or "canonical" in response.text
    )
    bad = client.get("/en/guides/nvlink?topology.gpu_b=99&topology.drawn=dgx-h100")
    assert bad.status_code == 422
    assert bad.headers["cache-control"] == "no-store"


def carried(html: str, diagram_id: str) -> dict[str, str]:
    """The hidden inputs that belong to one diagram's form from outside it: name -> value."""
    inputs = parse(html).find("input", type="hidden", form=f"diagram-{diagram_id}-form")
    return {str(each["name"]): str(each["value"]) for each in inputs}


def test_each_form_carries_the_other_diagrams_states_for_redraw_without_javascript(client: TestClient) -> None:
    response = client.get("/en/lab?topology.gpu_b=6&ring-allreduce.step=1&link-compare.size=2,4")
    assert response.status_code == 200
    html = response.text
    assert len(parse(html).find("form", id="diagram-topology-form")) == 1
    assert carried(html, "topology") == {"ring-allreduce.step": "1", "link-compare.size": "2.4"}
    assert carried(html, "ring-allreduce") == {"topology.gpu_b": "6", "link-compare.size": "2.4"}
    assert carried(html, "scaling") == {"topology.gpu_b": "6", "ring-allreduce.step": "1", "link-compare.size": "2.4"}
    chapter = client.get("/en/guides/nvlink?topology.gpu_b=6").text
    assert carried(chapter, "ring-allreduce") == {"topology.gpu_b": "6"}
    assert carried(chapter, "topology") == {}
    assert "data-dg-carry" not in client.get("/en/lab").text, "a page in its defaults carries nothing"
    # A state that is not valid is not carried: the other forms keep only what was drawn.
    bad = client.get("/en/lab?topology.gpu_b=6&scaling.params_b=%3Cb%3E")
    assert bad.status_code == 422
    assert carried(bad.text, "topology") == {}
    assert carried(bad.text, "ring-allreduce") == {"topology.gpu_b": "6"}


def language_link(html: str, language: str) -> str:
    (link,) = parse(html).find("a", hreflang=language)
    return str(link["href"])


def test_the_language_link_keeps_the_diagram_states_and_nothing_else(client: TestClient) -> None:
    assert language_link(client.get("/en/lab").text, "ko") == "/ko/lab"
    lab = client.get("/en/lab?topology.gpu_b=6&tracker=%3Cscript%3E&ring-allreduce.nope=1&link-compare.size=2,4").text
    assert language_link(lab, "ko") == "/ko/lab?link-compare.size=2.4&topology.gpu_b=6", "in the order of the lab"
    assert "tracker" not in lab
    assert "nope" not in lab
    chapter = client.get("/ko/guides/nvlink?topology.gpu_b=6").text
    assert language_link(chapter, "en") == "/en/guides/nvlink?topology.gpu_b=6"
    own_page = client.get("/en/lab/topology?gpu_b=6").text
    assert language_link(own_page, "ko") == "/ko/lab/topology?topology.gpu_b=6"
    bad = client.get("/en/lab?topology.gpu_b=6&scaling.params_b=%3Cb%3E").text
    assert language_link(bad, "ko") == "/ko/lab?topology.gpu_b=6", "only the states that were drawn"
    korean = client.get("/ko/lab?topology.gpu_b=6")
    assert 'name="topology.gpu_b"' in korean.text
    assert '<option value="6" selected>' in korean.text


def test_the_diagram_address_takes_prefixed_and_plain_names(client: TestClient) -> None:
    plain = client.get("/en/lab/topology?topology=rail-fat-tree&gpu_a=2&gpu_b=29&drawn=rail-fat-tree", headers=HX)
    prefixed = client.get(f"/en/lab/topology?{FAT_TREE}", headers=HX)
    assert plain.status_code == prefixed.status_code == 200
    assert plain.text == prefixed.text


def test_the_share_link_names_only_what_differs_from_the_defaults(client: TestClient) -> None:
    default = parse(client.get("/en/lab/topology", headers=HX).text)
    (link,) = default.find("a", **{"class": "dg-share-link"})
    assert link["href"] == "?#diagram-topology"
    changed = parse(client.get("/en/lab/topology?topology=dgx-h100&gpu_a=0&gpu_b=6&drawn=dgx-h100", headers=HX).text)
    (link,) = changed.find("a", **{"class": "dg-share-link"})
    assert link["href"] == "?topology.gpu_b=6#diagram-topology"
    switched = parse(
        client.get("/en/lab/topology?topology=gb200-nvl72&gpu_a=0&gpu_b=5&drawn=dgx-h100", headers=HX).text
    )
    (link,) = switched.find("a", **{"class": "dg-share-link"})
    assert link["href"] == (
        "?topology.topology=gb200-nvl72&topology.gpu_a=3&topology.gpu_b=60&topology.drawn=gb200-nvl72#diagram-topology"
    ), "the pair the new machine starts from, for that machine"


def test_ring_steps_link_to_the_page_and_swap_the_chart(client: TestClient) -> None:
    page = parse(client.get("/en/lab/ring-allreduce?gpus=6&step=2&drawn=6", headers=HX).text)
    (following,) = page.find("a", id="diagram-ring-allreduce-next")
    assert (
        following["href"]
        == "?ring-allreduce.gpus=6&ring-allreduce.step=3&ring-allreduce.drawn=6#diagram-ring-allreduce"
    )
    assert following["hx-get"] == "/en/lab/ring-allreduce?gpus=6&size=1&unit=GiB&system=dgx-h100&step=3&drawn=6"
    assert following["hx-target"] == following["hx-select"] == "#diagram-ring-allreduce-chart"


@pytest.mark.parametrize(
    ("query", "sentence"),
    [
        ("topology=dgx-h100&gpu_a=0&gpu_b=5", "Both hops run at 450 GB/s per direction"),
        ("topology=pcie-gen5-8gpu&gpu_a=0&gpu_b=2", "All 4 hops run at 63 GB/s per direction"),
        ("topology=rail-fat-tree&gpu_a=2&gpu_b=29", "Hops 2–5 (InfiniBand NDR 4x) all run at 50 GB/s per direction"),
    ],
)
def test_equal_hops_are_said_to_be_equal_not_each_a_bottleneck(client: TestClient, query: str, sentence: str) -> None:
    machine = query.split("&")[0].split("=")[1]
    html = client.get(f"/en/lab/topology?{query}&drawn={machine}", headers=HX).text
    assert sentence in html
    assert 'class="dg-flag"' not in html


def test_a_series_error_says_which_series(client: TestClient) -> None:
    html = client.get("/ko/lab/busbw-sweep?system2=pcie-gen4-8gpu&algorithm2=nvls", headers=HX).text
    assert "시리즈 2: " in html


def test_same_state_is_served_from_the_cache_byte_for_byte(client: TestClient) -> None:
    url = "/en/lab/scaling?params_b=13&compute_ms=90&mode=ideal&system1=dgx-b200&system2=none&system3=none"
    assert client.get(url, headers=HX).content == client.get(url, headers=HX).content


def test_the_sweep_takes_any_size_and_any_node_count_as_nccl_tests_does(client: TestClient) -> None:
    """9.5 GiB on 25 nodes: no power of two, read in the lab for exactly these parameters."""
    size = 19 * 2**29
    query = (
        f"op=all_reduce&mode=ideal&min_bytes={size}&max_bytes={size}&metric=both"
        "&system1=dgx-h100&algorithm1=hierarchical&nodes1=25&system2=none&algorithm2=auto&nodes2=1"
        "&system3=none&algorithm3=auto&nodes3=1"
    )
    for headers in (HX, {}):
        html = client.get(f"/en/lab/busbw-sweep?{query}", headers=headers).text
        assert 'list="diagram-busbw-sweep-sizes"' in html
        assert "Bytes, any whole number: 9.5 GiB" in html
        rows = re.findall(r"<tr>(.*?)</tr>", html.split("<tbody>")[1], re.S)
        assert len(rows) == 1
        expected = sweep(
            CollectiveQuery("all_reduce", system="dgx-h100", nodes=25, algorithm="hierarchical", mode="ideal"),
            size,
            size,
        )
        values = data_values(rows[0])
        assert values[0] == size
        assert math.isclose(values[1], expected[0].time_s, rel_tol=1e-3)
