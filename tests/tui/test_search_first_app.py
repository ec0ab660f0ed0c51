"""The app with a tool-less model answering search-first (Pilot): haiku-tui's search is a row of the turn, the
answer's marker and its attributed sentence are its citations (the evidence pane and the badge say which was
attributed by haiku-tui), and an answer drawn from no passage says it is not grounded."""

from __future__ import annotations

import re

from pydantic_ai.models.function import FunctionModel

from tests.capabilities.scripts import sent_text
from tests.tui.conftest import ask, make_app, settle

QUESTION = "how should I brew green tea and store the leaves?"
LABEL = re.compile(r"^\[(\d+)\] (.*)$", re.M)


def tool_less_model(answer):
    """A model offered no tools: it answers with ``answer(labels)``, labels being passage source → number."""

    async def stream(messages, info):
        assert not info.function_tools  # search-first offers the model nothing to call
        labels = {source: int(n) for n, source in LABEL.findall(sent_text(messages[-1]))}
        yield answer(labels)

    return FunctionModel(stream_function=stream, model_name="tool-less")


def green_then_storage(labels: dict[str, int]) -> str:
    green = next(n for source, n in labels.items() if source.endswith("Green tea"))
    return (
        f"Green tea should be brewed with water at about 80 degrees Celsius [{green}]. "
        "Store tea leaves in an airtight tin away from light, heat and strong smells."
    )


async def test_a_search_first_answer_shows_its_row_citations_and_what_haiku_tui_attributed(small_kb):
    app = make_app(small_kb, model=tool_less_model(green_then_storage), search_first=True)
    async with app.run_test(size=(150, 44)) as pilot:
        await ask(pilot, QUESTION)
        turn = app.main.turn_log.turns[0]
        rows = [row.text for row in turn.rows]
        assert len(rows) == 1 and rows[0].startswith(f"haiku-tui searched “{QUESTION}” → ")
        view = app.workbench.view.questions[0]
        assert view.badge == "grounded" and len(view.citations) == 2 and len(view.attributed) == 1
        (storage,) = view.attributed
        footer = str(turn.query_one(".turn-footer").render())
        assert "✓ grounded" in footer and f"attributed by haiku-tui: [{storage}]" in footer
        # the evidence pane marks the attributed chunk
        prompts = [str(app.main.evidence.get_option_at_index(i).prompt) for i in range(app.main.evidence.option_count)]
        attributed = [p for p in prompts if "attributed by haiku-tui" in p]
        assert len(attributed) == 1 and attributed[0].startswith(f"[{storage}] ") and "Storage" in attributed[0]
        policy = str(app.main.policy_log.get_option_at_index(0).prompt)
        assert f"attributed by haiku-tui: [{storage}]" in policy
        # reopened, the row is the same (drawn from the stored passages)
        assert view.steps[0].text == rows[0]
        # the review screen says which citation haiku-tui attributed
        from haiku_tui.tui.main.modals import ReviewScreen

        app.main.turn_log.focus_selected()
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        statuses = []
        for _ in view.citations:
            statuses.append(str(app.screen.query_one("#review-status").render()))
            await pilot.press("n")
            await settle(pilot)
        attributed = [s for s in statuses if "attributed by haiku-tui" in s]
        assert len(attributed) == 1 and attributed[0].startswith(f"Citation [{storage}]")


async def test_an_answer_from_no_passage_says_it_is_not_grounded_in_the_badge(small_kb):
    model = tool_less_model(lambda labels: "Tea tastes best with a slice of lemon and honey.")
    app = make_app(small_kb, model=model, search_first=True)
    async with app.run_test(size=(150, 44)) as pilot:
        await ask(pilot, QUESTION)
        await settle(pilot)
        footer = str(app.main.turn_log.turns[0].query_one(".turn-footer").render())
        assert "○ ungrounded" in footer
        assert "not grounded: the answer draws on none of the passages haiku-tui found" in footer
